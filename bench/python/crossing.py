"""What one call across the Python/Rust line costs: chapter 9's "Native transports".

    python3 bench/python/crossing.py [--calls N] [--repeat R]

Times, on one connected socket pair, a call of each kind N times (best of R runs), and
prints one JSON object: ns per call of
- `python_function`: an empty Python function (a frame, no crossing);
- `native_is_closing`, `asyncio_is_closing`: `transport.is_closing()` on scratchloop's
  native transport (a C call into Rust) and on asyncio's (a Python method);
- `native_write_empty`, `asyncio_write_empty`: `transport.write(b"")`, which both return
  from at once (the call and its checks, no send);
Counts are bounded; nothing here waits on a socket.
"""

import argparse
import asyncio
import json
import socket
import timeit

import scratchloop


def best(stmt, calls, repeat, names):
    return min(timeit.repeat(stmt, number=calls, repeat=repeat, globals=names)) / calls * 1e9


def transports(loop):
    """A native transport and asyncio's, each on one end of a socket pair."""
    made = []
    for make in ("ours", None):
        a, b = socket.socketpair()
        a.setblocking(False)
        made.append(b)
        if make is None:
            other = asyncio.SelectorEventLoop()
            made.append(other)
            made.append(other._make_socket_transport(a, asyncio.Protocol()))
        else:
            made.append(loop._make_socket_transport(a, asyncio.Protocol()))
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    loop = scratchloop.ScratchLoop()
    peer1, native, peer2, other, theirs = transports(loop)

    def empty():
        pass

    names = {"empty": empty, "native": native, "theirs": theirs}
    result = {
        "calls": args.calls,
        "repeat": args.repeat,
        "python_function": best("empty()", args.calls, args.repeat, names),
        "native_is_closing": best("native.is_closing()", args.calls, args.repeat, names),
        "asyncio_is_closing": best("theirs.is_closing()", args.calls, args.repeat, names),
        "native_write_empty": best("native.write(b'')", args.calls, args.repeat, names),
        "asyncio_write_empty": best("theirs.write(b'')", args.calls, args.repeat, names),
    }
    print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in result.items()}))
    for transport in (native, theirs):
        transport.abort()
    loop.run_until_complete(asyncio.sleep(0))
    other.run_until_complete(asyncio.sleep(0))
    loop.close()
    other.close()
    peer1.close()
    peer2.close()


if __name__ == "__main__":
    main()
