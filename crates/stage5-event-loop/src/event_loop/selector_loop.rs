//! The selector half of the loop: what chapter 7's readers, sockets, threads and signals go
//! through (book chapter 7, "Readers and writers on a selector" and "The self-pipe";
//! asyncio's `BaseSelectorEventLoop`:
//! `_add_reader`, `_remove_reader`, `_make_self_pipe`, `_read_from_self`).
//!
//! asyncio's selector loop is a subclass of the base loop that owns the selector, the
//! readers and writers and the self-pipe. Ours is one `EventLoop` whose state is private to
//! this folder: chapter 7's faces (`add_reader`, `sock_recv`, `call_soon_threadsafe`,
//! `add_signal_handler`) reach the I/O table, the remote queue and the signal table only
//! through the few methods below, each a short sentence of what it does.
//!
//! What is there for speed, not for asyncio, is in the child module `wait_checks.rs`
//! (book, "Going further", "Making the loop fast"): a task's wait on a kept registration is
//! not re-armed with a system call but checked later, and step 3's `select_io` first naps
//! at most [`CHECK_AFTER`](wait_checks::CHECK_AFTER), in which the edges that end most of
//! those waits come, before it checks the rest and sleeps on.
//!
//! What changed since stage 4: stage 4's scheduler kept one callback per descriptor and
//! direction in a map, and a one-shot selector; the table, the self-pipe and the signals
//! are new.

use std::cell::Cell;
use std::io;
use std::os::fd::RawFd;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::task::Waker;

use socket2::Socket;
use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle, IoDriver};
use crate::parts::io_table::{Done, IoTable, Release, Waiter};
use crate::parts::selector::{Proactor, Selector, SelectorStats, WaitAround};
use crate::parts::self_pipe::RemoteQueue;

mod wait_checks;

impl EventLoop {
    // ANCHOR: watch_self_pipe
    /// asyncio's `_make_self_pipe` ends with `_add_reader(self._ssock.fileno(),
    /// self._read_from_self)`. Ours is handle #0, and not traced: it is the loop's own.
    pub(super) fn watch_self_pipe(&self) -> Result<(), Error> {
        let reader = Handle::new_repeating(0, EventLoop::read_from_self);
        let fd = self.inner.io.self_pipe.fd();
        self.add_waiter(fd, Interest::Read, Waiter::Callback(reader))?;
        Ok(())
    }
    // ANCHOR_END: watch_self_pipe

    // ANCHOR: read_from_self
    /// asyncio's `_read_from_self`, the self-pipe's reader: drain the bytes, then queue the
    /// handlers of the signals that arrived.
    fn read_from_self(&self) {
        if self.inner.io.self_pipe.drain() {
            self.would_block(self.inner.io.self_pipe.fd(), Interest::Read);
        }
        let arrived = self.inner.io.signals.borrow_mut().arrived();
        for handle in arrived {
            loop_trace!(self, "signal arrived: queue {}", handle.trace_id());
            self.push_ready(handle);
        }
    }
    // ANCHOR_END: read_from_self

    /// True if something outside the loop may still wake it: a reader or writer besides
    /// the self-pipe's, a signal handler, another thread holding a `LoopHandle`, or an
    /// operation in flight on a proactor (chapter 10).
    pub(super) fn watches_anything(&self) -> bool {
        self.inner.io.table.borrow().waiters() > 1
            || !self.inner.io.signals.borrow().is_empty()
            || self.inner.io.remote.has_handles()
            || self
                .inner
                .io
                .selector
                .borrow()
                .proactor()
                .is_some_and(|p| p.busy())
    }

    /// Before step 3's `select`: re-arm and release descriptors (`IoTable::before_select`),
    /// and check the registrations of the waits that have gone unchecked for long.
    pub(super) fn before_select(&self) {
        if self.inner.io.table.borrow().quiet() {
            return; // the common case of a busy loop: nothing to re-arm, release or check
        }
        let unchecked = {
            self.inner.io.with_table(|table, selector| {
                table.before_select(selector);
                table.has_unchecked()
            })
        };
        if unchecked {
            // Whether a task was woken does not matter here: its step is queued either way.
            self.check_waits(false);
        }
    }

    /// Install `waiter` on `fd` for `interest`; returns the one it replaces.
    pub(crate) fn add_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<EventLoop>,
    ) -> io::Result<Option<Waiter<EventLoop>>> {
        self.inner
            .io
            .with_table(|table, selector| table.add(selector, fd, interest, waiter))
    }

    /// A task's operation found `fd` not ready for `interest`: wait with `waker`
    /// (`IoTable::wait`: no system call when the registration is kept).
    #[inline]
    pub(crate) fn io_wait(&self, fd: RawFd, interest: Interest, waker: &Waker) -> io::Result<()> {
        let old = self
            .inner
            .io
            .with_table(|table, selector| table.wait(selector, fd, interest, waker))?;
        drop(old); // outside the borrows: a waker's drop may look at the loop
        Ok(())
    }

    /// A task's operation on `fd` ended (`IoTable::done`). Nothing to do, and no borrow,
    /// for one that neither waited nor learned anything about `fd`: a write that went
    /// through, or an error at the first try.
    #[inline]
    pub(crate) fn io_done(&self, fd: RawFd, interest: Interest, waited: bool, done: Done) {
        if waited || matches!(done, Done::Drained | Done::Ended) {
            let old = self
                .inner
                .io
                .with_table(|table, selector| table.done(selector, fd, interest, waited, done));
            drop(old); // outside the borrows: a waker's drop may look at the loop
        }
    }

    /// True if a short read emptied `fd` and no edge came since: a read would block.
    #[inline]
    pub(crate) fn is_drained(&self, fd: RawFd) -> bool {
        self.inner.io.table.borrow().is_drained(fd)
    }

    /// Take `fd`'s waiter for `interest` out; a descriptor left with none is deregistered
    /// when `release` says (see `IoTable::remove`).
    pub(crate) fn remove_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        release: Release,
    ) -> Option<Waiter<EventLoop>> {
        self.inner
            .io
            .with_table(|table, selector| table.remove(selector, fd, interest, release))
    }

    /// True if `fd` has a waiter for `interest`.
    pub(crate) fn has_waiter(&self, fd: RawFd, interest: Interest) -> bool {
        self.inner.io.table.borrow().has(fd, interest)
    }

    /// A socket operation saw `WouldBlock` on `fd`.
    pub(crate) fn would_block(&self, fd: RawFd, interest: Interest) {
        self.inner.io.table.borrow_mut().would_block(fd, interest);
    }

    /// A reader's read on `fd` came back short: no re-arm unless the end is still to come.
    pub(crate) fn read_short(&self, fd: RawFd) {
        self.inner.io.table.borrow_mut().read_short(fd);
    }

    /// `fd` is a new socket: forget what was known under its number.
    pub(crate) fn forget_fd(&self, fd: RawFd) {
        let stale = self.inner.io.table.borrow_mut().forget(fd);
        drop(stale); // outside the borrow: a waker's drop may look at the loop
    }

    /// The selector's counters: how many registrations, re-arms and deregistrations the
    /// loop's I/O has cost so far.
    pub fn selector_stats(&self) -> SelectorStats {
        self.inner.io.selector.borrow().stats()
    }

    /// Run every later `select` of this loop through `around`: the seam a host language
    /// uses to release its interpreter lock while the loop sleeps (see [`WaitAround`]).
    pub fn set_wait_around(&self, around: Option<WaitAround>) {
        self.inner.io.selector.borrow_mut().set_wait_around(around);
    }

    /// Note that `fd` belongs to a transport, whose `closing` flag this is (chapter 8).
    pub(crate) fn attach_transport(&self, fd: RawFd, closing: Weak<Cell<bool>>) {
        self.inner.io.transports.borrow_mut().attach(fd, closing);
    }

    /// `fd` is no longer a transport's: its socket is being closed.
    pub(crate) fn detach_transport(&self, fd: RawFd) {
        self.inner.io.transports.borrow_mut().detach(fd);
    }

    /// asyncio's `_ensure_fd_no_transport`: refuse a transport's `fd` to `add_reader`.
    pub(crate) fn ensure_fd_no_transport(&self, fd: RawFd) -> Result<(), Error> {
        self.inner.io.transports.borrow().ensure_fd_no_transport(fd)
    }

    /// Wait on `proactor` in step 3 instead of on epoll (chapter 10: stage 6's io_uring);
    /// `None` puts epoll back.
    pub fn set_proactor(&self, proactor: Option<Rc<dyn Proactor>>) {
        self.inner.io.selector.borrow_mut().set_proactor(proactor);
    }

    /// The queue other threads fill.
    pub(crate) fn remote(&self) -> &Arc<RemoteQueue<EventLoop>> {
        &self.inner.io.remote
    }

    /// Handle `sig` with `handle`; returns the handler it replaces.
    pub(crate) fn install_signal_handler(
        &self,
        sig: i32,
        handle: Handle,
    ) -> Result<Option<Handle>, Error> {
        let pipe: Socket = self.inner.io.remote.write_end()?;
        self.inner.io.signals.borrow_mut().add(sig, handle, pipe)
    }

    /// Stop handling `sig`; true if it was handled.
    pub(crate) fn uninstall_signal_handler(&self, sig: i32) -> bool {
        self.inner.io.signals.borrow_mut().remove(sig)
    }

    /// Drop every reader, writer and signal handler (the loop closes); returns the
    /// waiters, for the caller to drop once no borrow is held.
    pub(super) fn clear_io(&self) -> Vec<Waiter<EventLoop>> {
        self.inner.io.signals.borrow_mut().clear();
        self.inner
            .io
            .with_table(|table, selector| table.clear(selector))
    }
}

impl IoDriver {
    /// The I/O table and the selector it asks, borrowed together for one call (the table
    /// holds no selector: each operation that may change a registration is handed it).
    #[inline]
    pub(in crate::event_loop) fn with_table<R>(
        &self,
        call: impl FnOnce(&mut IoTable<EventLoop>, &mut Selector) -> R,
    ) -> R {
        let mut selector = self.selector.borrow_mut();
        call(&mut self.table.borrow_mut(), &mut selector)
    }
}
