"""A task that awaits itself gets a RuntimeError at its next step, and can go on
(CPython's Task.__step, "Task cannot await on itself")."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()
me = None


async def main():
    note(loop, "awaits itself")
    try:
        await me
    except RuntimeError as error:
        if str(error).startswith("Task cannot await on itself"):
            note(loop, "RuntimeError: Task cannot await on itself")
    await asyncio.sleep(1)
    note(loop, "slept 1 s")
    return 5


me = loop.create_task(main())
note(loop, f"result: {loop.run_until_complete(me)}")
me = None
loop.close()
