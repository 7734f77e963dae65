"""An exception handler that raises is reported by the default handler; the loop goes on."""
from vloop import VirtualLoop, capture_log, note

loop = VirtualLoop()
capture_log(loop)


def zero_error():
    raise ZeroDivisionError("attempt to divide by zero")


def handler(loop, context):
    raise Exception("broken handler")


loop.set_exception_handler(handler)
loop.call_soon(zero_error)
loop.call_soon(note, loop, "the loop went on")
loop.call_soon(loop.stop)
loop.run_forever()
loop.close()
