"""sleep(0) yields once: three tasks take turns, round robin."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def worker(name):
    for i in range(3):
        note(loop, f"{name} {i}")
        await asyncio.sleep(0)


tasks = [loop.create_task(worker(name)) for name in "ABC"]
loop.run_until_complete(asyncio.gather(*tasks))
note(loop, "done")
loop.close()
