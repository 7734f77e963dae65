"""gather: results in argument order, exceptions returned or raised, cancellation."""
import asyncio


async def work(n, fail=False):
    await asyncio.sleep(n / 20)  # 50 ms apart: a loaded machine stalls for more than 10
    print(f"work {n} done")
    if fail:
        raise ValueError(f"work {n} failed")
    return n * n


async def main():
    print(await asyncio.gather(work(3), work(1), work(2)))
    print(await asyncio.gather(work(2, fail=True), work(1), return_exceptions=True))
    try:
        await asyncio.gather(work(1, fail=True), work(2))
    except ValueError as e:
        print("raised", e)
    await asyncio.sleep(0.15)  # work(2) of the gather that raised ends meanwhile
    slow = asyncio.gather(work(50), work(60))
    await asyncio.sleep(0.01)
    slow.cancel()
    try:
        await slow
    except asyncio.CancelledError:
        print("gather cancelled")


asyncio.run(main())
