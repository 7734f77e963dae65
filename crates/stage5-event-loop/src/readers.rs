//! Readers and writers: callbacks run when a file descriptor is ready (book chapter 7,
//! "Readers and writers on a selector" and "Level against edge"; seeds 000/004, "网络 IO
//! 回调", asyncio's `selector_events.py`: `add_reader`, `remove_reader`, `add_writer`,
//! `remove_writer`, `_process_events`).
//!
//! asyncio's `add_reader(fd, callback)` registers `fd` with the selector for reading and
//! keeps a `Handle` for it; each iteration, `_process_events` puts the handle of every
//! ready descriptor into the ready queue, so step 5 runs it. Adding a reader to a
//! descriptor that has one replaces it and cancels the old handle; `remove_reader` says
//! whether there was one; a reader whose handle was cancelled is removed instead of run.
//! Writers are the same for writing.
//!
//! asyncio's selector is *level-triggered*: a reader is called in every iteration while
//! its descriptor is readable. mio is *edge-triggered*. The table below bridges the two
//! without a system call per message:
//!
//! - a descriptor is registered with mio once, for both directions, when it first gets a
//!   reader or a writer, and stays registered while it has one (and, after a socket
//!   operation, until the next `select`: see `release`);
//! - who is interested (reader, writer) is tracked here, not in epoll;
//! - each descriptor caches what the edges said (`readable`, `writable`): set by an
//!   event, cleared when the loop's own socket operations see `WouldBlock`;
//! - after a reader or writer was dispatched, the descriptor is *re-armed* before the next
//!   `select` (`EPOLL_CTL_MOD`, which makes epoll report it again if it is still ready),
//!   unless a socket operation has meanwhile seen `WouldBlock` and cleared the cache: then
//!   the kernel will send a new edge when data comes, and nothing needs doing.
//!
//! So a plain asyncio-style reader that leaves data unread costs one `reregister` per
//! iteration (asyncio's select does that work inside `epoll_wait`); the loop's own socket
//! operations, which always read until `WouldBlock` before waiting, cost none.
//!
//! What changed since stage 4: stage 4 registered a socket for every wait and removed it
//! when the wait fired (one-shot, two `epoll_ctl` per message); its waits were tasks.
//! Here readers are handles, called again and again, and registrations persist.

use std::io;
use std::os::fd::RawFd;
use std::task::Waker;

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::handle::Handle;
use crate::selector::Selector;

// ANCHOR: source
/// Who waits on one direction of a descriptor: an asyncio-style callback (`add_reader`),
/// or a task inside one of the loop's socket operations (`sock_recv`, ...).
pub(crate) enum Waiter {
    Callback(Handle),
    Task(Waker),
}

/// What the loop knows about one file descriptor.
#[derive(Default)]
struct Source {
    reader: Option<Waiter>,
    writer: Option<Waiter>,
    registered: Option<mio::Interest>, // what mio was told; never narrowed while registered
    readable: bool,                    // an edge said so, and nothing has shown otherwise since
    writable: bool,
    rearm: bool,   // in `IoTable::rearm`: look at it again before the next select
    release: bool, // in `IoTable::release`: deregister it at the next select if idle
}

/// The loop's table of descriptors, indexed by descriptor number.
#[derive(Default)]
pub(crate) struct IoTable {
    sources: Vec<Source>,
    rearm: Vec<RawFd>,
    release: Vec<RawFd>,
    waiters: usize, // readers + writers installed
}
// ANCHOR_END: source

impl Source {
    fn slot(&mut self, interest: Interest) -> &mut Option<Waiter> {
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
}

impl IoTable {
    fn index(&mut self, fd: RawFd) -> io::Result<usize> {
        let index = usize::try_from(fd).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("Invalid file descriptor: {fd}"),
            )
        })?;
        if index >= self.sources.len() {
            self.sources.resize_with(index + 1, Source::default);
        }
        Ok(index)
    }

    /// How many readers and writers are installed.
    pub(crate) fn waiters(&self) -> usize {
        self.waiters
    }

    // ANCHOR: add
    /// Install `waiter` for `fd` in direction `interest`, registering `fd` with the
    /// selector if it is not registered yet. Returns the waiter it replaces.
    pub(crate) fn add(
        &mut self,
        selector: &mut Selector,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter,
    ) -> io::Result<Option<Waiter>> {
        let index = self.index(fd)?;
        let source = &mut self.sources[index];
        let wanted = mio_interest(interest);
        match source.registered {
            None => {
                selector.register(fd, wanted)?; // epoll reports it at once if ready already
                *source = Source {
                    registered: Some(wanted),
                    ..Source::default()
                };
            }
            // A new direction: the only time the interest list changes. It is never
            // narrowed again while registered (a stray edge costs less than a syscall).
            Some(known) if !covers(known, interest) => {
                selector.reregister(fd, known | wanted)?;
                source.registered = Some(known | wanted);
            }
            Some(_) => {}
        }
        if *source.ready(interest) && matches!(waiter, Waiter::Callback(_)) {
            // An edge came while nobody was interested, and it may be stale: ask again
            // before the next select, so that a new reader is not called for nothing.
            source.rearm_needed(fd, &mut self.rearm);
        }
        let old = source.slot(interest).replace(waiter);
        if old.is_none() {
            self.waiters += 1;
        }
        Ok(old)
    }
    // ANCHOR_END: add

    /// Take `fd`'s waiter in direction `interest` out. With `release` the registration
    /// stays until the next `select` (the loop's socket operations: the same task
    /// usually waits on the same socket again before that); without, a descriptor with no
    /// reader and no writer left is deregistered now (asyncio's `remove_reader`).
    pub(crate) fn remove(
        &mut self,
        selector: &mut Selector,
        fd: RawFd,
        interest: Interest,
        release: bool,
    ) -> Option<Waiter> {
        let Ok(index) = usize::try_from(fd) else {
            return None;
        };
        let source = self.sources.get_mut(index)?;
        let old = source.slot(interest).take();
        if old.is_some() {
            self.waiters -= 1;
        }
        if source.registered.is_some() && source.idle() {
            if release {
                if !source.release {
                    source.release = true;
                    self.release.push(fd);
                }
            } else {
                let _ = selector.deregister(fd);
                *source = Source::default();
            }
        }
        old
    }

    /// A socket operation saw `WouldBlock` on `fd`: the cached readiness is gone, and the
    /// next edge will say when it is back.
    pub(crate) fn would_block(&mut self, fd: RawFd, interest: Interest) {
        if let Some(source) = usize::try_from(fd)
            .ok()
            .and_then(|i| self.sources.get_mut(i))
        {
            *source.ready(interest) = false;
        }
    }

    /// `fd` is a new descriptor (just accepted): whatever the table remembers under its
    /// number belonged to a socket that was closed, and epoll forgot it with the close.
    pub(crate) fn forget(&mut self, fd: RawFd) {
        if let Some(source) = usize::try_from(fd)
            .ok()
            .and_then(|i| self.sources.get_mut(i))
            && source.registered.is_some()
        {
            self.waiters -=
                usize::from(source.reader.is_some()) + usize::from(source.writer.is_some());
            *source = Source::default();
        }
    }

    /// Deregister `fd` now if nobody waits on it (the end of a stream: its socket is
    /// about to be closed, and a new socket may get its number before the next select).
    pub(crate) fn release_now(&mut self, selector: &mut Selector, fd: RawFd) {
        if let Some(source) = usize::try_from(fd)
            .ok()
            .and_then(|i| self.sources.get_mut(i))
            && source.registered.is_some()
            && source.idle()
        {
            let _ = selector.deregister(fd);
            *source = Source::default();
        }
    }

    /// True if `fd` has a waiter in direction `interest`.
    pub(crate) fn has(&self, fd: RawFd, interest: Interest) -> bool {
        usize::try_from(fd)
            .ok()
            .and_then(|i| self.sources.get(i))
            .is_some_and(|s| match interest {
                Interest::Read => s.reader.is_some(),
                Interest::Write => s.writer.is_some(),
            })
    }

    // ANCHOR: before_select
    /// Just before `select`: deregister the released descriptors nobody took back, and
    /// re-arm the dispatched ones whose readiness nobody has disproved: the
    /// level-triggered emulation.
    pub(crate) fn before_select(&mut self, selector: &mut Selector) {
        if self.release.is_empty() && self.rearm.is_empty() {
            return; // the common case of a busy loop: nothing to re-arm or release
        }
        for fd in std::mem::take(&mut self.release) {
            let source = &mut self.sources[fd as usize];
            source.release = false;
            if source.registered.is_some() && source.idle() {
                let _ = selector.deregister(fd);
                *source = Source::default();
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
                if selector.reregister(fd, known).is_err() {
                    // Closed under our feet: nothing will ever be reported for it again.
                    source.registered = None;
                }
            }
        }
        rearm.clear();
        self.rearm = rearm; // keep the capacity
    }
    // ANCHOR_END: before_select

    // ANCHOR: process_events
    /// asyncio's `_process_events`: for each event, note the readiness, and dispatch the
    /// reader and the writer. A callback's handle goes to the ready queue (step 5 runs
    /// it), a cancelled one is removed instead; a task is woken (its step goes to the
    /// ready queue too). Returns the handles to queue, in order.
    pub(crate) fn process_events(
        &mut self,
        selector: &mut Selector,
        ready: &mut Vec<Handle>,
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
                if !now {
                    continue;
                }
                let slot = source.slot(interest);
                match slot {
                    Some(Waiter::Callback(handle)) if handle.cancelled() => {
                        *slot = None; // asyncio's `_remove_reader` of a cancelled reader
                        self.waiters -= 1;
                    }
                    Some(Waiter::Callback(handle)) => {
                        ready.push(handle.clone());
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
                source.rearm_needed(fd, &mut self.rearm);
            }
        }
    }
    // ANCHOR_END: process_events

    /// Drop every waiter and registration (the loop closes).
    pub(crate) fn clear(&mut self, selector: &mut Selector) -> Vec<Waiter> {
        let mut dropped = Vec::new();
        for (fd, source) in self.sources.iter_mut().enumerate() {
            if source.registered.is_some() {
                let _ = selector.deregister(fd as RawFd);
            }
            dropped.extend(source.reader.take());
            dropped.extend(source.writer.take());
            *source = Source::default();
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

fn covers(known: mio::Interest, interest: Interest) -> bool {
    match interest {
        Interest::Read => known.is_readable(),
        Interest::Write => known.is_writable(),
    }
}

impl Source {
    fn rearm_needed(&mut self, fd: RawFd, list: &mut Vec<RawFd>) {
        if !self.rearm {
            self.rearm = true;
            list.push(fd);
        }
    }
}

// ANCHOR: add_reader
impl EventLoop {
    /// Call `callback` in every iteration while `fd` is readable (asyncio's `add_reader`).
    /// A reader already there is replaced and its handle cancelled. Returns the handle:
    /// cancelling it makes the loop remove the reader instead of calling it. A bad or
    /// closed descriptor is an error.
    pub fn add_reader(
        &self,
        fd: RawFd,
        callback: impl FnMut(&EventLoop) + 'static,
    ) -> Result<Handle, Error> {
        self.add_callback_waiter(fd, Interest::Read, callback)
    }

    /// Stop watching `fd` for reading; true if there was a reader (asyncio's
    /// `remove_reader`). Its handle is cancelled.
    pub fn remove_reader(&self, fd: RawFd) -> bool {
        self.remove_callback_waiter(fd, Interest::Read)
    }

    /// Call `callback` in every iteration while `fd` is writable (asyncio's
    /// `add_writer`); as [`EventLoop::add_reader`] otherwise.
    pub fn add_writer(
        &self,
        fd: RawFd,
        callback: impl FnMut(&EventLoop) + 'static,
    ) -> Result<Handle, Error> {
        self.add_callback_waiter(fd, Interest::Write, callback)
    }

    /// Stop watching `fd` for writing; true if there was a writer.
    pub fn remove_writer(&self, fd: RawFd) -> bool {
        self.remove_callback_waiter(fd, Interest::Write)
    }

    fn add_callback_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        callback: impl FnMut(&EventLoop) + 'static,
    ) -> Result<Handle, Error> {
        self.check_closed()?;
        let handle = Handle::new_repeating(self.next_handle_id(), callback);
        loop_trace!(&self.inner, "add_{interest}er fd {fd}: {handle}");
        let old = self.inner.io.borrow_mut().add(
            &mut self.inner.selector.borrow_mut(),
            fd,
            interest,
            Waiter::Callback(handle.clone()),
        )?;
        if let Some(Waiter::Callback(old)) = old {
            old.cancel();
        }
        Ok(handle)
    }

    fn remove_callback_waiter(&self, fd: RawFd, interest: Interest) -> bool {
        if self.is_closed() {
            return false;
        }
        let old = self.inner.io.borrow_mut().remove(
            &mut self.inner.selector.borrow_mut(),
            fd,
            interest,
            false,
        );
        loop_trace!(
            &self.inner,
            "remove_{interest}er fd {fd}: {}",
            old.is_some()
        );
        match old {
            Some(Waiter::Callback(handle)) => {
                handle.cancel();
                true
            }
            Some(Waiter::Task(_)) => true,
            None => false,
        }
    }
}
// ANCHOR_END: add_reader

impl EventLoop {
    /// True if `fd` has a reader (or a task waiting to read).
    pub fn has_reader(&self, fd: RawFd) -> bool {
        self.inner.io.borrow().has(fd, Interest::Read)
    }

    /// True if `fd` has a writer (or a task waiting to write).
    pub fn has_writer(&self, fd: RawFd) -> bool {
        self.inner.io.borrow().has(fd, Interest::Write)
    }

    /// The selector's counters: how many registrations, re-arms and deregistrations the
    /// loop's I/O has cost so far.
    pub fn selector_stats(&self) -> crate::selector::SelectorStats {
        self.inner.selector.borrow().stats()
    }

    /// A task waits on `fd` (the loop's socket operations): install its waker.
    pub(crate) fn wait_io(&self, fd: RawFd, interest: Interest, waker: &Waker) -> io::Result<()> {
        self.inner.io.borrow_mut().add(
            &mut self.inner.selector.borrow_mut(),
            fd,
            interest,
            Waiter::Task(waker.clone()),
        )?;
        Ok(())
    }

    /// The task is done waiting on `fd`; see [`IoTable::remove`] for `release`.
    pub(crate) fn unwait_io(&self, fd: RawFd, interest: Interest, release: bool) {
        let old = self.inner.io.borrow_mut().remove(
            &mut self.inner.selector.borrow_mut(),
            fd,
            interest,
            release,
        );
        drop(old);
    }

    pub(crate) fn would_block(&self, fd: RawFd, interest: Interest) {
        self.inner.io.borrow_mut().would_block(fd, interest);
    }

    pub(crate) fn forget_fd(&self, fd: RawFd) {
        self.inner.io.borrow_mut().forget(fd);
    }
}
