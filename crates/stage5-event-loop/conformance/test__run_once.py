"""A cancelled timer at the head is dropped before the timeout is computed; cancelled ready
handles are skipped."""
from vloop import VirtualLoop, note

loop = VirtualLoop()
h1 = loop.call_later(5, note, loop, "h1 (cancelled)")
h2 = loop.call_later(10, note, loop, "h2")
h1.cancel()
note(loop, f"before: {len(loop._scheduled)} scheduled, {loop._timer_cancelled_count} cancelled")
loop._run_once()
note(loop, f"after: {len(loop._scheduled)} scheduled, {loop._timer_cancelled_count} cancelled")
a = loop.call_soon(note, loop, "a (cancelled)")
loop.call_soon(note, loop, "b")
a.cancel()
loop._run_once()
loop.close()
