"""The echo server of W5 and W6 on asyncio, uvloop, rloop or scratchloop, with asyncio.Protocol (the fast
path of both: no streams, no task per connection), with streams (--api streams: a
start_server handler looping read of up to 1 KiB, write, drain), or with an
asyncio.BufferedProtocol (--api buffered: one 64 KiB buffer per connection, read into,
then written back from).

    python3 bench/python/echo_server.py --loop asyncio|uvloop|rloop|scratchloop [--api protocol|streams|buffered]
        --addr 127.0.0.1:0 [--max-secs S]

Prints `listening on HOST:PORT` to stderr once it accepts, and ends by itself after
--max-secs (default 600) if nobody stops it first.
"""

import argparse
import asyncio
import sys


class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.transport.write(data)


class BufferedEcho(asyncio.BufferedProtocol):
    def connection_made(self, transport):
        self.transport = transport
        self.view = memoryview(bytearray(64 * 1024))

    def get_buffer(self, sizehint):
        return self.view

    def buffer_updated(self, nbytes):
        self.transport.write(self.view[:nbytes])


async def echo_stream(reader, writer):
    while data := await reader.read(1024):
        writer.write(data)
        await writer.drain()
    writer.close()


async def serve(host, port, max_secs, api):
    loop = asyncio.get_running_loop()
    if api == "streams":
        server = await asyncio.start_server(echo_stream, host, port)
    else:
        server = await loop.create_server(BufferedEcho if api == "buffered" else Echo, host, port)
    host, port = server.sockets[0].getsockname()[:2]
    print(f"listening on {host}:{port}", file=sys.stderr, flush=True)
    await asyncio.sleep(max_secs)
    server.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop", choices=["asyncio", "uvloop", "rloop", "scratchloop"], default="asyncio")
    parser.add_argument("--addr", default="127.0.0.1:0")
    parser.add_argument("--max-secs", type=float, default=600.0)
    parser.add_argument("--api", choices=["protocol", "streams", "buffered"],
                        default="protocol")
    args = parser.parse_args()
    host, _, port = args.addr.rpartition(":")
    if args.loop == "uvloop":
        import uvloop

        uvloop.run(serve(host, int(port), args.max_secs, args.api))
    elif args.loop == "rloop":
        import rloop  # a Rust asyncio loop from PyPI

        with asyncio.Runner(loop_factory=rloop.new_event_loop) as runner:
            runner.run(serve(host, int(port), args.max_secs, args.api))
    elif args.loop == "scratchloop":
        import scratchloop  # asyncio's Python layers on stage 5's Rust core

        scratchloop.run(serve(host, int(port), args.max_secs, args.api))
    else:
        asyncio.run(serve(host, int(port), args.max_secs, args.api))


if __name__ == "__main__":
    main()
