//! The transport: a socket, its reader and writer, and its protocol (book chapter 8, "What a
//! transport adds to a reader"; asyncio's `protocols.py`: `Protocol`, and `selector_events.py`: `_SelectorTransport`,
//! `_SelectorSocketTransport.__init__`, `close`, `_force_close`, `_call_connection_lost`,
//! `pause_reading`, `resume_reading`).
//!
//! This file is the transport's life: how it starts (`connection_made`, then the reader,
//! each with `call_soon`, in that order, so no data can arrive before the protocol knows
//! its transport), how it ends (`close` waits for the write buffer to drain, `abort` throws
//! it away; either way `connection_lost` comes once, with `call_soon`, and only then is the
//! socket closed), and reading paused and resumed. Reading and writing themselves are in
//! its child modules `transport/reading.rs` and `transport/writing.rs`, which read its
//! private fields as a child may.
//!
//! The protocol's trait is here too: the transport holds its protocol, and the protocol is
//! handed its transport, so the two are one module (asyncio's `protocols.py` holds only the
//! trait's defaults, which ours has as default methods).
//!
//! What changed from chapter 7: a reader was a callback the program wrote; here the reader
//! is the transport's, and the program's code is called from it.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;

use socket2::Socket;
use stage4::Interest;

use crate::errors::{Error, catch};
use crate::event_loop::weak::WeakLoop;
use crate::event_loop::{EventLoop, ExceptionContext};
use crate::futures::future::Future;
use crate::transports::flow_control::FlowControl;

mod info;
mod reading;
mod writing;

pub use reading::MAX_SIZE;

/// A connection's transport (asyncio's `_SelectorSocketTransport`). Cloning gives another
/// handle to the same transport.
#[derive(Clone)]
pub struct Transport {
    inner: Rc<TransportInner>,
}

// ANCHOR: state
pub(crate) struct TransportInner {
    lp: WeakLoop,
    sock: RefCell<Option<Socket>>, // `None` once `connection_lost` closed it
    fd: RawFd,
    peername: Option<SocketAddr>,
    sockname: Option<SocketAddr>,
    protocol: RefCell<Option<Rc<dyn Protocol>>>, // `None` after `connection_lost`
    buffer: RefCell<Vec<u8>>,                    // what the socket did not take yet
    flow: FlowControl,
    conn_lost: Cell<bool>, // `connection_lost` scheduled (asyncio's `_conn_lost`)
    closing: Rc<Cell<bool>>, // `close`/`abort` called, or the peer closed
    eof: Cell<bool>,       // `write_eof` called
    paused: Cell<bool>,    // reading paused
}
// ANCHOR_END: state

impl Transport {
    // ANCHOR: make_socket_transport
    /// asyncio's `_SelectorSocketTransport.__init__`, which the loop's
    /// `make_socket_transport` calls: wrap the connected, non-blocking `sock` in a
    /// transport for `protocol` on `lp`. Nothing happens at once: `connection_made` is
    /// scheduled with `call_soon`, then the reader, then `waiter`'s result, in asyncio's
    /// order.
    pub(crate) fn new(
        lp: &EventLoop,
        sock: Socket,
        protocol: Rc<dyn Protocol>,
        waiter: Option<Future<()>>,
    ) -> Result<Transport, Error> {
        sock.set_nonblocking(true)?;
        // asyncio's `_set_nodelay`, for TCP only: a Unix socket refuses it, harmlessly.
        if sock.set_tcp_nodelay(true).is_err() {
            loop_trace!(lp, "transport fd {}: no TCP_NODELAY", sock.as_raw_fd());
        }
        let fd = sock.as_raw_fd();
        lp.forget_fd(fd); // a new socket: nothing known about its number
        let transport = Transport {
            inner: Rc::new(TransportInner {
                lp: lp.downgrade(),
                peername: sock.peer_addr().ok().and_then(|a| a.as_socket()),
                sockname: sock.local_addr().ok().and_then(|a| a.as_socket()),
                sock: RefCell::new(Some(sock)),
                fd,
                protocol: RefCell::new(Some(protocol.clone())),
                buffer: RefCell::new(Vec::new()),
                flow: FlowControl::new(),
                conn_lost: Cell::new(false),
                closing: Rc::new(Cell::new(false)),
                eof: Cell::new(false),
                paused: Cell::new(false),
            }),
        };
        lp.attach_transport(fd, Rc::downgrade(&transport.inner.closing));
        loop_trace!(
            lp,
            "transport fd {fd}: connection_made and reader scheduled"
        );
        let t = transport.clone();
        lp.call_soon(move |lp| t.call_protocol(lp, "connection_made", |p| p.connection_made(&t)))?;
        let t = transport.clone();
        // Only once `connection_made` has run does the transport start reading.
        lp.call_soon(move |lp| t.add_reader(lp))?;
        if let Some(waiter) = waiter {
            // asyncio's `_set_result_unless_cancelled`: a cancelled waiter stays so.
            lp.call_soon(move |_| {
                waiter.set_result_unless_done(()); // false: cancelled, and stays so
            })?;
        }
        Ok(transport)
    }
    // ANCHOR_END: make_socket_transport
}

impl Transport {
    /// The loop, unless it is gone.
    pub(crate) fn event_loop(&self) -> Option<EventLoop> {
        self.inner.lp.upgrade()
    }

    /// The protocol, unless `connection_lost` has run.
    pub fn get_protocol(&self) -> Option<Rc<dyn Protocol>> {
        self.inner.protocol.borrow().clone()
    }

    /// Call the protocol's `method` (no borrow held); a panic is reported and the
    /// connection is closed, as asyncio's `_fatal_error` does for a protocol that raised.
    pub(crate) fn call_protocol<R: Default>(
        &self,
        lp: &EventLoop,
        method: &str,
        call: impl FnOnce(&dyn Protocol) -> R,
    ) -> R {
        let Some(protocol) = self.get_protocol() else {
            return R::default(); // connection lost already: nobody to tell
        };
        match catch(|| call(&*protocol)) {
            Ok(value) => value,
            Err(error) => {
                let message = format!("Fatal error: protocol.{method}() call failed.");
                self.fatal_error(lp, error, &message);
                R::default()
            }
        }
    }

    /// The reader: `read_ready` while readable, unless closing or paused.
    pub(crate) fn add_reader(&self, lp: &EventLoop) {
        if !self.is_reading() {
            // asyncio's `_SelectorTransport._add_reader` asks `is_reading()`: closed, or
            // paused (say in `connection_made`) before the reader it scheduled started.
            return;
        }
        let t = self.clone();
        if let Err(error) =
            lp.add_callback_waiter(self.inner.fd, Interest::Read, move |lp| t.read_ready(lp))
        {
            self.fatal_error(lp, error, "Fatal error: cannot watch the socket");
        }
    }

    // ANCHOR: close
    /// Close after the write buffer drains (asyncio's `close`): stop reading now; if the
    /// buffer is empty, `connection_lost(None)` is scheduled now, else the writer calls it
    /// when the last byte is sent. Again is nothing.
    pub fn close(&self) {
        let inner = &*self.inner;
        if inner.closing.replace(true) {
            return;
        }
        let Some(lp) = self.event_loop() else { return };
        lp.remove_callback_waiter(inner.fd, Interest::Read);
        if inner.buffer.borrow().is_empty() {
            inner.conn_lost.set(true);
            lp.remove_callback_waiter(inner.fd, Interest::Write);
            self.schedule_connection_lost(&lp, None);
        }
    }
    // ANCHOR_END: close

    /// Close at once, throwing the write buffer away (asyncio's `abort`):
    /// `connection_lost(None)` is scheduled.
    pub fn abort(&self) {
        if let Some(lp) = self.event_loop() {
            self.force_close(&lp, None);
        }
    }

    // ANCHOR: force_close
    /// asyncio's `_force_close`: drop the buffer and the writer, stop reading, and schedule
    /// `connection_lost(exc)`, once.
    pub(crate) fn force_close(&self, lp: &EventLoop, exc: Option<Error>) {
        let inner = &*self.inner;
        if inner.conn_lost.get() {
            return;
        }
        if !inner.buffer.borrow().is_empty() {
            *inner.buffer.borrow_mut() = Vec::new(); // its memory too
            lp.remove_callback_waiter(inner.fd, Interest::Write);
        }
        if !inner.closing.replace(true) {
            lp.remove_callback_waiter(inner.fd, Interest::Read);
        }
        inner.conn_lost.set(true);
        self.schedule_connection_lost(lp, exc);
    }
    // ANCHOR_END: force_close

    /// asyncio's `_fatal_error`: an I/O error closes the connection quietly (the protocol
    /// hears it in `connection_lost`); anything else goes to the exception handler too.
    pub(crate) fn fatal_error(&self, lp: &EventLoop, error: Error, message: &str) {
        if !matches!(error, Error::Io(_)) {
            lp.call_exception_handler(&ExceptionContext {
                message: message.to_owned(),
                exception: Some(error.clone()),
                ..ExceptionContext::default()
            });
        }
        self.force_close(lp, Some(error));
    }

    fn schedule_connection_lost(&self, lp: &EventLoop, exc: Option<Error>) {
        let t = self.clone();
        // A closed loop runs nothing more: its close dropped the reader and writer already.
        drop(lp.call_soon(move |lp| t.call_connection_lost(lp, exc)));
    }

    // ANCHOR: call_connection_lost
    /// asyncio's `_call_connection_lost`: tell the protocol, then close the socket and let
    /// go of the protocol (which breaks the cycle through a protocol that kept us).
    pub(crate) fn call_connection_lost(&self, lp: &EventLoop, exc: Option<Error>) {
        self.call_protocol(lp, "connection_lost", |p| p.connection_lost(exc));
        let inner = &*self.inner;
        lp.detach_transport(inner.fd);
        // Before the socket closes: its number may be given to a new socket at once.
        lp.remove_callback_waiter(inner.fd, Interest::Read);
        lp.remove_callback_waiter(inner.fd, Interest::Write);
        drop(inner.sock.borrow_mut().take()); // closes the socket
        drop(inner.protocol.borrow_mut().take());
    }
    // ANCHOR_END: call_connection_lost
}

impl Drop for TransportInner {
    fn drop(&mut self) {
        // A loop that is gone took its map of transports with it.
        if let Some(lp) = self.lp.upgrade() {
            lp.detach_transport(self.fd);
        }
    }
}

// ANCHOR: protocol
/// What a [`Transport`] calls (asyncio's `asyncio.Protocol`); every method has asyncio's
/// default, which does nothing (and `eof_received` answers `false`: close).
pub trait Protocol {
    /// The connection is up: keep `transport` to write to it. Called once, first, with
    /// `call_soon` from the transport's constructor.
    fn connection_made(&self, transport: &Transport) {
        let _ = transport; // the default keeps nothing
    }

    /// Bytes arrived (at most [`MAX_SIZE`] at a time).
    fn data_received(&self, data: &[u8]) {
        let _ = data; // the default ignores them
    }

    /// The peer will send no more. `true` keeps the transport open (the protocol may still
    /// write, then close it); `false`, asyncio's default, closes it.
    fn eof_received(&self) -> bool {
        false
    }

    /// The connection is closed: `None` for a normal close (or the end of the stream),
    /// `Some(error)` if it was lost to an error. Called once, last.
    fn connection_lost(&self, exc: Option<Error>) {
        let _ = exc; // the default has nothing to clean up
    }

    /// The write buffer went over the high-water mark: stop writing until
    /// [`Protocol::resume_writing`].
    fn pause_writing(&self) {}

    /// The write buffer drained to the low-water mark: write again.
    fn resume_writing(&self) {}
}
// ANCHOR_END: protocol
