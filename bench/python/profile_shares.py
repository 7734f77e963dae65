"""Where a Python loop's CPU time goes: a `perf record -e cpu-clock` of one command, its
samples' shares by where they fell (bench/measured/python-profile-loops.json).

    python3 bench/python/profile_shares.py NAME -- COMMAND...      one profile, one JSON line
    python3 bench/python/profile_shares.py --attach PID SECS NAME  a running server's

Each sample is put in one bucket by its binary and symbol (self time, no call graph):
- `kernel`: the kernel (system calls, epoll, sockets, scheduling);
- `gil`: taking and dropping the GIL (CPython's `take_gil`, `drop_gil`,
  `PyEval_RestoreThread`, `PyEval_SaveThread`, `PyGILState_*`) and pyo3's GIL bookkeeping;
- `copies`: `memcpy`/`memmove`, wherever they are;
- `collector`: CPython's cyclic garbage collector (`gc_collect_main`, the `visit_*` and
  `*_traverse` functions it calls);
- `interpreter`: the rest of CPython (`libpython`, `python3.11`, `_asyncio`): Python code,
  calls into Python, objects made and freed;
- `rust`: the rest of scratchloop's `_core` (stage 5 and the crossings);
- `other`: anything else (libc, the loader, uvloop's or rloop's module).
Shares are percent of all the command's samples. `top` lists the ten heaviest symbols.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

GIL = re.compile(r"take_gil|drop_gil|PyEval_RestoreThread|PyEval_SaveThread|PyGILState_|"
                 r"pyo3::gil|GILGuard|gil_is_acquired|LockGIL|pyo3::internal::state")
COPY = re.compile(r"memcpy|memmove")
COLLECTOR = re.compile(r"gc_collect|visit_decref|visit_reachable|_traverse|move_unreachable|"
                       r"subtract_refs|update_refs|deduce_unreachable|move_legacy_finalizers")
LINE = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$")


def bucket(dso, sym):
    if dso.startswith("[kernel") or dso == "[unknown]" and sym.startswith("0xffff"):
        return "kernel"
    if GIL.search(sym):
        return "gil"
    if COPY.search(sym):
        return "copies"
    if COLLECTOR.search(sym) and not dso.startswith("_core"):
        return "collector"
    if dso.startswith("_core"):  # before CPython's: its name has `cpython` in it
        return "rust"
    if dso.startswith(("libpython", "python")) or dso.startswith("_asyncio"):
        return "interpreter"
    return "other"


def shares(data):
    report = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,sym",
         "--percent-limit", "0"],
        check=True, capture_output=True, text=True).stdout
    totals = dict.fromkeys(
        ("kernel", "gil", "copies", "collector", "interpreter", "rust", "other"), 0.0)
    top = []
    for line in report.splitlines():
        found = LINE.match(line)
        if not found:
            continue
        percent, dso, _, sym = float(found[1]), found[2], found[3], found[4].strip()
        totals[bucket(dso, sym)] += percent
        top.append((percent, f"{dso} {sym}"))
    top.sort(reverse=True)
    return ({k: round(v, 1) for k, v in totals.items()},
            [[round(p, 1), what] for p, what in top[:10]])


def main(argv):
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        record = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-o", data]
        if argv[:1] == ["--attach"] and len(argv) == 4:
            pid, secs, name = argv[1], argv[2], argv[3]
            subprocess.run([*record, "-p", pid, "--", "sleep", secs], check=True,
                           stdout=subprocess.DEVNULL, timeout=float(secs) + 60)
        elif len(argv) >= 3 and argv[1] == "--":
            name = argv[0]
            subprocess.run([*record, "--", *argv[2:]], check=True, stdout=subprocess.DEVNULL,
                           timeout=600)
        else:
            print(__doc__, file=sys.stderr)
            return 2
        totals, top = shares(data)
    print(json.dumps({"name": name, **totals, "top": top}, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
