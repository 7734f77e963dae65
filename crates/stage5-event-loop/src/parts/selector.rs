//! The selector the loop waits on (book chapter 5, "Step 3: select", and chapter 7,
//! "Readers and writers on a selector"; seed 000, `_run_once`'s
//! `self._selector.select(timeout)` and seed 002, the selector class tree).
//!
//! asyncio's `BaseSelectorEventLoop` holds a `selectors.DefaultSelector` (epoll on Linux,
//! kqueue on macOS) and calls `select(timeout)` once per iteration, with the timeout that
//! step 2 computed: 0 when work is ready, the time to the next timer otherwise, forever when
//! there is nothing at all. This is a thin wrapper over `mio::Poll`, which is that same
//! selector, plus the three registry calls (`register`, `reregister`, `deregister`), each
//! counted, so that a test can check how many system calls the loop's I/O costs.
//!
//! What changed since stage 4: stage 4's [`stage4::MioSelector`] registered a socket for
//! every wait and removed it when the wait fired, one-shot. This selector knows nothing
//! about waits: the loop registers a file descriptor once, for the direction first asked,
//! widens the registration when the other direction joins (never narrows it), keeps it,
//! and tracks which direction anyone is interested in itself (`io_table.rs`). Which is why it is not an implementation of stage 4's `Selector` trait:
//! that trait's contract *is* the one-shot wait.

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};

/// How many events one `select` returns at most; more wait for the next iteration.
const EVENTS_CAPACITY: usize = 1024;

/// How often the loop asked the operating system to change its interest list: what the
/// chapter's "cheap hot path" is measured by.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SelectorStats {
    /// `epoll_ctl(ADD)`: a file descriptor registered.
    pub registers: u64,
    /// `epoll_ctl(MOD)`: a registration re-armed (level-triggered emulation).
    pub reregisters: u64,
    /// `epoll_ctl(DEL)`: a registration removed.
    pub deregisters: u64,
    /// `epoll_wait`: selects.
    pub selects: u64,
}

/// A `mio::Poll`, its event buffer and its counters.
pub struct Selector {
    poll: Poll,
    events: Events,
    stats: SelectorStats,
}

impl Selector {
    /// A selector with nothing registered.
    pub fn new() -> io::Result<Selector> {
        Ok(Selector {
            poll: Poll::new()?,
            events: Events::with_capacity(EVENTS_CAPACITY),
            stats: SelectorStats::default(),
        })
    }

    // ANCHOR: select
    /// Wait until a registered source is ready or `timeout` has passed (`None`: no limit).
    /// Returns how many events arrived; they are in [`Selector::events`] until the next
    /// call. An interrupted wait (a signal, EINTR) is zero events, as in asyncio.
    pub fn select(&mut self, timeout: Option<Duration>) -> io::Result<usize> {
        self.stats.selects += 1;
        match self.poll.poll(&mut self.events, timeout) {
            // Woken: by events, or by the timeout (zero events).
            Ok(()) => Ok(self.events.iter().count()),
            // A signal interrupted the wait: no events this time; the loop goes round.
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {
                self.events.clear();
                Ok(0)
            }
            // epoll itself failed (a bad epoll descriptor, no memory): the loop reports it.
            Err(error) => Err(error),
        }
    }
    // ANCHOR_END: select

    /// The events of the last `select`.
    pub fn events(&self) -> &Events {
        &self.events
    }

    // ANCHOR: registry
    /// Register `fd` for `interest`, edge-triggered, with its own number as token.
    pub fn register(&mut self, fd: RawFd, interest: Interest) -> io::Result<()> {
        self.stats.registers += 1;
        self.poll
            .registry()
            .register(&mut SourceFd(&fd), token(fd), interest)
    }

    /// Change `fd`'s interest, or re-arm it: `EPOLL_CTL_MOD` makes epoll look at the
    /// descriptor's readiness *now* and report it again at the next `select` if it is
    /// still ready.
    pub fn reregister(&mut self, fd: RawFd, interest: Interest) -> io::Result<()> {
        self.stats.reregisters += 1;
        self.poll
            .registry()
            .reregister(&mut SourceFd(&fd), token(fd), interest)
    }

    /// Remove `fd`. A descriptor that was closed meanwhile is already gone from epoll:
    /// that is not an error.
    pub fn deregister(&mut self, fd: RawFd) -> io::Result<()> {
        self.stats.deregisters += 1;
        match self.poll.registry().deregister(&mut SourceFd(&fd)) {
            // Not registered, or already closed (the kernel forgot it): removed either way.
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBADF) => Ok(()),
            // Removed, or a failure of epoll's own, which the caller reports.
            result => result,
        }
    }
    // ANCHOR_END: registry

    /// The counters so far.
    pub fn stats(&self) -> SelectorStats {
        self.stats
    }
}

fn token(fd: RawFd) -> Token {
    Token(fd as usize)
}

impl std::fmt::Debug for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selector")
            .field("stats", &self.stats)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_selector_times_out_with_no_events() {
        let mut selector = Selector::new().unwrap();
        assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 0);
        assert_eq!(selector.events().iter().count(), 0);
        assert_eq!(selector.stats().selects, 1);
    }

    #[test]
    fn a_bad_fd_is_an_error_and_a_closed_one_deregisters_quietly() {
        let mut selector = Selector::new().unwrap();
        assert!(selector.register(-1, Interest::READABLE).is_err());
        assert!(selector.register(987_654, Interest::WRITABLE).is_err());
        assert!(selector.deregister(987_654).is_ok());
        assert_eq!(selector.stats().registers, 2);
    }
}
