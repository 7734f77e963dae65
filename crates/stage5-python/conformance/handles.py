"""The handles an asyncio program gives its loop, recorded: what scheduled each, when it ran.

Book chapter 9, "What asyncio asks of a loop" (its picture). asyncio's layers above the
loop (`Task`, `Future`, `sleep`, `gather`) reach the loop's core only through `call_soon`
and `call_at`, and the core runs each handle in its turn. This records those calls as a
program makes them: each handle, which handle's run scheduled it (`-`: none, the program
before the loop ran), soon or after what delay, which task's step it runs, and each run
with the lines it printed, until the program's first `stop()`.

    python handles.py programs/countdown.py > handles/countdown.txt
    python handles.py --loop scratchloop programs/countdown.py

The loop is CPython's `SelectorEventLoop`, or with `--loop scratchloop` scratchloop's
`ScratchLoop`, subclassed to watch the two calls. The root's `tests/timelines.rs` replays a
record on stage 5's loop, making the same calls, and draws the book's picture from that run.
"""

import asyncio
import io
import os
import runpy
import sys


class Record:
    """The lines of the record, and which handle runs now."""

    def __init__(self):
        self.lines = []
        self.running = None  # the handle whose callback runs now
        self.on = True  # until the program's first stop()
        self.next_id = 1
        self.tasks = {}  # id(task) -> its coroutine's name
        self.creating = None  # the coroutine's name while create_task runs

    def note(self, *words):
        if self.on:
            self.lines.append(" ".join(str(w) for w in words))


class Said(io.TextIOBase):
    """Standard output, each line noted as said by the handle that runs."""

    def __init__(self, record):
        self.record = record
        self.pending = ""

    def write(self, text):
        self.pending += text
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            self.record.note("say", self.record.running or "-", line)
        return len(text)


def recording(base, record):
    """`base` (a loop class) with its `call_soon`, `call_at`, `create_task` and `stop`
    watched."""

    class Recording(base):
        def create_task(self, coro, **kwargs):
            record.creating = getattr(coro, "__qualname__", "?")
            try:
                task = super().create_task(coro, **kwargs)
            finally:
                record.creating = None
            record.tasks.setdefault(id(task), getattr(coro, "__qualname__", "?"))
            return task

        def call_soon(self, callback, *args, context=None):
            return super().call_soon(self._watched(callback, "soon"), *args, context=context)

        def call_at(self, when, callback, *args, context=None):
            delay = max(0.0, when - self.time())
            return super().call_at(when, self._watched(callback, f"later {delay:.3f}"),
                                   *args, context=context)

        def stop(self):
            record.note("stop", record.running or "-")
            record.on = False
            super().stop()

        def _watched(self, callback, how):
            if not record.on:
                return callback
            handle = f"h{record.next_id}"
            record.next_id += 1
            task = self._task_of(callback)
            record.note(how.split()[0], handle, "by", record.running or "-",
                        *how.split()[1:], "name", _name(callback), "task", task)

            def run(*args):
                outer, record.running = record.running, handle
                record.note("run", handle)
                try:
                    return callback(*args)
                finally:
                    owner = getattr(callback, "__self__", None)
                    if isinstance(owner, asyncio.Task) and owner.done():
                        record.note("finished", handle)
                    record.running = outer

            return run

        def _task_of(self, callback):
            # A step (`TaskStepMethWrapper`) and a wake-up (`task_wakeup`) both have the
            # task as `__self__`; a task's first step is scheduled while it is created.
            owner = getattr(callback, "__self__", None)
            if not isinstance(owner, asyncio.Task):
                return "-"
            if id(owner) not in record.tasks and record.creating is not None:
                record.tasks[id(owner)] = record.creating
            return record.tasks.get(id(owner), "?")

    return Recording


def _name(callback):
    if type(callback).__name__ == "TaskStepMethWrapper":
        return "Task.__step"
    if getattr(callback, "__name__", "") == "task_wakeup":
        return "Task.__wakeup"
    return getattr(callback, "__qualname__", type(callback).__name__).replace(" ", "_")


def main():
    args = sys.argv[1:]
    base, source = asyncio.SelectorEventLoop, "CPython's asyncio loop"
    if args[:1] == ["--loop"] and args[1:2] == ["scratchloop"]:
        import scratchloop
        base, source, args = scratchloop.ScratchLoop, "scratchloop", args[2:]
    if len(args) != 1 or not os.path.isfile(args[0]):
        print("usage: python handles.py [--loop scratchloop] program.py", file=sys.stderr)
        return 2
    record = Record()
    loop_class = recording(base, record)

    class Policy(asyncio.DefaultEventLoopPolicy):
        _loop_factory = loop_class

    asyncio.set_event_loop_policy(Policy())
    out, sys.stdout = sys.stdout, Said(record)
    try:
        runpy.run_path(args[0], run_name="__main__")
    finally:
        sys.stdout = out
    version = ".".join(str(n) for n in sys.version_info[:3])
    print(f"# {os.path.basename(args[0])} on {source}, Python {version}: "
          "recorded by conformance/handles.py")
    print("\n".join(record.lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
