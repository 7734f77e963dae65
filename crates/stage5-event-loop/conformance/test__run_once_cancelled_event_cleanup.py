"""When the heap is rebuilt without its cancelled timers: more than 100 timers and more
than half of them cancelled, both strict. Otherwise only cancelled timers at the head go."""
from vloop import VirtualLoop, note


def noop():
    pass


def report(loop, what):
    note(loop, f"{what}: {len(loop._scheduled)} scheduled, "
               f"{loop._timer_cancelled_count} cancelled")


def case(title, count, cancel):
    loop = VirtualLoop()
    note(loop, title)
    for i in range(count):
        handle = loop.call_later(1000 + i, noop)
        if cancel(i):
            handle.cancel()
    loop.call_soon(noop)  # something ready: the select does not wait
    report(loop, "before")
    loop._run_once()
    report(loop, "after")
    loop.close()


# A few timers: the cancelled ones at the head are popped, the others stay.
loop = VirtualLoop()
note(loop, "5 timers, the 2 earliest and 2 latest cancelled")
loop.call_later(3000, noop)
for _ in range(2):
    loop.call_later(3600, noop).cancel()
for _ in range(2):
    loop.call_later(100, noop).cancel()
loop.call_soon(noop)
report(loop, "before")
loop._run_once()
report(loop, "after")
loop.close()

case("150 timers, 100 cancelled: rebuilt", 150, lambda i: i % 3 != 0)
case("200 timers, 100 cancelled (exactly half): kept", 200, lambda i: i % 2 == 1)
case("100 timers, 99 cancelled (not more than 100): kept", 100, lambda i: i > 0)
