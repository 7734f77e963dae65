"""The countdown and countup of chapters 2, 3 and 6 (Beazley's talk, its coroutine
version), on asyncio: two tasks sleeping different lengths, their lines interleaved by the
loop's timers. No two wake-ups are less than 0.1 s apart (countdown's at 0.7, 1.4 and
2.1 s, countup's every 0.2 s up to 1.0 s), so the order is the loops' to agree on, not the
machine's. Chapter 9's picture is this program's handles (`handles.py`)."""
import asyncio


async def countdown(n):
    while n > 0:
        print("Down", n)
        await asyncio.sleep(0.7)
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
