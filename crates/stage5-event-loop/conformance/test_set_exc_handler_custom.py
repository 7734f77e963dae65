"""A custom exception handler gets the context; set_exception_handler(None) restores the default."""
from vloop import VirtualLoop, capture_log, normalize, note

loop = VirtualLoop()
capture_log(loop)


def zero_error():
    raise ZeroDivisionError("attempt to divide by zero")


def handler(loop, context):
    note(loop, f"handler: {normalize(context['message'])}: {context['exception']}")


loop.set_exception_handler(handler)
loop.call_soon(zero_error)
loop.call_soon(loop.stop)
loop.run_forever()
loop.set_exception_handler(None)
loop.call_soon(zero_error)
loop.call_soon(loop.stop)
loop.run_forever()
loop.close()
