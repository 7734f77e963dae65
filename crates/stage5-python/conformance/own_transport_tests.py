"""scratchloop's own tests of its native transports: each program runs on asyncio's loop
and on ours, and what the protocols saw (which calls, in which order, with what) must be
the same.

Book chapter 9, "Native transports". Run by `scripts/asyncio-conformance.sh` (`python
own_transport_tests.py`); prints `own transport tests: P passed, F failed of N` and exits
1 if one fails. Counts and orders only, never durations.
"""

import asyncio
import gc
import os
import socket
import struct
import sys
import tempfile
import unittest
import warnings
import weakref

import scratchloop
from scratchloop import _transport


def both(test, program):
    """Run `program(loop, log)` on asyncio's loop and on ours; assert the logs match and
    that ours used the native transport; return our log."""
    logs = []
    for make in (asyncio.SelectorEventLoop, scratchloop.ScratchLoop):
        loop = make()
        log = []
        try:
            loop.run_until_complete(asyncio.wait_for(program(loop, log), 30))
        finally:
            loop.close()
        logs.append(log)
    theirs, ours = logs
    test.maxDiff = None
    test.assertEqual(ours, theirs)
    return ours


class Recorder(asyncio.Protocol):
    """Logs every call, as `(name, tag, what)`."""

    def __init__(self, log, tag, *, eof=None, echo=False):
        self.log, self.tag, self.eof, self.echo = log, tag, eof, echo
        self.lost = asyncio.get_running_loop().create_future()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        self.log.append(("made", self.tag, isinstance(transport, asyncio.Transport)))

    def data_received(self, data):
        self.log.append(("data", self.tag, bytes(data)))
        if self.echo:
            self.transport.write(data)

    def eof_received(self):
        self.log.append(("eof", self.tag))
        return self.eof

    def pause_writing(self):
        self.log.append(("pause_writing", self.tag))

    def resume_writing(self):
        self.log.append(("resume_writing", self.tag))

    def connection_lost(self, exc):
        self.log.append(("lost", self.tag, type(exc).__name__))
        if not self.lost.done():
            self.lost.set_result(None)


async def echo_session(loop, log, server, connect):
    """One client: hello, its echo, the client's EOF, both sides lost."""
    served = []

    def factory():
        served.append(Recorder(log, "server", echo=True))
        return served[-1]

    srv = await server(factory)
    transport, client = await connect(lambda: Recorder(log, "client", eof=True))
    log.append(("client transport", transport.is_closing(), transport.is_reading(),
                transport.get_write_buffer_limits(), transport.can_write_eof()))
    transport.write(b"hello")
    while not any(entry[0] == "data" and entry[1] == "client" for entry in log):
        await asyncio.sleep(0)
    transport.write_eof()
    await served[0].lost
    transport.close()
    await client.lost
    srv.close()
    await srv.wait_closed()
    log.append(("server", served[0].transport.get_extra_info("peername") is not None))


class CallbackOrder(unittest.TestCase):
    def test_tcp_echo(self):
        async def program(loop, log):
            async def server(factory):
                return await loop.create_server(factory, "127.0.0.1", 0)

            async def connect(factory):
                port = server_port[0]
                return await loop.create_connection(factory, "127.0.0.1", port)

            server_port = []

            async def server_and_port(factory):
                srv = await server(factory)
                server_port.append(srv.sockets[0].getsockname()[1])
                return srv

            await echo_session(loop, log, server_and_port, connect)

        log = both(self, program)
        self.assertIn(("data", "client", b"hello"), log)
        self.assertEqual(log[-1], ("server", True))

    def test_unix_echo(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "sock")

            async def program(loop, log):
                async def server(factory):
                    if os.path.exists(path):
                        os.unlink(path)
                    return await loop.create_unix_server(factory, path)

                async def connect(factory):
                    return await loop.create_unix_connection(factory, path)

                await echo_session(loop, log, server, connect)

            log = both(self, program)
            self.assertIn(("eof", "server"), log)

    def test_connect_accepted_socket_and_extra_info(self):
        async def program(loop, log):
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "a"), a)
            sock = transport.get_extra_info("socket")
            log.append(("socket", sock.family, sock.type, transport.get_extra_info("peername"),
                        transport.get_extra_info("nothing", "default")))
            b.sendall(b"ping")
            while len(log) < 3:
                await asyncio.sleep(0)
            b.close()  # the end of the stream: eof_received, then lost
            await protocol.lost
            log.append(("closing", transport.is_closing()))

        log = both(self, program)
        self.assertEqual(log[-1], ("closing", True))

    def test_flow_control_pauses_and_resumes_writing(self):
        async def program(loop, log):
            a, b = socket.socketpair()
            a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "writer"), a)
            transport.set_write_buffer_limits(high=1000)
            log.append(("limits", transport.get_write_buffer_limits()))
            transport.write(b"x" * 1_000_000)
            log.append(("buffered", transport.get_write_buffer_size() > 1000))
            b.setblocking(False)
            got = 0
            while got < 1_000_000:
                try:
                    got += len(b.recv(65536))
                except BlockingIOError:
                    await asyncio.sleep(0)
            while transport.get_write_buffer_size():
                await asyncio.sleep(0)
            log.append(("sent", got))
            transport.abort()
            await protocol.lost
            b.close()

        log = both(self, program)
        self.assertEqual([e[0] for e in log if "writing" in e[0]],
                         ["pause_writing", "resume_writing"])

    def test_pause_and_resume_reading(self):
        async def program(loop, log):
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "reader"), a)
            transport.pause_reading()
            log.append(("reading", transport.is_reading()))
            b.sendall(b"held")
            for _ in range(5):
                await asyncio.sleep(0)
            log.append(("still paused", len(log)))
            transport.resume_reading()
            while not any(e[0] == "data" for e in log):
                await asyncio.sleep(0)
            transport.close()
            log.append(("after close", transport.is_closing(), transport.is_reading()))
            await protocol.lost
            b.close()

        log = both(self, program)
        self.assertIn(("data", "reader", b"held"), log)

    def test_bad_writes(self):
        async def program(loop, log):
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "w"), a)
            for data in ("text", 42):
                try:
                    transport.write(data)
                except TypeError as exc:
                    log.append(("TypeError", str(exc)))
            try:
                transport.set_write_buffer_limits(high=1, low=2)
            except ValueError:
                log.append("ValueError")
            transport.writelines([b"a", bytearray(b"b"), memoryview(b"c")])
            transport.write_eof()
            try:
                transport.write(b"late")
            except RuntimeError as exc:
                log.append(("RuntimeError", str(exc)))
            log.append(("peer got", b.recv(10), b.recv(10)))
            transport.close()
            await protocol.lost
            b.close()

        both(self, program)

    def test_a_protocol_that_raises(self):
        async def program(loop, log):
            caught = []
            loop.set_exception_handler(lambda loop, context: caught.append(context))

            class Raises(Recorder):
                def data_received(self, data):
                    super().data_received(data)
                    raise ZeroDivisionError("in data_received")

            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Raises(log, "raises"), a)
            b.sendall(b"boom")
            await protocol.lost
            context = caught[0]
            log.append((context["message"], type(context["exception"]).__name__,
                        context["transport"] is transport, context["protocol"] is protocol))
            b.close()

        log = both(self, program)
        self.assertIn(("lost", "raises", "ZeroDivisionError"), log)

    def test_a_buffered_protocol(self):
        async def program(loop, log):
            class Buffered(asyncio.BufferedProtocol):
                def __init__(self):
                    self.buf = bytearray(3)
                    self.got = bytearray()
                    self.lost = loop.create_future()

                def get_buffer(self, sizehint):
                    return self.buf

                def buffer_updated(self, n):
                    assert 0 < n <= len(self.buf)
                    self.got += self.buf[:n]

                def eof_received(self):
                    log.append(("eof", bytes(self.got)))

                def connection_lost(self, exc):
                    self.lost.set_result(exc)

            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(Buffered, a)
            b.sendall(b"0123456789")
            b.close()
            log.append(("lost", await protocol.lost))

        log = both(self, program)
        self.assertEqual(log, [("eof", b"0123456789"), ("lost", None)])

    def test_reading_paused_in_connection_made_stays_paused(self):
        # asyncio's transport adds its reader after `connection_made` only if reading is
        # not paused by then (`_add_reader` checks `is_reading()`).
        async def program(loop, log):
            class Pausing(asyncio.Protocol):
                def connection_made(self, transport):
                    transport.pause_reading()

                def data_received(self, data):
                    log.append(("data", data))

            a, b = socket.socketpair()
            transport, _ = await loop.connect_accepted_socket(Pausing, a)
            b.sendall(b"early")
            for _ in range(20):
                await asyncio.sleep(0)
            log.append(("paused", transport.is_reading()))
            transport.resume_reading()
            for _ in range(20):
                await asyncio.sleep(0)
            transport.close()
            b.close()

        log = both(self, program)
        self.assertEqual(log, [("paused", False), ("data", b"early")])

    def test_a_buffered_protocol_that_pauses_reading_gets_no_more(self):
        # The socket is read into the protocol's buffer, one read per event, as asyncio's
        # `recv_into`: a protocol that pauses reading after its first 3 bytes gets no more
        # until it resumes, the rest staying in the kernel (a reader that read 256 KiB and
        # then copied it into the buffer, 3 bytes a time, would hand over all 10).
        async def program(loop, log):
            class Pausing(asyncio.BufferedProtocol):
                def __init__(self):
                    self.buf = bytearray(3)
                    self.got = bytearray()

                def connection_made(self, transport):
                    self.transport = transport

                def get_buffer(self, sizehint):
                    log.append(("get_buffer", sizehint))
                    return self.buf

                def buffer_updated(self, n):
                    self.got += self.buf[:n]
                    self.transport.pause_reading()

            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(Pausing, a)
            b.sendall(b"0123456789")
            for _ in range(20):
                await asyncio.sleep(0)
            log.append(("paused with", bytes(protocol.got), transport.is_reading()))
            transport.resume_reading()
            for _ in range(20):
                await asyncio.sleep(0)
            log.append(("resumed, then", bytes(protocol.got)))
            transport.close()
            b.close()

        log = both(self, program)
        self.assertIn(("paused with", b"012", False), log)
        self.assertIn(("resumed, then", b"012345"), log)

    def test_a_buffered_protocol_at_the_end_and_on_a_reset(self):
        # The buffered reader's two other outcomes, as asyncio's: the end of the stream
        # (`eof_received` keeps the transport open, the protocol still writes), and a
        # reset (`connection_lost` with the `ConnectionResetError`).
        for reset in (False, True):
            async def program(loop, log):
                class Ending(asyncio.BufferedProtocol):
                    def __init__(self):
                        self.buf = bytearray(4)
                        self.lost = loop.create_future()

                    def connection_made(self, transport):
                        self.transport = transport

                    def get_buffer(self, sizehint):
                        return self.buf

                    def buffer_updated(self, n):
                        log.append(("updated", bytes(self.buf[:n])))

                    def eof_received(self):
                        log.append(("eof",))
                        self.transport.write(b"bye")
                        return True

                    def connection_lost(self, exc):
                        log.append(("lost", type(exc).__name__))
                        self.lost.set_result(None)

                listener = socket.create_server(("127.0.0.1", 0))
                peer = socket.create_connection(listener.getsockname())
                ours, _ = listener.accept()
                listener.close()
                transport, protocol = await loop.connect_accepted_socket(Ending, ours)
                peer.sendall(b"abcdef")
                while len(log) < 2:
                    await asyncio.sleep(0)
                if reset:
                    peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    peer.close()
                else:
                    peer.shutdown(socket.SHUT_WR)
                    while len(log) < 3:
                        await asyncio.sleep(0)
                    peer.setblocking(False)
                    got = b""
                    while len(got) < 3:
                        try:
                            got += peer.recv(10)
                        except BlockingIOError:
                            await asyncio.sleep(0)
                    log.append(("peer got", got))
                    transport.close()
                await protocol.lost
                peer.close()

            with self.subTest(reset=reset):
                log = both(self, program)
                self.assertEqual(log[-1], ("lost", "ConnectionResetError" if reset else "NoneType"))

    def test_loop_sendfile_over_the_transport(self):
        async def program(loop, log):
            with tempfile.TemporaryFile() as file:
                file.write(b"0123456789" * 10_000)
                file.flush()
                file.seek(0)
                a, b = socket.socketpair()
                b.setblocking(False)
                transport, protocol = await loop.connect_accepted_socket(
                    lambda: Recorder(log, "sender"), a)
                sending = loop.create_task(loop.sendfile(transport, file))
                got = bytearray()
                while len(got) < 100_000:
                    try:
                        got += b.recv(65536)
                    except BlockingIOError:
                        await asyncio.sleep(0)
                log.append(("sent", await sending, bytes(got[:10]), len(got)))
                log.append(("protocol back", transport.get_protocol() is protocol))
                transport.close()
                await protocol.lost
                b.close()

        log = both(self, program)
        self.assertIn(("sent", 100_000, b"0123456789", 100_000), log)

    def test_sendfile_after_a_write_the_socket_did_not_take(self):
        # The bytes written before wait in the transport's buffer: the native sendfile
        # waits for them to go (`_make_empty_waiter`), `write` refused meanwhile, and the
        # peer reads them, then the file, in that order.
        async def program(loop, log):
            with tempfile.TemporaryFile() as file:
                file.write(b"f" * 100_000)
                file.flush()
                file.seek(0)
                a, b = socket.socketpair()
                b.setblocking(False)
                transport, protocol = await loop.connect_accepted_socket(
                    lambda: Recorder(log, "sender"), a)
                transport.set_write_buffer_limits(high=1 << 30)  # no pause_writing
                transport.write(b"w" * 3_000_000)  # more than the socket takes at once
                log.append(("buffered", transport.get_write_buffer_size() > 0))
                sending = loop.create_task(loop.sendfile(transport, file))
                await asyncio.sleep(0)
                try:
                    transport.write(b"x")
                except RuntimeError as refused:
                    log.append(("refused", str(refused)))
                got = bytearray()
                while len(got) < 3_100_000:
                    try:
                        got += b.recv(1 << 20)
                    except BlockingIOError:
                        await asyncio.sleep(0)
                log.append(("sent", await sending, got == b"w" * 3_000_000 + b"f" * 100_000))
                transport.close()
                await protocol.lost
                b.close()

        log = both(self, program)
        self.assertIn(("buffered", True), log)
        self.assertIn(("sent", 100_000, True), log)
        self.assertIn(("refused", "unable to write; sendfile is in progress"), log)

    def test_streams_over_the_native_transport(self):
        async def program(loop, log):
            async def handle(reader, writer):
                line = await reader.readline()
                writer.write(line.upper())
                await writer.drain()
                writer.close()

            srv = await asyncio.start_server(handle, "127.0.0.1", 0)
            port = srv.sockets[0].getsockname()[1]
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"hello\n")
            log.append(await reader.readline())
            log.append(await reader.read())
            writer.close()
            await writer.wait_closed()
            srv.close()
            await srv.wait_closed()
            log.append(type(writer.transport) is _transport.Transport
                       or loop.__class__ is asyncio.SelectorEventLoop)

        self.assertEqual(both(self, program), [b"HELLO\n", b"", True])


class CarelessCalls(unittest.TestCase):
    """What a careless caller does to a transport, a server or a protocol: the same
    exception types as asyncio's loop (messages may differ), the same calls, never a
    PanicException, a crash or a hang."""

    @staticmethod
    def attempt(log, name, call):
        try:
            call()
            log.append((name, "ok"))
        except BaseException as exc:  # a PanicException is a BaseException
            log.append((name, type(exc).__name__))

    def test_writes_of_every_kind(self):
        async def program(loop, log):
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "w"), a)
            for name, data in [("str", "x"), ("None", None), ("list", [1]),
                               ("memoryview", memoryview(b"mv")), ("empty", b"")]:
                self.attempt(log, name, lambda: transport.write(data))
            mutated = bytearray(b"before")
            transport.write(mutated)
            mutated[:] = b"AFTER!"  # the transport copied it (or sent it) already
            released = memoryview(b"x")
            released.release()
            self.attempt(log, "released", lambda: transport.write(released))
            self.attempt(log, "lines of str", lambda: transport.writelines(["x"]))
            self.attempt(log, "lines None", lambda: transport.writelines(None))
            b.settimeout(30)
            got = b""
            while len(got) < len(b"mvbefore"):
                got += b.recv(100)
            log.append(("peer got", got))
            transport.write_eof()
            self.attempt(log, "write_eof twice", transport.write_eof)
            self.attempt(log, "write after eof", lambda: transport.write(b"x"))
            transport.close()
            for name, call in [("write", lambda: transport.write(b"x")),
                               ("writelines", lambda: transport.writelines([b"x"])),
                               ("write_eof", transport.write_eof), ("close", transport.close),
                               ("abort", transport.abort),
                               ("pause", transport.pause_reading),
                               ("resume", transport.resume_reading)]:
                self.attempt(log, name + " after close", call)
            await protocol.lost
            self.attempt(log, "write after lost", lambda: transport.write(b"x"))
            log.append(("extra", transport.get_extra_info("nonexistent", "default"),
                        transport.get_extra_info("peercert", 7)))
            b.close()

        log = both(self, program)
        self.assertIn(("str", "TypeError"), log)
        self.assertIn(("peer got", b"mvbefore"), log)

    def test_write_buffer_limits_take_what_asyncio_takes(self):
        # asyncio compares the limits as given: a float (`high=64e3`) or an int past 64
        # bits is taken, a low above the high is a ValueError. Ours were an int of 64 bits:
        # a float was a TypeError, 2**70 an OverflowError.
        async def program(loop, log):
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "limits"), a)
            for high, low in [(1, 2), (-1, None), (None, -1), ("x", None), (1.5, None),
                              (2**70, None), (64e3, 1e3), (2.5, 2.7), (None, None)]:
                self.attempt(log, (high, low),
                             lambda: transport.set_write_buffer_limits(high, low))
            transport.set_write_buffer_limits(high=1.5)
            log.append(("whole", [int(x) for x in transport.get_write_buffer_limits()]))
            transport.write(b"x" * (8 << 20))  # more than the socket takes: over 1.5
            transport.abort()
            await protocol.lost
            b.close()

        log = both(self, program)
        self.assertIn(((1.5, None), "ok"), log)
        self.assertIn(((1, 2), "ValueError"), log)
        self.assertIn(("pause_writing", "limits"), log)

    def test_pause_twice_and_resume_unpaused(self):
        async def program(loop, log):
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Recorder(log, "r"), a)
            for name in ("resume_reading", "pause_reading", "pause_reading",
                         "resume_reading", "resume_reading"):
                self.attempt(log, name, getattr(transport, name))
            b.sendall(b"hi")
            while not any(e[0] == "data" for e in log):
                await asyncio.sleep(0)
            transport.close()
            await protocol.lost
            b.close()

        both(self, program)

    def test_abort_inside_data_received(self):
        async def program(loop, log):
            class Aborts(Recorder):
                def data_received(self, data):
                    super().data_received(data)
                    self.transport.abort()
                    self.transport.write(b"dropped")  # closing: dropped, no error
                    log.append(("closing", self.transport.is_closing()))

            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Aborts(log, "a"), a)
            b.sendall(b"one")
            await protocol.lost
            b.close()

        log = both(self, program)
        self.assertEqual(log[-1], ("lost", "a", "NoneType"))

    def test_a_connection_made_that_raises(self):
        async def program(loop, log):
            caught = []
            loop.set_exception_handler(lambda loop, context: caught.append(context))

            class Raises(Recorder):
                def connection_made(self, transport):
                    super().connection_made(transport)
                    raise ZeroDivisionError("in connection_made")

            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: Raises(log, "made"), a)
            while not caught:
                await asyncio.sleep(0)
            log.append(("reported", type(caught[0]["exception"]).__name__,
                        transport.is_closing()))
            transport.close()
            await protocol.lost
            b.close()

        both(self, program)

    def test_a_factory_that_returns_no_protocol_or_raises(self):
        # asyncio's transport looks up `protocol.connection_made` as it is made: None is
        # an AttributeError raised to the caller. Ours took None, returned it as the
        # protocol, and reported AttributeErrors from its callbacks later ("Exception
        # ignored in" on standard error, then the exception handler).
        async def program(loop, log):
            caught = []
            loop.set_exception_handler(lambda loop, context: caught.append(context))
            # (The server's side is not logged: a failed client's socket is closed when
            # it is collected, which asyncio's loop and ours do at different times.)
            server = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
            port = server.sockets[0].getsockname()[1]
            pairs = []  # open until the end: asyncio's loop still maps a failed one's fd
            for name, factory in [("None", lambda: None), ("object", object),
                                  ("raises", lambda: 1 / 0)]:
                pairs.append(socket.socketpair())
                try:
                    await loop.connect_accepted_socket(factory, pairs[-1][0])
                    log.append((name, "returned"))
                except Exception as exc:
                    log.append((name, type(exc).__name__))
                try:
                    await loop.create_connection(factory, "127.0.0.1", port)
                    log.append((name, "connected"))
                except Exception as exc:
                    log.append((name, "create_connection", type(exc).__name__))
            server.close()
            await server.wait_closed()
            for _ in range(5):
                await asyncio.sleep(0)
            log.append(("handler called", len(caught)))
            for pair in pairs:
                for sock in pair:
                    sock.close()

        log = both(self, program)
        self.assertIn(("None", "AttributeError"), log)
        self.assertIn(("handler called", 0), log)

    def test_a_buffered_protocol_with_a_bad_buffer(self):
        async def program(loop, log):
            caught = []
            loop.set_exception_handler(lambda loop, context: caught.append(
                (context["message"], type(context["exception"]).__name__)))
            for kind in ("empty", "bytes", "raises", "None", "read-only view"):
                class Bad(asyncio.BufferedProtocol):
                    def __init__(self):
                        self.lost = loop.create_future()

                    def get_buffer(self, sizehint):
                        if kind == "raises":
                            raise ZeroDivisionError("get_buffer")
                        return {"empty": bytearray(), "bytes": b"read-only", "None": None,
                                "read-only view": memoryview(b"abc")}[kind]

                    def buffer_updated(self, nbytes):
                        log.append((kind, "updated", nbytes))

                    def connection_lost(self, exc):
                        self.lost.set_result(type(exc).__name__)

                a, b = socket.socketpair()
                transport, protocol = await loop.connect_accepted_socket(Bad, a)
                b.sendall(b"data")
                log.append((kind, await protocol.lost))
                b.close()
            log.append(("reported", caught))

        log = both(self, program)
        self.assertIn(("empty", "RuntimeError"), log)

    def test_a_server_on_a_port_in_use_closed_twice_and_served_twice(self):
        async def program(loop, log):
            taken = socket.socket()
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            try:
                await loop.create_server(asyncio.Protocol, "127.0.0.1",
                                         taken.getsockname()[1])
                log.append("port in use: served")
            except OSError as exc:
                log.append(("port in use", type(exc).__name__, exc.errno))
            taken.close()
            server = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
            forever = asyncio.ensure_future(server.serve_forever())
            await asyncio.sleep(0)
            try:
                await server.serve_forever()
            except RuntimeError:
                log.append("serve_forever twice: RuntimeError")
            self.attempt(log, "close", server.close)
            self.attempt(log, "close twice", server.close)
            try:
                await forever
            except asyncio.CancelledError:
                log.append("serve_forever cancelled by close")
            await server.wait_closed()
            await server.wait_closed()
            log.append(("closed", server.is_serving(), server.sockets))
            try:
                await server.serve_forever()
            except RuntimeError:
                log.append("serve_forever after close: RuntimeError")

        log = both(self, program)
        self.assertIn(("closed", False, ()), log)

    def test_a_transport_used_after_its_loop_is_closed_raises_runtime_error_at_most(self):
        # Ours frees a connection when its loop closes (see WhatBelongsToALoop); asyncio's
        # keeps it open. Each call returns or raises RuntimeError: no PanicException.
        loop = scratchloop.ScratchLoop()
        ours, peer = socket.socketpair()
        try:
            transport, _ = loop.run_until_complete(
                loop.connect_accepted_socket(asyncio.Protocol, ours))
            server = loop.run_until_complete(
                loop.create_server(asyncio.Protocol, "127.0.0.1", 0))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ResourceWarning)
                loop.close()
            log = []
            for name in ("write", "writelines", "write_eof", "close", "abort",
                         "pause_reading", "resume_reading", "get_write_buffer_size",
                         "is_closing", "get_extra_info"):
                args = {"write": (b"x",), "writelines": ([b"x"],),
                        "get_extra_info": ("peername",)}.get(name, ())
                self.attempt(log, name, lambda: getattr(transport, name)(*args))
            self.attempt(log, "server.close", server.close)
            self.assertEqual([r for r in log if r[1] not in ("ok", "RuntimeError")], [])
        finally:
            peer.close()


class OtherThreads(unittest.TestCase):
    def test_a_transport_used_from_another_thread_is_a_runtime_error_not_a_panic(self):
        import threading

        loop = scratchloop.ScratchLoop()
        caught = []

        async def program():
            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(asyncio.Protocol, a)

            def other():
                for use in (lambda: transport.write(b"x"), transport.is_closing,
                            transport.close, transport.get_write_buffer_size):
                    try:
                        use()
                    except BaseException as exc:  # a PanicException is a BaseException
                        caught.append(type(exc).__name__)

            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
            transport.close()
            await asyncio.sleep(0)
            b.close()

        try:
            loop.run_until_complete(program())
        finally:
            loop.close()
        self.assertEqual(caught, ["RuntimeError"] * 4)


class Reentrant(unittest.TestCase):
    def test_a_protocol_may_write_when_told_to_pause_or_to_resume_writing(self):
        # Stage 5's transport held its buffer borrowed while it told the protocol: the
        # write inside was a PanicException ("RefCell already borrowed").
        async def program(loop, log):
            class WritesWhenTold(Recorder):
                def pause_writing(self):
                    super().pause_writing()
                    self.transport.write(b"P")

                def resume_writing(self):
                    super().resume_writing()
                    self.transport.write(b"R")

            a, b = socket.socketpair()
            transport, protocol = await loop.connect_accepted_socket(
                lambda: WritesWhenTold(log, "told"), a)
            transport.set_write_buffer_limits(high=1, low=0)
            sent = b"x" * (1 << 20)
            transport.write(sent)
            b.setblocking(False)
            got = bytearray()
            while len(got) < len(sent) + 2:
                try:
                    got += b.recv(1 << 16)
                except BlockingIOError:
                    await asyncio.sleep(0)
            log.append(("peer got", bytes(got[len(sent):])))
            transport.close()
            await protocol.lost
            b.close()

        log = both(self, program)
        self.assertIn(("peer got", b"PR"), log)


class WhatBelongsToALoop(unittest.TestCase):
    def test_a_base_exception_is_raised_by_its_own_loop(self):
        # A `pause_writing` that raises `KeyboardInterrupt` inside a `write` made while its
        # loop is not running: the exception is kept for that loop's next `run_forever`.
        # Another loop on the same thread runs meanwhile and must not raise it.
        class Interrupting(asyncio.Protocol):
            def pause_writing(self):
                raise KeyboardInterrupt("loop a's")

        a, b = scratchloop.ScratchLoop(), scratchloop.ScratchLoop()
        ours, peer = socket.socketpair()
        try:
            transport, _ = a.run_until_complete(
                a.connect_accepted_socket(Interrupting, ours))
            transport.set_write_buffer_limits(high=1)
            transport.write(b"x" * (8 << 20))  # more than the socket takes: buffered, paused
            self.assertEqual(b.run_until_complete(asyncio.sleep(0, "b ran")), "b ran")
            with self.assertRaisesRegex(KeyboardInterrupt, "loop a's"):
                a.run_until_complete(asyncio.sleep(0))
            transport.abort()
            a.run_until_complete(asyncio.sleep(0))
        finally:
            peer.close()
            a.close()
            b.close()

    def test_a_connection_open_when_its_loop_closes_is_freed_and_its_socket_closed(self):
        # asyncio's loop close leaves its transports alone; the collector frees one nobody
        # holds, and its `__del__` warns and closes the socket: the peer reads the end.
        for make in (asyncio.SelectorEventLoop, scratchloop.ScratchLoop):
            with self.subTest(loop=make.__name__):
                peer, transport = self.left_open(make, Keeper)
                self.assert_freed_and_closed(peer, transport)

    def test_a_lost_connection_whose_protocol_keeps_its_transport_is_freed(self):
        for make in (asyncio.SelectorEventLoop, scratchloop.ScratchLoop):
            with self.subTest(loop=make.__name__):
                loop = make()
                ours, peer = socket.socketpair()
                try:
                    transport, protocol = loop.run_until_complete(
                        loop.connect_accepted_socket(Keeper, ours))
                    transport.close()
                    loop.run_until_complete(protocol.lost)
                    transport = weakref.ref(transport)
                    del protocol
                    gc.collect()
                    self.assertIsNone(transport())
                finally:
                    peer.close()
                    loop.close()

    def left_open(self, make, factory):
        """A connection of a loop of `make`, left open when the loop is closed: the peer
        and a weak reference to the transport."""
        loop = make()
        ours, peer = socket.socketpair()
        try:
            transport, _ = loop.run_until_complete(loop.connect_accepted_socket(factory, ours))
        finally:
            loop.close()
        return peer, weakref.ref(transport)

    def assert_freed_and_closed(self, peer, transport):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gc.collect()
        self.assertIsNone(transport())
        self.assertIn("unclosed transport", " ".join(str(w.message) for w in caught))
        peer.settimeout(30)
        try:
            self.assertEqual(peer.recv(10), b"")  # both descriptors closed: the end
        finally:
            peer.close()


class Keeper(asyncio.Protocol):
    """Keeps its transport, as most protocols do (a cycle for the collector)."""

    def __init__(self):
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport

    def connection_lost(self, exc):
        self.lost.set_result(exc)


def main():
    suite = unittest.TestLoader().loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors)
    print(f"own transport tests: {result.testsRun - failed} passed, {failed} failed "
          f"of {result.testsRun}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
