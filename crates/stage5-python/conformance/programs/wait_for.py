"""wait_for and timeout: in time, too late, and the cancellation the waiter sees."""
import asyncio


async def slow(secs, log):
    try:
        await asyncio.sleep(secs)
        return f"slept {secs}"
    except asyncio.CancelledError:
        log.append(f"slow({secs}) cancelled")
        raise


async def main():
    log = []
    print(await asyncio.wait_for(slow(0.01, log), timeout=1))
    try:
        await asyncio.wait_for(slow(1, log), timeout=0.02)
    except TimeoutError:
        print("wait_for timed out")
    try:
        async with asyncio.timeout(0.02):
            await slow(1, log)
    except TimeoutError:
        print("timeout() timed out")
    print(await asyncio.wait_for(slow(0, log), timeout=None))
    print("\n".join(log))


asyncio.run(main())
