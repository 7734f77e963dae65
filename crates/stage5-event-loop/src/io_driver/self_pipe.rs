//! The self-pipe and the queue other threads fill: how another thread wakes a loop blocked
//! in `select` (book chapter 7, "The self-pipe"; asyncio's
//! `call_soon_threadsafe`, and its `selector_events.py`: `_make_self_pipe`,
//! `_read_from_self`, `_write_to_self`).
//!
//! A loop with nothing to do sleeps in `select` with no timeout. A callback another thread
//! queues would wait there forever, unless the loop also watches something that thread can
//! make ready. asyncio's answer is a socket pair made with the loop: the read end is
//! watched by a reader that drains it (`_read_from_self`); `_write_to_self` writes one byte
//! into the write end, and a full pipe is fine (the loop will wake anyway). The same pipe
//! carries the signals (`signal_table.rs`).
//!
//! Ours: the pair is made with `socket2`, both ends non-blocking. The [`RemoteQueue`] is
//! the `Send + Sync` part of the loop: the callbacks and task wakes other threads leave,
//! and the write end. One thing is added to asyncio's recipe: a `notified` flag, so that a
//! thousand calls made before the loop looks cost one byte, one system call, instead of a
//! thousand. And one is changed: the queue's `closed` flag lives under the same lock as the
//! items, so a call either reaches the queue before the loop closes it, and then runs, or
//! is refused; asyncio's check and append are two steps, and a call that slips between
//! them is lost.
//!
//! Generic over the loop `L` the callbacks receive; nothing here knows the loop. What
//! changed since stage 4: stage 4 could not be woken from another thread at all.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::task::Waker;

use socket2::{Domain, Socket, Type};

/// What other threads leave for the loop.
pub enum Remote<L> {
    /// `call_soon_threadsafe(callback)`.
    Call(Box<dyn FnOnce(&L) + Send>),
    /// A task's waker, woken on another thread: the loop wakes it again on its own.
    Wake(Waker),
}

// ANCHOR: shared
/// The part of the loop other threads may touch.
pub struct RemoteQueue<L> {
    queue: Mutex<Queue<L>>,
    notified: AtomicBool, // the loop will look at `queue` before it next blocks
    holders: AtomicUsize, // live `ThreadsafeLoop`s: threads that may still call
    write_end: Socket,
}

struct Queue<L> {
    items: Vec<Remote<L>>,
    closed: bool,
}
// ANCHOR_END: shared

/// The self-pipe's read end, which the loop watches with a reader.
pub struct SelfPipe {
    read_end: Socket,
}

// ANCHOR: make_self_pipe
/// asyncio's `_make_self_pipe`: a connected pair of Unix sockets, both non-blocking.
pub fn make_self_pipe<L>() -> io::Result<(SelfPipe, RemoteQueue<L>)> {
    let (read_end, write_end) = Socket::pair(Domain::UNIX, Type::STREAM, None)?;
    read_end.set_nonblocking(true)?;
    write_end.set_nonblocking(true)?;
    let queue = RemoteQueue {
        queue: Mutex::new(Queue {
            items: Vec::new(),
            closed: false,
        }),
        notified: AtomicBool::new(false),
        holders: AtomicUsize::new(0),
        write_end,
    };
    Ok((SelfPipe { read_end }, queue))
}
// ANCHOR_END: make_self_pipe

impl SelfPipe {
    /// The read end's descriptor, for the loop's reader.
    pub fn fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.read_end)
    }

    /// The first half of asyncio's `_read_from_self`: read every byte there is. Returns
    /// false if the pipe is broken (it never is while the loop holds both ends).
    pub fn drain(&self) -> bool {
        let mut buf = [0u8; 4096];
        loop {
            match (&self.read_end).read(&mut buf) {
                // The write end is closed: nothing more will come.
                Ok(0) => return false,
                // Bytes: read on until there are none.
                Ok(_) => continue,
                // A signal arrived while reading: try again.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Drained: the next byte makes the descriptor ready again.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                // Nothing else is expected of a socket pair; stop reading this time.
                Err(_) => return false,
            }
        }
    }
}

impl<L> RemoteQueue<L> {
    fn lock(&self) -> MutexGuard<'_, Queue<L>> {
        // A thread that panicked while holding the lock left the vector intact (a push
        // or a take): it is safe to go on with it.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    // ANCHOR: write_to_self
    /// asyncio's `_write_to_self`: one byte into the pipe. Every failure is ignored, as
    /// asyncio ignores it.
    pub fn write_to_self(&self) {
        loop {
            match (&self.write_end).write(&[0]) {
                // A signal came in the middle: try again.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // Written: the loop wakes.
                Ok(_) => return,
                // Full: bytes are already waiting, and the loop will wake for them.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                // The read end is gone with its loop: nobody is left to wake.
                Err(_) => return,
            }
        }
    }
    // ANCHOR_END: write_to_self

    // ANCHOR: push
    /// Queue `item` for the loop and make sure it wakes: the first item since the loop
    /// last looked writes a byte; later ones find `notified` set and need none. Gives the
    /// item back if the loop is closed.
    pub fn push(&self, item: Remote<L>) -> Result<(), Remote<L>> {
        {
            let mut queue = self.lock();
            if queue.closed {
                return Err(item);
            }
            queue.items.push(item);
        }
        if !self.notified.swap(true, Ordering::AcqRel) {
            self.write_to_self();
        }
        Ok(())
    }
    // ANCHOR_END: push

    // ANCHOR: drain
    /// Step 3: take what other threads queued, in the order it came. `notified` is
    /// cleared *before* the queue is taken: a thread that pushes after the take finds it
    /// cleared and writes a byte, so nothing is left behind unseen.
    pub fn take(&self) -> Vec<Remote<L>> {
        if !self.notified.load(Ordering::Acquire) {
            return Vec::new();
        }
        self.notified.store(false, Ordering::SeqCst);
        std::mem::take(&mut self.lock().items)
    }
    // ANCHOR_END: drain

    /// True if something waits in the queue (step 2 then does not block).
    pub fn pending(&self) -> bool {
        self.notified.load(Ordering::Acquire)
    }

    /// Refuse every later push, and hand back what was accepted before: the loop runs it.
    pub fn close(&self) -> Vec<Remote<L>> {
        let mut queue = self.lock();
        queue.closed = true;
        std::mem::take(&mut queue.items)
    }

    /// A copy of the write end, for a signal handler to own.
    pub fn write_end(&self) -> io::Result<Socket> {
        self.write_end.try_clone()
    }

    /// A `ThreadsafeLoop` was made (+1) or dropped (-1).
    pub fn count_holder(&self, made: bool) {
        if made {
            self.holders.fetch_add(1, Ordering::AcqRel);
        } else {
            self.holders.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// True while some thread holds a `ThreadsafeLoop`: it may still wake the loop.
    pub fn has_holders(&self) -> bool {
        self.holders.load(Ordering::Acquire) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_send_sync<T: Send + Sync>() {}

    #[test]
    fn the_queue_crosses_threads() {
        is_send_sync::<RemoteQueue<std::rc::Rc<()>>>();
    }

    #[test]
    fn write_to_self_ignores_a_full_pipe() {
        let (pipe, queue) = make_self_pipe::<()>().unwrap();
        // Far more bytes than a socket buffer holds: none of them fails or blocks.
        for _ in 0..100_000 {
            queue.write_to_self();
        }
        assert!(pipe.drain());
        assert!(pipe.drain(), "drained: the next read would block");
    }

    #[test]
    fn one_byte_for_many_pushes_and_nothing_after_close() {
        let (pipe, queue) = make_self_pipe::<()>().unwrap();
        for n in 0..3 {
            assert!(
                queue
                    .push(Remote::Call(Box::new(move |_| assert!(n < 3))))
                    .is_ok()
            );
        }
        let mut buf = [0u8; 16];
        assert_eq!((&pipe.read_end).read(&mut buf).unwrap(), 1, "one byte");
        assert!(queue.pending());
        assert_eq!(queue.take().len(), 3);
        assert!(!queue.pending());
        assert!(queue.push(Remote::Call(Box::new(|_| {}))).is_ok());
        assert_eq!(queue.close().len(), 1, "accepted before close: handed back");
        assert!(queue.push(Remote::Call(Box::new(|_| {}))).is_err());
    }
}
