"""A tour of asyncio's loop from the user's side (`call_soon`, `call_later`,
`run_until_complete`, `stop`), as stage 5's `callbacks` example retells it in Rust: a
callback now, one later, the loop run until a sleep ends; then a callback that
reschedules itself (a trampoline) until it stops the loop. Printed in order,
without clock readings, so that both loops must agree on the order alone (deadlines 0.1 s
or more apart, so that a stalled machine cannot merge two into one iteration)."""
import asyncio


def part_one(loop):
    loop.call_soon(print, "part 1: call_soon ran")
    loop.call_later(0.1, print, "part 1: call_later(0.1) ran")
    loop.run_until_complete(asyncio.sleep(0.5))
    print("part 1: run_until_complete(sleep(0.5)) returned")


def trampoline(loop, name, left):
    print(f"part 2: trampoline {name}, {left} left")
    if left == 0:
        loop.stop()
        return
    loop.call_later(0.1, trampoline, loop, name, left - 1)


def part_two(loop):
    loop.call_soon(trampoline, loop, "bounce", 3)
    loop.run_forever()
    print("part 2: run_forever returned after stop()")


def main():
    loop = asyncio.new_event_loop()
    try:
        part_one(loop)
        part_two(loop)
    finally:
        loop.close()
    print("closed")


main()
