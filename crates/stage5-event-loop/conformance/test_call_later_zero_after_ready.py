"""call_later(0) and call_at(a past time) run after the handles already in the ready queue.

Step 4 appends due timers to the ready queue behind what is there, earliest first; a timer
a callback schedules with delay 0 is due at the next iteration's step 4, behind what that
callback scheduled with call_soon.
"""
from vloop import VirtualLoop, note

loop = VirtualLoop()


def a():
    note(loop, "a")
    loop.call_later(0, note, loop, "a's call_later(0)")
    loop.call_soon(note, loop, "a's call_soon")


def start():
    note(loop, "start")
    loop.call_soon(a)
    loop.call_later(0, note, loop, "call_later(0)")
    loop.call_at(loop.time() - 0.5, note, loop, "call_at(0.5 s ago)")
    loop.call_soon(note, loop, "b")


loop.call_later(1, start)
loop.call_later(2, loop.stop)
loop.run_forever()
loop.close()
