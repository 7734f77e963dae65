"""Sleeps, call_soon and call_later: who runs when, in which order (deadlines 0.1 s apart,
so that a loaded machine's stall does not merge two of them into one iteration)."""
import asyncio


async def sleeper(name, secs, log):
    log.append(f"{name} sleeps {secs}")
    await asyncio.sleep(secs)
    log.append(f"{name} woke")


async def main():
    loop = asyncio.get_running_loop()
    log = []
    loop.call_soon(log.append, "soon 1")
    loop.call_later(0.3, log.append, "later 0.3")
    loop.call_later(0.1, log.append, "later 0.1")
    loop.call_soon(log.append, "soon 2")
    tasks = [asyncio.create_task(sleeper(n, s, log)) for n, s in
             (("a", 0.4), ("b", 0.0), ("c", 0.2), ("d", 0.0))]
    await asyncio.sleep(0)
    log.append("main after sleep(0)")
    await asyncio.gather(*tasks)
    await asyncio.sleep(0.01)
    print("\n".join(log))


asyncio.run(main())
