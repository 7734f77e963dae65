"""A task awaits a future that is then cancelled, and lets the CancelledError through:
the task ends cancelled (CPython's test_tasks.test_cancel_inner_future)."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()
f = loop.create_future()


async def task():
    await f
    return 12


t = loop.create_task(task())


def cancel_inner():
    note(loop, f"cancel the inner future: {f.cancel()}")


loop.call_later(1, cancel_inner)
try:
    loop.run_until_complete(t)
except asyncio.CancelledError:
    note(loop, "CancelledError")
note(loop, f"future cancelled: {f.cancelled()}, task cancelled: {t.cancelled()}")
loop.close()
