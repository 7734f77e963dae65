"""StreamReader with a limit of 16: readuntil past it is LimitOverrunError (the data stays),
readline past it throws the line away; at the end, IncompleteReadError with what is left."""
import asyncio
import socket

from vloop import note
from vloop_io import VirtualIOLoop

loop = VirtualIOLoop()
a, b = socket.socketpair()
b.setblocking(False)


async def main():
    reader, writer = await asyncio.open_connection(sock=a, limit=16)
    b.send(b"a" * 40 + b"\n" + b"short\n" + b"b" * 10 + b"\n" + b"tail")
    try:
        await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError as e:
        note(loop, f"readuntil: LimitOverrunError {e.args[0]!r} consumed {e.consumed}")
    try:
        await reader.readline()
    except ValueError as e:
        note(loop, f"readline: {e}")
    note(loop, f"readline: {await reader.readline()!r}")
    note(loop, f"readexactly: {await reader.readexactly(11)!r}")
    b.shutdown(socket.SHUT_WR)
    try:
        await reader.readexactly(10)
    except asyncio.IncompleteReadError as e:
        note(loop, f"readexactly: IncompleteReadError {e.partial!r} expected {e.expected}")
    note(loop, f"at_eof {reader.at_eof()}")
    writer.close()
    await writer.wait_closed()
    note(loop, "closed")


loop.run_until_complete(main())
b.close()
loop.close()
