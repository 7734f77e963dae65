//! The task whose step runs now, and the future it waits on (book chapter 6, "Real
//! wakers" and "Cancelling a task"; seed 003, section 4.1.2's `sched.current`, asyncio's
//! `Task._fut_waiter`).
//!
//! Stages 2 to 4 needed a `current` slot to know which task was waiting. Stage 5 does not:
//! a task's waker travels in the `Context` to whatever it waits for. But a queue or a socket
//! operation that wants to *say* which task waits (`queue get: empty, t3 waits`) has no other
//! way to know; this slot is set while a task's step runs, and read by the trace.
//!
//! The step also notes which [`Future`](crate::Future) the task stopped at, as asyncio's
//! task keeps the future it awaits in `_fut_waiter`: cancelling the task cancels that
//! future first (a task it awaits, a `gather` and its children). A step that stopped at
//! several futures at once (`first_of`, asyncio's `wait`) or at none (a socket) notes none.
//!
//! What changed since stage 4: stage 4's `current` slot was how a task was found; here it
//! only names it, and remembers what it awaits.

use std::cell::{Cell, RefCell};
use std::rc::Weak;

use stage1::Id;

/// A future a task can wait on, seen from the task: it can be cancelled.
pub(crate) trait Cancel {
    /// Cancel it (`Future::cancel`); false if it was done already.
    fn cancel_awaited(self: std::rc::Rc<Self>) -> bool;
}

/// What the running step stopped at so far.
#[derive(Default)]
pub(crate) enum Awaited {
    /// No future (yet).
    #[default]
    Nothing,
    /// One future: the address says which, so that polling it twice is still one.
    One(*const (), Weak<dyn Cancel>),
    /// Several futures at once: none of them is *the* one to cancel.
    Several,
}

thread_local! {
    /// The task whose step runs now: a queue or a socket operation names the task that
    /// waits (stages 2 to 4 had it in their `current` slot).
    static CURRENT: Cell<Option<u64>> = const { Cell::new(None) };
    /// What the running step stopped at (asyncio's `_fut_waiter`, while it is decided).
    static AWAITED: RefCell<Awaited> = const { RefCell::new(Awaited::Nothing) };
}

/// The task whose step runs now, as the trace names it, if a task's step runs.
pub(crate) fn current_task() -> Option<Id> {
    CURRENT.get().map(Id::Task)
}

/// A future that returned `Pending` to the running step: note it (`future` makes the weak
/// reference only if it is needed). Outside a task's step, nothing to note.
pub(crate) fn awaiting(address: *const (), future: impl FnOnce() -> Weak<dyn Cancel>) {
    if CURRENT.get().is_none() {
        return;
    }
    AWAITED.with_borrow_mut(|awaited| {
        *awaited = match std::mem::take(awaited) {
            Awaited::Nothing => Awaited::One(address, future()),
            Awaited::One(known, weak) if known == address => Awaited::One(known, weak),
            Awaited::One(..) | Awaited::Several => Awaited::Several,
        }
    });
}

/// The running step waits on several things at once, whatever it notes after this.
pub(crate) fn awaiting_several() {
    if CURRENT.get().is_some() {
        AWAITED.set(Awaited::Several);
    }
}

/// Marks a task's step as running for as long as it lives, even through a panic.
pub(crate) struct Current(Option<u64>, Awaited);

impl Current {
    pub(crate) fn enter(id: u64) -> Current {
        Current(CURRENT.replace(Some(id)), AWAITED.take())
    }

    /// The one future the step stopped at, if there was exactly one.
    pub(crate) fn awaited(&self) -> Option<Weak<dyn Cancel>> {
        match AWAITED.take() {
            Awaited::One(_, weak) => Some(weak),
            Awaited::Nothing | Awaited::Several => None,
        }
    }
}

impl Drop for Current {
    fn drop(&mut self) {
        CURRENT.set(self.0);
        AWAITED.set(std::mem::take(&mut self.1));
    }
}
