"""ScratchLoop: asyncio's selector loop with stage 5's Rust core underneath.

Book chapter 9, "Which parts are ours". asyncio's `SelectorEventLoop` (on Unix,
`unix_events._UnixSelectorEventLoop`) is a tower: `BaseEventLoop` (scheduling, `run_forever`,
tasks, servers), `BaseSelectorEventLoop` (readers, writers, the self-pipe, `sock_*`,
transports), and the Unix layer (signals, pipes, Unix sockets, subprocesses). This class keeps
the tower and replaces its floor: the methods that touch the ready queue, the timer heap,
the selector, the self-pipe and the signal table go to stage 5's `EventLoop` (`_core.Core`);
everything built on them (futures, tasks, transports, streams, servers, `sock_*`) is
asyncio's own code, running on our core unchanged.
"""

import atexit
import errno
import os
import selectors
import signal
import sys
import threading
import time
import warnings
import weakref
from _thread import get_ident
from asyncio import coroutines, events, format_helpers, unix_events

from . import _core, _transport


def _fileno(fileobj):
    """A file descriptor from an int or an object with `fileno()` (as `selectors` takes)."""
    if isinstance(fileobj, int):
        fd = fileobj
    else:
        try:
            fd = int(fileobj.fileno())
        except (AttributeError, TypeError, ValueError):
            raise ValueError(f"Invalid file object: {fileobj!r}") from None
    if fd < 0:
        raise ValueError(f"Invalid file descriptor: {fd}")
    return fd


# The largest descriptor number: a C int's.
_FD_MAX = 2**31 - 1


class _CoreSelector:
    """What asyncio's layers still ask of `loop._selector`: `get_key`, for a transport's
    repr ("polling" or "idle"), answered from stage 5's I/O table; and `close`."""

    def __init__(self, here):
        self._here = here  # the loop's `_here`: its core, on the loop's thread

    def get_key(self, fileobj):
        fd = _fileno(fileobj)
        core = self._here()
        mask = 0
        if core.has_reader(fd):
            mask |= selectors.EVENT_READ
        if core.has_writer(fd):
            mask |= selectors.EVENT_WRITE
        if not mask:
            raise KeyError(f"{fileobj!r} is not registered")
        return selectors.SelectorKey(fileobj, fd, mask, None)

    def close(self):
        """Stage 5's loop closes its selector itself."""


def _sighandler_noop(signum, frame):
    """Python's own handler while ours is installed: Python's C-level handler still runs
    (signal-hook chains to it), and must not raise `KeyboardInterrupt` for a SIGINT."""


# Signals whose process-wide handler signal-hook installed (it never uninstalls one), and
# those whose handler Python's replaced since, when their loop handler was removed:
# signal-hook's registry believes its handler is still there and would not install it again.
_HOOKED = set()
_DISPLACED = set()
# Per hooked signal, signal-hook's `struct sigaction` as the kernel held it, opaque bytes,
# to put back when a displaced signal is handled again.
_SIGNAL_HOOK_ACTIONS = {}
# Larger than any libc's `struct sigaction` (glibc's is 152 bytes on x86-64).
_SIGACTION_SIZE = 512


def _sigaction(sig, new, old):
    """libc's `sigaction(sig, new, old)` through ctypes (buffers of opaque bytes or None);
    False if libc cannot be reached or refuses."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.sigaction(ctypes.c_int(sig), new, old) == 0
    except (ImportError, OSError, AttributeError):
        return False


def _keep_signal_hook_action(sig):
    """Keep the action signal-hook just installed for `sig`."""
    import ctypes

    action = ctypes.create_string_buffer(_SIGACTION_SIZE)
    if _sigaction(sig, None, action):
        _SIGNAL_HOOK_ACTIONS[sig] = action


def _restore_signal_hook_action(sig):
    """Put signal-hook's action for `sig` back where Python's displaced it: it calls Python's
    C-level handler first (the one it found when it was installed), then stage 5's
    actions, as before the removal. True if it is back."""
    action = _SIGNAL_HOOK_ACTIONS.get(sig)
    return action is not None and _sigaction(sig, action, None)


# Stage 5's transports, unless SCRATCHLOOP_TRANSPORTS=asyncio asks for asyncio's Python
# ones (for the benchmarks' side-by-side: the same loop core, either transport).
_NATIVE_TRANSPORTS = os.environ.get("SCRATCHLOOP_TRANSPORTS", "native") != "asyncio"


# Every ScratchLoop not yet closed, for `_close_at_exit`.
_OPEN = weakref.WeakSet()


@atexit.register
def _close_at_exit():
    """Close the loops nobody closed, as asyncio's `BaseEventLoop.__del__` closes its own
    when the interpreter frees it at exit. Ours is never freed: what its Rust core holds
    (timers, readers, and through them futures and tasks that refer back to the loop) is a
    cycle Python's collector cannot see. Closed, the core lets go, and the collector then
    frees those tasks as it frees asyncio's: a coroutine's `finally` runs, and asyncio
    says "Task was destroyed but it is pending!"."""
    for loop in list(_OPEN):
        if not loop.is_closed() and not loop.is_running() and loop._core_thread == get_ident():
            warnings.warn(f"unclosed event loop {loop!r}", ResourceWarning, source=loop)
            loop.close()


class ScratchLoop(unix_events.SelectorEventLoop):
    """An `asyncio.AbstractEventLoop` whose scheduling core is stage 5's Rust loop."""

    def __init__(self):
        self._core = _core.Core(self, time.monotonic())
        self._core_thread = get_ident()
        self._remote = self._core.remote()
        super().__init__(selector=_CoreSelector(self._here))
        _OPEN.add(self)

    def _here(self):
        """The core, on the thread that made it. Stage 5's loop is an `Rc`, bound to its
        thread, and pyo3 would answer another thread with a Rust panic: this says why,
        as asyncio's debug mode says it (`_check_thread`), in every mode."""
        if get_ident() != self._core_thread:
            raise RuntimeError(
                "Non-thread-safe operation invoked on a ScratchLoop from another thread "
                "than the one that made it; use call_soon_threadsafe()")
        return self._core

    # ---- the clock and the scheduling core: stage 5's -------------------------------

    def time(self):
        return self._here().time()

    def call_soon(self, callback, *args, context=None):
        # The hottest path of all (every task step, every future's callback): `_here`'s
        # check, inline.
        if get_ident() != self._core_thread:
            self._here()
        if self._debug:
            self._check_thread()
            self._check_callback(callback, "call_soon")
            handle = self._core.call_soon(callback, *args, context=context)
            # Where it was made, as asyncio's `Handle.__init__` keeps it in debug mode.
            handle._source_traceback = format_helpers.extract_stack(sys._getframe(1))
            return handle
        return self._core.call_soon(callback, *args, context=context)

    def _call_soon(self, callback, args, context):
        return self._here().call_soon(callback, *args, context=context)

    def call_later(self, delay, callback, *args, context=None):
        if delay is None:
            raise TypeError("delay must not be None")
        timer = self.call_at(self.time() + delay, callback, *args, context=context)
        if timer._source_traceback:
            del timer._source_traceback[-1]  # this frame: the caller's is the last
        return timer

    def call_at(self, when, callback, *args, context=None):
        if when is None:
            raise TypeError("when cannot be None")
        self._check_closed()
        if self._debug:
            self._check_thread()
            self._check_callback(callback, "call_at")
        timer = self._here().call_at(when, callback, *args, context=context)
        if self._debug:
            timer._source_traceback = format_helpers.extract_stack(sys._getframe(1))
        return timer

    def _run_once(self):
        # asyncio's `run_forever` calls `_run_once` until `_stopping`; stage 5's
        # `run_forever` is that loop already, and `stop()` stops both.
        self._here().run_forever()

    def stop(self):
        if get_ident() != self._core_thread:
            # asyncio's `stop` sets a flag, from any thread; stage 5's loop is bound to its
            # thread, so the stop goes there, as `call_soon_threadsafe(loop.stop)` would,
            # and wakes the loop (asyncio's would stop after its next event).
            if not self.is_closed():
                self._remote.call_soon_threadsafe(events.Handle(self.stop, (), self))
            return
        self._stopping = True
        self._core.stop()

    def close(self):
        core = self._here()
        super().close()  # asyncio's checks, its executor, its signal handlers
        if self.is_closed():
            core.close()
            _OPEN.discard(self)
            # A connection still open: stage 5's side is dropped, the rest is left to the
            # collector, as asyncio leaves its transports (`__del__` warns, closes the socket).
            for transport in list(self._transports.values()):
                if isinstance(transport, _transport.Transport):
                    transport._native._scratch_loop_closed()

    def set_debug(self, enabled):
        super().set_debug(enabled)
        self._here().set_debug(enabled)  # stage 5 times the callbacks in its debug mode
        # Outside debug mode, `call_soon`, `call_later` and `call_at` are the core's own
        # (`_core.Fast`), bound on the instance: no Python frame per callback. In debug
        # mode this class's methods run, which keep where each handle was made; and so
        # they do where a subclass overrides any of the three (`call_later` calls
        # `call_at`, which the subclass may watch).
        names = ("call_soon", "call_later", "call_at")
        ours = all(getattr(type(self), name) is getattr(ScratchLoop, name) for name in names)
        fast = _core.Fast(self._core) if ours and not enabled else None
        for name in names:
            if fast is not None:
                setattr(self, name, getattr(fast, name))
            else:
                self.__dict__.pop(name, None)

    @property
    def slow_callback_duration(self):
        return self._slow_callback_duration

    @slow_callback_duration.setter
    def slow_callback_duration(self, seconds):
        self._here().set_slow_callback_duration(seconds)
        self._slow_callback_duration = seconds

    def _scratch_callback_failed(self, callback, args, exc, when):
        """A callback raised `exc`: what asyncio's `Handle._run` tells the handler. The
        handle asyncio names is one of asyncio's classes with the same callback,
        arguments and due time (`when`, None for a plain handle), made now: the Rust
        closure that ran it does not know the Python handle `call_soon` returned."""
        source = format_helpers._format_callback_source(callback, args)
        if when is None:
            handle = events.Handle(callback, args, self)
        else:
            handle = events.TimerHandle(when, callback, args, self)
        handle._source_traceback = None  # not where it was made: where it failed
        self.call_exception_handler({
            "message": f"Exception in callback {source}",
            "exception": exc,
            "handle": handle,
        })

    # ---- transports: stage 5's -------------------------------------------------------

    def _make_socket_transport(self, sock, protocol, waiter=None, *, extra=None, server=None):
        # Every connection of `create_server`, `create_connection`, the Unix ones,
        # `connect_accepted_socket` and the streams comes here: stage 5's transport.
        # (TLS makes its transport elsewhere, `_make_ssl_transport`: asyncio's.)
        if not _NATIVE_TRANSPORTS:
            return super()._make_socket_transport(
                sock, protocol, waiter, extra=extra, server=server)
        return _transport.Transport(
            self._here(), self, sock, protocol, waiter, extra, server)

    # ---- the self-pipe and other threads: stage 5's ---------------------------------

    def _make_self_pipe(self):
        # Stage 5's loop made its own self-pipe; asyncio counts it as an internal fd.
        self._ssock = self._csock = None
        self._internal_fds += 1

    def _close_self_pipe(self):
        self._internal_fds -= 1

    def _write_to_self(self):
        self._remote.write_to_self()

    def call_soon_threadsafe(self, callback, *args, context=None):
        self._check_closed()
        if self._debug:
            self._check_callback(callback, "call_soon_threadsafe")
        handle = events.Handle(callback, args, self, context)
        if handle._source_traceback:
            del handle._source_traceback[-1]
        self._remote.call_soon_threadsafe(handle)
        return handle

    # ---- readers and writers: stage 5's I/O table -----------------------------------

    def _add_reader(self, fd, callback, *args):
        self._check_closed()
        return self._here().add_reader(_fileno(fd), callback, *args)

    def _remove_reader(self, fd):
        if self.is_closed():
            return False
        fd = _fileno(fd)
        # A number no descriptor can have (over C's int) has no reader: asyncio's selector
        # looks it up and finds nothing.
        return fd <= _FD_MAX and self._here().remove_reader(fd)

    def _add_writer(self, fd, callback, *args):
        self._check_closed()
        return self._here().add_writer(_fileno(fd), callback, *args)

    def _remove_writer(self, fd):
        if self.is_closed():
            return False
        fd = _fileno(fd)
        return fd <= _FD_MAX and self._here().remove_writer(fd)

    # ---- signals: stage 5's signal table --------------------------------------------

    def add_signal_handler(self, sig, callback, *args):
        if coroutines.iscoroutine(callback) or coroutines.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with add_signal_handler()")
        self._check_signal(sig)
        self._check_closed()
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("signal handlers can only be added in the main thread")
        if sig not in _HOOKED or sig in _DISPLACED:
            try:
                # Python's C-level handler under ours, its Python-level one a no-op:
                # signal-hook calls it first, then stage 5's actions.
                signal.signal(sig, _sighandler_noop)
            except OSError as exc:
                if exc.errno == errno.EINVAL:
                    raise RuntimeError(f"sig {sig} cannot be caught") from exc
                raise  # anything else reaches the caller as it is, as asyncio's does
        handle = self._here().add_signal_handler(sig, callback, *args)
        if sig not in _HOOKED:
            _HOOKED.add(sig)
            _keep_signal_hook_action(sig)
        elif sig in _DISPLACED:
            # Handled, removed (Python's handler restored) and handled again: signal-hook's
            # handler goes back into the kernel, as it was the first time.
            if not _restore_signal_hook_action(sig):
                self._here().remove_signal_handler(sig)
                raise RuntimeError(
                    f"sig {sig} was handled and removed before, and signal-hook's handler "
                    "cannot be put back")
            _DISPLACED.discard(sig)
        self._signal_handlers[sig] = handle

    def remove_signal_handler(self, sig):
        self._check_signal(sig)
        if self._signal_handlers.pop(sig, None) is None:
            return False
        if not self.is_closed():
            self._here().remove_signal_handler(sig)
        # Python's own handler again, as asyncio restores it. This replaces signal-hook's
        # process-wide handler, which signal-hook cannot install twice: `add_signal_handler`
        # puts it back itself (see `_DISPLACED`).
        default = signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL
        signal.signal(sig, default)
        _DISPLACED.add(sig)
        return True
