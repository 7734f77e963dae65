//! Who cancels a future: the future itself, or, for a task's or `gather`'s, the task or the
//! gather (book chapter 6, "Cancellation", and "Going further", "Smaller futures"; asyncio's
//! `Future.cancel`, and `Task.cancel` and `_GatheringFuture.cancel`, which override it).
//!
//! asyncio overrides `cancel` in two subclasses of `Future`: a task's asks its coroutine to
//! stop at its next step, a gather's cancels its children. Our `Future<T>` has no
//! subclasses; its state holds a [`Canceller`] instead, which `cancel` asks first.
//!
//! How the canceller names a task is a matter of bytes, not of asyncio ("Going further"): a
//! `Weak` to the task rather than a boxed closure (gather's kind), which would cost every
//! task one more allocation; and once the task has failed, only its number, in the same
//! slot, rather than in a field every future would carry.
//!
//! What changed since stage 4: stage 4 had no futures, and no way to cancel a task.

use std::rc::Weak;

use super::{Future, Outcome};
use crate::event_loop::EventLoop;
use crate::parts::registry::Step;

// ANCHOR: canceller
/// What `cancel` asks instead of cancelling the future itself.
pub(crate) enum Canceller {
    /// The task whose output this is: a task's future is labelled `Task`. Weak: the task
    /// owns its future, not the other way round.
    Task(Weak<dyn Step<EventLoop>>),
    /// Nobody: the task failed, so its future is done and `cancel` has no one to ask. The
    /// slot keeps the task's number, for the report if nobody retrieves the exception
    /// (`<Task t3 ...>`), rather than a field every future would carry.
    Nobody { failed_task: u64 },
    /// Anything else: `gather` cancels its children.
    Call(Box<dyn Fn() -> bool>),
}
// ANCHOR_END: canceller

impl Canceller {
    /// What a task's future keeps once task `id` has failed: nobody to ask, its number.
    pub(crate) fn failed(id: u64) -> Canceller {
        Canceller::Nobody { failed_task: id }
    }
}

impl<T: 'static> Future<T> {
    /// Cancel the future: if it is pending, mark it cancelled, schedule its callbacks and
    /// return true; if it is done, return false. The future of a task asks the task
    /// instead: the task's next step ends it as cancelled (asyncio's `Task.cancel`).
    pub fn cancel(&self) -> bool {
        // Out of the state first: the canceller may look at this future.
        let canceller = {
            let mut state = self.inner.state.borrow_mut();
            if !matches!(state.outcome, Outcome::Pending) {
                // Done: nothing to cancel, and a gather that failed leaves its other
                // children alone (`_GatheringFuture.cancel` checks `done()` first).
                return false;
            }
            match &state.canceller {
                Some(Canceller::Task(task)) => Some(Canceller::Task(task.clone())),
                Some(Canceller::Call(_)) => state.canceller.take(),
                // (A failed task's future is done: the check above returned.)
                Some(Canceller::Nobody { .. }) | None => None,
            }
        };
        match canceller {
            Some(Canceller::Task(task)) => task.upgrade().is_some_and(|task| task.cancel()),
            Some(Canceller::Call(call)) => {
                let cancelling = call();
                self.inner.state.borrow_mut().canceller = Some(Canceller::Call(call));
                cancelling
            }
            Some(Canceller::Nobody { .. }) | None => self.cancel_now(),
        }
    }

    /// Cancel now, bypassing a task's canceller: how the task's step ends it.
    pub(crate) fn cancel_now(&self) -> bool {
        self.finish(Outcome::Cancelled).is_ok()
    }

    /// Make `cancel` ask `canceller` instead (a task, `gather`).
    pub(crate) fn set_canceller(&self, canceller: Canceller) {
        self.inner.state.borrow_mut().canceller = Some(canceller);
    }
}
