//! `call_soon_threadsafe` and the [`ThreadsafeLoop`] other threads hold (book chapter 7,
//! "Threads"; asyncio's `call_soon_threadsafe`).
//!
//! An [`EventLoop`] is an `Rc`: it stays on its thread. What another thread may hold is a
//! [`ThreadsafeLoop`], the loop's `Send + Sync` part (the remote queue and the self-pipe's write
//! end, `self_pipe.rs`). `call_soon_threadsafe` queues the callback there and writes a byte
//! to self, so a loop blocked in `select` wakes up and runs it in its next batch.
//!
//! It is not called a handle: in asyncio, and here, a `Handle` is a scheduled callback.
//!
//! A live `ThreadsafeLoop` also tells the loop that a thread may still call: on the virtual clock, a
//! loop with nothing else to wait for then blocks on the self-pipe for real, where it would
//! otherwise report that it can never wake.
//!
//! What changed since stage 4: stage 4 could not be reached from another thread at all.

use std::sync::Arc;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::io_driver::self_pipe::{Remote, RemoteQueue};

// ANCHOR: threadsafe_loop
/// The loop as other threads may hold it (`Send + Sync`): what they need to hand work back
/// to it. Get one with [`EventLoop::threadsafe`].
pub struct ThreadsafeLoop {
    remote: Arc<RemoteQueue<EventLoop>>,
}

impl ThreadsafeLoop {
    /// Run `callback` on the loop's thread, in the loop's next batch (asyncio's
    /// `call_soon_threadsafe`). Callbacks from one thread run in the order they were
    /// queued. Wakes the loop if it is blocked in `select`. Either the callback runs (a
    /// loop that closes first runs what it accepted) or the call fails with
    /// [`Error::Closed`].
    pub fn call_soon_threadsafe(
        &self,
        callback: impl FnOnce(&EventLoop) + Send + 'static,
    ) -> Result<(), Error> {
        push_call(&self.remote, callback)
    }

    /// Wake the loop without queueing anything (asyncio's `_write_to_self`).
    pub fn write_to_self(&self) {
        self.remote.write_to_self();
    }
}

/// Queue `callback` for the loop's thread; a closed loop's queue gives it back, refused.
fn push_call(
    remote: &RemoteQueue<EventLoop>,
    callback: impl FnOnce(&EventLoop) + Send + 'static,
) -> Result<(), Error> {
    remote
        .push(Remote::Call(Box::new(callback)))
        .map_err(|_refused| Error::Closed)
}
// ANCHOR_END: threadsafe_loop

impl Clone for ThreadsafeLoop {
    fn clone(&self) -> Self {
        ThreadsafeLoop::new(self.remote.clone())
    }
}

impl Drop for ThreadsafeLoop {
    fn drop(&mut self) {
        self.remote.count_holder(false);
    }
}

impl ThreadsafeLoop {
    fn new(remote: Arc<RemoteQueue<EventLoop>>) -> ThreadsafeLoop {
        remote.count_holder(true);
        ThreadsafeLoop { remote }
    }
}

impl std::fmt::Debug for ThreadsafeLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<ThreadsafeLoop>")
    }
}

impl EventLoop {
    /// This loop as other threads may hold it: `Send + Sync`.
    pub fn threadsafe(&self) -> ThreadsafeLoop {
        ThreadsafeLoop::new(self.remote().clone())
    }

    /// asyncio's `call_soon_threadsafe`, on the loop itself; from other threads use
    /// [`EventLoop::threadsafe`].
    pub fn call_soon_threadsafe(
        &self,
        callback: impl FnOnce(&EventLoop) + Send + 'static,
    ) -> Result<(), Error> {
        self.check_closed()?;
        push_call(self.remote(), callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_send_sync<T: Send + Sync>() {}

    #[test]
    fn a_threadsafe_loop_crosses_threads() {
        is_send_sync::<ThreadsafeLoop>();
    }
}
