//! The loop's table of file descriptors: who waits on each, and what the selector was told
//! (book chapter 7, "Readers and writers on a selector";
//! asyncio's `selector_events.py`: `_add_reader`, `_remove_reader`, `_process_events`).
//!
//! asyncio keeps a loop's readers and writers in its selector: a descriptor's key holds
//! the mask it is registered for and its `(reader, writer)` handles. `_add_reader`
//! registers the descriptor or widens its mask, `_remove_reader` unregisters it once
//! nobody is left, `_process_events` queues each ready reader's and writer's handle (and
//! removes a cancelled one). This file is that shape: a `Source` per descriptor,
//! [`IoTable::add`], [`IoTable::remove`], [`IoTable::process_events`]. A waiter is a
//! callback's handle (`add_reader`) or a task's waker (`sock_recv`, ...).
//!
//! Each child module is one concept, and reads the table's private fields, as Rust lets a
//! child do: chapter 7's [`level`] (level-triggered on edge-triggered mio) and [`reuse`]
//! (a number a new socket took); "Going further"'s, for speed, not for asyncio:
//! [`release`], [`checks`], [`drained`]; and [`close`], for the loop's `close`.
//!
//! Generic over the loop `L` of the callbacks' handles, and over its selector `S`, of which
//! it knows only the [`Poller`] trait (the loop's mio [`Selector`] by default; a fake in the
//! unit tests): neither mio nor an errno appears here. What changed since stage 4: stage 4
//! registered a socket for every wait and removed it when the wait fired (one-shot); here
//! readers are handles called again and again, and registrations persist.

use std::collections::VecDeque;
use std::io;
use std::marker::PhantomData;
use std::os::fd::RawFd;
use std::task::Waker;

use stage4::Interest;

use crate::events::handle::Handle;
use crate::io_driver::selector::{Interests, Poller, Selector};

mod checks;
mod close;
mod drained;
mod invariants;
mod level;
mod listed;
mod release;
mod reuse;

pub use release::{Done, Release};

// ANCHOR: source
/// Who waits on one direction of a descriptor: an asyncio-style callback (`add_reader`),
/// or a task inside one of the loop's socket operations (`sock_recv`, ...).
pub enum Waiter<L> {
    /// A reader's or writer's handle: put in the ready queue when the descriptor is ready.
    Callback(Handle<L>),
    /// A task's waker: woken when the descriptor is ready.
    Task(Waker),
}

/// A reader's or writer's handle made ready by an event: its descriptor, its direction.
pub type Ready<L> = (RawFd, Interest, Handle<L>);

/// What the loop knows about one file descriptor (asyncio's selector key).
struct Source<L> {
    reader: Option<Waiter<L>>,
    writer: Option<Waiter<L>>,
    registered: Option<Interests>, // what the selector was told; never narrowed
    readable: bool,                // an edge said so, and nothing has shown otherwise since
    writable: bool,
    drained: bool, // a read came back short since the last edge: the next one would block
    read_closed: bool, // an edge since the last re-arm said the peer shut its side
    unchecked: Option<u32>, // a task waits on a registration unchecked since this select
    rearm: bool,   // in `IoTable::rearm` (exactly once): look at it again before the select
    release: bool, // in `IoTable::release` (exactly once): deregister it then if idle
}

/// The loop's table of descriptors, indexed by descriptor number, on a selector `S`: the
/// loop's mio [`Selector`], or a test's fake. The table holds no selector: every call that
/// needs one is handed it.
pub struct IoTable<L, S = Selector> {
    sources: Vec<Source<L>>,
    rearm: Vec<RawFd>,
    release: Vec<RawFd>,
    unchecked: VecDeque<(RawFd, u32)>, // waits to check, oldest first
    waiters: usize, // readers + writers installed: changed by `install`, `take`, `reset` only
    selector: PhantomData<fn(&mut S)>,
}
// ANCHOR_END: source

impl<L> Default for Source<L> {
    fn default() -> Self {
        Source {
            reader: None,
            writer: None,
            registered: None,
            readable: false,
            writable: false,
            drained: false,
            read_closed: false,
            unchecked: None,
            rearm: false,
            release: false,
        }
    }
}

impl<L, S> Default for IoTable<L, S> {
    fn default() -> Self {
        IoTable {
            sources: Vec::new(),
            rearm: Vec::new(),
            release: Vec::new(),
            unchecked: VecDeque::new(),
            waiters: 0,
            selector: PhantomData,
        }
    }
}

impl<L> Source<L> {
    fn slot(&mut self, interest: Interest) -> &mut Option<Waiter<L>> {
        match interest {
            Interest::Read => &mut self.reader,
            Interest::Write => &mut self.writer,
        }
    }

    fn idle(&self) -> bool {
        self.reader.is_none() && self.writer.is_none()
    }

    fn waiter_count(&self) -> usize {
        usize::from(self.reader.is_some()) + usize::from(self.writer.is_some())
    }
}

impl<L, S: Poller> IoTable<L, S> {
    /// How many readers and writers are installed.
    pub fn waiters(&self) -> usize {
        self.waiters
    }

    fn source(&self, fd: RawFd) -> Option<&Source<L>> {
        self.sources.get(usize::try_from(fd).ok()?)
    }

    fn source_mut(&mut self, fd: RawFd) -> Option<&mut Source<L>> {
        self.sources.get_mut(usize::try_from(fd).ok()?)
    }

    // ANCHOR: add
    /// Install `waiter` for `fd` in direction `interest`; returns the waiter it replaces.
    /// The selector is asked first, so a number the process does not have is refused
    /// before the table grows for it.
    pub fn add(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<L>,
    ) -> io::Result<Option<Waiter<L>>> {
        let wanted = Interests::from(interest);
        let registered = match self.source(fd).and_then(|s| s.registered) {
            None => {
                selector.register(fd, wanted)?; // epoll reports it at once if ready
                wanted
            }
            // Known: re-arm, widened to a new direction (never narrowed: a stray edge costs
            // less than a system call). That also finds out whether the kernel still has
            // it: a socket closed since is gone from epoll, and its number may be a new
            // socket's now ([`reuse`]).
            Some(known) => self.rejoin(selector, fd, known, wanted)?,
        };
        let index = fd as usize; // the selector accepted it: a real, non-negative number
        if index >= self.sources.len() {
            self.sources.resize_with(index + 1, Source::default);
        }
        let source = &mut self.sources[index];
        source.registered = Some(registered);
        // Whatever was cached was seen before this (re-)registration, which reports the
        // descriptor again if it is still ready.
        source.clear_readiness();
        source.unchecked = None; // checked just now
        let old = self.install(fd, interest, waiter);
        self.check();
        Ok(old)
    }
    // ANCHOR_END: add

    /// Take `fd`'s waiter in direction `interest` out. A descriptor with no waiter left is
    /// deregistered [`Release::Now`] (asyncio's `remove_reader`), or
    /// [`Release::AtNextSelect`] (the loop's socket operations, [`release`]); one with a
    /// waiter in the other direction keeps its registration, never narrowed.
    pub fn remove(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        release: Release,
    ) -> Option<Waiter<L>> {
        let old = self.take(fd, interest);
        let source = self.source_mut(fd)?;
        if source.idle() {
            source.unchecked = None; // nobody left to wake: nothing to check
        }
        let idle = source.registered.is_some() && source.idle();
        match (idle, release) {
            (true, Release::Now) => self.deregister(selector, fd),
            (true, Release::AtNextSelect) => self.release_later(fd),
            (false, _) => {} // still waited on, or not registered
        }
        self.check();
        old
    }

    /// Remove `fd` from the selector and forget its record (it has no waiter).
    fn deregister(&mut self, selector: &mut S, fd: RawFd) {
        // A descriptor closed meanwhile is already gone from epoll, which the selector
        // does not count as an error; any other failure leaves a registration the table
        // no longer knows, whose events `process_events` ignores.
        if let Err(error) = selector.deregister(fd) {
            scaffold::trace!("deregister fd {fd}: {error}");
        }
        drop(self.reset(fd)); // idle: no waiter goes with it
    }

    /// True if `fd` has a waiter in direction `interest`.
    pub fn has(&self, fd: RawFd, interest: Interest) -> bool {
        self.source(fd).is_some_and(|s| match interest {
            Interest::Read => s.reader.is_some(),
            Interest::Write => s.writer.is_some(),
        })
    }

    /// True if there is nothing to re-arm, release or check before the next select.
    #[inline]
    pub fn quiet(&self) -> bool {
        self.release.is_empty() && self.rearm.is_empty() && self.unchecked.is_empty()
    }

    /// Just before `select`: deregister the released descriptors nobody took back
    /// ([`release`]), and re-arm the dispatched ones whose readiness nobody has disproved
    /// ([`level`]).
    pub fn before_select(&mut self, selector: &mut S) {
        self.release_idle(selector);
        self.rearm_dispatched(selector);
        self.check_each_iteration();
    }

    // ANCHOR: process_events
    /// asyncio's `_process_events`: for each event, note the readiness and dispatch the
    /// reader and the writer. A callback's handle goes to `ready`, with its descriptor and
    /// direction (step 5 runs it), a cancelled one is removed instead; a task's waker goes
    /// to `wake`.
    pub fn process_events(
        &mut self,
        selector: &S,
        ready: &mut Vec<Ready<L>>,
        wake: &mut Vec<Waker>,
    ) {
        for event in selector.events() {
            let fd = event.fd;
            let Some(source) = self.sources.get_mut(fd as usize) else {
                continue;
            };
            if source.registered.is_none() {
                continue; // deregistered since the select
            }
            let (readable, writable) = source.note(event); // cached: `level.rs`
            let mut dispatched = false;
            for (interest, now) in [(Interest::Read, readable), (Interest::Write, writable)] {
                let slot = source.slot(interest);
                match slot {
                    _ if !now => {}
                    Some(Waiter::Callback(handle)) if handle.cancelled() => {
                        // asyncio's `_remove_reader` of a cancelled reader
                        drop(invariants::empty(slot, &mut self.waiters));
                    }
                    Some(Waiter::Callback(handle)) => {
                        ready.push((fd, interest, handle.clone()));
                        dispatched = true;
                    }
                    Some(Waiter::Task(waker)) => {
                        wake.push(waker.clone());
                        dispatched = true;
                    }
                    None => {}
                }
            }
            if dispatched {
                self.rearm_later(fd); // `level.rs`: is it still ready? Asked before the select
            }
        }
        self.check();
    }
    // ANCHOR_END: process_events
}

#[cfg(test)]
pub(super) mod tests {
    //! The table on the loop's selector and real sockets, and on a fake selector that only
    //! records what it is asked and reports what a test scripts: no kernel, every step
    //! visible. The helpers serve the child modules' tests too.

    use super::*;
    use crate::io_driver::selector::{Readiness, Rearmed};
    use std::collections::{BTreeMap, BTreeSet};
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub(super) fn pair() -> (UnixStream, UnixStream) {
        let (a, b) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        b.set_nonblocking(true).unwrap();
        (a, b)
    }

    pub(super) fn task() -> Waiter<()> {
        Waiter::Task(std::task::Waker::noop().clone())
    }

    /// A socket whose number was `fd` a moment ago: the lowest free number is reused, unless
    /// another test's thread took it meanwhile; then try again with a new pair.
    fn reuse(fd: RawFd) -> Option<(UnixStream, UnixStream)> {
        let (b, peer) = pair();
        (b.as_raw_fd() == fd).then_some((b, peer))
    }

    /// The scene of the reuse tests: a socket waited on once (its registration kept, as
    /// after a socket operation), then closed, so the kernel forgets it, and a new socket
    /// with its number. Returns the selector, the table, the number, and the new socket
    /// and its peer.
    pub(super) fn a_reused_number() -> (Selector, IoTable<()>, RawFd, UnixStream, UnixStream) {
        for _attempt in 0..20 {
            let mut selector = Selector::new().unwrap();
            let mut table: IoTable<()> = IoTable::default();
            let (a, a_peer) = pair();
            let fd = a.as_raw_fd();
            kept(&mut table, &mut selector, fd);
            drop((a, a_peer));
            if let Some((b, b_peer)) = reuse(fd) {
                return (selector, table, fd, b, b_peer);
            }
        }
        panic!("never got the same descriptor number back");
    }

    /// A counting waker: how often it was woken.
    pub(super) struct Count(pub(super) AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(super) fn counting() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(0.into()));
        (count.clone(), Waker::from(count))
    }

    /// Register `fd` for reading with a wait that ended (the registration is kept), as
    /// after a socket operation.
    pub(super) fn kept(table: &mut IoTable<()>, selector: &mut Selector, fd: RawFd) {
        table.add(selector, fd, Interest::Read, task()).unwrap();
        drop(table.remove(selector, fd, Interest::Read, Release::AtNextSelect));
    }

    #[test]
    fn a_number_the_process_cannot_have_is_refused_before_the_table_grows() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        for fd in [i32::MAX, 999_999, -1] {
            assert!(
                table
                    .add(&mut selector, fd, Interest::Read, task())
                    .is_err()
            );
        }
        assert_eq!(table.sources.len(), 0, "no memory kept for refused numbers");
        assert_eq!(table.waiters(), 0);
    }

    /// A selector that keeps registrations in a map, "forgets" the numbers a test closes,
    /// and reports the readiness a test scripts for each select.
    #[derive(Default)]
    pub(super) struct FakeSelector {
        pub(super) registered: BTreeMap<RawFd, Interests>,
        forgotten: BTreeSet<RawFd>, // closed behind the table's back: a re-arm says so
        calls: Vec<String>,
        ready: Vec<Readiness>,
        selects: u64,
    }

    impl FakeSelector {
        /// A select that reports `ready`.
        pub(super) fn select(&mut self, ready: &[Readiness]) {
            self.selects += 1;
            self.ready = ready.to_vec();
        }

        /// `fd` is closed (and its number perhaps another file's): the kernel forgot it.
        pub(super) fn close(&mut self, fd: RawFd) {
            self.registered.remove(&fd);
            self.forgotten.insert(fd);
        }

        pub(super) fn calls(&mut self) -> Vec<String> {
            std::mem::take(&mut self.calls)
        }
    }

    fn name(interests: Interests) -> &'static str {
        match (
            interests.has(Interest::Read),
            interests.has(Interest::Write),
        ) {
            (true, true) => "read+write",
            (true, false) => "read",
            _ => "write",
        }
    }

    impl Poller for FakeSelector {
        fn register(&mut self, fd: RawFd, interests: Interests) -> io::Result<()> {
            self.calls
                .push(format!("register {fd} {}", name(interests)));
            self.forgotten.remove(&fd);
            self.registered.insert(fd, interests);
            Ok(())
        }

        fn reregister(&mut self, fd: RawFd, interests: Interests) -> io::Result<Rearmed> {
            self.calls
                .push(format!("reregister {fd} {}", name(interests)));
            if self.forgotten.contains(&fd) {
                return Ok(Rearmed::Forgotten);
            }
            self.registered.insert(fd, interests);
            Ok(Rearmed::Armed)
        }

        fn deregister(&mut self, fd: RawFd) -> io::Result<()> {
            self.calls.push(format!("deregister {fd}"));
            self.registered.remove(&fd);
            Ok(())
        }

        fn events(&self) -> impl Iterator<Item = Readiness> + '_ {
            self.ready.iter().copied()
        }

        fn selects(&self) -> u64 {
            self.selects
        }
    }

    pub(super) fn readable(fd: RawFd) -> Readiness {
        Readiness {
            fd,
            readable: true,
            ..Readiness::default()
        }
    }

    pub(super) type Table = IoTable<(), FakeSelector>;

    /// Run the table's part of one iteration: before the select, the select (reporting
    /// `ready`), the dispatch. Returns the handles queued and how many tasks were woken.
    pub(super) fn iteration(
        table: &mut Table,
        selector: &mut FakeSelector,
        ready: &[Readiness],
    ) -> (Vec<Ready<()>>, usize) {
        table.before_select(selector);
        selector.select(ready);
        let (mut handles, mut wake) = (Vec::new(), Vec::new());
        table.process_events(selector, &mut handles, &mut wake);
        (handles, wake.len())
    }

    #[test]
    fn a_reader_is_registered_dispatched_while_ready_and_deregistered_when_removed() {
        let (mut selector, mut table) = (FakeSelector::default(), Table::default());
        let reader = Handle::new_repeating(7, |_: &()| {});
        let old = table.add(&mut selector, 5, Interest::Read, Waiter::Callback(reader));
        assert!(old.unwrap().is_none());
        assert_eq!(selector.calls(), ["register 5 read"]);
        assert_eq!(table.waiters(), 1);

        // Readiness delivered: the reader's handle is queued, with its fd and direction.
        let (ready, woken) = iteration(&mut table, &mut selector, &[readable(5)]);
        assert_eq!(ready.len(), 1);
        let (fd, interest, handle) = &ready[0];
        assert_eq!(
            (*fd, *interest, handle.id(), woken),
            (5, Interest::Read, 7, 0)
        );
        // Another descriptor's readiness queues nothing.
        let (ready, _) = iteration(&mut table, &mut selector, &[readable(6)]);
        assert!(ready.is_empty());

        // Level-triggered: the dispatched descriptor was re-armed before that select...
        assert_eq!(selector.calls(), ["reregister 5 read"]);
        // ... and is not once a read saw `WouldBlock`: the next edge will come by itself.
        iteration(&mut table, &mut selector, &[readable(5)]);
        table.would_block(5, Interest::Read);
        iteration(&mut table, &mut selector, &[]);
        assert!(selector.calls().is_empty(), "seen not ready: no re-arm");

        // A writer joins: the registration is widened, never narrowed.
        let writer = Handle::new_repeating(8, |_: &()| {});
        drop(table.add(&mut selector, 5, Interest::Write, Waiter::Callback(writer)));
        assert_eq!(selector.calls(), ["reregister 5 read+write"]);
        drop(table.remove(&mut selector, 5, Interest::Write, Release::Now));
        assert!(selector.calls().is_empty(), "the reader still waits");

        // Removed (asyncio's `remove_reader`): deregistered at once.
        assert!(
            table
                .remove(&mut selector, 5, Interest::Read, Release::Now)
                .is_some()
        );
        assert_eq!(selector.calls(), ["deregister 5"]);
        assert!(selector.registered.is_empty());
        assert_eq!(table.waiters(), 0);
        let (ready, _) = iteration(&mut table, &mut selector, &[readable(5)]);
        assert!(ready.is_empty(), "an event after the removal is ignored");
    }

    #[test]
    fn an_error_wakes_both_directions_and_a_cancelled_reader_is_removed() {
        let (mut selector, mut table) = (FakeSelector::default(), Table::default());
        drop(table.add(&mut selector, 3, Interest::Write, task()));
        let reader = Handle::new_repeating(1, |_: &()| {});
        drop(table.add(
            &mut selector,
            3,
            Interest::Read,
            Waiter::Callback(reader.clone()),
        ));
        reader.cancel();
        let error = Readiness {
            fd: 3,
            error: true,
            ..Readiness::default()
        };
        let (ready, woken) = iteration(&mut table, &mut selector, &[error]);
        assert!(ready.is_empty(), "the cancelled reader is not queued");
        assert_eq!(woken, 1, "the writing task is woken, to meet the error");
        assert!(!table.has(3, Interest::Read) && table.has(3, Interest::Write));
        assert_eq!(table.waiters(), 1);
    }
}
