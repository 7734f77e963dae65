//! What a future says about itself: its repr, and the report of an exception nobody
//! retrieved (book chapter 6, "Futures"; asyncio's `Future.__repr__` and `Future.__del__`,
//! "exception was never retrieved").
//!
//! asyncio reports a future that is collected with an exception nobody looked at, so a
//! task that fails with nobody awaiting it is not silent. Rust has no collector: the report
//! comes when the last handle to the future is dropped.
//!
//! What changed since stage 4: stage 4 had no futures; a task that panicked took the
//! scheduler down with it.

use std::fmt;

use super::{Canceller, Future, FutureInner, Outcome, State};
use crate::event_loop::ExceptionContext;

impl<T> Drop for FutureInner<T> {
    /// asyncio's `Future.__del__`: an exception nobody ever retrieved is reported to the
    /// loop's exception handler, so a failing task that nobody awaits is not silent.
    fn drop(&mut self) {
        if !self.log_unretrieved.get() {
            return;
        }
        let Some(lp) = self.lp.upgrade() else {
            return;
        };
        let Ok(state) = self.state.try_borrow() else {
            return;
        };
        if let Outcome::Finished(Err(error)) = &state.outcome {
            let task = match state.canceller {
                Some(Canceller::Nobody { failed_task }) => {
                    Some(format!("<Task t{failed_task} {}>", state.name()))
                }
                _ => None,
            };
            let context = ExceptionContext {
                message: format!("{} exception was never retrieved", state.label()),
                exception: Some(error.clone()),
                task, // asyncio's `future` key: the task, named as the trace names it
                ..ExceptionContext::default()
            };
            drop(state);
            lp.call_exception_handler(&context);
        }
    }
}

impl<T> Future<T> {
    /// The state as a word: `pending`, `cancelled`, `finished`, or `finished with an
    /// exception`.
    pub fn state_name(&self) -> &'static str {
        self.inner.state.borrow().name()
    }
}

impl<T> State<T> {
    fn name(&self) -> &'static str {
        match &self.outcome {
            Outcome::Pending => "pending",
            Outcome::Cancelled => "cancelled",
            Outcome::Finished(Ok(_)) => "finished",
            Outcome::Finished(Err(_)) => "finished with an exception",
        }
    }

    /// What a repr calls it: `Task` for a task's future.
    fn label(&self) -> &'static str {
        match self.canceller {
            Some(Canceller::Task(_) | Canceller::Nobody { .. }) => "Task",
            _ => "Future",
        }
    }
}

impl<T> fmt::Display for Future<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = self.inner.state.borrow().label();
        write!(f, "<{label} {}>", self.state_name())
    }
}

impl<T> fmt::Debug for Future<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
