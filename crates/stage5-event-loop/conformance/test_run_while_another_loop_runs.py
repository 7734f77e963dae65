"""A loop cannot run while another loop runs on the same thread: the outer loop would be
blocked (CPython's BaseEventLoop._check_running)."""
from vloop import VirtualLoop, note

loop = VirtualLoop()
other = VirtualLoop()


def nested():
    done = other.create_future()
    done.set_result(1)
    for what, call in [
        ("run_forever", other.run_forever),
        ("run_until_complete", lambda: other.run_until_complete(done)),
    ]:
        try:
            call()
        except RuntimeError as error:
            note(loop, f"{what} of the other loop: {error}")
    loop.stop()


loop.call_soon(nested)
loop.run_forever()
other.call_soon(lambda: note(other, "the other loop runs once this one has stopped"))
other.call_soon(other.stop)
other.run_forever()
other.close()
loop.close()
