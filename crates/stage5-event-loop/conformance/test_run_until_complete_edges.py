"""run_until_complete at its edges: a future already done (one iteration), a loop stopped
before it starts, a nested run, close() and stop() from a callback
(test_base_events: test_run_until_complete_*, test_run_forever_*)."""
from vloop import VirtualLoop, note

loop = VirtualLoop()

done = loop.create_future()
done.set_result(5)
start = loop.iteration
result = loop.run_until_complete(done)
note(loop, f"done future: {result} after {loop.iteration - start} iteration")

pending = loop.create_future()
loop.stop()
try:
    loop.run_until_complete(pending)
except RuntimeError as error:
    note(loop, f"stopped first: {error}")


def nested(loop):
    for what, call in [
        ("run_forever", loop.run_forever),
        ("run_until_complete", lambda: loop.run_until_complete(pending)),
        ("close", loop.close),
    ]:
        try:
            call()
        except RuntimeError as error:
            note(loop, f"{what} in a callback: {error}")
    pending.set_result(7)
    loop.stop()
    loop.stop()


loop.call_soon(nested, loop)
note(loop, f"pending future: {loop.run_until_complete(pending)}")
loop.call_soon(lambda: note(loop, "runs after the double stop"))
loop.stop()
loop.run_forever()
note(loop, f"running: {loop.is_running()}, closed: {loop.is_closed()}")
loop.close()
