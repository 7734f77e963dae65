//! The I/O driver: the selector, the I/O table, the self-pipe, the signal table and the
//! transports' map, owned together, with the methods the loop's I/O goes through (book
//! chapter 7, "Readers and writers on a selector" and "The self-pipe"; asyncio's
//! `BaseSelectorEventLoop`: its `_selector`, `_add_reader`, `_remove_reader`,
//! `_process_events`, `_ssock`, and `_transports`).
//!
//! asyncio's selector loop is a subclass of the base loop that owns these. Ours is a value
//! the loop holds (`io` in `event_loop/mod.rs`) and that knows no loop: generic over the
//! loop `L` its handles are called with. Each method borrows what it needs for one call and
//! gives it back before it returns, so nothing it hands out (a waiter to drop, a waker to
//! wake) runs while the table is borrowed: a waker's drop or wake may look at the loop
//! again.
//!
//! A socket operation's wait goes through [`IoDriver::wait`] and ends with
//! [`IoDriver::done`]; step 3 of an iteration is [`IoDriver::before_select`],
//! [`IoDriver::select`] and [`IoDriver::process_events`]. What is there for speed, not for
//! asyncio (the checks of the waits on kept registrations, and the nap before a long sleep),
//! is the child module `wait_checks.rs` ("Going further").
//!
//! What changed since stage 4: stage 4's scheduler held its selector and its waits itself;
//! here they are one value with its own methods, below the loop that runs it.

use std::cell::{Cell, Ref, RefCell};
use std::io;
use std::os::fd::RawFd;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::task::Waker;

use socket2::Socket;
use stage4::Interest;

use crate::errors::Error;
use crate::events::handle::Handle;
use crate::io_driver::io_table::{Done, IoTable, Ready, Release, Waiter};
use crate::io_driver::selector::{Proactor, Selector, SelectorStats, WaitAround};
use crate::io_driver::self_pipe::{self, RemoteQueue, SelfPipe};
use crate::io_driver::signal_table::SignalTable;
use crate::io_driver::transport_fds::TransportFds;

mod wait_checks;

/// The I/O driver (chapters 7 and 8): what the loop's I/O half owns.
pub(crate) struct IoDriver<L> {
    selector: RefCell<Selector>,
    table: RefCell<IoTable<L>>,  // readers and writers, by file descriptor
    self_pipe: SelfPipe,         // its read end, watched by a reader
    remote: Arc<RemoteQueue<L>>, // what other threads touch: queue, write end
    signals: RefCell<SignalTable<L>>,
    transports: RefCell<TransportFds>, // chapter 8: descriptors a transport owns (`_transports`)
}

/// The I/O table and the signal table, borrowed to be read (`IoDriver::try_tables`).
pub(crate) type Tables<'a, L> = (Ref<'a, IoTable<L>>, Ref<'a, SignalTable<L>>);

impl<L> IoDriver<L> {
    /// A selector and a self-pipe, or the operating system's reason why not.
    pub(crate) fn new() -> io::Result<IoDriver<L>> {
        let selector = Selector::new()?;
        let (self_pipe, remote) = self_pipe::make_self_pipe()?;
        Ok(IoDriver {
            selector: RefCell::new(selector),
            table: RefCell::default(),
            self_pipe,
            remote: Arc::new(remote),
            signals: RefCell::default(),
            transports: RefCell::default(),
        })
    }

    /// The I/O table and the selector it asks, borrowed together for one call (the table
    /// holds no selector: each operation that may change a registration is handed it).
    #[inline]
    fn with_table<R>(&self, call: impl FnOnce(&mut IoTable<L>, &mut Selector) -> R) -> R {
        let mut selector = self.selector.borrow_mut();
        call(&mut self.table.borrow_mut(), &mut selector)
    }

    /// Install `waiter` on `fd` for `interest`; returns the one it replaces.
    pub(crate) fn add(
        &self,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<L>,
    ) -> io::Result<Option<Waiter<L>>> {
        self.with_table(|table, selector| table.add(selector, fd, interest, waiter))
    }

    /// A task's operation found `fd` not ready for `interest`: wait with `waker`
    /// (`IoTable::wait`: no system call when the registration is kept).
    #[inline]
    pub(crate) fn wait(&self, fd: RawFd, interest: Interest, waker: &Waker) -> io::Result<()> {
        let old = self.with_table(|table, selector| table.wait(selector, fd, interest, waker))?;
        drop(old); // outside the borrows: a waker's drop may look at the loop
        Ok(())
    }

    /// A task's operation on `fd` ended (`IoTable::done`). Nothing to do, and no borrow,
    /// for one that neither waited nor learned anything about `fd`: a write that went
    /// through, or an error at the first try.
    #[inline]
    pub(crate) fn done(&self, fd: RawFd, interest: Interest, waited: bool, done: Done) {
        if waited || matches!(done, Done::Drained | Done::Ended) {
            let old =
                self.with_table(|table, selector| table.done(selector, fd, interest, waited, done));
            drop(old); // outside the borrows: a waker's drop may look at the loop
        }
    }

    /// Take `fd`'s waiter for `interest` out; a descriptor left with none is deregistered
    /// when `release` says (see `IoTable::remove`).
    pub(crate) fn remove(
        &self,
        fd: RawFd,
        interest: Interest,
        release: Release,
    ) -> Option<Waiter<L>> {
        self.with_table(|table, selector| table.remove(selector, fd, interest, release))
    }

    /// True if `fd` has a waiter for `interest`.
    pub(crate) fn has(&self, fd: RawFd, interest: Interest) -> bool {
        self.table.borrow().has(fd, interest)
    }

    /// True if a short read emptied `fd` and no edge came since: a read would block.
    #[inline]
    pub(crate) fn is_drained(&self, fd: RawFd) -> bool {
        self.table.borrow().is_drained(fd)
    }

    /// A socket operation saw `WouldBlock` on `fd`.
    pub(crate) fn would_block(&self, fd: RawFd, interest: Interest) {
        self.table.borrow_mut().would_block(fd, interest);
    }

    /// A reader's read on `fd` came back short: no re-arm unless the end is still to come.
    pub(crate) fn read_short(&self, fd: RawFd) {
        self.table.borrow_mut().read_short(fd);
    }

    /// `fd` is a new socket: forget what was known under its number.
    pub(crate) fn forget(&self, fd: RawFd) {
        let stale = self.table.borrow_mut().forget(fd);
        drop(stale); // outside the borrow: a waker's drop may look at the loop
    }

    /// True if something outside the loop may still wake it: a reader or writer besides
    /// the self-pipe's, a signal handler, another thread holding a `ThreadsafeLoop`, or an
    /// operation in flight on a proactor (chapter 10).
    pub(crate) fn watches_anything(&self) -> bool {
        self.table.borrow().waiters() > 1
            || !self.signals.borrow().is_empty()
            || self.remote.has_holders()
            || self.proactor().is_some_and(|p| p.busy())
    }

    /// Before step 3's `select`: re-arm and release descriptors (`IoTable::before_select`),
    /// and check the registrations of the waits that have gone unchecked for long.
    /// Inlined: a busy loop's iteration pays only the look at `quiet` (a call with a frame
    /// cost it more than the look).
    #[inline]
    pub(crate) fn before_select(&self) {
        if !self.table.borrow().quiet() {
            self.rearm_release_check();
        }
    }

    /// `before_select`'s work when there is some, out of line.
    #[inline(never)]
    fn rearm_release_check(&self) {
        let unchecked = self.with_table(|table, selector| {
            table.before_select(selector);
            table.has_unchecked()
        });
        if unchecked {
            // Whether a task was woken does not matter here: its step is queued either way.
            self.check_waits(false, |_| {});
        }
    }

    /// Step 3, the selector's events: a proactor's completions first (chapter 10), then
    /// the readers' and writers' handles made ready go to `handles`, the waiting tasks'
    /// wakers to `wakers`, for the loop to queue and wake once nothing is borrowed.
    pub(crate) fn process_events(&self, handles: &mut Vec<Ready<L>>, wakers: &mut Vec<Waker>) {
        if let Some(proactor) = self.proactor() {
            proactor.dispatch(); // completions: futures resolved, tasks woken
        }
        let selector = self.selector.borrow();
        let mut table = self.table.borrow_mut();
        table.process_events(&selector, handles, wakers);
    }

    /// The selector's counters: how many registrations, re-arms and deregistrations the
    /// loop's I/O has cost so far.
    pub(crate) fn stats(&self) -> SelectorStats {
        self.selector.borrow().stats()
    }

    /// Run every later `select` through `around` (see [`WaitAround`]).
    pub(crate) fn set_wait_around(&self, around: Option<WaitAround>) {
        self.selector.borrow_mut().set_wait_around(around);
    }

    /// Wait on `proactor` in step 3 instead of on epoll (chapter 10); `None` puts epoll back.
    pub(crate) fn set_proactor(&self, proactor: Option<Rc<dyn Proactor>>) {
        self.selector.borrow_mut().set_proactor(proactor);
    }

    /// The proactor step 3 waits on, if any (chapter 10), borrowed from nothing.
    pub(crate) fn proactor(&self) -> Option<Rc<dyn Proactor>> {
        self.selector.borrow().proactor()
    }

    /// Note that `fd` belongs to a transport, whose `closing` flag this is (chapter 8).
    pub(crate) fn attach_transport(&self, fd: RawFd, closing: Weak<Cell<bool>>) {
        self.transports.borrow_mut().attach(fd, closing);
    }

    /// `fd` is no longer a transport's: its socket is being closed.
    pub(crate) fn detach_transport(&self, fd: RawFd) {
        self.transports.borrow_mut().detach(fd);
    }

    /// asyncio's `_ensure_fd_no_transport`: refuse a transport's `fd` to `add_reader`.
    pub(crate) fn ensure_fd_no_transport(&self, fd: RawFd) -> Result<(), Error> {
        self.transports.borrow().ensure_fd_no_transport(fd)
    }

    /// The queue other threads fill.
    pub(crate) fn remote(&self) -> &Arc<RemoteQueue<L>> {
        &self.remote
    }

    /// The self-pipe's read end, which the loop watches with a reader.
    pub(crate) fn self_pipe_fd(&self) -> RawFd {
        self.self_pipe.fd()
    }

    /// Drain the self-pipe; true if it is empty now (a read would block).
    pub(crate) fn drain_self_pipe(&self) -> bool {
        self.self_pipe.drain()
    }

    /// The handlers of the signals that arrived since the last look, to queue.
    pub(crate) fn arrived_signals(&self) -> Vec<Handle<L>> {
        self.signals.borrow_mut().arrived()
    }

    /// Handle `sig` with `handle`; returns the handler it replaces.
    pub(crate) fn add_signal(
        &self,
        sig: i32,
        handle: Handle<L>,
    ) -> Result<Option<Handle<L>>, Error> {
        let pipe: Socket = self.remote.write_end()?;
        self.signals.borrow_mut().add(sig, handle, pipe)
    }

    /// Stop handling `sig`; true if it was handled.
    pub(crate) fn remove_signal(&self, sig: i32) -> bool {
        self.signals.borrow_mut().remove(sig)
    }

    /// The table and the signals, for a recording; `None` while either is being changed.
    pub(crate) fn try_tables(&self) -> Option<Tables<'_, L>> {
        Some((
            self.table.try_borrow().ok()?,
            self.signals.try_borrow().ok()?,
        ))
    }

    /// Drop every reader, writer and signal handler (the loop closes); returns the
    /// waiters, for the caller to drop once no borrow is held.
    pub(crate) fn clear(&self) -> Vec<Waiter<L>> {
        self.signals.borrow_mut().clear();
        self.with_table(|table, selector| table.clear(selector))
    }

    /// The loop is gone: close the remote queue, dropping what was left in it, and
    /// restore the signals' actions.
    pub(crate) fn shut_down(&mut self) {
        for item in self.remote.close() {
            drop(item); // the loop is gone: nothing can run them
        }
        self.signals.get_mut().clear();
    }
}
