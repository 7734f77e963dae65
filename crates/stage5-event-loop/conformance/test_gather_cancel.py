"""Cancelling a gather: False once it is done (its other children run on), False the
second time; a task awaiting it cancelled twice ends after the children
(CPython's _GatheringFuture.cancel, test_tasks.test_cancel_gather_2)."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def sleeper(secs):
    await asyncio.sleep(secs)
    return secs


async def fails(secs):
    await asyncio.sleep(secs)
    raise ValueError("bad")


async def waits_for(awaited):
    await awaited


async def main():
    a, b = loop.create_task(fails(1)), loop.create_task(sleeper(5))
    outer = asyncio.gather(a, b)
    try:
        await outer
    except ValueError as error:
        note(loop, f"gather failed: {error}")
    note(loop, f"cancel the failed gather: {outer.cancel()}")
    note(loop, f"the other child goes on: {await b}")

    c, d = loop.create_task(sleeper(1)), loop.create_task(sleeper(2))
    outer = asyncio.gather(c, d)
    waiting = loop.create_task(waits_for(outer))
    await asyncio.sleep(0)
    note(loop, f"cancel the waiting task: {waiting.cancel()}, {waiting.cancel()}")
    note(loop, f"cancel the gather again: {outer.cancel()}")
    try:
        await waiting
    except asyncio.CancelledError:
        note(loop, f"waiting task cancelled; children: {c.cancelled()}, {d.cancelled()}")


loop.run_until_complete(main())
loop.close()
