"""gather and wait_for refuse a future of another loop (ValueError from ensure_future)
instead of waiting for a loop that does not run."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()
other = VirtualLoop()


async def main():
    mine = loop.create_future()
    theirs = other.create_future()
    for what, make in [
        ("gather", lambda: asyncio.gather(mine, theirs)),
        ("wait_for", lambda: asyncio.wait_for(theirs, 1)),
    ]:
        try:
            await make()
        except ValueError as error:
            note(loop, f"{what}: {error}")
    note(loop, f"mine still pending: {not mine.done()}")


loop.run_until_complete(main())
other.close()
loop.close()
