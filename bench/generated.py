"""A generated file, written or checked (the project's own; no book chapter retells it).

The report scripts beside this file (`counts_report.py`, `loops_report.py`,
`proactor_report.py`) each make a page or a picture from committed data; with `--check`
they write nothing and fail instead when the committed file is not what they would write,
which is how `tests/figures.rs` ties the book's tables and pictures to their data.
"""

import sys


def write_or_check(path, text, check, made_from, remake):
    """Write `text` to `path` and return 0; with `check`, write nothing and return 0 if
    `path` holds `text` already, else 1, saying on standard error what it should be made
    from (`made_from`) and the command that remakes it (`remake`)."""
    if not check:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    try:
        with open(path, encoding="utf-8") as f:
            on_disk = f.read()
    except FileNotFoundError:
        on_disk = ""
    if on_disk == text:
        return 0
    print(f"{path} is not what {made_from} makes now; to remake it: {remake}", file=sys.stderr)
    return 1
