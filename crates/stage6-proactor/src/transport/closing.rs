//! How a proactor transport closes (book chapter 10, "Transports on the proactor";
//! asyncio's `_ProactorBasePipeTransport.close`, `abort`, `_force_close` and
//! `_call_connection_lost` in `proactor_events.py`).
//!
//! Closing cancels the receive in flight; the connection is lost once the last send has
//! completed. The socket itself closes when the last `Rc` to it goes, and the ring holds
//! one for every operation it still has: a socket is never closed under the kernel.

use stage5::Error;

use super::Transport;

impl Transport {
    // ANCHOR: close
    /// Close: cancel the receive in flight, and lose the connection once the last write
    /// has completed (asyncio's `close`).
    pub fn close(&self) {
        let t = &self.inner;
        if t.closing.replace(true) {
            return;
        }
        let read = t.read.borrow_mut().take();
        drop(read); // dropped in flight: cancelled, its buffer the kernel's until it answers
        if t.write.borrow().is_none() {
            self.lose_soon();
        }
    }

    /// Close now: cancel both operations and drop what was not sent (asyncio's `abort`).
    pub fn abort(&self) {
        let t = &self.inner;
        t.closing.set(true);
        let (read, write) = (t.read.borrow_mut().take(), t.write.borrow_mut().take());
        drop((read, write)); // cancelled
        t.buffer.borrow_mut().clear();
        self.lose_soon();
    }
    // ANCHOR_END: close

    pub(super) fn lose_soon(&self) {
        let me = self.clone();
        if self.inner.lp.call_soon(move |_| me.lose(None)).is_err() {
            self.lose(None); // a closed loop: now
        }
    }

    /// `connection_lost`, once; the protocol is dropped, which ends the cycle between it
    /// and the transport. The socket closes when the kernel holds no operation on it.
    pub(super) fn lose(&self, error: Option<Error>) {
        if self.inner.lost.replace(true) {
            return;
        }
        self.inner.closing.set(true);
        let read = self.inner.read.borrow_mut().take();
        drop(read); // (cancelled, if a failed send lost the connection)
        let protocol = self.inner.protocol.borrow_mut().take();
        if let Some(protocol) = protocol {
            protocol.connection_lost(error);
        }
    }
}
