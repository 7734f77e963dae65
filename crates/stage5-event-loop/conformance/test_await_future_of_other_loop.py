"""A task that awaits a pending future of another loop gets a RuntimeError at its next
step, and can go on; a done one just gives its result (CPython's Task.__step, "got Future
attached to a different loop")."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()
other = VirtualLoop()


async def sleeper():
    await asyncio.sleep(1)


async def main():
    done = other.create_future()
    done.set_result(7)
    note(loop, f"a done future of the other loop: {await done}")
    for what, awaited in [
        ("a pending future", other.create_future()),
        ("a task", other.create_task(sleeper())),
    ]:
        try:
            note(loop, f"awaits {what} of the other loop")
            await awaited
        except RuntimeError as error:
            if "got Future" in str(error) and "attached to a different loop" in str(error):
                note(loop, "RuntimeError: Task got Future attached to a different loop")
    await asyncio.sleep(1)
    note(loop, "slept 1 s on its own loop")


loop.run_until_complete(main())
other.run_until_complete(asyncio.sleep(0))
for task in asyncio.all_tasks(other):
    task.cancel()
other.run_until_complete(asyncio.sleep(0))
other.close()
loop.close()
