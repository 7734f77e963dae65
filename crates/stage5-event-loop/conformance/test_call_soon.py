"""call_soon is FIFO: callbacks run in the order they were registered, in one iteration."""
from vloop import VirtualLoop, note

loop = VirtualLoop()
for name in ["a", "b", "c"]:
    loop.call_soon(note, loop, name)
loop.call_soon(loop.stop)
loop.run_forever()
note(loop, "run_forever returned")
loop.close()
