"""asyncio.run: a task left behind that fails while it is being cancelled is reported to
the exception handler (CPython's test_runners.RunTests.
test_asyncio_run_reports_hanging_tasks_errors)."""
import asyncio

from vloop import VirtualLoop, note


async def leftover():
    try:
        await asyncio.sleep(0.1)
    except asyncio.CancelledError:
        1 / 0


def handler(loop, context):
    note(loop, f"handler: {context['message']}; exception: {context['exception']}")


async def main():
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(handler)
    asyncio.create_task(leftover())
    note(loop, "main: returns 123")
    return 123


with asyncio.Runner(loop_factory=VirtualLoop) as runner:
    result = runner.run(main())
    loop = runner.get_loop()
print(f"{loop.time():7.3f} | run returned {result}")
