"""Half-close both ways: write_eof lets the peer read the end while it still sends to us;
eof_received returning True keeps the transport open to answer, then close."""
import asyncio
import socket

from vloop import note
from vloop_io import Recorder, VirtualIOLoop, drain_peer

loop = VirtualIOLoop()
a, b = socket.socketpair()
b.setblocking(False)


async def main():
    transport, proto = await loop.connect_accepted_socket(
        lambda: Recorder(loop, keep_open=True), a)
    transport.write(b"ping")
    transport.write_eof()
    await asyncio.sleep(1)
    note(loop, f"peer: {drain_peer(b)}")
    b.send(b"pong")
    b.shutdown(socket.SHUT_WR)
    await asyncio.sleep(1)
    note(loop, f"closing {transport.is_closing()}, reading {transport.is_reading()}")
    transport.close()
    await proto.lost


loop.run_until_complete(main())
b.close()
loop.close()
