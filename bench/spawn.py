"""The starter of timed commands: ``python -S -I bench/spawn.py OUT_FD ERR_FD``, kept for a run.

The harness cannot measure a child's peak memory itself: on Linux a child's ``ru_maxrss`` keeps the
high-water mark of the pages it had before ``exec``, and a child forked (or vforked) from the
harness starts with all of the harness's pages (``citegraph --version`` measured 316-324 MB from a
harness holding 300 MB). So the harness keeps this small interpreter (``-S``: no site packages,
``-I``: no environment-driven configuration; about 8 MB), which forks and execs each command, reaps
it with ``os.wait4`` and reports its figures, as GNU ``time`` does. It is kept rather than started
per command because a fresh process's first fork is slow (20-60 ms more wall time on a loaded
machine), which would be counted in the command's time.

Requests are JSON lines on standard input, one per command, answered in order by JSON lines on
standard output. A request: ``cmd`` (the argument list; ``cmd[0]`` searched on the request's
``PATH``), ``cwd``, ``env`` (the command's whole environment), ``stdin``/``stdout``/``stderr`` (file
paths; absent: ``/dev/null`` for ``stdin``, and the harness's own streams, the descriptors
``OUT_FD`` and ``ERR_FD`` it passed, for the others), ``timeout`` (seconds; SIGKILL after it) and
``memory_gb`` (the address space is capped, ``RLIMIT_AS``). An answer: ``wall_s`` (from just before
the fork to the reaping), ``cpu_s`` (user + system), ``peak_rss_mb`` (the command's own
``ru_maxrss``, MiB; at least this starter's size, about 8 MiB, which a command has before its
``exec``), ``exit`` (its exit code, negative for a signal) and ``killed`` (stopped by the timeout).
The starter exits at the end of its input.

Only the standard library, imported before any clock starts.
"""

import json
import os
import resource
import signal
import sys
import time


def _child(request: dict, out_fd: int, err_fd: int) -> None:
    """In the forked child: streams, folder and limits as requested, then ``exec``; never returns."""
    try:
        os.close(0)  # the request pipe
        os.close(1)  # the answer pipe
        streams = [(0, request.get("stdin") or os.devnull, os.O_RDONLY),
                   (1, request.get("stdout"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                   (2, request.get("stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)]
        for fd, path, flags in streams:
            if path:
                opened = os.open(path, flags, 0o644)
                if opened == fd:
                    os.set_inheritable(fd, True)  # os.open's descriptors are closed at exec (PEP 446)
                else:
                    os.dup2(opened, fd)
                    os.close(opened)
            elif fd != (out_fd if fd == 1 else err_fd):
                os.dup2(out_fd if fd == 1 else err_fd, fd)
        if request.get("cwd"):
            os.chdir(request["cwd"])
        if request.get("memory_gb"):
            cap = int(request["memory_gb"] * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        cmd = request["cmd"]
        os.execvpe(cmd[0], cmd, request.get("env") or os.environ)
    except BaseException as exc:  # noqa: BLE001 - the child must never return into this program
        os.write(2, f"bench/spawn.py: cannot run {request['cmd'][0]}: {exc}\n".encode())
    os._exit(127)


def run(request: dict, out_fd: int, err_fd: int) -> dict:
    """Fork and exec one request's command, wait for it and return its figures (module docstring)."""
    killed = []
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(request, out_fd, err_fd)

    def kill(_signum: int, _frame: object) -> None:
        killed.append(True)
        try:  # noqa: SIM105 - contextlib is one more import in the starter
            os.kill(pid, signal.SIGKILL)  # still ours until reaped below, so it cannot hit another process
        except ProcessLookupError:
            pass

    if request.get("timeout") is not None:
        signal.signal(signal.SIGALRM, kill)
        signal.setitimer(signal.ITIMER_REAL, max(float(request["timeout"]), 0.001))
    _, status, usage = os.wait4(pid, 0)  # retried after the alarm's handler (PEP 475)
    wall = time.perf_counter() - t0
    signal.setitimer(signal.ITIMER_REAL, 0)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
            "exit": os.waitstatus_to_exitcode(status), "killed": bool(killed)}


def main() -> int:
    out_fd, err_fd = int(sys.argv[1]), int(sys.argv[2])
    for fd in (out_fd, err_fd):  # the commands get them as 1 and 2 only (dup2 makes those inheritable)
        os.set_inheritable(fd, False)
    for line in sys.stdin:
        answer = run(json.loads(line), out_fd, err_fd)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
