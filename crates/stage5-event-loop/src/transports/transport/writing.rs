//! The transport's writes (book chapter 8, "Writing: try now, buffer the rest"; asyncio's
//! `selector_events.py`: `_SelectorSocketTransport.write`, `_write_ready`, `write_eof`, and
//! `transports.py`: `writelines`, `set_write_buffer_limits`).
//!
//! `write` never waits. With nothing buffered it tries the socket at once; what the
//! socket does not take goes to the buffer, and a writer is added that sends from the
//! buffer whenever the socket has room. When the buffer is empty again the writer goes,
//! and a transport that was asked to close (or to `write_eof`) does it then. After each
//! change of the buffer's size the water marks (`flow_control.rs`) may pause or resume
//! the protocol.
//!
//! What changed from chapter 7: `sock_sendall` held its task until all was sent; a
//! transport's writer holds the bytes instead, and the protocol is told when to stop.

use std::io::{ErrorKind, Write};
use std::net::Shutdown;

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::transports::flow_control::Tell;
use crate::transports::transport::Transport;

impl Transport {
    // ANCHOR: write
    /// Send `data` (asyncio's `write`): as much as the socket takes now, the rest buffered
    /// and sent when it has room. After [`Transport::write_eof`] it is an error; after the
    /// connection was lost the bytes are dropped, as asyncio drops them.
    pub fn write(&self, mut data: &[u8]) -> Result<(), Error> {
        let inner = &*self.inner;
        if inner.eof.get() {
            return Err(Error::msg("Cannot call write() after write_eof()"));
        }
        if data.is_empty() || inner.conn_lost.get() {
            // Nothing to send, or nobody to send it to: dropped (asyncio counts these
            // writes, to warn after five; this loop does not warn).
            return Ok(());
        }
        let Some(lp) = self.event_loop() else {
            return Err(Error::Closed);
        };
        if inner.buffer.borrow().is_empty() {
            // Nothing waits before these bytes: try to send them now.
            match self.send(data) {
                // Some or all went: buffer the rest.
                Ok(n) if n == data.len() => return Ok(()),
                Ok(n) => data = &data[n..],
                // The socket is full (or a signal came): all of it waits.
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    lp.would_block(inner.fd, Interest::Write)
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                // Reset, broken pipe: the connection is lost with it.
                Err(e) => {
                    self.fatal_error(&lp, e.into(), "Fatal write error on socket transport");
                    return Ok(());
                }
            }
            let t = self.clone();
            lp.add_callback_waiter(inner.fd, Interest::Write, move |lp| t.write_ready(lp))?;
        }
        inner.buffer.borrow_mut().extend_from_slice(data);
        // The length first: the protocol told may write, which borrows the buffer again.
        let buffered = inner.buffer.borrow().len();
        self.tell(&lp, inner.flow.after_growth(buffered));
        Ok(())
    }
    // ANCHOR_END: write

    /// Send all of `chunks` as one write (asyncio 3.11's `writelines` joins them).
    pub fn writelines<'a>(&self, chunks: impl IntoIterator<Item = &'a [u8]>) -> Result<(), Error> {
        let joined: Vec<u8> = chunks.into_iter().flatten().copied().collect();
        self.write(&joined)
    }

    /// One `send` on the socket.
    fn send(&self, data: &[u8]) -> std::io::Result<usize> {
        match self.inner.sock.borrow().as_ref() {
            Some(sock) => (&*sock).write(data),
            None => Err(ErrorKind::NotConnected.into()),
        }
    }

    // ANCHOR: write_ready
    /// The writer (asyncio's `_write_ready`): send from the buffer; once it is empty, the
    /// writer goes, and a pending close or `write_eof` happens.
    fn write_ready(&self, lp: &EventLoop) {
        let inner = &*self.inner;
        if inner.conn_lost.get() {
            return;
        }
        let sent = {
            let buffer = inner.buffer.borrow();
            self.send(&buffer)
        };
        match sent {
            // Some went: drop it from the buffer; the protocol may resume (and write more).
            Ok(n) => {
                inner.buffer.borrow_mut().drain(..n);
                let buffered = inner.buffer.borrow().len(); // (not borrowed while told)
                self.tell(lp, inner.flow.after_drain(buffered));
                if !inner.buffer.borrow().is_empty() {
                    return;
                }
                lp.remove_callback_waiter(inner.fd, Interest::Write);
                if inner.closing.get() {
                    self.call_connection_lost(lp, None);
                } else if inner.eof.get() {
                    self.shutdown_write(lp);
                }
            }
            // Still full: the next edge says when there is room.
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                lp.would_block(inner.fd, Interest::Write)
            }
            // A signal interrupted `send`: the writer runs again next iteration.
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // The peer is gone: the buffer with it, and the connection is lost.
            Err(e) => {
                lp.remove_callback_waiter(inner.fd, Interest::Write);
                inner.buffer.borrow_mut().clear();
                self.fatal_error(lp, e.into(), "Fatal write error on socket transport");
            }
        }
    }
    // ANCHOR_END: write_ready

    /// Shut the writing side once the buffer is sent (asyncio's `write_eof`): the peer
    /// reads the end of the stream and may still send. Reading goes on.
    pub fn write_eof(&self) -> Result<(), Error> {
        let inner = &*self.inner;
        if inner.closing.get() || inner.eof.replace(true) {
            return Ok(());
        }
        if inner.buffer.borrow().is_empty() {
            let sock = inner.sock.borrow();
            if let Some(sock) = sock.as_ref() {
                sock.shutdown(Shutdown::Write)?;
            }
        }
        Ok(())
    }

    /// The buffer drained after `write_eof`: shut the writing side now.
    fn shutdown_write(&self, lp: &EventLoop) {
        let result = match self.inner.sock.borrow().as_ref() {
            Some(sock) => sock.shutdown(Shutdown::Write),
            None => Ok(()),
        };
        // The peer reset the connection meanwhile: it is lost (asyncio raises here, in the
        // writer, which the loop reports; we close instead).
        if let Err(error) = result {
            self.fatal_error(lp, error.into(), "Fatal error on shutdown");
        }
    }

    /// True: a socket can shut its writing side.
    pub fn can_write_eof(&self) -> bool {
        true
    }

    /// How many bytes wait in the write buffer.
    pub fn get_write_buffer_size(&self) -> usize {
        self.inner.buffer.borrow().len()
    }

    /// Set the water marks (asyncio's `set_write_buffer_limits`; defaults in
    /// `flow_control.rs`), and pause the protocol now if the buffer is over the new high.
    pub fn set_write_buffer_limits(
        &self,
        high: Option<usize>,
        low: Option<usize>,
    ) -> Result<(), Error> {
        self.inner.flow.set_limits(high, low)?;
        if let Some(lp) = self.event_loop() {
            self.tell(
                &lp,
                self.inner.flow.after_growth(self.get_write_buffer_size()),
            );
        }
        Ok(())
    }

    /// `(low, high)`.
    pub fn get_write_buffer_limits(&self) -> (usize, usize) {
        self.inner.flow.limits()
    }

    // ANCHOR: tell
    /// Tell the protocol what the water marks decided. asyncio reports a protocol that
    /// fails here to the exception handler and goes on; so do we.
    fn tell(&self, lp: &EventLoop, tell: Tell) {
        let (method, call): (&str, fn(&dyn crate::transports::transport::Protocol)) = match tell {
            Tell::Nothing => return,
            Tell::Pause => ("pause_writing", |p| p.pause_writing()),
            Tell::Resume => ("resume_writing", |p| p.resume_writing()),
        };
        let Some(protocol) = self.get_protocol() else {
            return;
        };
        if let Err(error) = crate::errors::catch(|| call(&*protocol)) {
            lp.call_exception_handler(&crate::event_loop::ExceptionContext {
                message: format!("protocol.{method}() failed"),
                exception: Some(error),
                ..Default::default()
            });
        }
    }
    // ANCHOR_END: tell
}
