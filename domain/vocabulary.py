"""The grammar's closed vocabularies: record kinds, analysts, conclusion statuses, kind headings,
evidence layers and route fields (GRAMMAR §1.1, §4, §7).

Plain values with no patterns to compile, so a command that only checks a value against a
vocabulary (``citegraph check``, ``records --kind``) need not import :mod:`domain.grammar`, which
compiles the identifier patterns and builds the member types; the grammar imports what it needs
from here.
"""

from __future__ import annotations

__all__ = [
    "FILE_EXTENSIONS",
    "ANY_ANALYST",
    "STATUS_VALUES",
    "KINDS",
    "ANALYSTS",
    "KIND_HEADINGS",
    "EVIDENCE_LAYERS",
    "ROUTE_FIELDS",
]

ANY_ANALYST = "*"
"""The ``record_prefix`` of a member that may declare every analyst's records: the G1 single-file
result (GRAMMAR §0), which holds the runtime, memory and epistemic analyses in one file."""

STATUS_VALUES = frozenset({
    "absent", "inapplicable", "uninspected", "claimed", "afforded", "wired", "observed", "causally supported",
})
"""Conclusion-status vocabulary (GRAMMAR §4.4): the value of a Statement's ``statuses`` entry when
the status is well formed (:func:`split_status`; ``queries.validation`` refuses the
rest)."""

KINDS = ("CMP", "OBJ", "RTE", "CLM", "ABS", "BAP")
"""Record kinds (GRAMMAR §1.1): components, operative objects, routes, claims, evidenced absences,
behavioral-authority paths."""

ANALYSTS = ("RT", "MEM", "EPI")
"""Declaring-analyst prefixes (GRAMMAR §1.1): runtime, memory, epistemic."""

KIND_HEADINGS = (
    ("CMP", "Components"),
    ("OBJ", "Operative objects"),
    ("RTE", "Routes"),
    ("CLM", "Claims"),
    ("ABS", "Evidenced absences"),
    ("BAP", "Behavioral-authority paths"),
)
"""The six H3 kind headings under ``## Shared records``, in order (GRAMMAR §4.1)."""

FILE_EXTENSIONS = frozenset("""
    md markdown mdx rst txt adoc tex py pyi ipynb js mjs cjs jsx ts mts cts tsx vue svelte json jsonc jsonl ndjson
    yaml yml toml ini cfg conf env lock lockb xml html htm css scss sass less sql graphql gql proto sh bash zsh fish
    ps1 bat rs go java kt kts scala groovy gradle c h cc cpp cxx hpp hh m mm swift rb php pl pm lua r jl ex exs erl
    hrl hs ml mli clj cljs dart zig nim cs fs vb tf hcl dockerfile makefile mk cmake csv tsv parquet pkl pt bin wasm
    svg png jpg jpeg gif webp ico pdf log patch diff gitignore gitattributes dockerignore editorconfig npmrc nvmrc
    example sample tmpl tpl j2 jinja properties plist xcconfig pbxproj sqlite db
""".split())
"""File-name extensions a citation token without ``/`` must end with to be taken for a source
file (GRAMMAR §9 rule 5 says a path ``contains / or a .ext``; real documents also write dotted
identifiers and host names, `` `json.dump` ``, `` `api.example.com` ``, which are no files; GRAMMAR §11.9). A token holding ``/`` is a path whatever it ends with."""

EVIDENCE_LAYERS = ("implementation", "doctrine/design", "reported operation", "observed run", "causal experiment")
"""Evidence layers of the Source register (GRAMMAR §7, §8)."""

ROUTE_FIELDS = (
    "Immediate return", "Later read-back", "Delegated visibility", "Selection predicate",
    "Invalidation or expiry", "Activation or effect", "Evidence limits",
)
"""Route field labels every slug-ID route declaration states once, as unindented bullets (GRAMMAR §4.5)."""
