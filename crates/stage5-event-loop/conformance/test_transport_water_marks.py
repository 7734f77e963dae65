"""A peer that stops reading: pause_writing over the high mark, once; resume_writing at the
low mark, once, as the peer reads again; nothing lost."""
import asyncio

from vloop import note
from vloop_io import Recorder, VirtualIOLoop, drain_peer, small_pair

loop = VirtualIOLoop()
a, b = small_pair()
CHUNK = 4096


async def main():
    transport, proto = await loop.connect_accepted_socket(lambda: Recorder(loop), a)
    transport.set_write_buffer_limits(high=16384, low=4096)
    note(loop, f"limits {transport.get_write_buffer_limits()}")
    written = 0
    for _ in range(1000):
        transport.write(b"x" * CHUNK)
        written += CHUNK
        if transport.get_write_buffer_size() > 16384:
            break
    note(loop, f"wrote {written}, buffer {transport.get_write_buffer_size()}")
    received = 0
    for _ in range(1000):
        await asyncio.sleep(1)
        got, _ = drain_peer(b)
        received += got
        if received == written:
            break
    note(loop, f"peer received all: {received == written}, buffer {transport.get_write_buffer_size()}")
    transport.close()
    await proto.lost


loop.run_until_complete(main())
b.close()
loop.close()
