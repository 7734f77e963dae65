"""Debug mode: a callback that runs slow_callback_duration or longer is logged."""
from vloop import VirtualLoop, capture_log, note

loop = VirtualLoop()
capture_log(loop)
loop.set_debug(True)
loop.slow_callback_duration = 1.0


def slow():
    note(loop, "slow: blocks the loop for 1.5 s")
    loop.advance(1.5)


def fast():
    note(loop, "fast: blocks the loop for 0.5 s")
    loop.advance(0.5)


loop.call_soon(slow)
loop.call_soon(fast)
loop.call_soon(loop.stop)
loop.run_forever()
loop.close()
