//! The loop's table of file descriptors: who waits on each, and what the selector was told
//! (book chapter 7, "Readers and writers on a selector" and "Level against edge"; seeds
//! 000/004, "网络IO的回调注册", asyncio's `selector_events.py`: `_add_reader`,
//! `_remove_reader`, `_process_events`).
//!
//! The file is over 300 lines because the table's invariants (the registration, the cached
//! readiness, the re-arm, release and check lists) are kept by these methods together;
//! split, each part would need the others' fields.
//!
//! asyncio's selector is *level-triggered*: a reader is called in every iteration while its
//! descriptor is readable. mio is *edge-triggered*. This table bridges the two:
//!
//! - a descriptor is registered with the selector when it first gets a waiter, for the
//!   direction asked; a waiter in the other direction widens the registration, which is
//!   never narrowed (a stray edge costs less than a system call). It stays registered
//!   while it has a waiter (and, after a socket operation, until the next `select`: the
//!   same task usually waits on the same socket again);
//! - who is interested (reader, writer) is tracked here, not in epoll;
//! - each descriptor caches what the edges said (`readable`, `writable`): set by an event,
//!   cleared when the loop's own socket operations see `WouldBlock`;
//! - after a waiter was dispatched, the descriptor is *re-armed* before the next `select`
//!   (`EPOLL_CTL_MOD` makes epoll report it again if it is still ready), unless a socket
//!   operation has meanwhile seen `WouldBlock`: then the next edge will come by itself;
//! - a read that came back shorter than asked ([`Done::Drained`]) emptied the socket: the
//!   descriptor is marked `drained`, and the next read waits without trying, until an
//!   edge says there is more (tokio skips the same try);
//! - at the end of a stream ([`Done::Ended`]) the registration goes at once, not at the
//!   next `select`: the socket is about to be closed, and a new one may get its number
//!   before then.
//!
//! The table cannot see a descriptor being closed: the kernel drops a closed socket from
//! epoll by itself, and a new socket may get the same number at once. So whenever a
//! callback joins a descriptor the table believes registered, the registration is re-armed
//! with `EPOLL_CTL_MOD`, which fails on a number the kernel has forgotten: then it is
//! registered afresh (asyncio pays two system calls per wait: `add_reader`,
//! `remove_reader`).
//!
//! A task in a socket operation pays nothing when it starts to wait (`wait`): its operation
//! has just seen the socket not ready, so the next edge will come by itself, *if* the
//! registration is still the kernel's. That check is put off, because most waits end
//! with their edge before anyone needs it: an edge proves nothing about which socket
//! has the number, but a wait that ends needs no proof. A wait still unchecked when the
//! loop is about to sleep, or after [`PATIENCE`] selects, is checked with one
//! `EPOLL_CTL_MOD` (`check_waits`). The number cannot have changed hands *during* the
//! wait: the operation borrows its socket.
//!
//! Generic over the loop `L` of the callbacks' handles, and over its selector `S`, of which
//! it knows only the [`Poller`] trait (the loop's mio [`Selector`] by default; a fake in the
//! unit tests): neither mio nor an errno appears here. What changed since stage 4: stage 4 registered a socket for every wait and
//! removed it when the wait fired (one-shot); here readers are handles called again and
//! again, and registrations persist.

use std::collections::VecDeque;
use std::io;
use std::marker::PhantomData;
use std::os::fd::RawFd;
use std::task::Waker;

use stage4::Interest;

use crate::events::handle::Handle;
use crate::parts::selector::{Interests, Poller, Rearmed, Selector};

/// How many selects a task's wait may go unchecked while the loop is busy (it is always
/// checked before the loop sleeps): how long an operation on a socket that got a closed
/// socket's number can wait for the check that registers it.
pub const PATIENCE: u32 = 16;

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

/// What a finished socket operation learned about its descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// Nothing the table needs to know.
    Other,
    /// A read came back shorter than asked: the socket is empty until the next edge.
    Drained,
    /// A read found the end of the stream: the socket is about to be closed.
    Ended,
}

/// What the loop knows about one file descriptor.
struct Source<L> {
    reader: Option<Waiter<L>>,
    writer: Option<Waiter<L>>,
    registered: Option<Interests>, // what the selector was told; never narrowed
    readable: bool,                // an edge said so, and nothing has shown otherwise since
    writable: bool,
    drained: bool, // a read came back short since the last edge: the next one would block
    unchecked: Option<u32>, // a task waits on a registration unchecked since this select
    rearm: bool,   // in `IoTable::rearm`: look at it again before the next select
    release: bool, // in `IoTable::release`: deregister it at the next select if idle
}

/// The loop's table of descriptors, indexed by descriptor number, on a selector `S`: the
/// loop's mio [`Selector`], or a test's fake. The table holds no selector: every call that
/// needs one is handed it.
pub struct IoTable<L, S = Selector> {
    sources: Vec<Source<L>>,
    rearm: Vec<RawFd>,
    release: Vec<RawFd>,
    unchecked: VecDeque<(RawFd, u32)>, // waits to check, oldest first
    waiters: usize,                    // readers + writers installed
    selector: PhantomData<fn(&mut S)>,
}
// ANCHOR_END: source

impl Done {
    /// What a read of `n` bytes, `asked` for, says.
    pub fn read(n: usize, asked: usize) -> Done {
        match n {
            0 if asked > 0 => Done::Ended,
            n if n < asked => Done::Drained,
            _ => Done::Other,
        }
    }
}

impl<L> Default for Source<L> {
    fn default() -> Self {
        Source {
            reader: None,
            writer: None,
            registered: None,
            readable: false,
            writable: false,
            drained: false,
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

    /// The waiter in the direction opposite to `interest`.
    fn opposite(&self, interest: Interest) -> &Option<Waiter<L>> {
        match interest {
            Interest::Read => &self.writer,
            Interest::Write => &self.reader,
        }
    }

    fn ready(&mut self, interest: Interest) -> &mut bool {
        match interest {
            Interest::Read => &mut self.readable,
            Interest::Write => &mut self.writable,
        }
    }

    /// Forget what the edges said, for a registration or re-arm: that reports the
    /// descriptor again if it is still ready.
    fn clear_readiness(&mut self) {
        self.readable = false;
        self.writable = false;
        self.drained = false;
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
        let mut stale = None;
        let (known, unchecked) = match self.source_mut(fd) {
            Some(s) => (s.registered, s.unchecked.is_some()),
            None => (None, false),
        };
        let registered = match known {
            None => {
                selector.register(fd, wanted)?; // epoll reports it at once if ready
                wanted
            }
            // Known: re-arm (and widen to a new direction, never narrowing: a stray edge
            // costs less than a system call). This also finds out whether the kernel still
            // has it: a socket closed since then is gone from epoll, and its number may be
            // a new socket's now.
            Some(known) => match selector.reregister(fd, known | wanted)? {
                // Re-armed: the kernel still has it.
                Rearmed::Armed => known | wanted,
                // Forgotten by the kernel. Unchecked waiters joined while their operation
                // borrowed the socket that has the number now: they stay. Any other record
                // belonged to a closed socket. Register the file that has the number now.
                Rearmed::Forgotten if unchecked => {
                    selector.register(fd, known | wanted)?;
                    known | wanted
                }
                Rearmed::Forgotten => {
                    selector.register(fd, wanted)?;
                    stale = self.source_mut(fd).map(std::mem::take);
                    wanted
                }
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
        source.clear_readiness();
        source.unchecked = None; // checked just now
        let old = source.slot(interest).replace(waiter);
        if old.is_none() {
            self.waiters += 1;
        }
        Ok(old)
    }
    // ANCHOR_END: add

    // ANCHOR: wait
    /// A task's socket operation found `fd` not ready for `interest` (it answered
    /// `WouldBlock`, or a short read left nothing to read): install its `waker`. If the
    /// table believes `fd` registered for `interest`, and nobody waits in the other
    /// direction, that costs no system call: having seen the socket not ready, the
    /// operation can count on the next edge, provided the kernel still has the
    /// registration, which the wait is queued to check (`check_waits`). Otherwise this is
    /// [`IoTable::add`].
    pub fn wait(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        waker: &Waker,
    ) -> io::Result<Option<Waiter<L>>> {
        if let Some(source) = self.source_mut(fd)
            && source.registered.is_some_and(|known| known.has(interest))
            && source.opposite(interest).is_none()
        {
            *source.ready(interest) = false; // seen not ready: the next edge will say
            let slot = source.slot(interest);
            // The same task polled again: its waker is already there.
            if let Some(Waiter::Task(old)) = slot
                && old.will_wake(waker)
            {
                return Ok(None);
            }
            let old = slot.replace(Waiter::Task(waker.clone()));
            if source.unchecked.is_none() {
                let select = select_number(selector);
                source.unchecked = Some(select);
                self.unchecked.push_back((fd, select));
            }
            if old.is_none() {
                self.waiters += 1;
            }
            return Ok(old);
        }
        self.would_block(fd, interest);
        self.add(selector, fd, interest, Waiter::Task(waker.clone()))
    }
    // ANCHOR_END: wait

    // ANCHOR: check_waits
    /// Check the registrations that tasks wait on unchecked (`wait`): those that have
    /// waited through [`PATIENCE`] selects, or every one if `all` (the loop is about to
    /// sleep, and only an edge could wake it). `EPOLL_CTL_MOD` confirms a registration and
    /// reports the descriptor again if it is ready; if the kernel has forgotten the number
    /// (the socket that had it was closed), the socket that has it now, the one the task
    /// borrows, is registered. If the number is not open at all, the waiting tasks are
    /// woken into `wake`: their operation will meet the error. Returns how many were
    /// checked.
    pub fn check_waits(&mut self, selector: &mut S, all: bool, wake: &mut Vec<Waker>) -> usize {
        let now = select_number(selector);
        let mut checked = 0;
        while let Some(&(fd, since)) = self.unchecked.front() {
            let source = &mut self.sources[fd as usize];
            if source.unchecked == Some(since) {
                if !all && now.wrapping_sub(since) < PATIENCE {
                    break; // the rest joined later still
                }
                source.unchecked = None;
                checked += 1;
                if let Some(known) = source.registered
                    && let Err(error) = confirm(selector, fd, known)
                {
                    stage1::trace!("check fd {fd}: {error}");
                    source.registered = None;
                    for waiter in [&source.reader, &source.writer].into_iter().flatten() {
                        if let Waiter::Task(waker) = waiter {
                            wake.push(waker.clone());
                        }
                    }
                }
                // Confirmed or registered afresh: epoll reports it if it is ready now.
                source.clear_readiness();
            }
            self.unchecked.pop_front(); // checked, or stale: checked or idle since
        }
        checked
    }
    // ANCHOR_END: check_waits

    /// True if there is nothing to re-arm, release or check before the next select.
    #[inline]
    pub fn quiet(&self) -> bool {
        self.release.is_empty() && self.rearm.is_empty() && self.unchecked.is_empty()
    }

    /// True if some task waits on a registration not checked yet.
    #[inline]
    pub fn has_unchecked(&self) -> bool {
        !self.unchecked.is_empty()
    }

    /// A read on `fd` came back shorter than asked: the socket is empty now, and an edge
    /// will say when it is not (what tokio calls clearing the readiness). The next read
    /// operation on `fd` waits without trying (`is_drained`).
    pub fn read_drained(&mut self, fd: RawFd) {
        if let Some(source) = self.source_mut(fd)
            && source.registered.is_some()
        {
            source.readable = false;
            source.drained = true;
        }
    }

    /// True if a short read emptied `fd` and no edge has come since.
    #[inline]
    pub fn is_drained(&self, fd: RawFd) -> bool {
        self.source(fd).is_some_and(|s| s.drained)
    }

    /// Take `fd`'s waiter in direction `interest` out. With `release` the registration
    /// stays until the next `select` (the loop's socket operations: the same task usually
    /// waits on the same socket again before that); without, a descriptor with no waiter
    /// left is deregistered now (asyncio's `remove_reader`).
    pub fn remove(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        release: bool,
    ) -> Option<Waiter<L>> {
        let source = self.source_mut(fd)?;
        let old = source.slot(interest).take();
        if source.idle() {
            source.unchecked = None; // nobody left to wake: nothing to check
        }
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

    // ANCHOR: done
    /// A task's operation on `fd` ended: with `Some(done)` what it learned, with `None` an
    /// error. If it `waited`, its waiter goes; after a success the registration stays until
    /// the next select (the same task usually waits on the same socket again at once),
    /// after an error it goes now. At the end of the stream the registration goes now
    /// (the socket is about to be closed, and a new one may get its number before the next
    /// select); after a short read the socket is known empty (`read_drained`). Returns the
    /// waiter taken out.
    pub fn done(
        &mut self,
        selector: &mut S,
        fd: RawFd,
        interest: Interest,
        waited: bool,
        done: Option<Done>,
    ) -> Option<Waiter<L>> {
        // Only a success that leaves the socket open keeps the registration for the next
        // select; at the end of the stream or after an error it goes now.
        let release = matches!(done, Some(Done::Other | Done::Drained));
        let old = match waited {
            true => self.remove(selector, fd, interest, release),
            false => None,
        };
        match done {
            // A waiter taken out just now went with its registration; without one, the
            // registration an earlier operation kept goes now.
            Some(Done::Ended) => self.release_now(selector, fd),
            Some(Done::Drained) => self.read_drained(fd),
            Some(Done::Other) | None => {}
        }
        old
    }
    // ANCHOR_END: done

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
    pub fn release_now(&mut self, selector: &mut S, fd: RawFd) {
        if self
            .source_mut(fd)
            .is_some_and(|s| s.registered.is_some() && s.idle())
        {
            self.deregister(selector, fd);
        }
    }

    /// Remove `fd` from the selector and forget its record (it has no waiter).
    fn deregister(&mut self, selector: &mut S, fd: RawFd) {
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
        self.source(fd).is_some_and(|s| match interest {
            Interest::Read => s.reader.is_some(),
            Interest::Write => s.writer.is_some(),
        })
    }

    // ANCHOR: before_select
    /// Just before `select`: deregister the released descriptors nobody took back, and
    /// re-arm the dispatched ones whose readiness nobody has disproved: the
    /// level-triggered emulation.
    pub fn before_select(&mut self, selector: &mut S) {
        let mut release = std::mem::take(&mut self.release);
        for &fd in &release {
            let source = &mut self.sources[fd as usize];
            source.release = false;
            if source.registered.is_some() && source.idle() {
                self.deregister(selector, fd); // nobody took it back
            }
        }
        release.clear();
        self.release = release; // keep the capacity
        let mut rearm = std::mem::take(&mut self.rearm);
        for &fd in &rearm {
            let source = &mut self.sources[fd as usize];
            source.rearm = false;
            if let Some(known) = source.registered
                && source.needs_rearm()
            {
                source.clear_readiness();
                match selector.reregister(fd, known) {
                    // Re-armed: reported at the next select if still ready.
                    Ok(Rearmed::Armed) => {}
                    // Closed under our feet, or epoll failed: nothing will be reported for
                    // it again, and the next waiter's `add` registers whatever has the
                    // number then.
                    Ok(Rearmed::Forgotten) | Err(_) => source.registered = None,
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
            // An error or a hang-up makes both directions "ready": the next read or
            // write reports it.
            let failed = event.error;
            let readable = event.readable || event.read_closed || failed;
            let writable = event.writable || event.write_closed || failed;
            source.readable |= readable;
            source.writable |= writable;
            source.drained &= !readable; // something came since the short read
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
    pub fn clear(&mut self, selector: &mut S) -> Vec<Waiter<L>> {
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
        self.unchecked.clear();
        self.waiters = 0;
        dropped
    }
}

/// The selector's count of selects, as the table notes it: it wraps, and only differences
/// of a few selects are ever compared.
fn select_number(selector: &impl Poller) -> u32 {
    selector.selects() as u32
}

/// Re-arm `fd`'s registration for `known`; if the kernel has forgotten the number, register
/// the file that has it now.
fn confirm(selector: &mut impl Poller, fd: RawFd, known: Interests) -> io::Result<()> {
    match selector.reregister(fd, known)? {
        // Confirmed: still the kernel's.
        Rearmed::Armed => Ok(()),
        // The socket that had the number was closed: register the one that has it now.
        Rearmed::Forgotten => selector.register(fd, known),
    }
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

    pub(super) fn task() -> Waiter<()> {
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

    /// The scene of the reuse tests: a socket waited on once (its registration kept, as
    /// after a socket operation), then closed, so the kernel forgets it, and a new socket
    /// with its number. Returns the selector, the table, the number, and the new socket
    /// and its peer.
    fn a_reused_number() -> (Selector, IoTable<()>, RawFd, UnixStream, UnixStream) {
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

    #[test]
    fn a_number_reused_by_a_new_socket_is_registered_again() {
        let (mut selector, mut table, fd, _b, mut b_peer) = a_reused_number();
        table
            .add(&mut selector, fd, Interest::Read, task())
            .unwrap();
        b_peer.write_all(b"x").unwrap();
        assert_eq!(selector.select(Some(std::time::Duration::ZERO)).unwrap(), 1);
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        assert_eq!(wake.len(), 1, "the new socket's reader is woken");
        assert_eq!(selector.stats().registers, 2, "registered afresh");
    }

    /// A counting waker: how often it was woken.
    struct Count(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    fn counting() -> (std::sync::Arc<Count>, Waker) {
        let count = std::sync::Arc::new(Count(0.into()));
        (count.clone(), Waker::from(count))
    }

    /// Register `fd` for reading with a wait that ended (the registration is kept), as
    /// after a socket operation.
    fn kept(table: &mut IoTable<()>, selector: &mut Selector, fd: RawFd) {
        table.add(selector, fd, Interest::Read, task()).unwrap();
        drop(table.remove(selector, fd, Interest::Read, true));
    }

    #[test]
    fn a_task_waits_on_a_kept_registration_without_a_system_call_until_checked() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, _peer) = pair();
        let fd = a.as_raw_fd();
        kept(&mut table, &mut selector, fd);
        let before = selector.stats();
        let (_, waker) = counting();
        table
            .wait(&mut selector, fd, Interest::Read, &waker)
            .unwrap();
        assert!(table.has(fd, Interest::Read));
        assert_eq!(selector.stats(), before, "no system call to start waiting");
        let mut wake = Vec::new();
        for _ in 0..PATIENCE - 1 {
            assert_eq!(table.check_waits(&mut selector, false, &mut wake), 0);
            selector.select(Some(std::time::Duration::ZERO)).unwrap();
        }
        assert_eq!(selector.stats().reregisters, before.reregisters);
        selector.select(Some(std::time::Duration::ZERO)).unwrap();
        assert_eq!(table.check_waits(&mut selector, false, &mut wake), 1);
        assert_eq!(selector.stats().reregisters, before.reregisters + 1);
        assert!(!table.has_unchecked() && wake.is_empty());
    }

    #[test]
    fn a_check_registers_the_socket_that_has_the_number_now_and_keeps_its_waiter() {
        let (mut selector, mut table, fd, _b, mut b_peer) = a_reused_number();
        b_peer.write_all(b"x").unwrap(); // ready before anyone waits
        let (count, waker) = counting();
        table
            .wait(&mut selector, fd, Interest::Read, &waker)
            .unwrap();
        let mut wake = Vec::new();
        assert_eq!(table.check_waits(&mut selector, true, &mut wake), 1);
        assert_eq!(selector.stats().registers, 2, "registered afresh");
        assert_eq!(selector.select(Some(std::time::Duration::ZERO)).unwrap(), 1);
        let mut ready = Vec::new();
        table.process_events(&selector, &mut ready, &mut wake);
        wake.drain(..).for_each(Waker::wake);
        assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn a_callback_joining_an_unchecked_wait_on_a_reused_number_keeps_the_wait() {
        let (mut selector, mut table, fd, _b, mut b_peer) = a_reused_number();
        let (count, waker) = counting();
        table
            .wait(&mut selector, fd, Interest::Read, &waker)
            .unwrap();
        // A writer joins: its re-arm finds the number forgotten by the kernel.
        let writer = Handle::new_repeating(1, |_: &()| {});
        table
            .add(&mut selector, fd, Interest::Write, Waiter::Callback(writer))
            .unwrap();
        assert!(table.has(fd, Interest::Read), "the task still waits");
        assert_eq!(table.waiters(), 2);
        b_peer.write_all(b"x").unwrap();
        selector.select(Some(std::time::Duration::ZERO)).unwrap();
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        wake.drain(..).for_each(Waker::wake);
        assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn a_check_that_finds_the_number_closed_wakes_the_waiting_task() {
        for _attempt in 0..20 {
            let mut selector = Selector::new().unwrap();
            let mut table: IoTable<()> = IoTable::default();
            let (a, a_peer) = pair();
            let fd = a.as_raw_fd();
            kept(&mut table, &mut selector, fd);
            let (count, waker) = counting();
            table
                .wait(&mut selector, fd, Interest::Read, &waker)
                .unwrap();
            drop((a, a_peer)); // closed while waited on: only unsafe code could do this
            let mut wake = Vec::new();
            table.check_waits(&mut selector, true, &mut wake);
            if wake.is_empty() {
                continue; // another test's thread took the number meanwhile
            }
            wake.drain(..).for_each(Waker::wake);
            assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 1);
            return;
        }
        panic!("the number was always taken again at once");
    }

    #[test]
    fn a_short_read_drains_until_the_next_edge() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, mut peer) = pair();
        let fd = a.as_raw_fd();
        table.read_drained(fd);
        assert!(!table.is_drained(fd), "not registered: nothing known");
        kept(&mut table, &mut selector, fd);
        table.read_drained(fd);
        assert!(table.is_drained(fd));
        peer.write_all(b"x").unwrap(); // the registration is kept until the next select
        assert_eq!(selector.select(Some(std::time::Duration::ZERO)).unwrap(), 1);
        let (mut ready, mut wake) = (Vec::new(), Vec::new());
        table.process_events(&selector, &mut ready, &mut wake);
        assert!(!table.is_drained(fd), "an edge came since");
    }

    #[test]
    fn the_end_of_a_stream_deregisters_at_once_and_leaves_nothing_for_the_next_select() {
        let mut selector = Selector::new().unwrap();
        let mut table: IoTable<()> = IoTable::default();
        let (a, _peer) = pair();
        let fd = a.as_raw_fd();
        table
            .add(&mut selector, fd, Interest::Read, task())
            .unwrap();
        table.done(&mut selector, fd, Interest::Read, true, Some(Done::Other));
        assert!(
            !table.quiet(),
            "a success keeps the registration until the select"
        );
        assert_eq!(selector.stats().deregisters, 0);
        table.before_select(&mut selector); // nobody took it back: deregistered
        assert!(table.quiet());
        table
            .add(&mut selector, fd, Interest::Read, task())
            .unwrap();
        table.done(&mut selector, fd, Interest::Read, true, Some(Done::Ended));
        assert_eq!(selector.stats().deregisters, 2, "gone now");
        assert!(table.quiet(), "nothing left to release");
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

/// The table on a selector that only records what it is asked and reports what the test
/// scripts: no descriptor, no kernel, every step visible.
#[cfg(test)]
mod fake {
    use super::*;
    use crate::parts::selector::Readiness;
    use std::collections::{BTreeMap, BTreeSet};

    /// A selector that keeps registrations in a map, "forgets" the numbers a test closes,
    /// and reports the readiness a test scripts for each select.
    #[derive(Default)]
    struct FakeSelector {
        registered: BTreeMap<RawFd, Interests>,
        forgotten: BTreeSet<RawFd>, // closed behind the table's back: a re-arm says so
        calls: Vec<String>,
        ready: Vec<Readiness>,
        selects: u64,
    }

    impl FakeSelector {
        /// A select that reports `ready`.
        fn select(&mut self, ready: &[Readiness]) {
            self.selects += 1;
            self.ready = ready.to_vec();
        }

        /// `fd` is closed (and its number perhaps another file's): the kernel forgot it.
        fn close(&mut self, fd: RawFd) {
            self.registered.remove(&fd);
            self.forgotten.insert(fd);
        }

        fn calls(&mut self) -> Vec<String> {
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

    fn readable(fd: RawFd) -> Readiness {
        Readiness {
            fd,
            readable: true,
            ..Readiness::default()
        }
    }

    type Table = IoTable<(), FakeSelector>;

    /// Run the table's part of one iteration: before the select, the select (reporting
    /// `ready`), the dispatch. Returns the handles queued and how many tasks were woken.
    fn iteration(
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
        drop(table.remove(&mut selector, 5, Interest::Write, false));
        assert!(selector.calls().is_empty(), "the reader still waits");

        // Removed (asyncio's `remove_reader`): deregistered at once.
        assert!(
            table
                .remove(&mut selector, 5, Interest::Read, false)
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
        drop(table.add(&mut selector, 3, Interest::Write, super::tests::task()));
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

    #[test]
    fn a_wait_on_a_kept_registration_is_checked_and_registered_afresh_if_forgotten() {
        let (mut selector, mut table) = (FakeSelector::default(), Table::default());
        // A socket operation waited and ended: its registration is kept until the select.
        drop(table.add(&mut selector, 4, Interest::Read, super::tests::task()));
        drop(table.remove(&mut selector, 4, Interest::Read, true));
        assert_eq!(selector.calls(), ["register 4 read"]);
        // Its socket is closed, and a new one gets number 4 before the next select; the
        // next operation on it waits, and pays nothing yet.
        selector.close(4);
        drop(table.wait(&mut selector, 4, Interest::Read, Waker::noop()));
        assert!(
            selector.calls().is_empty(),
            "no system call to start waiting"
        );
        // The loop is about to sleep: the check finds the number forgotten and registers
        // the new socket; the task still waits, for its edge.
        let mut wake = Vec::new();
        assert_eq!(table.check_waits(&mut selector, true, &mut wake), 1);
        assert_eq!(selector.calls(), ["reregister 4 read", "register 4 read"]);
        assert!(wake.is_empty() && table.has(4, Interest::Read));
        let (_, woken) = iteration(&mut table, &mut selector, &[readable(4)]);
        assert_eq!(woken, 1, "the new socket's edge ends the wait");
    }
}
