"""Eight timers due at the same instant: the order they run in.

CPython's heap compares timers by `when` only, so equal deadlines come out in whatever order
`heapq` leaves them; stage 5's heap breaks ties by arrival (first in, first out). This is
the one documented difference the comparison shows."""
import asyncio


async def main():
    loop = asyncio.get_running_loop()
    out = []
    when = loop.time() + 0.01
    for i in range(8):
        loop.call_at(when, out.append, i)
    await asyncio.sleep(0.03)
    print(out)


asyncio.run(main())
