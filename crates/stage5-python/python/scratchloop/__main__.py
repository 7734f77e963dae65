"""`python -m scratchloop script.py [args...]`: run a script with our loop as asyncio's.

Book chapter 9, "A policy and a runner". The policy is installed first, so the script's
`asyncio.run(...)` (or `asyncio.new_event_loop()`) gets a `ScratchLoop`; the script runs as
`__main__`, with `sys.argv` as if Python had run it directly.
"""

import os
import runpy
import sys

from . import install


USAGE = "usage: python -m scratchloop script.py [args...]"
HELP = """
Run script.py as Python would, with asyncio's policy making scratchloop's loops: its
asyncio.run(...) and asyncio.new_event_loop() run on stage 5's Rust event loop."""


def main():
    if len(sys.argv) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    if sys.argv[1] in ("-h", "--help"):
        print(USAGE + "\n" + HELP)
        return 0
    if not os.path.isfile(sys.argv[1]):
        # As `python missing.py` says it: one line and exit code 2, not runpy's traceback.
        print(f"python -m scratchloop: can't open file {sys.argv[1]!r}: no such file",
              file=sys.stderr)
        return 2
    install()
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
    runpy.run_path(sys.argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
