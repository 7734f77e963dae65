//! Build it 7.4: `sock_recv` as asyncio writes it, a reader plus a future (book chapter 7,
//! "Readers and writers on a selector" and "Socket operations"; asyncio's
//! `selector_events.py`: `add_reader` files a handle under a descriptor, and asyncio's
//! `sock_recv` tries the socket first and waits with a reader only if it would block). A
//! build-it exercise: the skeleton below is given, and you write [`sock_recv`].
//! `tests/build_ch7.rs` has a task receive from a socket pair inside the process, on stage
//! 5's loop on the virtual clock, once with your `sock_recv` and once with stage 5's, and
//! compares what it got, and when.
//!
//! Stage 5's own `sock_recv` is a future whose waker is the "reader" (chapter 7, "Where we
//! differ from asyncio"): its task runs in the iteration in which the socket is ready.
//! Yours is asyncio's: the reader runs in that iteration and completes the future, and the
//! task that awaits the future runs in the next one. The test therefore compares the order
//! and the times of what the task receives, not the iteration numbers.

use std::io::{self, ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use stage5::{EventLoop, Future};

/// One try: read at most `nbytes` from `sock` (non-blocking). The bytes (none at the end of
/// the stream), or the error: `WouldBlock` when nothing has come yet.
pub fn try_recv(sock: &UnixStream, nbytes: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; nbytes];
    loop {
        match (&*sock).read(&mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            // A signal came first: try again.
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}

/// Complete `done` with what a try got: the bytes as its result, an error as its
/// exception.
pub fn complete(done: &Future<Vec<u8>>, outcome: io::Result<Vec<u8>>) {
    let set = match outcome {
        Ok(bytes) => done.set_result(bytes),
        Err(error) => done.set_exception(error.into()),
    };
    debug_assert!(set.is_ok(), "a receive completes its future once");
}

/// Build it 7.4: receive at most `nbytes` from `sock` (non-blocking), asyncio's way: a
/// future, completed by a reader.
///
/// Make a future (`lp.create_future()`). Try at once: if the try does not say
/// `WouldBlock`, complete the future with what it got, and you are done. Otherwise add a
/// reader on the socket's descriptor (`AsRawFd::as_raw_fd`); the loop calls it in every
/// iteration in which the socket is readable. It tries again: `WouldBlock` (woken for
/// nothing) means wait on; anything else removes the reader (`lp.remove_reader`: it would
/// be called for ever on a socket at its end) and completes the future. If the loop
/// refuses the reader, the future fails with that error. Return the future.
///
/// As shipped, it tries once, and takes `WouldBlock` for the end of the stream.
pub fn sock_recv(lp: &EventLoop, sock: Rc<UnixStream>, nbytes: usize) -> Future<Vec<u8>> {
    let done = lp.create_future();
    let outcome = match try_recv(&sock, nbytes) {
        Err(error) if error.kind() == ErrorKind::WouldBlock => Ok(Vec::new()),
        outcome => outcome,
    };
    complete(&done, outcome);
    done
}
