"""The same asyncio programs on CPython's loop and on ours: output identical line by line.

Book chapter 9, "The same program on both loops". Each `programs/*.py` is a small asyncio
program (sleeps, gather, a Queue, wait_for, an echo server on 127.0.0.1, contextvars,
threads) that prints what ran in which order. It runs twice, as `python prog.py` (CPython's
own `SelectorEventLoop`) and as `python -m scratchloop prog.py` (ours), each in a process
of its own with a timeout, and the two outputs are compared line by line. A difference
fails, unless the program is one of `DEVIATIONS`, whose difference is documented: both
outputs are then shown. Prints `same program: P identical, D documented deviations,
F different of N` and exits 1 on an undocumented difference.
"""

import difflib
import glob
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVIATIONS = {
    "timer_ties.py": "timers due at the same instant: CPython's heap leaves ties in "
    "heapq's order, stage 5's runs them first in, first out",
}


def output(args):
    """A program's standard output and exit code (None if killed after 60 s)."""
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)
        return out + (f"[exit {proc.returncode}] {err.strip()}" if proc.returncode else ""), proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "[hung: killed after 60 s]", None


def main():
    programs = sorted(glob.glob(os.path.join(HERE, "programs", "*.py")))
    identical = documented = different = 0
    for path in programs:
        name = os.path.basename(path)
        theirs, _ = output([path])
        ours, _ = output(["-m", "scratchloop", path])
        if theirs == ours:
            identical += 1
            print(f"  same  {name}: {len(ours.splitlines())} lines identical")
            continue
        diff = "\n".join(difflib.unified_diff(
            theirs.splitlines(), ours.splitlines(), "asyncio", "scratchloop", lineterm=""))
        if name in DEVIATIONS:
            documented += 1
            print(f"  documented deviation {name}: {DEVIATIONS[name]}\n{diff}")
        else:
            different += 1
            print(f"  DIFFERENT {name}:\n{diff}")
    print(f"same program: {identical} identical, {documented} documented deviations, "
          f"{different} different of {len(programs)}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
