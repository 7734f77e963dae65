"""What the default exception handler logs for a callback that raises: the message, a
`handle:` line naming the handle, then the exception (CPython's
test_base_events.test_default_exc_handler_callback, line by line)."""
import logging

from vloop import VirtualLoop, note

loop = VirtualLoop()


class Lines(logging.Handler):
    """One note per line of the logged message (reprs cut short, as they differ), then one
    for the exception the record carries."""

    def emit(self, record):
        for line in record.getMessage().split("\n"):
            if line.startswith("Exception in callback"):
                line = "Exception in callback"
            elif line.startswith("handle: <Handle"):
                line = "handle: <Handle>"
            note(loop, f"log {record.levelname}: {line}")
        note(loop, f"log exception: {record.exc_info[1]}")


logger = logging.getLogger("asyncio")
logger.handlers[:] = [Lines()]
logger.propagate = False


def zero_error():
    raise ZeroDivisionError("attempt to divide by zero")


loop.call_soon(zero_error)
loop.call_soon(loop.stop)
loop.run_forever()
loop.close()
