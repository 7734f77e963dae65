"""close() with a full write buffer: reading stops at once, connection_lost comes only
after the last byte is sent, and the peer gets every byte, then the end of the stream."""
import asyncio

from vloop import note
from vloop_io import Recorder, VirtualIOLoop, drain_peer, small_pair

loop = VirtualIOLoop()
a, b = small_pair()


async def main():
    transport, proto = await loop.connect_accepted_socket(lambda: Recorder(loop), a)
    transport.write(b"y" * 100_000)
    transport.close()
    note(loop, f"closing {transport.is_closing()}, buffered {transport.get_write_buffer_size() > 0}")
    received, eof = 0, False
    for _ in range(1000):
        await asyncio.sleep(1)
        got, eof = drain_peer(b)
        received += got
        if eof:
            break
    note(loop, f"peer received {received}, eof {eof}")
    await proto.lost


loop.run_until_complete(main())
b.close()
loop.close()
