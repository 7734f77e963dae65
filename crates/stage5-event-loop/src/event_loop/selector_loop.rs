//! The selector half of the loop: what chapter 7's readers, threads and signals and chapter
//! 8's transports go through (book chapter 7, "Readers and writers on a selector" and "The self-pipe";
//! asyncio's `BaseSelectorEventLoop`:
//! `_add_reader`, `_remove_reader`, `_make_self_pipe`, `_read_from_self`).
//!
//! asyncio's selector loop is a subclass of the base loop that owns the selector, the
//! readers and writers and the self-pipe. Ours is one `EventLoop` that holds an I/O driver
//! (`io_driver/driver.rs`, `IoDriver`), which owns them and knows no loop: chapter 7's
//! faces (`add_reader`, `call_soon_threadsafe`, `add_signal_handler`) and the transports
//! reach it through the few methods below, each a call to the driver; a socket operation
//! (`io/sockets.rs`) and step 3 (`run_once.rs`) call the driver itself. What is there for speed,
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

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle};
use crate::io_driver::io_table::{Release, Waiter};
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

    /// Install `waiter` on `fd` for `interest`; returns the one it replaces.
    pub(crate) fn add_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        waiter: Waiter<EventLoop>,
    ) -> io::Result<Option<Waiter<EventLoop>>> {
        self.inner.io.add(fd, interest, waiter)
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
