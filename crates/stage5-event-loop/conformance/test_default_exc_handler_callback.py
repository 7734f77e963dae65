"""A callback that raises: the default handler logs "Exception in callback", the loop goes on."""
from vloop import VirtualLoop, capture_log, note

loop = VirtualLoop()
capture_log(loop)


def zero_error(fut):
    fut.set_result(True)
    raise ZeroDivisionError("attempt to divide by zero")


fut = loop.create_future()
loop.call_soon(zero_error, fut)
fut.add_done_callback(lambda fut: loop.stop())
loop.run_forever()
note(loop, "the loop went on")

fut = loop.create_future()
loop.call_later(0.01, zero_error, fut)
fut.add_done_callback(lambda fut: loop.stop())
loop.run_forever()
note(loop, "the loop went on")
loop.close()
