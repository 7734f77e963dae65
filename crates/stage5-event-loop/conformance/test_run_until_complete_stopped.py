"""A loop stopped before the future completes: run_until_complete fails."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def cb():
    note(loop, "cb: stop(), then sleep(0.1)")
    loop.stop()
    await asyncio.sleep(0.1)


task = loop.create_task(cb())
try:
    loop.run_until_complete(task)
except RuntimeError as error:
    note(loop, f"error: {error}")
note(loop, f"task done: {task.done()}")
