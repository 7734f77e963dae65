//! The selector the loop waits on (book chapter 5, "Step 3: select", and chapter 7,
//! "Readers and writers on a selector"; asyncio's `_run_once`,
//! `self._selector.select(timeout)`, and the `selectors` module's class tree).
//!
//! asyncio's `BaseSelectorEventLoop` holds a `selectors.DefaultSelector` (epoll on Linux,
//! kqueue on macOS) and calls `select(timeout)` once per iteration, with the timeout that
//! step 2 computed: 0 when work is ready, the time to the next timer otherwise, forever when
//! there is nothing at all. [`Selector`] is a thin wrapper over `mio::Poll`, which is that
//! same selector, plus the three registry calls (`register`, `reregister`, `deregister`),
//! each counted, so that a test can check how many system calls the loop's I/O costs.
//!
//! The I/O table (`io_table.rs`) keeps the registrations; what it asks of a selector is
//! the trait [`Poller`], in the crate's own words: [`Interests`] to watch (asyncio's
//! `EVENT_READ | EVENT_WRITE` mask), [`Readiness`] per descriptor out (asyncio's
//! `(key, mask)` pairs, with the error and hang-up bits kept apart), and [`Rearmed`], what
//! a re-arm found. asyncio draws the same line: `_add_reader` talks to `BaseSelector`'s
//! `register`, `modify`, `unregister`, never to epoll. This file alone speaks mio, and
//! alone reads an errno: the table never learns that "forgotten" was `ENOENT` or `EBADF`,
//! the socket operations that a connection under way was `EINPROGRESS` (both in the child
//! module `errno.rs`), and a test drives the table with a fake selector.
//!
//! One seam is for a host language (chapter 9, "The GIL around select"): the wait may run
//! inside a [`WaitAround`], which Python's module uses to release the GIL while it sleeps;
//! in another (chapter 10), a completion backend, a [`Proactor`], waits in its place.
//!
//! What changed since stage 4: stage 4's [`stage4::MioSelector`] registered a socket for
//! every wait and removed it when the wait fired, one-shot. This selector knows nothing
//! about waits: the loop registers a file descriptor once, for the direction first asked,
//! widens the registration when the other direction joins (never narrows it), keeps it,
//! and tracks which direction anyone is interested in itself (`io_table.rs`). Which is why
//! it is not an implementation of stage 4's `Selector` trait: that trait's contract *is*
//! the one-shot wait.

use std::io;
use std::ops::BitOr;
use std::os::fd::RawFd;
use std::time::Duration;

use mio::unix::SourceFd;
use mio::{Events, Poll, Token};
use stage4::Interest;

mod errno;
mod proactor; // chapter 10: a completion backend waits in the selector's place

pub(crate) use errno::connect_under_way;
use errno::forgotten;
pub use proactor::{Proactor, Waited};

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

// ANCHOR: seam
/// The directions a descriptor is registered for: a set of stage 4's [`Interest`]s
/// (asyncio's `events` mask). Made from one `Interest`, widened with `|`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Interests {
    read: bool,
    write: bool,
}

/// What one event of the last `select` said about a descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Readiness {
    /// The descriptor.
    pub fd: RawFd,
    /// There is something to read (or a connection to accept).
    pub readable: bool,
    /// There is room to write.
    pub writable: bool,
    /// The descriptor has an error pending (`EPOLLERR`).
    pub error: bool,
    /// The peer will send no more (`EPOLLRDHUP`, or a hang-up).
    pub read_closed: bool,
    /// Nothing more can be sent (a hang-up).
    pub write_closed: bool,
}

/// What a re-arm found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rearmed {
    /// Re-armed: the descriptor is reported again at the next `select` if it is ready now.
    Armed,
    /// The kernel does not know this number (any more): the file that had it was closed,
    /// and the number may be another file's now. Register that one afresh.
    Forgotten,
}

/// What the I/O table asks of a selector: asyncio's `BaseSelector` as `_add_reader`,
/// `_remove_reader` and `_process_events` use it.
pub trait Poller {
    /// Watch `fd` for `interests`; the next `select` reports it if it is ready now.
    fn register(&mut self, fd: RawFd, interests: Interests) -> io::Result<()>;
    /// Change `fd`'s interests, or re-arm them: report it again if it is still ready.
    fn reregister(&mut self, fd: RawFd, interests: Interests) -> io::Result<Rearmed>;
    /// Stop watching `fd`. A number the kernel has forgotten is not an error.
    fn deregister(&mut self, fd: RawFd) -> io::Result<()>;
    /// What the last `select` reported, one [`Readiness`] per event.
    fn events(&self) -> impl Iterator<Item = Readiness> + '_;
    /// How many selects so far: the table notes when a wait began.
    fn selects(&self) -> u64;
}
// ANCHOR_END: seam

impl Interests {
    /// Both directions.
    pub const BOTH: Interests = Interests {
        read: true,
        write: true,
    };

    /// True if every direction of `other` is in `self`.
    pub fn contains(self, other: Interests) -> bool {
        (self.read || !other.read) && (self.write || !other.write)
    }

    /// True if `interest` is one of them.
    pub fn has(self, interest: Interest) -> bool {
        self.contains(interest.into())
    }
}

impl From<Interest> for Interests {
    fn from(interest: Interest) -> Interests {
        Interests {
            read: interest == Interest::Read,
            write: interest == Interest::Write,
        }
    }
}

impl BitOr for Interests {
    type Output = Interests;

    fn bitor(self, other: Interests) -> Interests {
        Interests {
            read: self.read || other.read,
            write: self.write || other.write,
        }
    }
}

// ANCHOR: wait_around
/// The wait itself, as [`Selector::select`] hands it to a [`WaitAround`]: `Send`, because
/// it touches only the `mio::Poll` and its event buffer, never the loop.
pub type Wait<'a> = &'a mut (dyn FnMut() -> io::Result<()> + Send);

/// What runs the wait, if not the selector itself: a host language's way to let its other
/// threads run while this one sleeps in `epoll_wait`; a zero timeout cannot sleep, so that
/// wait runs directly (its lock released and taken back for nothing would only cost).
/// Python's module built on this loop supplies one that releases the GIL.
pub type WaitAround = Box<dyn Fn(Wait<'_>) -> io::Result<()>>;
// ANCHOR_END: wait_around

/// A `mio::Poll`, its event buffer and its counters.
pub struct Selector {
    poll: Poll,
    events: Events,
    stats: SelectorStats,
    around: Option<WaitAround>, // `None`: wait here (every Rust program)
    proactor: Option<std::rc::Rc<dyn Proactor>>, // chapter 10: completions, not readiness (`proactor.rs`)
}

impl Selector {
    /// A selector with nothing registered.
    pub fn new() -> io::Result<Selector> {
        Ok(Selector {
            poll: Poll::new()?,
            events: Events::with_capacity(EVENTS_CAPACITY),
            stats: SelectorStats::default(),
            around: None,
            proactor: None,
        })
    }

    // ANCHOR: select
    /// Wait until a registered source is ready or `timeout` has passed (`None`: no limit).
    /// Returns how many events arrived; they are in [`Poller::events`] until the next
    /// call. An interrupted wait (a signal, EINTR) is zero events, as in asyncio.
    pub fn select(&mut self, timeout: Option<Duration>) -> io::Result<usize> {
        self.stats.selects += 1;
        if self.proactor.is_some() {
            return self.select_proactor(timeout); // chapter 10: wait on completions
        }
        let (poll, events) = (&mut self.poll, &mut self.events);
        let mut wait = || poll.poll(events, timeout);
        let waited = match &self.around {
            Some(around) if timeout != Some(Duration::ZERO) => around(&mut wait),
            _ => wait(),
        };
        match waited {
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

    /// Run every later wait through `around` (`None`: directly).
    pub fn set_wait_around(&mut self, around: Option<WaitAround>) {
        self.around = around;
    }

    /// The counters so far.
    pub fn stats(&self) -> SelectorStats {
        self.stats
    }
}

// ANCHOR: registry
impl Poller for Selector {
    /// Register `fd` for `interests`, edge-triggered, with its own number as token.
    fn register(&mut self, fd: RawFd, interests: Interests) -> io::Result<()> {
        self.stats.registers += 1;
        self.poll
            .registry()
            .register(&mut SourceFd(&fd), token(fd), mio_interest(interests))
    }

    /// `EPOLL_CTL_MOD` makes epoll look at the descriptor's readiness *now* and report it
    /// again at the next `select` if it is still ready.
    fn reregister(&mut self, fd: RawFd, interests: Interests) -> io::Result<Rearmed> {
        self.stats.reregisters += 1;
        let interest = mio_interest(interests);
        match self
            .poll
            .registry()
            .reregister(&mut SourceFd(&fd), token(fd), interest)
        {
            // Re-armed: the kernel still has the registration.
            Ok(()) => Ok(Rearmed::Armed),
            // `ENOENT` or `EBADF`: the number was closed since, and the kernel forgot it.
            Err(e) if forgotten(&e) => Ok(Rearmed::Forgotten),
            // A failure of epoll's own (no memory): the caller reports it.
            Err(e) => Err(e),
        }
    }

    /// A descriptor that was closed meanwhile is already gone from epoll: not an error.
    fn deregister(&mut self, fd: RawFd) -> io::Result<()> {
        self.stats.deregisters += 1;
        match self.poll.registry().deregister(&mut SourceFd(&fd)) {
            // Not registered, or already closed (the kernel forgot it): removed either way.
            Err(e) if forgotten(&e) => Ok(()),
            // Removed, or a failure of epoll's own, which the caller reports.
            result => result,
        }
    }

    /// mio's events, in the crate's words.
    fn events(&self) -> impl Iterator<Item = Readiness> + '_ {
        self.events.iter().map(|event| Readiness {
            fd: event.token().0 as RawFd,
            readable: event.is_readable(),
            writable: event.is_writable(),
            error: event.is_error(),
            read_closed: event.is_read_closed(),
            write_closed: event.is_write_closed(),
        })
    }

    fn selects(&self) -> u64 {
        self.stats.selects
    }
}
// ANCHOR_END: registry

fn token(fd: RawFd) -> Token {
    Token(fd as usize)
}

/// `interests` for mio, which has no empty interest: the table never registers for none.
fn mio_interest(interests: Interests) -> mio::Interest {
    match (interests.read, interests.write) {
        (true, true) => mio::Interest::READABLE | mio::Interest::WRITABLE,
        (false, true) => mio::Interest::WRITABLE,
        (_, false) => mio::Interest::READABLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;

    #[test]
    fn an_empty_selector_times_out_with_no_events() {
        let mut selector = Selector::new().unwrap();
        assert_eq!(selector.select(Some(Duration::ZERO)).unwrap(), 0);
        assert_eq!(selector.events().count(), 0);
        assert_eq!(selector.stats().selects, 1);
    }

    #[test]
    fn a_bad_fd_is_an_error_and_a_closed_one_deregisters_quietly() {
        let mut selector = Selector::new().unwrap();
        assert!(selector.register(-1, Interest::Read.into()).is_err());
        assert!(selector.register(987_654, Interest::Write.into()).is_err());
        assert!(selector.deregister(987_654).is_ok());
        assert_eq!(selector.stats().registers, 2);
    }

    #[test]
    fn a_re_arm_says_when_the_kernel_forgot_the_number() {
        let mut selector = Selector::new().unwrap();
        let (a, b) = UnixStream::pair().unwrap();
        let fd = a.as_raw_fd();
        selector.register(fd, Interest::Read.into()).unwrap();
        let both = Interests::from(Interest::Read) | Interest::Write.into();
        assert_eq!(selector.reregister(fd, both).unwrap(), Rearmed::Armed);
        selector.select(Some(Duration::ZERO)).unwrap();
        let ready: Vec<Readiness> = selector.events().collect();
        assert_eq!(ready.len(), 1, "widened to writable: reported");
        assert!(ready[0].fd == fd && ready[0].writable && !ready[0].readable);
        drop((a, b)); // closed: epoll drops it by itself
        assert_eq!(selector.reregister(fd, both).unwrap(), Rearmed::Forgotten);
    }

    #[test]
    fn only_a_wait_that_may_block_goes_through_the_hosts_around() {
        use std::cell::Cell;
        use std::rc::Rc;
        let mut selector = Selector::new().unwrap();
        let arounds = Rc::new(Cell::new(0));
        let seen = arounds.clone();
        selector.set_wait_around(Some(Box::new(move |wait: Wait<'_>| {
            seen.set(seen.get() + 1);
            wait()
        })));
        selector.select(Some(Duration::ZERO)).unwrap();
        assert_eq!(
            arounds.get(),
            0,
            "a zero timeout cannot sleep: no GIL to release"
        );
        selector.select(Some(Duration::from_millis(1))).unwrap();
        assert_eq!(arounds.get(), 1);
        assert_eq!(selector.stats().selects, 2);
    }

    #[test]
    fn interests_widen_and_contain() {
        let read = Interests::from(Interest::Read);
        let write = Interests::from(Interest::Write);
        assert_eq!(read | write, Interests::BOTH);
        assert!(Interests::BOTH.contains(read) && !read.contains(write));
        assert!(read.has(Interest::Read) && !read.has(Interest::Write));
    }
}
