//! The self-pipe and `call_soon_threadsafe`: how another thread wakes a loop blocked in
//! `select` (book chapter 7, "The self-pipe" and "Threads"; seeds 000/004, "添加任务":
//! `call_soon_threadsafe`, and asyncio's `selector_events.py`: `_make_self_pipe`,
//! `_read_from_self`, `_write_to_self`).
//!
//! A loop with nothing to do sleeps in `select` with no timeout. A callback another thread
//! queues would wait there forever, unless the loop also watches something that thread can
//! make ready. asyncio's answer is a socket pair made when the loop is made: the read end
//! is registered with a reader that drains it (`_read_from_self`); `_write_to_self` writes
//! one byte into the write end, and a full pipe is fine (the loop will wake anyway).
//! `call_soon_threadsafe` queues the callback, then writes to self. The same pipe carries
//! the signals (`signals.rs`).
//!
//! Ours: the pair is made with `socket2`, both ends non-blocking. A [`LoopHandle`] is the
//! `Send + Sync` part of the loop that other threads may hold: the queue of callbacks and
//! task wakes from other threads, and the write end. One thing is added to asyncio's
//! recipe: a `notified` flag, so that a thousand `call_soon_threadsafe` calls made before
//! the loop looks cost one byte, one system call, instead of a thousand.
//!
//! What changed since stage 4 (and part 1): stage 4 could not be woken from another thread
//! at all; part 1's task waker queued wakes from other threads, and the loop found them
//! only at its next iteration.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use socket2::{Domain, Socket, Type};

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::task::{self, TaskWaker};

/// What other threads leave for the loop.
pub(crate) enum Remote {
    /// `call_soon_threadsafe(callback)`.
    Call(Box<dyn FnOnce(&EventLoop) + Send>),
    /// A task's waker, woken on another thread.
    Wake(Arc<TaskWaker>),
}

// ANCHOR: shared
/// The part of the loop other threads may touch.
pub(crate) struct Shared {
    queue: Mutex<Vec<Remote>>,
    notified: AtomicBool, // the loop will look at `queue` before it next blocks
    closed: AtomicBool,
    write_end: Socket,
}
// ANCHOR_END: shared

/// The self-pipe's read end, which the loop watches with a reader.
pub(crate) struct SelfPipe {
    pub(crate) read_end: Socket,
}

// ANCHOR: make_self_pipe
/// asyncio's `_make_self_pipe`: a connected pair of Unix sockets, both non-blocking.
pub(crate) fn make_self_pipe() -> io::Result<(SelfPipe, Arc<Shared>)> {
    let (read_end, write_end) = Socket::pair(Domain::UNIX, Type::STREAM, None)?;
    read_end.set_nonblocking(true)?;
    write_end.set_nonblocking(true)?;
    let shared = Arc::new(Shared {
        queue: Mutex::new(Vec::new()),
        notified: AtomicBool::new(false),
        closed: AtomicBool::new(false),
        write_end,
    });
    Ok((SelfPipe { read_end }, shared))
}
// ANCHOR_END: make_self_pipe

impl Shared {
    // ANCHOR: write_to_self
    /// asyncio's `_write_to_self`: one byte into the pipe. A full pipe means bytes are
    /// already waiting, and the loop will wake for them: nothing is lost by dropping
    /// this one, so the error is ignored, as asyncio ignores it.
    pub(crate) fn write_to_self(&self) {
        let _ = (&self.write_end).write(&[0]);
    }
    // ANCHOR_END: write_to_self

    // ANCHOR: push
    /// Queue `item` for the loop and make sure it wakes: the first item since the loop
    /// last looked writes a byte; later ones find `notified` set and need none.
    pub(crate) fn push(&self, item: Remote) -> Result<(), Error> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(item);
        if !self.notified.swap(true, Ordering::AcqRel) {
            self.write_to_self();
        }
        Ok(())
    }
    // ANCHOR_END: push

    /// True if something waits in the queue (step 2 then does not block).
    pub(crate) fn pending(&self) -> bool {
        self.notified.load(Ordering::Acquire)
    }

    /// The write end, for signal handlers (a duplicate, which they own).
    pub(crate) fn write_end(&self) -> &Socket {
        &self.write_end
    }

    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let items = std::mem::take(
            &mut *self
                .queue
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        drop(items);
    }
}

// ANCHOR: drain
/// Step 3: move what other threads queued into the ready queue, in the order it came.
/// `notified` is cleared *before* the queue is taken: a thread that pushes after the take
/// finds it cleared and writes a byte, so nothing is left behind unseen.
pub(crate) fn drain_remote(lp: &EventLoop) {
    let shared = &lp.inner.shared;
    if !shared.notified.load(Ordering::Acquire) {
        return;
    }
    shared.notified.store(false, Ordering::SeqCst);
    let items = std::mem::take(
        &mut *shared
            .queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    );
    for item in items {
        match item {
            Remote::Call(callback) => {
                let _ = lp.call_soon(callback);
            }
            Remote::Wake(waker) => task::wake_remote(lp, &waker),
        }
    }
}
// ANCHOR_END: drain

// ANCHOR: read_from_self
/// asyncio's `_read_from_self`, the self-pipe's reader: drain the bytes, then queue the
/// handlers of the signals that arrived (`signals.rs`).
pub(crate) fn read_from_self(lp: &EventLoop) {
    let pipe = &lp.inner.self_pipe.read_end;
    let mut buf = [0u8; 4096];
    loop {
        match (&*pipe).read(&mut buf) {
            Ok(0) => break,
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                lp.would_block(
                    std::os::fd::AsRawFd::as_raw_fd(pipe),
                    stage4::Interest::Read,
                );
                break;
            }
            Err(_) => break,
        }
    }
    crate::signals::queue_signal_handlers(lp);
}
// ANCHOR_END: read_from_self

// ANCHOR: loop_handle
/// A handle to a loop that other threads may hold (`Send + Sync`): what they need to hand
/// work back to it. Get one with [`EventLoop::handle`].
#[derive(Clone)]
pub struct LoopHandle {
    shared: Arc<Shared>,
}

impl LoopHandle {
    /// Run `callback` on the loop's thread, in the loop's next batch (asyncio's
    /// `call_soon_threadsafe`). Callbacks from one thread run in the order they were
    /// queued. Wakes the loop if it is blocked in `select`. Fails once the loop is closed.
    pub fn call_soon_threadsafe(
        &self,
        callback: impl FnOnce(&EventLoop) + Send + 'static,
    ) -> Result<(), Error> {
        self.shared.push(Remote::Call(Box::new(callback)))
    }

    /// Wake the loop without queueing anything (asyncio's `_write_to_self`).
    pub fn write_to_self(&self) {
        self.shared.write_to_self();
    }
}
// ANCHOR_END: loop_handle

impl std::fmt::Debug for LoopHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<LoopHandle>")
    }
}

impl EventLoop {
    /// A `Send + Sync` handle to this loop, for other threads.
    pub fn handle(&self) -> LoopHandle {
        LoopHandle {
            shared: self.inner.shared.clone(),
        }
    }

    /// asyncio's `call_soon_threadsafe`, on the loop itself; from other threads use
    /// [`EventLoop::handle`].
    pub fn call_soon_threadsafe(
        &self,
        callback: impl FnOnce(&EventLoop) + Send + 'static,
    ) -> Result<(), Error> {
        self.check_closed()?;
        self.handle().call_soon_threadsafe(callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_send_sync<T: Send + Sync>() {}

    #[test]
    fn a_loop_handle_crosses_threads() {
        is_send_sync::<LoopHandle>();
    }

    #[test]
    fn write_to_self_ignores_a_full_pipe() {
        let (pipe, shared) = make_self_pipe().unwrap();
        // Far more bytes than a socket buffer holds: none of them fails or blocks.
        for _ in 0..100_000 {
            shared.write_to_self();
        }
        let mut buf = [0u8; 64];
        assert!((&pipe.read_end).read(&mut buf).unwrap() > 0);
    }
}
