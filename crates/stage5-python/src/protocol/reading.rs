//! Reading for a Python protocol, straight into a `BufferedProtocol`'s buffer (book chapter
//! 9, "Native transports"; asyncio's `selector_events.py`:
//! `_SelectorSocketTransport._read_ready__get_buffer`, `pause_reading`, `resume_reading`,
//! `is_reading`, and `_SelectorTransport._add_reader`).
//!
//! Stage 5's transport reads into its own buffer and hands the bytes to `data_received`.
//! A `BufferedProtocol` has a buffer of its own: asyncio asks for it (`get_buffer(-1)`)
//! and has the socket write into it (`sock.recv_into(buf)`), then says how much came
//! (`buffer_updated(n)`), one read per event; the bytes are never copied in Python. So for
//! such a protocol stage 5's reader is paused, and this module's reader, on asyncio's
//! socket (the same open socket as stage 5's duplicate), does exactly that: the kernel
//! copies into the protocol's buffer, nothing else does, and no `unsafe` is needed (the
//! write into the buffer is `recv_into`'s, CPython's own). A protocol swapped in with
//! `set_protocol` (asyncio's `SSLProtocol`, by `start_tls`) switches reader.
//!
//! `pause_reading`/`resume_reading` are the user's wish, kept here; which reader runs
//! follows from it, the kind of protocol, and whether the transport is closing.
//!
//! What changed from stage 5: its transport has one reader; here there are two, the other
//! for a buffer that is Python's.

use std::cell::Cell;
use std::os::fd::RawFd;
use std::rc::Rc;

use pyo3::exceptions::{PyBlockingIOError, PyInterruptedError, PyRuntimeError};
use pyo3::intern;
use pyo3::prelude::*;

use super::{PyProtocol, tagged};

/// The reading side's state, beside stage 5's.
#[derive(Default)]
pub struct Reading {
    sock: Cell<Option<RawFd>>, // asyncio's socket's descriptor, once started
    paused: Cell<bool>,        // `pause_reading` called (the user's wish)
    on: Cell<bool>,            // this module's reader is in the loop's I/O table
    ended: Cell<bool>,         // the end of the stream came to this reader
}

impl PyProtocol {
    // ANCHOR: reading
    /// Start reading (after stage 5's own start, which it may undo): asyncio's socket
    /// `sock` (its descriptor `fd`) is where a buffered protocol's reader reads.
    pub fn start_reading(self: &Rc<Self>, sock: Py<PyAny>, fd: RawFd) {
        *self.sock.borrow_mut() = Some(sock);
        self.reading.sock.set(Some(fd));
        self.apply_reading();
    }

    /// Run the reader that fits: stage 5's for a plain protocol, this module's for a
    /// buffered one, neither while paused, closing or lost.
    pub fn apply_reading(self: &Rc<Self>) {
        let stage5 = self.stage5.borrow().clone();
        let (Some(stage5), Some(fd)) = (stage5, self.reading.sock.get()) else {
            return; // not started, or lost: nothing reads
        };
        let paused = self.reading.paused.get();
        if !paused && !self.buffered.get() {
            if !stage5.is_reading() {
                stage5.resume_reading();
            }
        } else {
            // On, then off: a reader stage 5 added while it was paused (its start adds
            // one regardless) goes too.
            stage5.resume_reading();
            stage5.pause_reading();
        }
        let ours = self.buffered.get() && !paused && !self.reading.ended.get();
        let ours = ours && !stage5.is_closing();
        if ours && !self.reading.on.get() {
            let this = Rc::clone(self);
            match self.lp.add_reader(fd, move |_| this.read_into_buffer()) {
                Ok(_) => self.reading.on.set(true),
                // The descriptor cannot be watched: the connection cannot go on.
                Err(error) => self.force_close(crate::errors::to_py(error)),
            }
        } else if !ours {
            self.stop_reading();
        }
    }
    // ANCHOR_END: reading

    /// This module's reader goes (closing, lost, paused, or a plain protocol now).
    pub fn stop_reading(&self) {
        if let (true, Some(fd)) = (self.reading.on.replace(false), self.reading.sock.get()) {
            self.lp.remove_reader(fd);
        }
    }

    /// `pause_reading` (`paused`) or `resume_reading`.
    pub fn set_reading_paused(self: &Rc<Self>, paused: bool) {
        self.reading.paused.set(paused);
        self.apply_reading();
    }

    /// asyncio's `is_reading`: not paused, not closing.
    pub fn is_reading(&self) -> bool {
        let closing = self.stage5.borrow().as_ref().is_none_or(|t| t.is_closing());
        !self.reading.paused.get() && !closing
    }

    // ANCHOR: read_into_buffer
    /// The buffered reader (asyncio's `_read_ready__get_buffer`): `get_buffer(-1)`, the
    /// socket's `recv_into` it, `buffer_updated(n)`; the end of the stream to
    /// `eof_received`.
    fn read_into_buffer(self: &Rc<Self>) {
        if self.stage5.borrow().as_ref().is_none_or(|t| t.is_closing()) {
            return; // closed meanwhile (asyncio's `_conn_lost` check)
        }
        Python::attach(|py| {
            let protocol = self.protocol(py);
            let protocol = protocol.bind(py);
            let buf = protocol
                .call_method1(intern!(py, "get_buffer"), (-1,))
                .and_then(|buf| match buf.len()? {
                    0 => Err(PyRuntimeError::new_err(
                        "get_buffer() returned an empty buffer",
                    )),
                    _ => Ok(buf),
                });
            let buf = match buf {
                Ok(buf) => buf,
                Err(error) => return self.failed(py, "buffered", tagged(py, "get_buffer", error)),
            };
            let Some(sock) = self.sock.borrow().as_ref().map(|s| s.clone_ref(py)) else {
                return; // lost meanwhile
            };
            let n = sock.call_method1(py, intern!(py, "recv_into"), (buf,));
            match n.and_then(|n| n.extract::<usize>(py)) {
                // The end of the stream: the protocol says whether to stay open.
                Ok(0) => self.read_eof(),
                Ok(n) => {
                    let updated = protocol.call_method1(intern!(py, "buffer_updated"), (n,));
                    if let Err(error) = updated {
                        self.failed(py, "buffered", tagged(py, "buffer_updated", error));
                    }
                }
                // Nothing after all, or a signal: the reader runs again when there is.
                Err(e) if e.is_instance_of::<PyBlockingIOError>(py) => {}
                Err(e) if e.is_instance_of::<PyInterruptedError>(py) => {}
                // Reset, or another real error: the connection is lost with it.
                Err(error) => self.failed(py, "read", error),
            }
        });
    }
    // ANCHOR_END: read_into_buffer

    /// asyncio's `_read_ready__on_eof`: `eof_received` answers whether to stay open.
    fn read_eof(self: &Rc<Self>) {
        self.reading.ended.set(true);
        self.stop_reading();
        let keep_open = stage5::Protocol::eof_received(&**self);
        let stage5 = self.stage5.borrow().clone();
        if let (false, Some(stage5)) = (keep_open, stage5) {
            stage5.close();
        }
    }
}
