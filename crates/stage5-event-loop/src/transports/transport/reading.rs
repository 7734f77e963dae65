//! The transport's reader (book chapter 8, "Reading: the reader is the transport's";
//! asyncio's `selector_events.py`: `_SelectorSocketTransport._read_ready__data_received`,
//! `_read_ready__on_eof`).
//!
//! Each time the socket is readable the reader calls `recv` once, for up to [`MAX_SIZE`]
//! bytes (asyncio's `max_size`, 256 KiB), and hands what came to `data_received`. The end
//! of the stream goes to `eof_received`, whose answer decides: `true` keeps the transport
//! open (the reader goes, the protocol may still write), `false` closes it. An error
//! closes the connection and is handed to `connection_lost`.
//!
//! What changed from chapter 7: `sock_recv` read into the loop's scratch buffer for a task
//! that asked; here the reader reads there whenever data comes, and copies out only what
//! came.

use std::io::{ErrorKind, Read};

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::transports::transport::Transport;

/// The most one read takes from the socket (asyncio's `max_size`: 256 KiB).
pub const MAX_SIZE: usize = 256 * 1024;

impl Transport {
    // ANCHOR: read_ready
    /// The reader (asyncio's `_read_ready__data_received`).
    pub(crate) fn read_ready(&self, lp: &EventLoop) {
        let inner = &*self.inner;
        if inner.conn_lost.get() {
            return;
        }
        let read = {
            let sock = inner.sock.borrow();
            let Some(sock) = sock.as_ref() else { return };
            // The bytes are copied out of the scratch buffer before the protocol sees
            // them: an idle connection holds no 256 KiB buffer.
            lp.with_scratch(MAX_SIZE, |scratch| {
                (&*sock).read(scratch).map(|n| scratch[..n].to_vec())
            })
        };
        match read {
            // The peer shut its side: the end of the stream.
            Ok(data) if data.is_empty() => self.read_eof(lp),
            // Data: to the protocol. A short read emptied the socket: no level-triggered
            // re-arm is needed before the next select (the next edge will come).
            Ok(data) => {
                if data.len() < MAX_SIZE {
                    lp.read_short(inner.fd);
                }
                self.call_protocol(lp, "data_received", |p| p.data_received(&data))
            }
            // Nothing after all: the next edge will say when there is.
            Err(e) if e.kind() == ErrorKind::WouldBlock => lp.would_block(inner.fd, Interest::Read),
            // A signal interrupted `recv`: the reader runs again next iteration.
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // Reset, or another real error: the connection is lost with it.
            Err(e) => self.fatal_error(lp, Error::from(e), "Fatal read error on socket transport"),
        }
    }
    // ANCHOR_END: read_ready

    // ANCHOR: read_eof
    /// asyncio's `_read_ready__on_eof`: ask the protocol whether to stay open.
    fn read_eof(&self, lp: &EventLoop) {
        let keep_open = self.call_protocol(lp, "eof_received", |p| p.eof_received());
        if self.inner.conn_lost.get() {
            return; // `eof_received` failed, and the connection is closed already
        }
        if keep_open {
            // The protocol may still write; reading is over.
            lp.remove_callback_waiter(self.inner.fd, Interest::Read);
        } else {
            self.close();
        }
    }
    // ANCHOR_END: read_eof

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
}
