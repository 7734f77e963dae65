"""run_in_executor and call_soon_threadsafe: threads hand work back to the loop."""
import asyncio
import threading


def blocking(n):
    return sum(range(n))


async def main():
    loop = asyncio.get_running_loop()
    print(await loop.run_in_executor(None, blocking, 1000))
    done = loop.create_future()
    threading.Thread(target=lambda: loop.call_soon_threadsafe(done.set_result, "from a thread")).start()
    print(await done)
    print(await asyncio.to_thread(blocking, 10))


asyncio.run(main())
