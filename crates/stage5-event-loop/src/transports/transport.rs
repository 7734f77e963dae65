//! The transport: a socket, its reader and writer, and its protocol (book chapter 8, "What a
//! transport adds to a reader"; asyncio's `selector_events.py`: `_SelectorTransport`,
//! `_SelectorSocketTransport.__init__`, `close`, `_force_close`, `_call_connection_lost`,
//! `pause_reading`, `resume_reading`).
//!
//! This file is the transport's life: how it starts (`connection_made`, then the reader,
//! each with `call_soon`, in that order, so no data can arrive before the protocol knows
//! its transport), how it ends (`close` waits for the write buffer to drain, `abort` throws
//! it away; either way `connection_lost` comes once, with `call_soon`, and only then is the
//! socket closed), and reading paused and resumed. Reading and writing themselves are in
//! `reading.rs` and `writing.rs`.
//!
//! What changed from chapter 7: a reader was a callback the program wrote; here the reader
//! is the transport's, and the program's code is called from it.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;

use socket2::Socket;
use stage4::Interest;

use crate::errors::{Error, catch};
use crate::event_loop::{EventLoop, ExceptionContext};
use crate::event_loop::weak::WeakLoop;
use crate::futures::future::Future;
use crate::transports::flow_control::FlowControl;
use crate::transports::protocol::Protocol;
use crate::transports::registry;

/// A connection's transport (asyncio's `_SelectorSocketTransport`). Cloning gives another
/// handle to the same transport.
#[derive(Clone)]
pub struct Transport {
    pub(crate) inner: Rc<TransportInner>,
}

// ANCHOR: state
pub(crate) struct TransportInner {
    pub(crate) lp: WeakLoop,
    pub(crate) lp_address: usize,
    pub(crate) sock: RefCell<Option<Socket>>, // `None` once `connection_lost` closed it
    pub(crate) fd: RawFd,
    peername: Option<SocketAddr>,
    sockname: Option<SocketAddr>,
    pub(crate) protocol: RefCell<Option<Rc<dyn Protocol>>>, // `None` after `connection_lost`
    pub(crate) buffer: RefCell<Vec<u8>>,                    // what the socket did not take yet
    pub(crate) flow: FlowControl,
    pub(crate) conn_lost: Cell<u32>, // `connection_lost` scheduled (then counts writes after)
    pub(crate) closing: Cell<bool>,  // `close` or `abort` called, or the peer closed
    pub(crate) eof: Cell<bool>,      // `write_eof` called
    pub(crate) paused: Cell<bool>,   // reading paused
}
// ANCHOR_END: state

impl EventLoop {
    // ANCHOR: make_socket_transport
    /// asyncio's `_make_socket_transport`: wrap the connected, non-blocking `sock` in a
    /// transport for `protocol`. Nothing happens at once: `connection_made` is scheduled
    /// with `call_soon`, then the reader, then `waiter`'s result, in asyncio's order.
    pub fn make_socket_transport(
        &self,
        sock: Socket,
        protocol: Rc<dyn Protocol>,
        waiter: Option<Future<()>>,
    ) -> Result<Transport, Error> {
        self.check_closed()?;
        sock.set_nonblocking(true)?;
        // asyncio's `_set_nodelay`, for TCP only: a Unix socket refuses it, harmlessly.
        if sock.set_tcp_nodelay(true).is_err() {
            loop_trace!(self, "transport fd {}: no TCP_NODELAY", sock.as_raw_fd());
        }
        let fd = sock.as_raw_fd();
        self.forget_fd(fd); // a new socket: nothing known about its number
        let transport = Transport {
            inner: Rc::new(TransportInner {
                lp: self.downgrade(),
                lp_address: self.address(),
                peername: sock.peer_addr().ok().and_then(|a| a.as_socket()),
                sockname: sock.local_addr().ok().and_then(|a| a.as_socket()),
                sock: RefCell::new(Some(sock)),
                fd,
                protocol: RefCell::new(Some(protocol.clone())),
                buffer: RefCell::new(Vec::new()),
                flow: FlowControl::new(),
                conn_lost: Cell::new(0),
                closing: Cell::new(false),
                eof: Cell::new(false),
                paused: Cell::new(false),
            }),
        };
        registry::attach(self, fd, Rc::downgrade(&transport.inner));
        loop_trace!(self, "transport fd {fd}: connection_made and reader scheduled");
        let t = transport.clone();
        self.call_soon(move |lp| t.call_protocol(lp, "connection_made", |p| p.connection_made(&t)))?;
        let t = transport.clone();
        // Only once `connection_made` has run does the transport start reading.
        self.call_soon(move |lp| t.add_reader(lp))?;
        if let Some(waiter) = waiter {
            // asyncio's `_set_result_unless_cancelled`: a cancelled waiter stays so.
            self.call_soon(move |_| {
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

    /// The reader: `read_ready` while readable, unless closing.
    pub(crate) fn add_reader(&self, lp: &EventLoop) {
        if self.inner.closing.get() {
            return; // asyncio's `_SelectorTransport._add_reader`: closed before it started
        }
        let t = self.clone();
        if let Err(error) = lp.add_callback_waiter(self.inner.fd, Interest::Read, move |lp| {
            t.read_ready(lp)
        }) {
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
            inner.conn_lost.set(inner.conn_lost.get() + 1);
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
        if inner.conn_lost.get() > 0 {
            return;
        }
        if !inner.buffer.borrow().is_empty() {
            *inner.buffer.borrow_mut() = Vec::new(); // its memory too
            lp.remove_callback_waiter(inner.fd, Interest::Write);
        }
        if !inner.closing.replace(true) {
            lp.remove_callback_waiter(inner.fd, Interest::Read);
        }
        inner.conn_lost.set(inner.conn_lost.get() + 1);
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
        registry::detach(inner.lp_address, inner.fd);
        // Before the socket closes: its number may be given to a new socket at once.
        lp.remove_callback_waiter(inner.fd, Interest::Read);
        lp.remove_callback_waiter(inner.fd, Interest::Write);
        drop(inner.sock.borrow_mut().take()); // closes the socket
        drop(inner.protocol.borrow_mut().take());
    }
    // ANCHOR_END: call_connection_lost

    /// Stop reading until [`Transport::resume_reading`] (asyncio's `pause_reading`): the
    /// reader goes, the kernel's buffer fills, and TCP tells the peer to stop sending.
    pub fn pause_reading(&self) {
        let inner = &*self.inner;
        if inner.closing.get() || inner.paused.replace(true) {
            return;
        }
        if let Some(lp) = self.event_loop() {
            lp.remove_callback_waiter(inner.fd, Interest::Read);
        }
    }

    /// Read again (asyncio's `resume_reading`).
    pub fn resume_reading(&self) {
        let inner = &*self.inner;
        if inner.closing.get() || !inner.paused.replace(false) {
            return;
        }
        if let Some(lp) = self.event_loop() {
            self.add_reader(&lp);
        }
    }

    /// True unless reading is paused or the transport is closing.
    pub fn is_reading(&self) -> bool {
        !self.inner.paused.get() && !self.inner.closing.get()
    }

    /// True once [`Transport::close`] or [`Transport::abort`] was called, or the peer
    /// closed.
    pub fn is_closing(&self) -> bool {
        self.inner.closing.get()
    }

    /// The socket's descriptor number.
    pub fn fd(&self) -> RawFd {
        self.inner.fd
    }

    /// The peer's address (asyncio's `get_extra_info("peername")`); `None` for a Unix
    /// socket.
    pub fn peername(&self) -> Option<SocketAddr> {
        self.inner.peername
    }

    /// The socket's own address (`get_extra_info("sockname")`).
    pub fn sockname(&self) -> Option<SocketAddr> {
        self.inner.sockname
    }

    /// asyncio's `get_extra_info(name)` for the two addresses it knows: `"peername"` and
    /// `"sockname"`; anything else is `None`.
    pub fn get_extra_info(&self, name: &str) -> Option<SocketAddr> {
        match name {
            "peername" => self.peername(),
            "sockname" => self.sockname(),
            _ => None,
        }
    }
}

impl Drop for TransportInner {
    fn drop(&mut self) {
        registry::detach(self.lp_address, self.fd);
    }
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.inner;
        let state = match (inner.sock.borrow().is_some(), inner.closing.get()) {
            (false, _) => "closed",
            (true, true) => "closing",
            (true, false) => "open",
        };
        let size = inner.buffer.borrow().len();
        write!(f, "<Transport {state} fd={} bufsize={size}>", inner.fd)
    }
}
