"""gather of sleeps 3, 1 and 2 s: done at 3 s, results in argument order."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


async def sleeper(secs):
    await asyncio.sleep(secs)
    note(loop, f"slept {secs}")
    return secs


tasks = [loop.create_task(sleeper(secs)) for secs in (3, 1, 2)]
results = loop.run_until_complete(asyncio.gather(*tasks))
note(loop, f"results {results}")
loop.close()
