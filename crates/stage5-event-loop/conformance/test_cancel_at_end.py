"""A task that cancels itself, then returns: it ends cancelled, not with its value
(CPython's test_tasks.test_cancel_at_end)."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def task():
    note(loop, f"cancel(): {t.cancel()}")
    return 12


t = loop.create_task(task())
try:
    loop.run_until_complete(t)
except asyncio.CancelledError:
    note(loop, "CancelledError")
note(loop, f"cancelled: {t.cancelled()}, done: {t.done()}")
loop.close()
