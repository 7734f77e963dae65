"""run_until_complete refuses a future of another loop (it would wait for ever)."""
from vloop import VirtualLoop, note

loop = VirtualLoop()
other = VirtualLoop()


async def coro():
    return 1


f = other.create_future()
task = other.create_task(coro())
for what, future in [("future", f), ("task", task)]:
    try:
        loop.run_until_complete(future)
    except ValueError as error:
        note(loop, f"{what}: {error}")
note(loop, f"other loop's task: {other.run_until_complete(task)}")
other.close()
