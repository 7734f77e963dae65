"""stop() before run_forever(): exactly one iteration."""
from vloop import VirtualLoop, note

loop = VirtualLoop()


def a():
    note(loop, "a: call_soon(b)")
    loop.call_soon(note, loop, "b")


loop.call_soon(a)
loop.stop()
loop.run_forever()
note(loop, f"run_forever returned: {len(loop._ready)} ready")
loop.stop()
loop.run_forever()
note(loop, f"run_forever returned: {len(loop._ready)} ready")
loop.close()
