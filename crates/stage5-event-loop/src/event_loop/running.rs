//! Whether a loop runs, and whether another runs on this thread (book chapter 5, "Running,
//! stopping, closing"; asyncio's `base_events.py`: `_check_running`, and the `try` ...
//! `finally` of `run_forever` that clears `_stopping` and the running loop).
//!
//! `run_forever` (`lifecycle.rs`) and a lone `run_once` (`run_once.rs`) both mark the loop
//! running for as long as they run, with a guard that unmarks it on the way out, even by a
//! panic. It is here, below both, so that `lifecycle.rs` can call `run_once.rs` and neither
//! imports the other's file.
//!
//! What changed since stage 4: stage 4's scheduler could be run inside its own callback;
//! this loop refuses, as asyncio's does.

use std::cell::Cell;

use crate::errors::Error;
use crate::event_loop::EventLoop;

/// Marks the loop running for as long as it lives; on the way out (even by a panic of the
/// loop's own), clears `running` and `stopping`, as `run_forever`'s `finally` does.
pub(super) struct Running<'a> {
    lp: &'a EventLoop,
    clear_stopping: bool,
}

impl<'a> Running<'a> {
    /// For `run_forever`: fails if the loop already runs.
    pub(super) fn enter(lp: &'a EventLoop) -> Result<Running<'a>, Error> {
        Running::start(lp, true)
    }

    /// For a lone `run_once`: a `stop()` it sees is left for the next `run_forever`.
    pub(super) fn enter_once(lp: &'a EventLoop) -> Result<Running<'a>, Error> {
        Running::start(lp, false)
    }

    fn start(lp: &'a EventLoop, clear_stopping: bool) -> Result<Running<'a>, Error> {
        lp.check_running()?;
        RUNNING_HERE.set(std::process::id());
        lp.inner.state.running.set(true);
        Ok(Running { lp, clear_stopping })
    }
}

impl EventLoop {
    /// asyncio's `_check_running`: fails if this loop runs already, or another loop runs
    /// on this thread (whose callback this is: running here would block that loop).
    pub(crate) fn check_running(&self) -> Result<(), Error> {
        if self.inner.state.running.get() {
            Err(Error::AlreadyRunning)
        } else if RUNNING_HERE.get() == std::process::id() {
            Err(Error::AnotherLoopRunning)
        } else {
            Ok(())
        }
    }
}

thread_local! {
    /// The process in which a loop runs on this thread, 0 if none (asyncio's
    /// `events._get_running_loop() is not None`, which also checks the process id: a
    /// child forked from a running loop's callback has no loop running, and may run one).
    static RUNNING_HERE: Cell<u32> = const { Cell::new(0) };
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        RUNNING_HERE.set(0);
        self.lp.inner.state.running.set(false);
        if self.clear_stopping {
            self.lp.inner.state.stopping.set(false);
        }
    }
}
