//! The task whose step runs now, for the trace only (book chapter 6, "Real wakers"; seed 003,
//! section 4.1.2's `sched.current`, kept here for the trace alone).
//!
//! Stages 2 to 4 needed a `current` slot to know which task was waiting. Stage 5 does not:
//! a task's waker travels in the `Context` to whatever it waits for. But a queue or a socket
//! operation that wants to *say* which task waits (`queue get: empty, t3 waits`) has no other
//! way to know; this slot is set while a task's step runs, and read only by the trace.

use stage1::Id;

thread_local! {
    /// The task whose step runs now, for the trace only: a queue or a socket operation
    /// names the task that waits (stages 2 to 4 had it in their `current` slot; the loop
    /// itself never needs it).
    static CURRENT: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// The task whose step runs now, as the trace names it, if a task's step runs.
pub(crate) fn current_task() -> Option<Id> {
    CURRENT.get().map(Id::Task)
}

/// Marks a task's step as running for as long as it lives, even through a panic.
pub(crate) struct Current(Option<u64>);

impl Current {
    pub(crate) fn enter(id: u64) -> Current {
        Current(CURRENT.replace(Some(id)))
    }
}

impl Drop for Current {
    fn drop(&mut self) {
        CURRENT.set(self.0);
    }
}
