"""stage5::timeout at its edges, against Python 3.11's asyncio.timeout(), which like it
times out an await in the awaiting task, without a task of its own: a tie between the
deadline and a sleep of the same length, a sleep that ends in time, one that does not (the
coroutine is cancelled), a future completed by an earlier timer due with the deadline, and
no time at all for a coroutine that does not wait.

asyncio.wait_for, which wraps a coroutine in a task, gives the first tie the same outcome at
the same instant (TimeoutError at 1.000, one iteration later): checked below on a loop of
its own, whose lines are not printed."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def main():
    try:
        async with asyncio.timeout(1):
            await asyncio.sleep(1)
        note(loop, "tie: the sleep")
    except TimeoutError:
        note(loop, "tie: TimeoutError")

    async with asyncio.timeout(1):
        await asyncio.sleep(0.5)
    note(loop, "in time: the sleep")

    async def slow():
        try:
            await asyncio.sleep(10)
        finally:
            note(loop, "slow: cancelled")

    try:
        async with asyncio.timeout(2):
            await slow()
    except TimeoutError:
        note(loop, "too slow: TimeoutError")

    f = loop.create_future()
    loop.call_later(1, f.set_result, "x")
    try:
        async with asyncio.timeout(1):
            note(loop, f"future due with the deadline: {await f}")
    except TimeoutError:
        note(loop, "future due with the deadline: TimeoutError")

    async def at_once():
        return 7

    async with asyncio.timeout(0):
        note(loop, f"no time, a coroutine that does not wait: {await at_once()}")


loop.run_until_complete(main())
loop.close()

# The same tie under asyncio.wait_for, on a loop of its own.
other = VirtualLoop()


async def wait_for_tie():
    try:
        await asyncio.wait_for(asyncio.sleep(1), 1)
        return "the sleep"
    except asyncio.TimeoutError:
        return "TimeoutError"


assert other.run_until_complete(wait_for_tie()) == "TimeoutError"
assert other.time() == 1.0, other.time()
other.close()
