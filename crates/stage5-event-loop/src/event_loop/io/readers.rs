//! Readers and writers: callbacks run while a file descriptor is ready (book chapter 7,
//! "Readers and writers on a selector"; asyncio's
//! `selector_events.py`: `add_reader`, `remove_reader`, `add_writer`, `remove_writer`).
//!
//! asyncio's `add_reader(fd, callback)` registers `fd` with the selector for reading and
//! keeps a `Handle` for it; each iteration, `_process_events` puts the handle of every
//! ready descriptor into the ready queue, so step 5 runs it. Adding a reader to a
//! descriptor that has one replaces it and cancels the old handle; `remove_reader` says
//! whether there was one; a reader whose handle was cancelled is removed instead of run.
//! Writers are the same for writing. The bookkeeping (and the bridge from mio's edges to
//! asyncio's levels) is the I/O table's (`io_table.rs`); this file is the loop's face.
//!
//! What changed since stage 4: stage 4's `read_wait` ran a callback once; a reader is a
//! handle the loop runs again and again, until it is removed.

use std::os::fd::RawFd;

use stage4::Interest;

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle};
use crate::io_driver::io_table::{Release, Waiter};

impl EventLoop {
    // ANCHOR: add_reader
    /// Call `callback` in every iteration while `fd` is readable (asyncio's `add_reader`).
    /// A reader already there is replaced and its handle cancelled. Returns the handle:
    /// cancelling it makes the loop remove the reader instead of calling it. A bad or
    /// closed descriptor is an error.
    pub fn add_reader(
        &self,
        fd: RawFd,
        callback: impl FnMut(&EventLoop) + 'static,
    ) -> Result<Handle, Error> {
        self.ensure_fd_no_transport(fd)?; // chapter 8
        self.add_callback_waiter(fd, Interest::Read, callback)
    }
    // ANCHOR_END: add_reader

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
        self.ensure_fd_no_transport(fd)?; // chapter 8
        self.add_callback_waiter(fd, Interest::Write, callback)
    }

    /// Stop watching `fd` for writing; true if there was a writer.
    pub fn remove_writer(&self, fd: RawFd) -> bool {
        self.remove_callback_waiter(fd, Interest::Write)
    }

    // ANCHOR: add_callback_waiter
    pub(crate) fn add_callback_waiter(
        &self,
        fd: RawFd,
        interest: Interest,
        callback: impl FnMut(&EventLoop) + 'static,
    ) -> Result<Handle, Error> {
        self.check_closed()?;
        let handle = Handle::new_repeating(self.next_handle_id(), callback);
        // Reported once the waiter is in (or refused: the trace says so either way).
        let added = self.add_waiter(fd, interest, Waiter::Callback(handle.clone()));
        loop_trace!(
            self,
            "add_{} fd {fd}: {}",
            waiter_name(interest),
            handle.trace_id()
        );
        if let Some(Waiter::Callback(old)) = added? {
            old.cancel();
        }
        Ok(handle)
    }
    // ANCHOR_END: add_callback_waiter

    pub(crate) fn remove_callback_waiter(&self, fd: RawFd, interest: Interest) -> bool {
        if self.is_closed() {
            return false;
        }
        let old = self.remove_waiter(fd, interest, Release::Now);
        loop_trace!(
            self,
            "remove_{} fd {fd}: {}",
            waiter_name(interest),
            old.is_some()
        );
        match old {
            Some(Waiter::Callback(handle)) => {
                handle.cancel();
                true
            }
            // A task inside `sock_recv` or the like: it stays suspended until cancelled,
            // as in asyncio, where removing the reader of a `sock_recv` is also allowed.
            Some(Waiter::Task(_)) => true,
            None => false,
        }
    }
}

impl EventLoop {
    /// True if `fd` has a reader (or a task waiting to read).
    pub fn has_reader(&self, fd: RawFd) -> bool {
        self.has_waiter(fd, Interest::Read)
    }

    /// True if `fd` has a writer (or a task waiting to write).
    pub fn has_writer(&self, fd: RawFd) -> bool {
        self.has_waiter(fd, Interest::Write)
    }
}

/// "reader" or "writer", for the trace's `add_reader fd 7` lines.
fn waiter_name(interest: Interest) -> &'static str {
    match interest {
        Interest::Read => "reader",
        Interest::Write => "writer",
    }
}
