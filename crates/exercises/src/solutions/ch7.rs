//! Chapter 7's exercises, solved (book chapter 7, I/O, threads and signals; asyncio's
//! `selector_events.py`: `add_reader`, `add_writer`, the self-pipe). Compare with
//! `src/ch7.rs`, the stubs.

use std::io::{self, ErrorKind, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use stage5::{EventLoop, Future};

/// Exercise 7.1, level-triggered: a reader on a socket holding `sent` unread bytes reads at
/// most `per_call` of them each time the loop calls it (`per_call` 0: it reads nothing).
/// Nothing more arrives. How many times is it called in `iterations` iterations of the
/// loop? Write the rule as a formula; the test asks the loop.
///
/// asyncio's selector is level-triggered: the reader is called in every iteration in
/// which unread bytes remain, once per iteration. A reader that reads nothing is called
/// in every iteration: it spins.
pub fn predicted_calls(sent: usize, per_call: usize, iterations: usize) -> usize {
    if sent == 0 {
        0
    } else if per_call == 0 {
        iterations
    } else {
        sent.div_ceil(per_call).min(iterations)
    }
}

/// Exercise 7.2, a one-shot channel from another thread: `oneshot()` gives a [`Sender`],
/// which may move to another thread, and a [`Receiver`], which a task on the loop awaits.
/// The receiver gives the value once it is sent, or `None` if the sender was dropped
/// without sending.
///
/// The receiver's `poll` keeps the waker it receives; the sender wakes it, on whatever
/// thread it is. Woken on another thread, stage 5's waker leaves itself in the loop's
/// remote queue and writes to the self-pipe, and the loop steps the task on its own
/// thread.
pub fn oneshot<T: Send>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Mutex::new(Shared {
        value: None,
        closed: false,
        waker: None,
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
    closed: bool,         // the sender is gone
    waker: Option<Waker>, // the receiving task, once it waits
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
        let waker = {
            let mut shared = lock(&self.shared);
            shared.value = Some(value);
            shared.waker.take()
        };
        // Woken outside the lock: waking may run code that polls the receiver.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut shared = lock(&self.shared);
            shared.closed = true;
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> std::future::Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shared = lock(&self.shared);
        if let Some(value) = shared.value.take() {
            return Poll::Ready(Some(value));
        }
        if shared.closed {
            return Poll::Ready(None);
        }
        shared.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Exercise 7.3, a writer that waits for room: send all of `data` on `sock` (non-blocking),
/// as `sock_sendall` does, but with `add_writer` and `remove_writer`. The returned future
/// completes when every byte is in the socket's buffer, or with the error that stopped it.
///
/// Write what fits now (most sends fit, and need no writer); if that is not all, add a
/// writer. The loop calls it in every iteration in which the socket has room, as long as
/// it is there, so it must remove itself when it is done or fails: a writer left behind on
/// a socket with room is called for ever.
pub fn sendall(lp: &EventLoop, sock: Rc<UnixStream>, data: Vec<u8>) -> Future<()> {
    let done = lp.create_future();
    let mut sent = 0;
    match write_some(&sock, &data, &mut sent) {
        Ok(false) => {}
        finished => {
            finish(&done, finished);
            return done;
        }
    }
    let fd = sock.as_raw_fd();
    let writer_done = done.clone();
    let writer = move |lp: &EventLoop| match write_some(&sock, &data, &mut sent) {
        Ok(false) => {} // full again: the loop calls us when there is room
        finished => {
            lp.remove_writer(fd); // true: this writer was there
            finish(&writer_done, finished);
        }
    };
    if let Err(error) = lp.add_writer(fd, writer) {
        // A closed loop, or a descriptor the selector refuses: nothing will be sent.
        let set = done.set_exception(error);
        debug_assert!(set.is_ok(), "a new future is pending");
    }
    done
}

/// Write from `data[*sent..]` until all is sent (`Ok(true)`), the buffer is full
/// (`Ok(false)`), or an error.
fn write_some(sock: &UnixStream, data: &[u8], sent: &mut usize) -> io::Result<bool> {
    while *sent < data.len() {
        match (&*sock).write(&data[*sent..]) {
            // The socket took nothing and said nothing: it will not take more.
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => *sent += n,
            // The buffer is full: not an error, a reason to wait.
            Err(error) if error.kind() == ErrorKind::WouldBlock => return Ok(false),
            // A signal came before anything was written: try again.
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            // The peer is gone (`BrokenPipe`), or worse: the caller's error.
            Err(error) => return Err(error),
        }
    }
    Ok(true)
}

/// Complete `done` with the outcome of the sending.
fn finish(done: &Future<()>, outcome: io::Result<bool>) {
    let set = match outcome {
        Ok(_) => done.set_result(()),
        Err(error) => done.set_exception(error.into()),
    };
    debug_assert!(set.is_ok(), "only the sending completes it, once");
}
