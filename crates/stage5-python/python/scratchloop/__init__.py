"""scratchloop: asyncio on the event loop of async-from-scratch's stage 5.

Book chapter 9, "Your loop runs asyncio". `ScratchLoop` is an `asyncio.AbstractEventLoop`
whose ready queue, timer heap, selector, self-pipe and signal table are stage 5's Rust code;
`ScratchLoopPolicy` makes `asyncio.run()` (3.11's `asyncio.Runner` asks the policy for its
loop) and `asyncio.new_event_loop()` use it; `run(main())` is `asyncio.run` on it.

    import asyncio, scratchloop
    scratchloop.install()
    asyncio.run(main())

or `python -m scratchloop script.py`.
"""

import asyncio

from ._loop import ScratchLoop

__all__ = ["ScratchLoop", "ScratchLoopPolicy", "install", "new_event_loop", "run"]


class ScratchLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """asyncio's default policy (child watchers included), making `ScratchLoop`s."""

    _loop_factory = ScratchLoop


def new_event_loop():
    """A new `ScratchLoop`."""
    return ScratchLoop()


def install():
    """Make `ScratchLoopPolicy` asyncio's policy: `asyncio.run` then runs on our loop."""
    asyncio.set_event_loop_policy(ScratchLoopPolicy())


def run(main, *, debug=None):
    """`asyncio.run(main)` on a `ScratchLoop`."""
    with asyncio.Runner(debug=debug, loop_factory=ScratchLoop) as runner:
        return runner.run(main)
