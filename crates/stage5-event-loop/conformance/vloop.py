"""A CPython asyncio loop on virtual time, for comparing orders with stage 5.

`VirtualLoop` is CPython's own `BaseEventLoop`, untouched: its `_run_once`, `call_soon`,
`call_later`, futures and tasks are the real ones. Only three things are replaced:

- `time()` reads a virtual clock that starts at 0.0;
- the selector is a stand-in whose `select(timeout)` returns no events and, like stage 5
  on its virtual clock, moves the clock forward by `timeout` instead of waiting (with no
  timeout at all it raises, as stage 5 reports `NothingToWaitFor`);
- `_run_once` counts iterations, so that every line can show `[n]` as stage 5's trace does.

`note(loop, text)` prints a line in the format of stage 5's transcripts,
`  1.000 | [3] text`, so the two outputs can be compared line by line.
"""

import asyncio
import logging
import sys

if sys.version_info[:2] != (3, 11):
    # Later versions changed some internals these orders depend on (3.12 rewrote wait_for).
    print(f"SKIP: these scenarios are written against Python 3.11's asyncio, "
          f"not {sys.version.split()[0]}")
    sys.exit(0)


class VirtualSelector:
    def __init__(self, loop):
        self.loop = loop

    def select(self, timeout):
        if timeout is None:
            raise RuntimeError("nothing to wait for")
        if timeout > 0:
            self.loop._now += timeout
        return []

    def close(self):
        pass


class VirtualLoop(asyncio.BaseEventLoop):
    def __init__(self):
        super().__init__()
        self._now = 0.0
        self._selector = VirtualSelector(self)
        self.iteration = 0
        self.set_debug(False)

    def time(self):
        return self._now

    def advance(self, seconds):
        """What a callback that blocks the loop for `seconds` does to the virtual clock."""
        self._now += seconds

    def _run_once(self):
        self.iteration += 1
        super()._run_once()

    def _process_events(self, event_list):
        pass

    def _write_to_self(self):
        pass


def note(loop, text):
    print(f"{loop.time():7.3f} | [{loop.iteration}] {text}")


def capture_log(loop):
    """Print the asyncio logger's records as notes, as stage 5's tests capture its logger."""

    class Handler(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            exc = record.exc_info[1] if record.exc_info else None
            note(loop, f"log {record.levelname}: {normalize(message)}"
                 + (f": {exc}" if exc is not None else ""))

    logger = logging.getLogger("asyncio")
    logger.handlers[:] = [Handler()]
    logger.propagate = False


def normalize(message):
    """Keep what both loops say alike: the message without the callback's repr."""
    if message.startswith("Exception in callback"):
        return "Exception in callback"
    if message.startswith("Unhandled error in exception handler"):
        return "Unhandled error in exception handler"
    if message.startswith("Executing "):
        return "Executing <handle> took " + message.rsplit(" took ", 1)[1]
    return message
