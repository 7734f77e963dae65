"""A future's edges: callbacks scheduled (not called) in the order added, one removed; a
second set_result refused; cancel() True then False; result() and exception() of a
pending and of a cancelled future; handles cancelled after they ran or while ready
(test_futures: test_callbacks_*, test_cancel, test_result, test_exception)."""
import asyncio

from vloop import VirtualLoop, note

loop = VirtualLoop()
f = loop.create_future()


def callback(name):
    return lambda fut: note(loop, f"{name}: {fut.result()}")


a, b, c = callback("a"), callback("b"), callback("c")
for cb in (a, b, c):
    f.add_done_callback(cb)
note(loop, f"removed: {f.remove_done_callback(b)}")
for what, call in [("result", f.result), ("exception", f.exception)]:
    try:
        call()
    except asyncio.InvalidStateError as error:
        note(loop, f"{what} of a pending future: {error}")
f.set_result(1)
note(loop, f"after set_result: {len(loop._ready)} ready")
try:
    f.set_result(2)
except asyncio.InvalidStateError:
    note(loop, "second set_result: InvalidStateError")
note(loop, f"cancel a done future: {f.cancel()}")
f.add_done_callback(callback("late"))
loop.run_until_complete(f)

g = loop.create_future()
note(loop, f"cancel: {g.cancel()}, again: {g.cancel()}, cancelled: {g.cancelled()}")
for what, call in [("result", g.result), ("exception", g.exception)]:
    try:
        call()
    except asyncio.CancelledError:
        note(loop, f"{what} of a cancelled future: CancelledError")

ran = loop.call_soon(lambda: note(loop, "ran"))
loop.call_soon(loop.stop)
loop.run_forever()
ran.cancel()
note(loop, f"cancelled after it ran: {ran.cancelled()}")
timer = loop.call_later(0, lambda: note(loop, "timer (cancelled while ready)"))
loop.call_soon(timer.cancel)
loop.call_soon(lambda: note(loop, f": {len(loop._scheduled)} scheduled, "
                                  f"{loop._timer_cancelled_count} cancelled"))
never = loop.call_later(float("inf"), lambda: note(loop, "never"))
note(loop, f"when: {timer.when()}, {never.when()}")
loop.call_later(1, loop.stop)
loop.run_forever()
note(loop, f": {len(loop._scheduled)} scheduled, {loop._timer_cancelled_count} cancelled")
loop.close()
