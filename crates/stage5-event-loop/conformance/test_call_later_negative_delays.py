"""Negative delays are times in the past, not "now": the further past runs first, and
before a later call_at in the past (CPython's test_base_events.test_call_later_negative_delays,
with a call_at added)."""
from vloop import VirtualLoop, note

loop = VirtualLoop()
loop.advance(10)
loop.call_later(-1, note, loop, "call_later(-1)")
loop.call_later(-2, note, loop, "call_later(-2)")
loop.call_at(loop.time() - 0.5, note, loop, "call_at(now - 0.5)")
loop.call_later(0, note, loop, "call_later(0)")
loop.call_soon(loop.stop)
loop.run_forever()
note(loop, "stopped")
loop.close()
