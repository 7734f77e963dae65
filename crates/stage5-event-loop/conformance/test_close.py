"""close() is idempotent; a closed loop refuses to run or schedule anything."""
from vloop import VirtualLoop, note

loop = VirtualLoop()


def noop():
    pass


async def coro():
    pass


note(loop, f"is_closed: {loop.is_closed()}")
loop.call_soon(noop)
loop.close()
note(loop, f"is_closed: {loop.is_closed()}, {len(loop._ready)} ready")
loop.close()
loop.close()
f = loop.create_future()


def create_task():
    c = coro()
    try:
        loop.create_task(c)
    finally:
        c.close()


for what, call in [
    ("run_forever", loop.run_forever),
    ("run_until_complete", lambda: loop.run_until_complete(f)),
    ("call_soon", lambda: loop.call_soon(noop)),
    ("call_later", lambda: loop.call_later(1, noop)),
    ("call_at", lambda: loop.call_at(1, noop)),
    ("create_task", create_task),
]:
    try:
        call()
    except RuntimeError as error:
        note(loop, f"{what}: {error}")
