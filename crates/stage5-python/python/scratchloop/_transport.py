"""Transport: stage 5's Rust transport inside an `asyncio.Transport`.

Book chapter 9, "Native transports". The Rust class (`_core.Transport`) reads the socket,
calls the protocol and writes, all in stage 5; this class is what asyncio's code sees (an
`asyncio.Transport`, as CPython's tests check), and keeps what asyncio's
`_SelectorTransport.__init__` and `_call_connection_lost` keep around a connection: the
extra info (`socket`, `sockname`, `peername`), the server's count of its connections,
the loop's table of transports (so `sock_recv` on a transport's socket is refused), and
where a protocol's failure is reported.

The methods a connection calls all the time (`write`, `is_closing`...) are the Rust
object's own, bound on the instance: a call is a C call, with no Python frame between.
"""

import math
import sys
import warnings
from asyncio import constants, futures, transports, trsock
from asyncio.log import logger

from . import _core

# The Rust transport's methods, taken as this transport's own.
_NATIVE = ("write", "writelines", "is_closing", "get_write_buffer_size", "pause_reading",
           "resume_reading", "is_reading")


def _whole(limit):
    """A water mark as stage 5 takes it: whole bytes (it compares a whole buffer size, so
    `size > 1.5` is `size > 1`), at most `sys.maxsize` (asyncio takes any number)."""
    return min(math.floor(limit), sys.maxsize)


def _refuse_write(data):
    raise RuntimeError("unable to write; sendfile is in progress")


class Transport(transports._FlowControlMixin):
    """asyncio's `_SelectorSocketTransport` on stage 5's transport. A `_FlowControlMixin`,
    as asyncio's is (`loop.sendfile`'s fallback asks), whose water marks are stage 5's."""

    # `loop.sendfile` tries `os.sendfile` on asyncio's socket, as on asyncio's transport:
    # the selector loop's `_sendfile_native` pauses reading, waits for the write buffer to
    # empty (`_make_empty_waiter`), and `write` is refused until it is done.
    _sendfile_compatible = constants._SendfileMode.TRY_NATIVE
    _empty_waiter = None
    # `loop.start_tls` may swap in its `SSLProtocol` (a BufferedProtocol) with
    # `set_protocol`, as it does on asyncio's transports.
    _start_tls_compatible = True
    _sock = None

    def __init__(self, core, loop, sock, protocol, waiter=None, extra=None, server=None):
        # Not `_FlowControlMixin.__init__`: the water marks are the Rust transport's.
        # asyncio's transport looks up `protocol.connection_made` as it is made (its
        # `call_soon` takes the bound method): what is no protocol (a factory that
        # returned None) is an AttributeError raised to the caller, before the socket is
        # taken.
        protocol.connection_made  # (the look-up is the check)
        transports.BaseTransport.__init__(self, extra)
        self._native = native = _core.Transport(core, protocol)
        for name in _NATIVE:
            setattr(self, name, getattr(native, name))
        self._loop = loop
        self._extra["socket"] = trsock.TransportSocket(sock)
        try:
            self._extra["sockname"] = sock.getsockname()
        except OSError:
            self._extra["sockname"] = None
        if "peername" not in self._extra:
            try:
                self._extra["peername"] = sock.getpeername()
            except OSError:
                self._extra["peername"] = None
        self._sock = sock
        self._sock_fd = sock.fileno()
        self._server = server
        native._scratch_start(sock, self)  # connection_made, then the reader, scheduled
        if waiter is not None:
            loop.call_soon(futures._set_result_unless_cancelled, waiter, None)
        if server is not None:
            server._attach()
        loop._transports[self._sock_fd] = self

    def __repr__(self):
        info = [self.__class__.__name__]
        if self._sock is None:
            info.append("closed")
        elif self.is_closing():
            info.append("closing")
        info.append(f"fd={self._sock_fd}")
        if self._sock is not None:
            info.append(f"write=<bufsize={self.get_write_buffer_size()}>")
        return "<{}>".format(" ".join(info))

    def __del__(self, _warn=warnings.warn):
        if self._sock is not None:
            _warn(f"unclosed transport {self!r}", ResourceWarning, source=self)
            self._sock.close()

    # ---- asyncio's transport methods, on the Rust transport -------------------------

    def write_eof(self):
        self._native.write_eof()

    def can_write_eof(self):
        return True

    def close(self):
        self._native.close()

    def abort(self):
        self._native.abort()

    def set_write_buffer_limits(self, high=None, low=None):
        # asyncio's own rules (its defaults, its ValueError), then the marks to stage 5.
        self._set_write_buffer_limits(high, low)
        self._native.set_write_buffer_limits(_whole(self._high_water), _whole(self._low_water))

    def get_write_buffer_limits(self):
        return self._native.get_write_buffer_limits()

    def get_protocol(self):
        return self._native.get_protocol()

    def set_protocol(self, protocol):
        self._native.set_protocol(protocol)

    @property
    def _protocol(self):
        return self._native.get_protocol()

    @property
    def _protocol_paused(self):
        return self._native._scratch_protocol_paused()

    # ---- what asyncio's `_SelectorTransport` does around the protocol ---------------

    def _force_close(self, exc):
        self._native._force_close(exc)

    def _fatal_error(self, exc, message="Fatal error on transport"):
        if isinstance(exc, OSError):
            if self._loop.get_debug():
                logger.debug("%r: %s", self, message, exc_info=True)
        else:
            self._loop.call_exception_handler({
                "message": message,
                "exception": exc,
                "transport": self,
                "protocol": self.get_protocol(),
            })
        self._force_close(exc)

    def _call_connection_lost(self, exc):
        """The connection is lost (stage 5 calls this once, then closes its descriptor):
        tell the protocol, close asyncio's socket, let the server count it gone."""
        try:
            self.get_protocol().connection_lost(exc)
        finally:
            self._sock.close()
            self._sock = None
            server = self._server
            if server is not None:
                server._detach()
                self._server = None
            waiter = self._empty_waiter
            if waiter is not None and not waiter.done():
                waiter.set_exception(ConnectionError("Connection is closed by peer"))

    # ---- native sendfile: asyncio's `_SelectorSocketTransport` hooks ----------------

    def _make_empty_waiter(self):
        """A future done once the write buffer is empty; until `_reset_empty_waiter`,
        `write` is refused, as asyncio's is while `os.sendfile` writes the socket. Stage
        5's transport tells Python nothing when its buffer empties, so the waiter looks
        once an iteration (only while bytes written before the sendfile are still there)."""
        if self._empty_waiter is not None:
            raise RuntimeError("Empty waiter is already set")
        self._empty_waiter = waiter = self._loop.create_future()
        self.write = self.writelines = _refuse_write
        self._check_empty(waiter)
        return waiter

    def _check_empty(self, waiter):
        if waiter.done() or waiter is not self._empty_waiter:
            return
        if self._native.get_write_buffer_size() == 0:
            waiter.set_result(None)
        elif self._sock is not None:
            self._loop.call_soon(self._check_empty, waiter)

    def _reset_empty_waiter(self):
        self._empty_waiter = None
        self.write = self._native.write  # the Rust methods again
        self.writelines = self._native.writelines

    def _scratch_failed(self, kind, exc):
        """A protocol's `kind` call raised `exc`: what asyncio does with it."""
        if kind in ("pause_writing", "resume_writing"):
            self._loop.call_exception_handler({
                "message": f"protocol.{kind}() failed",
                "exception": exc,
                "transport": self,
                "protocol": self.get_protocol(),
            })
        elif kind == "connection_made":
            # asyncio calls it from a `call_soon` handle: "Exception in callback".
            protocol = self.get_protocol()
            self._loop._scratch_callback_failed(protocol.connection_made, (self,), exc, None)
        elif kind == "read":
            self._fatal_error(exc, "Fatal read error on socket transport")
        elif kind == "connection_lost":
            self._loop._scratch_callback_failed(self._call_connection_lost, (None,), exc, None)
        else:
            if kind == "buffered":
                kind = exc.__dict__.pop("_scratch_method", "get_buffer")
            self._fatal_error(exc, f"Fatal error: protocol.{kind}() call failed.")
