"""wait_for: a timeout cancels the awaited task; a quick one gives its result."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def sleeper(secs):
    await asyncio.sleep(secs)
    return secs


async def main():
    slow = loop.create_task(sleeper(10))
    try:
        await asyncio.wait_for(slow, 2)
    except asyncio.TimeoutError:
        note(loop, f"TimeoutError; slow cancelled: {slow.cancelled()}")
    quick = loop.create_task(sleeper(1))
    result = await asyncio.wait_for(quick, 2)
    note(loop, f"quick: {result}")


loop.run_until_complete(loop.create_task(main()))
note(loop, "done")
loop.close()
