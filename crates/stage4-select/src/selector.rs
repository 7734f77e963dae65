//! The selector: ask the operating system which sockets are ready (book chapter 4, "select,
//! poll, epoll and mio"; Beazley's talk, the `select()` call).
//!
//! The talk's scheduler hands `select.select()` the sockets its tasks wait on, with a
//! timeout, and gets back the ones that are ready. [`Selector`] is that call as a trait,
//! shaped like Python's `selectors` module: add a wait (a socket and a direction), remove
//! it, and `select` with a timeout to learn which waits are ready. The scheduler is
//! written against the trait, so a test can drive it with a fake that scripts readiness
//! (`tests/fake_selector.rs`). The real implementation, [`MioSelector`], sits on
//! `mio::Poll` (epoll on Linux, kqueue on the BSDs and macOS): a well-kept crate for the
//! system calls, since calling epoll by hand is not this chapter's lesson.
//!
//! ## One-shot waits on an edge-triggered selector
//!
//! `select()` is *level-triggered*: it reports a socket every time it is called, as long as
//! the socket is ready. mio is *edge-triggered*: it reports a socket when it *becomes*
//! ready, once, and says nothing more until the next change. A selector that forgot the
//! difference would miss a socket that was already readable before anyone waited on it,
//! and the task waiting on it would sleep forever.
//!
//! The talk's waits are one-shot: a task waits, the socket becomes ready, the task is woken
//! and the wait is gone. That fits edge-triggering if every wait *registers* the socket
//! (`EPOLL_CTL_ADD`, or `EPOLL_CTL_MOD` if the socket is already registered for the other
//! direction) and every fired wait removes it. epoll checks a socket's readiness at the
//! moment it is added or modified and reports it at once if it is already ready, so a wait
//! placed on a ready socket fires on the next `select`, like `select()` would. The test
//! `a_socket_ready_before_the_wait_is_reported` checks exactly that case.
//!
//! What changed from stage 3: stage 3 had no way to wait for a socket at all, only to try it
//! and sleep.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

use mio::unix::SourceFd;
use mio::{Events, Poll, Token};

// ANCHOR: interest
/// Which way a task waits on a socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interest {
    /// Readable: data, a connection to accept, end of stream, or an error.
    Read,
    /// Writable: room in the send buffer, or an error.
    Write,
}
// ANCHOR_END: interest

impl Interest {
    /// `"read"` or `"write"`, as the trace writes it.
    pub fn name(self) -> &'static str {
        match self {
            Interest::Read => "read",
            Interest::Write => "write",
        }
    }
}

impl fmt::Display for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ANCHOR: selector
/// The talk's `select()`: waits on sockets, and a call that sleeps until some are ready.
pub trait Selector {
    /// Wait for `fd` to be ready for `interest`. A second wait for the same socket and
    /// direction is an error (`AlreadyExists`), never a silent replacement.
    fn add(&mut self, fd: RawFd, interest: Interest) -> io::Result<()>;

    /// Stop waiting for `fd` in direction `interest`; nothing happens if there was no wait.
    fn remove(&mut self, fd: RawFd, interest: Interest) -> io::Result<()>;

    /// Sleep until at least one wait is ready or `timeout` passes (`None`: no limit), and
    /// append the ready waits to `ready`. Waits are one-shot: those reported are removed.
    fn select(
        &mut self,
        timeout: Option<Duration>,
        ready: &mut Vec<(RawFd, Interest)>,
    ) -> io::Result<()>;

    /// How many waits are registered.
    fn len(&self) -> usize;

    /// True when no wait is registered.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
// ANCHOR_END: selector

/// Which directions are waited for on one socket.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Waits {
    read: bool,
    write: bool,
}

impl Waits {
    fn has(self, interest: Interest) -> bool {
        match interest {
            Interest::Read => self.read,
            Interest::Write => self.write,
        }
    }

    fn set(&mut self, interest: Interest, on: bool) {
        match interest {
            Interest::Read => self.read = on,
            Interest::Write => self.write = on,
        }
    }

    fn count(self) -> usize {
        usize::from(self.read) + usize::from(self.write)
    }

    /// What to ask mio for; `None` when nothing is waited for.
    fn to_mio(self) -> Option<mio::Interest> {
        match (self.read, self.write) {
            (true, true) => Some(mio::Interest::READABLE | mio::Interest::WRITABLE),
            (true, false) => Some(mio::Interest::READABLE),
            (false, true) => Some(mio::Interest::WRITABLE),
            (false, false) => None,
        }
    }
}

/// A [`Selector`] on `mio::Poll`. A socket is registered with mio while at least one task
/// waits on it, for the union of the directions waited for; its token is its fd.
pub struct MioSelector {
    poll: Poll,
    events: Events,
    waits: HashMap<RawFd, Waits>,
}

impl MioSelector {
    /// A selector with nothing registered.
    pub fn new() -> io::Result<Self> {
        Ok(MioSelector {
            poll: Poll::new()?,
            events: Events::with_capacity(1024),
            waits: HashMap::new(),
        })
    }

    // ANCHOR: update
    /// Tell mio about `fd`'s new set of waits, `before` being the old one. Registering or
    /// modifying makes epoll look at the socket's readiness *now*: the point of one-shot
    /// waits on an edge-triggered selector.
    fn update(&self, fd: RawFd, before: Waits, after: Waits) -> io::Result<()> {
        let registry = self.poll.registry();
        let token = Token(fd as usize);
        match (before.to_mio(), after.to_mio()) {
            (None, Some(interest)) => registry.register(&mut SourceFd(&fd), token, interest),
            (Some(_), Some(interest)) => {
                match registry.reregister(&mut SourceFd(&fd), token, interest) {
                    // The socket was closed (and its number reused) while we still had a
                    // wait on it: epoll forgot it. Register it afresh.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        registry.register(&mut SourceFd(&fd), token, interest)
                    }
                    result => result,
                }
            }
            (Some(_), None) => match registry.deregister(&mut SourceFd(&fd)) {
                // Already gone from epoll (closed): there is nothing left to remove.
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) if e.raw_os_error() == Some(9) => Ok(()), // EBADF: closed
                result => result,
            },
            (None, None) => Ok(()),
        }
    }
    // ANCHOR_END: update
}

impl Selector for MioSelector {
    fn add(&mut self, fd: RawFd, interest: Interest) -> io::Result<()> {
        if fd < 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("cannot wait on fd {fd}: not a valid file descriptor"),
            ));
        }
        let before = self.waits.get(&fd).copied().unwrap_or_default();
        if before.has(interest) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("a task already waits to {interest} fd {fd}"),
            ));
        }
        let mut after = before;
        after.set(interest, true);
        // epoll's own error (EBADF for a number the process does not have) names no
        // descriptor: say which, keeping its kind.
        self.update(fd, before, after).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("cannot wait to {interest} fd {fd}: {error}"),
            )
        })?;
        self.waits.insert(fd, after);
        Ok(())
    }

    fn remove(&mut self, fd: RawFd, interest: Interest) -> io::Result<()> {
        let Some(&before) = self.waits.get(&fd) else {
            return Ok(());
        };
        let mut after = before;
        after.set(interest, false);
        if after == before {
            return Ok(());
        }
        if after.count() == 0 {
            self.waits.remove(&fd);
        } else {
            self.waits.insert(fd, after);
        }
        self.update(fd, before, after)
    }

    // ANCHOR: select
    fn select(
        &mut self,
        timeout: Option<Duration>,
        ready: &mut Vec<(RawFd, Interest)>,
    ) -> io::Result<()> {
        match self.poll.poll(&mut self.events, timeout) {
            Ok(()) => {}
            // A signal arrived: report nothing; the caller's loop comes round again.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(()),
            Err(e) => return Err(e),
        }
        let first = ready.len();
        for event in &self.events {
            let fd = event.token().0 as RawFd;
            let Some(&waits) = self.waits.get(&fd) else {
                continue; // nobody waits on it any more
            };
            // An error or a hang-up wakes the waiter too: its next read or write reports it.
            let readable = event.is_readable() || event.is_read_closed() || event.is_error();
            let writable = event.is_writable() || event.is_write_closed() || event.is_error();
            if waits.read && readable {
                ready.push((fd, Interest::Read));
            }
            if waits.write && writable {
                ready.push((fd, Interest::Write));
            }
        }
        // One-shot: a wait that fired is gone.
        for &(fd, interest) in &ready[first..] {
            self.remove(fd, interest)?;
        }
        Ok(())
    }
    // ANCHOR_END: select

    fn len(&self) -> usize {
        self.waits.values().map(|w| w.count()).sum()
    }
}

impl fmt::Debug for MioSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MioSelector")
            .field("waits", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;

    /// A connected pair of non-blocking TCP sockets on 127.0.0.1.
    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (b, _) = listener.accept().unwrap();
        a.set_nonblocking(true).unwrap();
        b.set_nonblocking(true).unwrap();
        (a, b)
    }

    /// Spin (briefly, boundedly) until `sock` has data buffered, without consuming it.
    fn until_buffered(sock: &TcpStream) {
        for _ in 0..1_000_000 {
            match sock.peek(&mut [0]) {
                Ok(_) => return,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => panic!("{e}"),
            }
        }
        panic!("loopback did not deliver");
    }

    fn select_now(selector: &mut MioSelector) -> Vec<(RawFd, Interest)> {
        let mut ready = Vec::new();
        selector
            .select(Some(Duration::from_millis(100)), &mut ready)
            .unwrap();
        ready
    }

    #[test]
    fn a_socket_ready_before_the_wait_is_reported() {
        let (mut a, b) = pair();
        a.write_all(b"already here").unwrap();
        // The data is waiting in b's buffer *before* anyone waits on b. An edge-triggered
        // selector that only reported changes from now on would never report it.
        until_buffered(&b);
        let mut selector = MioSelector::new().unwrap();
        selector.add(b.as_raw_fd(), Interest::Read).unwrap();
        assert_eq!(select_now(&mut selector), [(b.as_raw_fd(), Interest::Read)]);
        assert!(selector.is_empty(), "a fired wait is removed");
        // Waiting again on the still-readable socket reports it again: level-like.
        selector.add(b.as_raw_fd(), Interest::Read).unwrap();
        assert_eq!(select_now(&mut selector), [(b.as_raw_fd(), Interest::Read)]);
    }

    #[test]
    fn adding_a_direction_to_a_registered_socket_checks_readiness_too() {
        let (mut a, b) = pair();
        let mut selector = MioSelector::new().unwrap();
        let fd = b.as_raw_fd();
        // Registered for writing first (and writable at once).
        selector.add(fd, Interest::Write).unwrap();
        a.write_all(b"x").unwrap();
        until_buffered(&b);
        // Now also for reading: the data arrived before this wait (EPOLL_CTL_MOD).
        selector.add(fd, Interest::Read).unwrap();
        let mut ready = select_now(&mut selector);
        ready.sort_by_key(|(_, i)| *i == Interest::Write);
        assert_eq!(ready, [(fd, Interest::Read), (fd, Interest::Write)]);
        assert!(selector.is_empty());
    }

    #[test]
    fn a_descriptor_the_process_does_not_have_is_an_error_that_names_it() {
        let mut selector = MioSelector::new().unwrap();
        let error = selector.add(99_999, Interest::Read).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("cannot wait to read fd 99999: "),
            "{message}"
        );
        assert!(selector.is_empty());
    }

    #[test]
    fn a_second_wait_in_the_same_direction_is_refused() {
        let (_a, b) = pair();
        let mut selector = MioSelector::new().unwrap();
        selector.add(b.as_raw_fd(), Interest::Read).unwrap();
        let error = selector.add(b.as_raw_fd(), Interest::Read).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(selector.len(), 1);
        // The other direction is a different wait.
        selector.add(b.as_raw_fd(), Interest::Write).unwrap();
        assert_eq!(selector.len(), 2);
    }

    #[test]
    fn nothing_ready_means_an_empty_answer_after_the_timeout() {
        let (_a, b) = pair();
        let mut selector = MioSelector::new().unwrap();
        selector.add(b.as_raw_fd(), Interest::Read).unwrap();
        let mut ready = Vec::new();
        selector.select(Some(Duration::ZERO), &mut ready).unwrap();
        assert!(ready.is_empty());
        assert_eq!(selector.len(), 1, "a wait that did not fire stays");
        selector.remove(b.as_raw_fd(), Interest::Read).unwrap();
        assert!(selector.is_empty());
    }

    #[test]
    fn a_bad_fd_is_an_error_not_a_panic() {
        let mut selector = MioSelector::new().unwrap();
        assert!(selector.add(-1, Interest::Read).is_err());
        assert!(selector.add(987_654, Interest::Read).is_err());
        assert!(selector.is_empty());
    }

    #[test]
    fn a_hang_up_wakes_a_reader() {
        let (a, b) = pair();
        let mut selector = MioSelector::new().unwrap();
        selector.add(b.as_raw_fd(), Interest::Read).unwrap();
        drop(a);
        assert_eq!(select_now(&mut selector), [(b.as_raw_fd(), Interest::Read)]);
    }
}
