//! The stream reader: a buffer in front of a transport, read by tasks (book chapter 8,
//! "Streams"; asyncio's `streams.py`: `StreamReader`).
//!
//! The protocol feeds the reader (`feed_data`, `feed_eof`, `set_exception`) and a task
//! reads from it with `await`: `read(n)`, `readexactly(n)`, `readuntil(sep)`, `readline()`.
//! When the buffer lacks what a read needs, the read waits on a future that the next
//! `feed_*` completes; only one task may wait at a time, as in asyncio.
//!
//! The *limit* (64 KiB by default) bounds the reader's memory two ways. When the buffer
//! holds more than twice the limit, the reader pauses the transport's reading, and resumes
//! it once a read brings it back to the limit; so a peer that sends faster than the task
//! reads fills the kernel's buffers, not ours. And `readuntil` gives up with
//! [`LimitOverrunError`](crate::streams::LimitOverrunError) once it has searched more than the limit without finding its
//! separator: a 10 MiB line is an error after at most about twice the limit plus one read,
//! not a 10 MiB allocation.
//!
//! What changed from chapter 7: a task called `sock_recv` and got what one `recv`
//! returned; here it asks for a size or a separator, and the reader buffers until then.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::event_loop::weak::WeakLoop;
use crate::futures::future::Future;
use crate::transports::transport::Transport;

mod reads;

/// asyncio's `_DEFAULT_LIMIT`: 64 KiB.
pub const DEFAULT_LIMIT: usize = 64 * 1024;

/// A buffered reader fed by a protocol (asyncio's `StreamReader`). Cloning gives another
/// handle to the same reader.
#[derive(Clone)]
pub struct StreamReader {
    inner: Rc<ReaderInner>,
}

pub(crate) struct ReaderInner {
    lp: WeakLoop,
    limit: usize,
    buffer: RefCell<Vec<u8>>,
    eof: Cell<bool>,
    exception: RefCell<Option<Error>>,
    waiter: RefCell<Option<Future<()>>>, // the one read waiting for data
    transport: RefCell<Option<Transport>>,
    paused: Cell<bool>, // we paused the transport's reading
}

/// Clears the waiter when the read that waits ends, or is dropped (its task cancelled):
/// asyncio's `finally: self._waiter = None`.
struct WaiterSlot<'a>(&'a ReaderInner);

impl Drop for WaiterSlot<'_> {
    fn drop(&mut self) {
        self.0.waiter.borrow_mut().take();
    }
}

impl StreamReader {
    /// A reader with asyncio's default limit, 64 KiB.
    pub fn new(lp: &EventLoop) -> StreamReader {
        StreamReader::with_limit(lp, DEFAULT_LIMIT)
    }

    /// A reader with `limit`.
    pub fn with_limit(lp: &EventLoop, limit: usize) -> StreamReader {
        StreamReader {
            inner: Rc::new(ReaderInner {
                lp: lp.downgrade(),
                limit: limit.max(1),
                buffer: RefCell::new(Vec::new()),
                eof: Cell::new(false),
                exception: RefCell::new(None),
                waiter: RefCell::new(None),
                transport: RefCell::new(None),
                paused: Cell::new(false),
            }),
        }
    }

    /// The limit.
    pub fn limit(&self) -> usize {
        self.inner.limit
    }

    /// How many bytes are buffered.
    pub fn buffered(&self) -> usize {
        self.inner.buffer.borrow().len()
    }

    /// The transport whose reading the reader pauses and resumes.
    pub fn set_transport(&self, transport: Transport) {
        *self.inner.transport.borrow_mut() = Some(transport);
    }

    /// The error the protocol set, if any.
    pub fn exception(&self) -> Option<Error> {
        self.inner.exception.borrow().clone()
    }

    /// The connection was lost with `error`: every read from now on fails with it.
    pub fn set_exception(&self, error: Error) {
        *self.inner.exception.borrow_mut() = Some(error.clone());
        if let Some(waiter) = self.inner.waiter.borrow_mut().take()
            && !waiter.cancelled()
        {
            // Pending: it was waiting (a done one was handled already).
            drop(waiter.set_exception(error));
        }
    }

    /// asyncio's `_wakeup_waiter`.
    fn wakeup_waiter(&self) {
        let waiter = self.inner.waiter.borrow_mut().take();
        if let Some(waiter) = waiter {
            // Done already (cancelled): nobody to wake.
            waiter.set_result_unless_done(());
        }
    }

    /// The end of the stream: a waiting read wakes and finds it.
    pub fn feed_eof(&self) {
        self.inner.eof.set(true);
        self.wakeup_waiter();
    }

    /// True once the stream ended and the buffer is empty.
    pub fn at_eof(&self) -> bool {
        self.inner.eof.get() && self.inner.buffer.borrow().is_empty()
    }

    // ANCHOR: feed_data
    /// Bytes from the protocol: buffer them, wake a waiting read, and pause the
    /// transport's reading if the buffer holds more than twice the limit.
    pub fn feed_data(&self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let inner = &*self.inner;
        inner.buffer.borrow_mut().extend_from_slice(data);
        self.wakeup_waiter();
        let transport = inner.transport.borrow().clone();
        if let Some(transport) = transport
            && !inner.paused.get()
            && inner.buffer.borrow().len() > 2 * inner.limit
        {
            transport.pause_reading();
            inner.paused.set(true);
        }
    }
    // ANCHOR_END: feed_data

    /// asyncio's `_maybe_resume_transport`: a read brought the buffer to the limit.
    pub(crate) fn maybe_resume_transport(&self) {
        let inner = &*self.inner;
        if inner.paused.get() && inner.buffer.borrow().len() <= inner.limit {
            inner.paused.set(false);
            let transport = inner.transport.borrow().clone();
            if let Some(transport) = transport {
                transport.resume_reading();
            }
        }
    }

    // ANCHOR: wait_for_data
    /// asyncio's `_wait_for_data`: wait until `feed_data` or `feed_eof`. A paused transport
    /// is resumed first: the buffer does not hold what the read needs, so it must grow.
    pub(crate) async fn wait_for_data(&self, func_name: &str) -> Result<(), Error> {
        let inner = &*self.inner;
        if inner.waiter.borrow().is_some() {
            return Err(Error::msg(format!(
                "{func_name}() called while another coroutine is already waiting for incoming data"
            )));
        }
        if inner.paused.replace(false) {
            let transport = inner.transport.borrow().clone();
            if let Some(transport) = transport {
                transport.resume_reading();
            }
        }
        let Some(lp) = inner.lp.upgrade() else {
            return Err(Error::Closed);
        };
        let waiter = lp.create_future::<()>();
        *inner.waiter.borrow_mut() = Some(waiter.clone());
        let _slot = WaiterSlot(inner); // cleared however the wait ends
        waiter.await
    }
    // ANCHOR_END: wait_for_data

    pub(crate) fn check_exception(&self) -> Result<(), Error> {
        match self.exception() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Take the first `n` bytes out of the buffer and resume the transport if due.
    pub(crate) fn take(&self, n: usize) -> Vec<u8> {
        let data: Vec<u8> = self.inner.buffer.borrow_mut().drain(..n).collect();
        self.maybe_resume_transport();
        data
    }
}
