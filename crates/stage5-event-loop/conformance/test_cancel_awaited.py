"""Cancelling a task cancels what it awaits: a future, a task, a gather and its children
(CPython's Task.cancel cancels its _fut_waiter; test_tasks.test_cancel_gather_1)."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()


def watch(name, fut):
    fut.add_done_callback(lambda f: note(loop, f"{name} done, cancelled: {f.cancelled()}"))


async def sleeper(secs):
    await asyncio.sleep(secs)
    return secs


async def waits_for(awaited):
    await awaited


async def cancel_outer(name, awaited, watched):
    if watched:
        watch(f"awaited {name}", awaited)
    outer = loop.create_task(waits_for(awaited))
    watch(f"outer {name}", outer)
    await asyncio.sleep(1)
    note(loop, f"cancel outer {name}: {outer.cancel()}")
    try:
        await outer
    except asyncio.CancelledError:
        note(loop, f"outer {name} ended cancelled")


async def main():
    f = loop.create_future()
    inner = loop.create_task(sleeper(10))
    a, b = loop.create_task(sleeper(10)), loop.create_task(sleeper(20))
    await cancel_outer("on future", f, True)
    await cancel_outer("on task", inner, True)
    await cancel_outer("on gather", asyncio.gather(a, b), False)
    note(loop, f"gather's children cancelled: {a.cancelled()}, {b.cancelled()}")


loop.run_until_complete(main())
loop.close()
