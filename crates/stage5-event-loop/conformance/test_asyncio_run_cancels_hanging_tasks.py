"""asyncio.run: main's result comes back, and a task main left behind is cancelled before
the loop closes (CPython's test_runners.RunTests.test_asyncio_run_cancels_hanging_tasks)."""
import asyncio

from vloop import VirtualLoop, note

leftover_task = None


async def leftover():
    note(asyncio.get_running_loop(), "leftover: sleeps 0.1 s")
    await asyncio.sleep(0.1)
    note(asyncio.get_running_loop(), "leftover: woke up")


async def main():
    global leftover_task
    leftover_task = asyncio.create_task(leftover())
    note(asyncio.get_running_loop(), "main: returns 123")
    return 123


with asyncio.Runner(loop_factory=VirtualLoop) as runner:
    result = runner.run(main())
    loop = runner.get_loop()
print(f"{loop.time():7.3f} | run returned {result}; leftover cancelled: "
      f"{leftover_task.cancelled()}; loop closed: {loop.is_closed()}")
