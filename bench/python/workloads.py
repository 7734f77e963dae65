"""W1 to W4 on CPython's asyncio or on uvloop, as bench-SYSTEM does them in Rust: one JSON
line per workload, sizes from bench/params.env.

    python3 bench/python/workloads.py --loop asyncio|uvloop|rloop|scratchloop [W1 W2 W3 W4]

- W1: loop.call_soon(bump) n times, then loop.stop; one run_forever.
- W2: a callback that call_soon's itself n times: one loop iteration each, so one
  zero-timeout select (epoll) per step.
- W3: loop.call_later(delay, fire), every second TimerHandle cancelled at once; the
  loop stops when every live timer has fired. Reported: CPU time.
- W4: asyncio.Queue between a producer task (await q.put) and a consumer task (await q.get).

Timing: wall time from time.perf_counter_ns, CPU time from time.thread_time_ns (the
thread's CLOCK_THREAD_CPUTIME_ID, the clock the Rust harness reads). Each workload runs
REPEAT times, each on a fresh loop, and the best run is reported, as in Rust.
"""

import argparse
import asyncio
import json
import sys
import time

from params import delays_us, load, number


def new_loop(kind):
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop()
    if kind == "rloop":
        import rloop  # a Rust asyncio loop from PyPI

        return rloop.new_event_loop()
    if kind == "scratchloop":
        import scratchloop  # asyncio's Python layers on stage 5's Rust core

        return scratchloop.new_event_loop()
    # The default loop on Linux: a SelectorEventLoop on an epoll selector.
    return asyncio.new_event_loop()


def measure(n, work):
    cpu = time.thread_time_ns()
    wall = time.perf_counter_ns()
    work()
    wall = time.perf_counter_ns() - wall
    cpu = time.thread_time_ns() - cpu
    return {"n": n, "wall_ns": wall, "cpu_ns": cpu}


def check(what, got, expected):
    if got != expected:
        raise SystemExit(f"{what}: the workload's result is wrong ({got} != {expected})")


def w1(loop, p):
    n = number(p, "W1_CALLBACKS")
    count = 0

    def bump():
        nonlocal count
        count += 1

    def work():
        for _ in range(n):
            loop.call_soon(bump)
        loop.call_soon(loop.stop)
        loop.run_forever()

    sample = measure(n, work)
    check("W1", count, n)
    return sample


def w2(loop, p):
    n = number(p, "W2_STEPS")
    count = 0

    def step():
        nonlocal count
        count += 1
        if count < n:
            loop.call_soon(step)
        else:
            loop.stop()

    def work():
        loop.call_soon(step)
        loop.run_forever()

    sample = measure(n, work)
    check("W2", count, n)
    return sample


def w3(loop, p):
    delays = [
        d / 1e6
        for d in delays_us(
            number(p, "W3_SEED"), number(p, "W3_TIMERS"), number(p, "W3_MAX_DELAY_MS")
        )
    ]
    live = (len(delays) + 1) // 2
    count = 0

    def fire():
        nonlocal count
        count += 1
        if count == live:
            loop.stop()

    def work():
        for i, delay in enumerate(delays):
            handle = loop.call_later(delay, fire)
            if i % 2 == 1:
                handle.cancel()
        loop.run_forever()

    sample = measure(len(delays), work)
    check("W3", count, live)
    return sample


def w4(loop, p):
    n = number(p, "W4_ITEMS")
    total = 0

    async def main():
        queue = asyncio.Queue()

        async def consumer():
            nonlocal total
            for _ in range(n):
                total += await queue.get()

        async def producer():
            for i in range(n):
                await queue.put(i)

        eating = asyncio.create_task(consumer())
        making = asyncio.create_task(producer())
        await eating
        await making

    sample = measure(n, lambda: loop.run_until_complete(main()))
    check("W4", total, n * (n - 1) // 2)
    return sample


WORKLOADS = {
    "W1": (w1, "loop.call_soon"),
    "W2": (w2, "call_soon chain (one select per iteration)"),
    "W3": (w3, "loop.call_later; TimerHandle.cancel()"),
    "W4": (w4, "asyncio.Queue, two tasks"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop", choices=["asyncio", "uvloop", "rloop", "scratchloop"], default="asyncio")
    parser.add_argument("workloads", nargs="*", choices=[[]] + list(WORKLOADS))
    args = parser.parse_args()
    params = load()
    repeat = max(1, number(params, "REPEAT"))
    for name in args.workloads or list(WORKLOADS):
        run, how = WORKLOADS[name]
        samples = []
        for _ in range(repeat):
            loop = new_loop(args.loop)
            try:
                samples.append(run(loop, params))
            finally:
                loop.close()
        # The best run, as the Rust harness reports it: the least of each time.
        sample = {
            "n": samples[0]["n"],
            "wall_ns": min(s["wall_ns"] for s in samples),
            "cpu_ns": min(s["cpu_ns"] for s in samples),
        }
        n = sample["n"]
        line = {
            "system": args.loop,
            "workload": name,
            "how": how,
            "runs": repeat,
            **sample,
            "wall_ns_per_op": round(sample["wall_ns"] / n, 2),
            "cpu_ns_per_op": round(sample["cpu_ns"] / n, 2),
        }
        print(json.dumps(line, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    sys.exit(main())
