//! The old code still runs: the traits of stages 1 to 4 on the event loop (book chapter 5,
//! "The old code still runs"; the programs of Beazley's talk, on the event loop).
//!
//! Stage 3's `Task` is written against stage 1's [`Schedule`] trait (`call_soon`,
//! `call_later`, `time`), stage 2's `sleep` and `AsyncQueue` against whatever runs the
//! current task, and stage 4's `recv`/`send`/`accept` against stage 4's [`WaitIo`]
//! (`read_wait`, `write_wait`). The event loop implements both traits here, so all of that
//! code runs on it as it is: a stage 3 task is a chain of stage 5 handles, its `sleep` a
//! stage 5 timer, its `recv` a one-shot reader.
//!
//! Two things the old traits cannot say. They have no error: on a closed loop a callback is
//! dropped (and traced), where the loop's own `call_soon` would answer `Err(Closed)`. And
//! their callbacks run when stage 5 runs them: in batches, one iteration at a time, which
//! is where the order of a program's lines can differ from stage 4's (chapter 5 shows it).
//!
//! What changed since stage 4: nothing in the old code; this file is all that is new.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

use stage1::{CallbackId, Schedule};
use stage4::{Interest, WaitIo};

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle};
use crate::io_driver::io_table::{Release, Waiter};

// ANCHOR: schedule
impl Schedule for EventLoop {
    fn call_soon(&self, callback: impl FnOnce(&Self) + 'static) -> CallbackId {
        checked(
            self,
            EventLoop::call_soon(self, callback).map(|handle| handle.id()),
        )
    }

    fn call_later(&self, delay: Duration, callback: impl FnOnce(&Self) + 'static) -> CallbackId {
        let delay = delay.as_secs_f64();
        checked(
            self,
            EventLoop::call_later(self, delay, callback).map(|timer| timer.id()),
        )
    }

    fn time(&self) -> Duration {
        self.clock().now()
    }
}
// ANCHOR_END: schedule

/// The handle's number as stage 1's `CallbackId`; a refused callback (the loop is closed)
/// is traced and gets number 0.
fn checked(lp: &EventLoop, id: Result<u64, Error>) -> CallbackId {
    match id {
        Ok(id) => CallbackId(id),
        Err(error) => {
            loop_trace!(lp, "a stage 1 callback is dropped: {error}");
            CallbackId(0)
        }
    }
}

// ANCHOR: wait_io
impl WaitIo for EventLoop {
    fn read_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Self) + 'static,
    ) -> io::Result<()> {
        self.wait_once(source.as_raw_fd(), Interest::Read, callback)
    }

    fn write_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Self) + 'static,
    ) -> io::Result<()> {
        self.wait_once(source.as_raw_fd(), Interest::Write, callback)
    }
}
// ANCHOR_END: wait_io

impl EventLoop {
    // ANCHOR: wait_once
    /// Stage 4's one-shot wait, as a reader (or writer) that removes itself before it
    /// runs. A second wait on the same descriptor and direction is refused, as in stage 4.
    fn wait_once(
        &self,
        fd: RawFd,
        interest: Interest,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> io::Result<()> {
        if self.is_closed() {
            return Err(io::Error::other("Event loop is closed"));
        }
        if self.has_waiter(fd, interest) {
            let message = format!("fd {fd} already has a {interest} waiter");
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, message));
        }
        let mut callback = Some(callback);
        let handle = Handle::new_repeating(self.next_handle_id(), move |lp: &EventLoop| {
            // Once: the registration stays until the next select, for the next wait. The
            // waiter taken out is this very handle, running now: nothing to cancel.
            drop(lp.remove_waiter(fd, interest, Release::AtNextSelect));
            if let Some(callback) = callback.take() {
                callback(lp);
            }
        });
        let id = handle.trace_id();
        // Reported once the waiter is in, whether it got in or not (the trace says so).
        let added = self.add_waiter(fd, interest, Waiter::Callback(handle));
        let interest = interest.name();
        loop_event!(self, scaffold::Event::IoWait { fd, interest, id });
        added?; // `has_waiter` said no: there is no old waiter to hand back
        Ok(())
    }
    // ANCHOR_END: wait_once
}
