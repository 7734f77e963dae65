//! The selector half of the loop: what chapter 7's readers, sockets, threads and signals go
//! through (book chapter 7, "Readers and writers on a selector" and "The self-pipe";
//! asyncio's `BaseSelectorEventLoop`:
//! `_add_reader`, `_remove_reader`, `_make_self_pipe`, `_read_from_self`).
//!
//! asyncio's selector loop is a subclass of the base loop that owns the selector, the
//! readers and writers and the self-pipe. Ours is one `EventLoop` that holds an I/O driver
//! (`io_driver/driver.rs`, `IoDriver`), which owns them and knows no loop: chapter 7's
//! faces (`add_reader`, `sock_recv`, `call_soon_threadsafe`, `add_signal_handler`) reach it
//! only through the few methods below, each a call to the driver. What is there for speed,
//! not for asyncio (the checks of waits on kept registrations, step 3's nap before a long
//! sleep), is the driver's too, in its child `wait_checks.rs` (book, "Going further").
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
use std::time::Duration;

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle};
use crate::io_driver::io_table::{Done, Release, Waiter};
use crate::io_driver::selector::{Proactor, SelectorStats, WaitAround};
use crate::io_driver::self_pipe::RemoteQueue;

impl EventLoop {
    // ANCHOR: watch_self_pipe
    /// asyncio's `_make_self_pipe` ends with `_add_reader(self._ssock.fileno(),
    /// self._read_from_self)`. Ours is handle #0, and not traced: it is the loop's own.
    pub(super) fn watch_self_pipe(&self) -> Result<(), Error> {
        let reader = Handle::new_repeating(0, EventLoop::read_from_self);
        let fd = self.inner.io.self_pipe_fd();
        self.add_waiter(fd, Interest::Read, Waiter::Callback(reader))?;
        Ok(())
    }
    // ANCHOR_END: watch_self_pipe

    // ANCHOR: read_from_self
    /// asyncio's `_read_from_self`, the self-pipe's reader: drain the bytes, then queue the
    /// handlers of the signals that arrived.
    fn read_from_self(&self) {
        if self.inner.io.drain_self_pipe() {
            self.would_block(self.inner.io.self_pipe_fd(), Interest::Read);
        }
        let arrived = self.inner.io.arrived_signals();
        for handle in arrived {
            loop_trace!(self, "signal arrived: queue {}", handle.trace_id());
            self.push_ready(handle);
        }
    }
    // ANCHOR_END: read_from_self

    /// Step 3's `select` for at most `timeout` (`IoDriver::select`: a nap first, then a
    /// check of the waits not checked yet, before a long sleep).
    pub(super) fn select_io(&self, timeout: Option<Duration>) -> io::Result<usize> {
        let clock = &*self.inner.core.clock;
        self.inner
            .io
            .select(timeout, clock, |checked| self.checked_waits(checked))
    }

    /// Check every wait not checked yet (the loop is about to sleep); true if a task was
    /// woken.
    pub(super) fn check_all_waits(&self) -> bool {
        self.inner
            .io
            .check_all_waits(|checked| self.checked_waits(checked))
    }

    /// The trace's word on a check before sleeping.
    fn checked_waits(&self, checked: usize) {
        loop_trace!(self, "select: checked {checked} waits before sleeping");
    }

    /// Install `waiter` on `fd` for `interest`; returns the one it replaces.
    pub(crate) fn add_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<EventLoop>,
    ) -> io::Result<Option<Waiter<EventLoop>>> {
        self.inner.io.add(fd, interest, waiter)
    }

    /// A task's operation found `fd` not ready for `interest`: wait with `waker`.
    pub(crate) fn io_wait(&self, fd: RawFd, interest: Interest, waker: &Waker) -> io::Result<()> {
        self.inner.io.wait(fd, interest, waker)
    }

    /// A task's operation on `fd` ended, `waited` or not, as `done` says.
    #[inline]
    pub(crate) fn io_done(&self, fd: RawFd, interest: Interest, waited: bool, done: Done) {
        self.inner.io.done(fd, interest, waited, done);
    }

    /// True if a short read emptied `fd` and no edge came since: a read would block.
    #[inline]
    pub(crate) fn is_drained(&self, fd: RawFd) -> bool {
        self.inner.io.is_drained(fd)
    }

    /// Take `fd`'s waiter for `interest` out; a descriptor left with none is deregistered
    /// when `release` says.
    pub(crate) fn remove_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        release: Release,
    ) -> Option<Waiter<EventLoop>> {
        self.inner.io.remove(fd, interest, release)
    }

    /// True if `fd` has a waiter for `interest`.
    pub(crate) fn has_waiter(&self, fd: RawFd, interest: Interest) -> bool {
        self.inner.io.has(fd, interest)
    }

    /// A socket operation saw `WouldBlock` on `fd`.
    pub(crate) fn would_block(&self, fd: RawFd, interest: Interest) {
        self.inner.io.would_block(fd, interest);
    }

    /// A reader's read on `fd` came back short: no re-arm unless the end is still to come.
    pub(crate) fn read_short(&self, fd: RawFd) {
        self.inner.io.read_short(fd);
    }

    /// `fd` is a new socket: forget what was known under its number.
    pub(crate) fn forget_fd(&self, fd: RawFd) {
        self.inner.io.forget(fd);
    }

    /// The selector's counters: how many registrations, re-arms and deregistrations the
    /// loop's I/O has cost so far.
    pub fn selector_stats(&self) -> SelectorStats {
        self.inner.io.stats()
    }

    /// Run every later `select` of this loop through `around`: the seam a host language
    /// uses to release its interpreter lock while the loop sleeps (see [`WaitAround`]).
    pub fn set_wait_around(&self, around: Option<WaitAround>) {
        self.inner.io.set_wait_around(around);
    }

    /// Note that `fd` belongs to a transport, whose `closing` flag this is (chapter 8).
    pub(crate) fn attach_transport(&self, fd: RawFd, closing: Weak<Cell<bool>>) {
        self.inner.io.attach_transport(fd, closing);
    }

    /// `fd` is no longer a transport's: its socket is being closed.
    pub(crate) fn detach_transport(&self, fd: RawFd) {
        self.inner.io.detach_transport(fd);
    }

    /// asyncio's `_ensure_fd_no_transport`: refuse a transport's `fd` to `add_reader`.
    pub(crate) fn ensure_fd_no_transport(&self, fd: RawFd) -> Result<(), Error> {
        self.inner.io.ensure_fd_no_transport(fd)
    }

    /// Wait on `proactor` in step 3 instead of on epoll (chapter 10: stage 6's io_uring);
    /// `None` puts epoll back.
    pub fn set_proactor(&self, proactor: Option<Rc<dyn Proactor>>) {
        self.inner.io.set_proactor(proactor);
    }

    /// The queue other threads fill.
    pub(crate) fn remote(&self) -> &Arc<RemoteQueue<EventLoop>> {
        self.inner.io.remote()
    }

    /// Handle `sig` with `handle`; returns the handler it replaces.
    pub(crate) fn install_signal_handler(
        &self,
        sig: i32,
        handle: Handle,
    ) -> Result<Option<Handle>, Error> {
        self.inner.io.add_signal(sig, handle)
    }

    /// Stop handling `sig`; true if it was handled.
    pub(crate) fn uninstall_signal_handler(&self, sig: i32) -> bool {
        self.inner.io.remove_signal(sig)
    }
}
