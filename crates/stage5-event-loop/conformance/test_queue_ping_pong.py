"""Two tasks, two queues: ping puts and waits for the reply, pong answers."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()
asyncio.set_event_loop(loop)
requests = asyncio.Queue()
replies = asyncio.Queue()


async def ping():
    for i in range(3):
        note(loop, f"ping {i}")
        await requests.put(i)
        reply = await replies.get()
        note(loop, f"ping got {reply}")


async def pong():
    for _ in range(3):
        i = await requests.get()
        note(loop, f"pong got {i}")
        await replies.put(i * 10)


tasks = [loop.create_task(ping()), loop.create_task(pong())]
loop.run_until_complete(asyncio.gather(*tasks))
note(loop, "done")
loop.close()
