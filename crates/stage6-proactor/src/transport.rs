//! A transport on the proactor (book chapter 10, "Transports on the proactor"; asyncio's
//! `_ProactorBasePipeTransport`, `_ProactorReadPipeTransport`,
//! `_ProactorBaseWritePipeTransport` and `_ProactorSocketTransport` in
//! `proactor_events.py`).
//!
//! Chapter 8's transport waited for readiness and read when the socket was readable. The
//! proactor's keeps one receive always submitted instead (`_loop_reading`): each
//! completion hands the bytes to the protocol and submits the next receive, into the same
//! buffer, handed back. A `write` with no send in flight submits the bytes at once
//! (`_loop_writing`); while one is in flight, later writes wait in a buffer, sent whole
//! when the send completes. Flow control is asyncio's: over the high-water mark the
//! protocol is asked to pause writing, and at the low one to resume. `close` cancels the
//! receive in flight and ends the connection once the last write has completed.

use std::cell::{Cell, RefCell};
use std::net::Shutdown;
use std::rc::{Rc, Weak};

use socket2::Socket;
use stage5::Error;

use crate::event_loop::ProactorLoop;
use crate::op::{Op, Slot};

mod closing; // close, abort, connection_lost
mod protocol; // what the transport calls
pub use protocol::Protocol;

/// How much one receive asks for (asyncio's `buffer_size`, 64 KiB).
pub const READ_SIZE: usize = 64 * 1024;

/// Above this many bytes waiting to be sent, the protocol is asked to pause writing
/// (asyncio's default high-water mark, 64 KiB); at a quarter of it, to resume.
pub const HIGH_WATER: usize = 64 * 1024;

/// The low-water mark: a quarter of the high one, as asyncio sets it.
pub const LOW_WATER: usize = HIGH_WATER / 4;

/// A receive's future: how much came, and the buffer back.
type Receive = Op<(usize, Vec<u8>)>;

/// A connected socket with its receive always submitted and its writes queued.
#[derive(Clone)]
pub struct Transport {
    inner: Rc<Inner>,
}

struct Inner {
    lp: ProactorLoop,
    sock: Rc<Socket>,
    protocol: RefCell<Option<Rc<dyn Protocol>>>, // `None` once the connection is lost
    read: RefCell<Option<Receive>>,              // the receive in flight
    write: RefCell<Option<Op<Vec<u8>>>>,         // the send in flight
    buffer: RefCell<Vec<u8>>,                    // written while a send was in flight
    spare: RefCell<Vec<u8>>,                     // the receive buffer, between receives
    paused_reading: Cell<bool>,
    protocol_paused: Cell<bool>,
    closing: Cell<bool>,
    eof_pending: Cell<bool>,
    lost: Cell<bool>,
}

// ANCHOR: make_socket_transport
impl ProactorLoop {
    /// A transport for `sock` serving `protocol` (asyncio's `_make_socket_transport`):
    /// `connection_made`, then the first receive, scheduled in that order. Any connected
    /// stream socket: a `TcpStream`, a `UnixStream`.
    pub fn make_socket_transport(
        &self,
        sock: impl Into<Socket>,
        protocol: Rc<dyn Protocol>,
    ) -> Transport {
        let transport = Transport {
            inner: Rc::new(Inner {
                lp: self.clone(),
                sock: Rc::new(sock.into()),
                protocol: RefCell::new(Some(protocol.clone())),
                read: RefCell::new(None),
                write: RefCell::new(None),
                buffer: RefCell::new(Vec::new()),
                spare: RefCell::new(vec![0; READ_SIZE]),
                paused_reading: Cell::new(false),
                protocol_paused: Cell::new(false),
                closing: Cell::new(false),
                eof_pending: Cell::new(false),
                lost: Cell::new(false),
            }),
        };
        let (made, reading) = (transport.clone(), transport.clone());
        let scheduled = self
            .call_soon(move |_| protocol.connection_made(&made))
            .and_then(|_| self.call_soon(move |_| reading.loop_reading()));
        if let Err(error) = scheduled {
            transport.lose(Some(error)); // a closed loop: nothing will run
        }
        transport
    }
}
// ANCHOR_END: make_socket_transport

impl Transport {
    fn weak(&self) -> Weak<Inner> {
        Rc::downgrade(&self.inner)
    }

    fn from(weak: &Weak<Inner>) -> Option<Transport> {
        weak.upgrade().map(|inner| Transport { inner })
    }

    // ANCHOR: loop_reading
    /// Submit the next receive, unless closing or paused (asyncio's `_loop_reading`).
    fn loop_reading(&self) {
        let t = &self.inner;
        if t.closing.get() || t.paused_reading.get() || t.read.borrow().is_some() {
            return;
        }
        let buf = std::mem::take(&mut *t.spare.borrow_mut());
        let op = t.lp.sock_recv_into(&t.sock, buf);
        let me = self.weak();
        op.future().add_done_callback(move |_, future| {
            if let Some(transport) = Transport::from(&me) {
                transport.read_done(future.result());
            }
        });
        *t.read.borrow_mut() = Some(op);
    }

    /// A receive completed: the bytes to the protocol, then the next receive.
    fn read_done(&self, outcome: Result<Slot<(usize, Vec<u8>)>, Error>) {
        let done = self.inner.read.borrow_mut().take();
        drop(done); // completed: dropping it cancels nothing
        let received = outcome.and_then(|slot| slot.take().ok_or(Error::Cancelled));
        match received {
            // The connection is closing: the cancelled receive took nothing.
            Err(Error::Cancelled) => {}
            // Reset, or another failure: the connection is lost with it.
            Err(error) => self.lose(Some(error)),
            // The peer closed its side.
            Ok((0, buf)) => {
                *self.inner.spare.borrow_mut() = buf;
                let keep_open = self.protocol().is_some_and(|p| p.eof_received());
                if !keep_open {
                    self.close();
                }
            }
            // Data: to the protocol, and the buffer back for the next receive.
            Ok((n, buf)) => {
                if let Some(protocol) = self.protocol() {
                    protocol.data_received(&buf[..n]);
                }
                *self.inner.spare.borrow_mut() = buf;
                self.loop_reading();
            }
        }
    }
    // ANCHOR_END: loop_reading

    fn protocol(&self) -> Option<Rc<dyn Protocol>> {
        self.inner.protocol.borrow().clone()
    }

    /// Stop submitting receives (the one in flight still delivers its bytes).
    pub fn pause_reading(&self) {
        self.inner.paused_reading.set(true);
    }

    /// Submit receives again.
    pub fn resume_reading(&self) {
        self.inner.paused_reading.set(false);
        self.loop_reading();
    }

    // ANCHOR: write
    /// Send `data`: at once if no send is in flight, else after it (asyncio's `write`
    /// and `_loop_writing`). A `close` still sending takes more, as asyncio's does; once
    /// nothing is in flight (closed, aborted, lost), it is ignored.
    pub fn write(&self, data: &[u8]) {
        let t = &self.inner;
        let sending = t.write.borrow().is_some();
        let gone = t.lost.get() || (t.closing.get() && !sending);
        if data.is_empty() || t.eof_pending.get() || gone {
            return;
        }
        if !sending {
            return self.start_write(data.to_vec());
        }
        t.buffer.borrow_mut().extend_from_slice(data);
        if t.buffer.borrow().len() > HIGH_WATER
            && !t.protocol_paused.replace(true)
            && let Some(protocol) = self.protocol()
        {
            protocol.pause_writing();
        }
    }

    fn start_write(&self, bytes: Vec<u8>) {
        let op = self.inner.lp.sock_sendall(&self.inner.sock, bytes);
        let me = self.weak();
        op.future().add_done_callback(move |_, future| {
            if let Some(transport) = Transport::from(&me) {
                transport.write_done(future.result());
            }
        });
        *self.inner.write.borrow_mut() = Some(op);
    }

    /// A send completed: send what was buffered meanwhile, or finish a close or an EOF.
    fn write_done(&self, outcome: Result<Slot<Vec<u8>>, Error>) {
        let t = &self.inner;
        let done = t.write.borrow_mut().take();
        drop(done); // completed: dropping it cancels nothing
        let mut sent = match outcome.and_then(|slot| slot.take().ok_or(Error::Cancelled)) {
            Ok(sent) => sent,
            // Aborted: nothing more to send.
            Err(Error::Cancelled) => return,
            // Reset, broken pipe: the connection is lost with it.
            Err(error) => return self.lose(Some(error)),
        };
        if !t.buffer.borrow().is_empty() {
            sent.clear(); // the sent buffer takes the next writes: no new allocation
            let next = std::mem::replace(&mut *t.buffer.borrow_mut(), sent);
            self.start_write(next);
        } else if t.closing.get() {
            return self.lose(None);
        } else if t.eof_pending.get() {
            self.shutdown_write();
        }
        if t.buffer.borrow().len() <= LOW_WATER
            && t.protocol_paused.replace(false)
            && let Some(protocol) = self.protocol()
        {
            protocol.resume_writing();
        }
    }
    // ANCHOR_END: write

    /// Half-close once what was written is sent (asyncio's `write_eof`).
    pub fn write_eof(&self) {
        self.inner.eof_pending.set(true);
        if self.inner.write.borrow().is_none() {
            self.shutdown_write();
        }
    }

    fn shutdown_write(&self) {
        if let Err(error) = self.inner.sock.shutdown(Shutdown::Write) {
            scaffold::trace!("write_eof: {error}"); // the peer is gone: reading will say so
        }
    }

    /// Bytes waiting to be sent, the send in flight not counted (asyncio's
    /// `get_write_buffer_size`).
    pub fn get_write_buffer_size(&self) -> usize {
        self.inner.buffer.borrow().len()
    }

    /// True once `close` or `abort` was called, or the connection was lost.
    pub fn is_closing(&self) -> bool {
        self.inner.closing.get()
    }
}
