"""CPython's selector event loop on virtual time, for chapter 8's transport scenarios.

`VirtualIOLoop` is CPython's own `SelectorEventLoop` (its transports, readers, writers and
`_process_events` are the real ones) with two things replaced, as stage 5 does on its
virtual clock: `time()` reads a clock that starts at 0.0, and `select(timeout)` first
polls the real selector; if nothing is ready and a timer is due, it moves the clock to it
instead of waiting; with no timer it waits for real. `_run_once` counts iterations.

`Recorder` is the protocol the scenarios share: it notes each call, in the format of
stage 5's transcripts (`vloop.note`).
"""

import asyncio
import socket

from vloop import note  # also SKIPs on another Python than 3.11


class VirtualIOSelector:
    def __init__(self, loop, real):
        self.loop = loop
        self.real = real

    def select(self, timeout=None):
        events = self.real.select(0)
        if events or timeout == 0:
            return events
        if timeout is None:
            return self.real.select(None)
        self.loop._now += timeout
        return []

    def __getattr__(self, name):
        return getattr(self.real, name)


class VirtualIOLoop(asyncio.SelectorEventLoop):
    def __init__(self):
        super().__init__()
        self._now = 0.0
        self._selector = VirtualIOSelector(self, self._selector)
        self.iteration = 0
        self.set_debug(False)

    def time(self):
        return self._now

    def _run_once(self):
        self.iteration += 1
        super()._run_once()


def small_pair(sndbuf=4096):
    """A Unix socket pair whose first end has a small send buffer."""
    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    b.setblocking(False)
    return a, b


def drain_peer(b):
    """Read what the peer end has; returns (bytes, eof)."""
    total = 0
    while True:
        try:
            data = b.recv(65536)
        except BlockingIOError:
            return total, False
        if not data:
            return total, True
        total += len(data)


class Recorder(asyncio.Protocol):
    def __init__(self, loop, keep_open=False):
        self.loop = loop
        self.keep_open = keep_open
        self.transport = None
        self.lost = loop.create_future()

    def connection_made(self, transport):
        self.transport = transport
        note(self.loop, "connection_made")

    def data_received(self, data):
        note(self.loop, f"data_received {len(data)} bytes")

    def eof_received(self):
        note(self.loop, f"eof_received -> {self.keep_open}")
        return self.keep_open

    def connection_lost(self, exc):
        note(self.loop, f"connection_lost {'None' if exc is None else 'error'}")
        self.lost.set_result(None)

    def pause_writing(self):
        note(self.loop, f"pause_writing, buffer {self.transport.get_write_buffer_size()}")

    def resume_writing(self):
        note(self.loop, f"resume_writing, buffer {self.transport.get_write_buffer_size()}")
