"""A handle scheduled by a callback runs in the next iteration, not in the current one."""
from vloop import VirtualLoop, note

loop = VirtualLoop()


def child():
    note(loop, "child runs")


def cb():
    note(loop, "cb: call_soon(child)")
    loop.call_soon(child)


loop.call_soon(cb)
loop._run_once()
note(loop, f"after run_once: {len(loop._ready)} ready")
loop._run_once()
note(loop, f"after run_once: {len(loop._ready)} ready")
loop.close()
