"""connection_made, data_received, eof_received (False: close), connection_lost, in order."""
import asyncio
import socket

from vloop import note
from vloop_io import Recorder, VirtualIOLoop

loop = VirtualIOLoop()
a, b = socket.socketpair()
b.setblocking(False)


async def main():
    transport, proto = await loop.connect_accepted_socket(lambda: Recorder(loop), a)
    note(loop, "connected")
    b.send(b"hello")
    await asyncio.sleep(1)
    b.send(b"world!")
    b.shutdown(socket.SHUT_WR)
    await proto.lost
    note(loop, f"closing {transport.is_closing()}")


loop.run_until_complete(main())
b.close()
loop.close()
