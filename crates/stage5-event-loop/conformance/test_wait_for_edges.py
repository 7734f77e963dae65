"""wait_for at its edges: a tie between the timeout and the task, lost when wait_for's timer
was set first, won when the task's was; a done future with timeout 0; a negative timeout
(test_waitfor: test_wait_for_timeout_less_then_0_or_0_*)."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def sleeper(s):
    await asyncio.sleep(s)
    return s


async def main():
    a = loop.create_task(sleeper(2))
    try:
        note(loop, f"tie, task first: {await asyncio.wait_for(a, 2)}")
    except asyncio.TimeoutError:
        note(loop, f"tie, task first: timeout, cancelled {a.cancelled()}")
    b = loop.create_task(sleeper(2))
    await asyncio.sleep(0)
    try:
        note(loop, f"tie, started: {await asyncio.wait_for(b, 2)}")
    except asyncio.TimeoutError:
        note(loop, f"tie, started: timeout, cancelled {b.cancelled()}")
    note(loop, f"done future, timeout 0: {await asyncio.wait_for(b, 0)}")
    c = loop.create_task(sleeper(1))
    try:
        await asyncio.wait_for(c, -1)
    except asyncio.TimeoutError:
        note(loop, f"negative: timeout, cancelled {c.cancelled()}")


loop.run_until_complete(main())
loop.close()
