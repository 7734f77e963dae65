"""abort() with a full write buffer: the buffer is thrown away and connection_lost(None)
comes in the next iteration; the peer gets less than was written, then the end."""
import asyncio

from vloop import note
from vloop_io import Recorder, VirtualIOLoop, drain_peer, small_pair

loop = VirtualIOLoop()
a, b = small_pair()


async def main():
    transport, proto = await loop.connect_accepted_socket(lambda: Recorder(loop), a)
    transport.write(b"z" * 100_000)
    transport.abort()
    note(loop, f"aborted, buffer {transport.get_write_buffer_size()}")
    await proto.lost
    received, eof = drain_peer(b)
    note(loop, f"peer received less: {received < 100_000}, eof {eof}")


loop.run_until_complete(main())
b.close()
loop.close()
