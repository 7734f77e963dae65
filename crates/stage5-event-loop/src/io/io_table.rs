//! The loop's table of file descriptors: who waits on each, and what the selector was told
//! (book chapter 7, "Readers and writers on a selector" and "Level against edge"; seeds
//! 000/004, "网络IO的回调注册", asyncio's `selector_events.py`: `_add_reader`,
//! `_remove_reader`, `_process_events`).
//!
//! asyncio's selector is *level-triggered*: a reader is called in every iteration while its
//! descriptor is readable. mio is *edge-triggered*. This table bridges the two:
//!
//! - a descriptor is registered with the selector when it first gets a waiter, for both
//!   directions, and stays registered while it has one (and, after a socket operation,
//!   until the next `select`: the same task usually waits on the same socket again);
//! - who is interested (reader, writer) is tracked here, not in epoll;
//! - each descriptor caches what the edges said (`readable`, `writable`): set by an event,
//!   cleared when the loop's own socket operations see `WouldBlock`;
//! - after a waiter was dispatched, the descriptor is *re-armed* before the next `select`
//!   (`EPOLL_CTL_MOD` makes epoll report it again if it is still ready), unless a socket
//!   operation has meanwhile seen `WouldBlock`: then the next edge will come by itself.
//!
//! The table cannot see a descriptor being closed: the kernel drops a closed socket from
//! epoll by itself, and a new socket may get the same number at once. So whenever a waiter
//! joins a descriptor the table believes registered, the registration is re-armed with
//! `EPOLL_CTL_MOD`, which fails on a number the kernel has forgotten: then it is
//! registered afresh. One system call per wait keeps the table and the kernel in step
//! whatever the order of close and reuse (asyncio pays two: `add_reader`, `remove_reader`).
//!
//! The file is over 300 lines because the table's invariants (the registration, the cached
//! readiness, the re-arm and release lists) are kept by these methods together; split,
//! each part would need the others' fields.
//!
//! Generic over the loop `L` of the callbacks' handles; it knows the selector and nothing
//! above. What changed since stage 4: stage 4 registered a socket for every wait and
//! removed it when the wait fired (one-shot); here readers are handles called again and
//! again, and registrations persist.

use std::io;
use std::os::fd::RawFd;
use std::task::Waker;

use stage4::Interest;

use crate::event_loop::handle::Handle;
use crate::io::selector::Selector;

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

/// What the loop knows about one file descriptor.
struct Source<L> {
    reader: Option<Waiter<L>>,
    writer: Option<Waiter<L>>,
    registered: Option<mio::Interest>, // what the selector was told; never narrowed
    readable: bool,                    // an edge said so, and nothing has shown otherwise since
    writable: bool,
    rearm: bool,   // in `IoTable::rearm`: look at it again before the next select
    release: bool, // in `IoTable::release`: deregister it at the next select if idle
}

/// The loop's table of descriptors, indexed by descriptor number.
pub struct IoTable<L> {
    sources: Vec<Source<L>>,
    rearm: Vec<RawFd>,
    release: Vec<RawFd>,
    waiters: usize, // readers + writers installed
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
            rearm: false,
            release: false,
        }
    }
}

impl<L> Default for IoTable<L> {
    fn default() -> Self {
        IoTable {
            sources: Vec::new(),
            rearm: Vec::new(),
            release: Vec::new(),
            waiters: 0,
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

    fn ready(&mut self, interest: Interest) -> &mut bool {
        match interest {
            Interest::Read => &mut self.readable,
            Interest::Write => &mut self.writable,
        }
    }

    fn idle(&self) -> bool {
        self.reader.is_none() && self.writer.is_none()
    }

    /// A waiter whose readiness is cached but not known to still hold: re-arm it.
    fn needs_rearm(&self) -> bool {
        (self.reader.is_some() && self.readable) || (self.writer.is_some() && self.writable)
    }

    fn waiter_count(&self) -> usize {
        usize::from(self.reader.is_some()) + usize::from(self.writer.is_some())
    }
}

impl<L> IoTable<L> {
    /// How many readers and writers are installed.
    pub fn waiters(&self) -> usize {
        self.waiters
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
        selector: &mut Selector,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<L>,
    ) -> io::Result<Option<Waiter<L>>> {
        let wanted = mio_interest(interest);
        let mut stale = None;
        let registered = match self.source_mut(fd).and_then(|s| s.registered) {
            None => {
                selector.register(fd, wanted)?; // epoll reports it at once if ready
                wanted
            }
            // Known: re-arm (and widen to a new direction, never narrowing: a stray edge
            // costs less than a system call). This also finds out whether the kernel still
            // has it: a socket closed since then is gone from epoll, and its number may be
            // a new socket's now.
            Some(known) => match selector.reregister(fd, known | wanted) {
                Ok(()) => known | wanted,
                // Forgotten by the kernel: the record, waiters included, belonged to a
                // closed socket. Register the file that has the number now.
                Err(e) if is_gone(&e) => {
                    selector.register(fd, wanted)?;
                    stale = self.source_mut(fd).map(std::mem::take);
                    wanted
                }
                Err(e) => return Err(e),
            },
        };
        if let Some(stale) = stale {
            self.waiters -= stale.waiter_count();
        }
        let index = fd as usize; // the selector accepted it: a real, non-negative number
        if index >= self.sources.len() {
            self.sources.resize_with(index + 1, Source::default);
        }
        let source = &mut self.sources[index];
        source.registered = Some(registered);
        // Whatever was cached was seen before this (re-)registration, which reports the
        // descriptor again if it is still ready.
        source.readable = false;
        source.writable = false;
        let old = source.slot(interest).replace(waiter);
        if old.is_none() {
            self.waiters += 1;
        }
        Ok(old)
    }
    // ANCHOR_END: add

    /// Take `fd`'s waiter in direction `interest` out. With `release` the registration
    /// stays until the next `select` (the loop's socket operations: the same task usually
    /// waits on the same socket again before that); without, a descriptor with no waiter
    /// left is deregistered now (asyncio's `remove_reader`).
    pub fn remove(
        &mut self,
        selector: &mut Selector,
        fd: RawFd,
        interest: Interest,
        release: bool,
    ) -> Option<Waiter<L>> {
        let source = self.source_mut(fd)?;
        let old = source.slot(interest).take();
        let idle = source.registered.is_some() && source.idle();
        let queue_release = idle && release && !std::mem::replace(&mut source.release, true);
        if old.is_some() {
            self.waiters -= 1;
        }
        if queue_release {
            self.release.push(fd);
        } else if idle && !release {
            self.deregister(selector, fd);
        }
        old
    }

    /// A socket operation saw `WouldBlock` on `fd`: the cached readiness is gone, and the
    /// next edge will say when it is back.
    pub fn would_block(&mut self, fd: RawFd, interest: Interest) {
        if let Some(source) = self.source_mut(fd) {
            *source.ready(interest) = false;
        }
    }

    /// `fd` is a new descriptor (just accepted or connected): whatever the table remembers
    /// under its number belonged to a socket that was closed. Its waiters are dropped.
    pub fn forget(&mut self, fd: RawFd) -> Vec<Waiter<L>> {
        let Some(source) = self.source_mut(fd) else {
            return Vec::new();
        };
        let count = source.waiter_count();
        let stale = std::mem::take(source);
        self.waiters -= count;
        stale.reader.into_iter().chain(stale.writer).collect()
    }

    /// Deregister `fd` now if nobody waits on it (the end of a stream: its socket is
    /// about to be closed, and a new socket may get its number before the next select).
    pub fn release_now(&mut self, selector: &mut Selector, fd: RawFd) {
        if self
            .source_mut(fd)
            .is_some_and(|s| s.registered.is_some() && s.idle())
        {
            self.deregister(selector, fd);
        }
    }

    /// Remove `fd` from the selector and forget its record (it has no waiter).
    fn deregister(&mut self, selector: &mut Selector, fd: RawFd) {
        // A descriptor closed meanwhile is already gone from epoll, which the selector
        // does not count as an error; any other failure leaves a registration the table
        // no longer knows, whose events `process_events` ignores.
        if let Err(error) = selector.deregister(fd) {
            stage1::trace!("deregister fd {fd}: {error}");
        }
        if let Some(source) = self.source_mut(fd) {
            *source = Source::default();
        }
    }

    /// True if `fd` has a waiter in direction `interest`.
    pub fn has(&self, fd: RawFd, interest: Interest) -> bool {
        let source = usize::try_from(fd).ok().and_then(|i| self.sources.get(i));
        source.is_some_and(|s| match interest {
            Interest::Read => s.reader.is_some(),
            Interest::Write => s.writer.is_some(),
        })
    }

    // ANCHOR: before_select
    /// Just before `select`: deregister the released descriptors nobody took back, and
    /// re-arm the dispatched ones whose readiness nobody has disproved: the
    /// level-triggered emulation.
    pub fn before_select(&mut self, selector: &mut Selector) {
        if self.release.is_empty() && self.rearm.is_empty() {
            return; // the common case of a busy loop: nothing to re-arm or release
        }
        for fd in std::mem::take(&mut self.release) {
            let source = &mut self.sources[fd as usize];
            source.release = false;
            if source.registered.is_some() && source.idle() {
                self.deregister(selector, fd); // nobody took it back
            }
        }
        let mut rearm = std::mem::take(&mut self.rearm);
        for &fd in &rearm {
            let source = &mut self.sources[fd as usize];
            source.rearm = false;
            if let Some(known) = source.registered
                && source.needs_rearm()
            {
                source.readable = false;
                source.writable = false;
                // Closed under our feet: nothing will ever be reported for it again, and
                // the next waiter's `add` registers whatever has the number then.
                if selector.reregister(fd, known).is_err() {
                    source.registered = None;
                }
            }
        }
        rearm.clear();
        self.rearm = rearm; // keep the capacity
    }
    // ANCHOR_END: before_select

    // ANCHOR: process_events
    /// asyncio's `_process_events`: for each event, note the readiness and dispatch the
    /// reader and the writer. A callback's handle goes to `ready`, with its descriptor and
    /// direction (step 5 runs it), a cancelled one is removed instead; a task's waker goes
    /// to `wake`.
    pub fn process_events(
        &mut self,
        selector: &Selector,
        ready: &mut Vec<Ready<L>>,
        wake: &mut Vec<Waker>,
    ) {
        for event in selector.events() {
            let fd = event.token().0 as RawFd;
            let Some(source) = self.sources.get_mut(fd as usize) else {
                continue;
            };
            if source.registered.is_none() {
                continue; // deregistered since the select
            }
            // An error or a hang-up makes both directions "ready": the next read or
            // write reports it.
            let failed = event.is_error();
            let readable = event.is_readable() || event.is_read_closed() || failed;
            let writable = event.is_writable() || event.is_write_closed() || failed;
            source.readable |= readable;
            source.writable |= writable;
            let mut dispatched = false;
            for (interest, now) in [(Interest::Read, readable), (Interest::Write, writable)] {
                let slot = source.slot(interest);
                match slot {
                    _ if !now => {}
                    Some(Waiter::Callback(handle)) if handle.cancelled() => {
                        *slot = None; // asyncio's `_remove_reader` of a cancelled reader
                        self.waiters -= 1;
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
            if dispatched && !std::mem::replace(&mut source.rearm, true) {
                self.rearm.push(fd);
            }
        }
    }
    // ANCHOR_END: process_events

    /// Drop every waiter and registration (the loop closes); returns the waiters.
    pub fn clear(&mut self, selector: &mut Selector) -> Vec<Waiter<L>> {
        let mut dropped = Vec::new();
        for fd in 0..self.sources.len() {
            let source = std::mem::take(&mut self.sources[fd]);
            if source.registered.is_some()
                && let Err(error) = selector.deregister(fd as RawFd)
            {
                // The selector itself is about to be dropped, which forgets everything.
                stage1::trace!("close: deregister fd {fd}: {error}");
            }
            dropped.extend(source.reader.into_iter().chain(source.writer));
        }
        self.rearm.clear();
        self.release.clear();
        self.waiters = 0;
        dropped
    }
}

fn mio_interest(interest: Interest) -> mio::Interest {
    match interest {
        Interest::Read => mio::Interest::READABLE,
        Interest::Write => mio::Interest::WRITABLE,
    }
}

/// The kernel does not know this descriptor (any more): epoll's `ENOENT` for a number
/// that was never added or was dropped on close, `EBADF` for one that is not open.
fn is_gone(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::ENOENT | libc::EBADF))
        || error.kind() == io::ErrorKind::NotFound
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;

    fn pair() -> (UnixStream, UnixStream) {
        let (a, b) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        b.set_nonblocking(true).unwrap();
        (a, b)
    }

    fn task() -> Waiter<()> {
        Waiter::Task(std::task::Waker::noop().clone())
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

    /// A socket whose number was `fd` a moment ago: the lowest free number is reused, unless
    /// another test's thread took it meanwhile; then try again with a new pair.
    fn reuse(fd: RawFd) -> Option<(UnixStream, UnixStream)> {
        let (b, peer) = pair();
        (b.as_raw_fd() == fd).then_some((b, peer))
    }

    #[test]
    fn a_number_reused_by_a_new_socket_is_registered_again() {
        for _attempt in 0..20 {
            let mut selector = Selector::new().unwrap();
            let mut table: IoTable<()> = IoTable::default();
            let (a, a_peer) = pair();
            let fd = a.as_raw_fd();
            table
                .add(&mut selector, fd, Interest::Read, task())
                .unwrap();
            // The wait ends; the registration is kept for the next wait; then `a` is
            // closed, and the kernel forgets it.
            drop(table.remove(&mut selector, fd, Interest::Read, true));
            drop((a, a_peer));
            let Some((_b, mut b_peer)) = reuse(fd) else {
                continue;
            };
            table
                .add(&mut selector, fd, Interest::Read, task())
                .unwrap();
            b_peer.write_all(b"x").unwrap();
            assert_eq!(selector.select(Some(std::time::Duration::ZERO)).unwrap(), 1);
            let (mut ready, mut wake) = (Vec::new(), Vec::new());
            table.process_events(&selector, &mut ready, &mut wake);
            assert_eq!(wake.len(), 1, "the new socket's reader is woken");
            assert_eq!(selector.stats().registers, 2, "registered afresh");
            return;
        }
        panic!("never got the same descriptor number back");
    }

    #[test]
    fn a_dispatched_callback_is_re_armed_until_would_block() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, mut peer) = pair();
        let fd = a.as_raw_fd();
        let reader = Handle::new_repeating(1, |_: &()| {});
        table
            .add(&mut selector, fd, Interest::Read, Waiter::Callback(reader))
            .unwrap();
        peer.write_all(b"xy").unwrap();
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        for round in 0..3 {
            table.before_select(&mut selector);
            assert_eq!(selector.select(Some(std::time::Duration::ZERO)).unwrap(), 1);
            table.process_events(&selector, &mut ready, &mut wake);
            assert_eq!(
                ready.len(),
                round + 1,
                "level-triggered: reported every round"
            );
        }
        table.would_block(fd, Interest::Read);
        let rearms = selector.stats().reregisters;
        table.before_select(&mut selector);
        assert_eq!(selector.stats().reregisters, rearms, "drained: no re-arm");
        drop(a);
    }
}
