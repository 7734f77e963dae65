"""Cancelling a sleeping task: its next step ends it as cancelled, and its timer is cancelled."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def sleeper():
    note(loop, "sleeping 10 s")
    await asyncio.sleep(10)
    note(loop, "woke up")


task = loop.create_task(sleeper())


def cancel_it():
    note(loop, f"cancel(): {task.cancel()}")


loop.call_later(1, cancel_it)
try:
    loop.run_until_complete(task)
except asyncio.CancelledError:
    note(loop, "CancelledError")
note(loop, f"cancelled: {task.cancelled()}, {len(loop._scheduled)} scheduled, "
           f"{loop._timer_cancelled_count} cancelled")
loop.close()
