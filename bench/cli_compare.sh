#!/bin/bash
# usage: bench/cli_compare.sh CITEGRAPH OUTDIR HOME SET RECORD: run the 60 invocations of bench/cli_invocations.txt
# (S, R: the set and record; help at 80 and 160 columns) into OUTDIR (stdout, stderr, exit code each);
# compare two runs (main's citegraph and a branch's) with diff -r; start both in the same folder (SARIF names it).
cg=$1; outdir=$2; home=$3; S=$4; R=$5
rm -rf "$outdir"; mkdir -p "$outdir"; i=0
while IFS= read -r line; do
  i=$((i+1)); args=${line//S\/overview/$S/overview}; 
  set -f; arr=($args); set +f
  for k in "${!arr[@]}"; do case "${arr[$k]}" in S) arr[$k]=$S;; R) arr[$k]=$R;; --set=S) arr[$k]=--set=$S;; esac; done
  case "$line" in *--help*|--version|--bogus) homeopt=();; *) homeopt=(--home "$home");; esac
  for cols in 80 160; do
    if [ $cols = 160 ] && [[ "$line" != *--help* ]]; then continue; fi
    COLUMNS=$cols "$cg" "${arr[@]}" "${homeopt[@]}" >"$outdir/$i.$cols.out" 2>"$outdir/$i.$cols.err" </dev/null
    echo $? >"$outdir/$i.$cols.rc"; echo "$line" > "$outdir/$i.cmd"
  done
done < "$(dirname "$0")/cli_invocations.txt"
echo "$i invocations"
