"""The seeds' countdown and countup (seed 003, the coroutine version), on asyncio: two tasks
sleeping different lengths, their lines interleaved by the loop's timers. No two wake-ups
are less than 0.1 s apart, so the order is the loops' to agree on, not the machine's."""
import asyncio


async def countdown(n):
    while n > 0:
        print("Down", n)
        await asyncio.sleep(0.5)
        n -= 1


async def countup(stop):
    x = 0
    while x < stop:
        print("Up", x)
        await asyncio.sleep(0.2)
        x += 1


async def main():
    await asyncio.gather(countdown(3), countup(5))


asyncio.run(main())
