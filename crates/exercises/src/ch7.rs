//! Chapter 7's exercises (book chapter 7, I/O, threads and signals; asyncio's
//! `selector_events.py`: `add_reader`, `add_writer`, the self-pipe). Each item below is a
//! stub that compiles and does the wrong thing; `tests/ch7.rs` says what the right thing
//! is. They use stage 5's public API only, on Unix socket pairs (no network). Run one with
//! `cargo run -p exercises -- run 7.1`.
//!
//! What changed since chapter 6's exercises: the loop now waits for the outside world, a
//! socket or another thread, and the exercises meet it through readers, writers and wakers.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use stage5::{EventLoop, Future};

/// Exercise 7.1, level-triggered: a reader on a socket holding `sent` unread bytes reads at
/// most `per_call` of them each time the loop calls it (`per_call` 0: it reads nothing).
/// Nothing more arrives. How many times is it called in `iterations` iterations of the
/// loop? Write the rule as a formula; the test asks the loop.
///
/// As shipped, the answer is an edge-triggered selector's: called once, when the bytes
/// arrived, and never again.
pub fn predicted_calls(sent: usize, per_call: usize, iterations: usize) -> usize {
    let _ = per_call; // the edge-triggered answer ignores it: that is the exercise
    usize::from(sent > 0).min(iterations)
}

/// Exercise 7.2, a one-shot channel from another thread: `oneshot()` gives a [`Sender`],
/// which may move to another thread, and a [`Receiver`], which a task on the loop awaits.
/// The receiver gives the value once it is sent, or `None` if the sender was dropped
/// without sending.
///
/// As shipped, the receiver's `poll` answers `Pending` and keeps nothing, as stages 2 to 4
/// did with their no-op wakers: nobody ever wakes the task. Keep the waker that `poll`
/// receives, and wake it when the value comes (chapter 6, "Real wakers").
pub fn oneshot<T: Send>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Mutex::new(Shared {
        value: None,
        closed: false,
    }));
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

/// What the two ends share, under a mutex: the sender may be on another thread.
struct Shared<T> {
    value: Option<T>,
    closed: bool, // the sender is gone
}

/// The sending end of [`oneshot`]; `Send` if `T` is.
pub struct Sender<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

/// The receiving end of [`oneshot`]: a future of `Some(value)`, or `None` if the sender
/// was dropped without sending.
pub struct Receiver<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

/// The shared state, even if a thread panicked while holding it: the state is a value and
/// a flag, each written in one statement, so it is never half-updated.
fn lock<T>(shared: &Mutex<Shared<T>>) -> MutexGuard<'_, Shared<T>> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T> Sender<T> {
    /// Send `value` to the receiver.
    pub fn send(self, value: T) {
        lock(&self.shared).value = Some(value);
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        lock(&self.shared).closed = true;
    }
}

impl<T> std::future::Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: std::pin::Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shared = lock(&self.shared);
        if let Some(value) = shared.value.take() {
            return Poll::Ready(Some(value));
        }
        if shared.closed {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

/// Exercise 7.3, a writer that waits for room: send all of `data` on `sock` (non-blocking),
/// as `sock_sendall` does, but with `add_writer` and `remove_writer`. The returned future
/// completes when every byte is in the socket's buffer, or with the error that stopped it.
///
/// As shipped, this is the blocking habit: one `write_all`. On a non-blocking socket whose
/// buffer fills, it fails with `WouldBlock`, which is no error: it means "wait for room".
/// Write what fits now; if that is not all, add a writer that writes more each time the
/// loop calls it, and that removes itself when it is done or fails.
pub fn sendall(lp: &EventLoop, sock: Rc<UnixStream>, data: Vec<u8>) -> Future<()> {
    let done = lp.create_future();
    let set = match (&*sock).write_all(&data) {
        Ok(()) => done.set_result(()),
        Err(error) => done.set_exception(error.into()),
    };
    debug_assert!(set.is_ok(), "a new future is pending");
    done
}
