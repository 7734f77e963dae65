//! The task whose step runs now, and the future it waits on (book chapter 6, "Real
//! wakers" and "Cancellation"; the `sched.current` of Beazley's talk, asyncio's
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
//! A pending future of *another* loop would never wake the task (its callbacks run on that
//! loop), and neither would the task's own output. asyncio's step sees either and throws a
//! `RuntimeError` into the coroutine at its next step; the step notes it here, and at the
//! next step the same future's `poll` fails instead of waiting.
//!
//! What changed since stage 4: stage 4's `current` slot was how a task was found; here it
//! only names it, and remembers what it awaits.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use scaffold::Id;

use crate::errors::Error;

/// A future a task can wait on, seen from the task: it can be cancelled.
pub(crate) trait Cancel {
    /// Cancel it (`Future::cancel`); false if it was done already.
    fn cancel_awaited(self: Rc<Self>) -> bool;
}

/// What the running step stopped at so far.
#[derive(Default)]
enum Awaited {
    /// No future (yet).
    #[default]
    Nothing,
    /// One future: the address says which, so that polling it twice is still one.
    One(usize, Weak<dyn Cancel>),
    /// Several futures at once: none of them is *the* one to cancel.
    Several,
    /// A pending future the task must not wait on (its address): the next step fails it.
    Refused(usize),
}

/// What a future that is pending does, as `awaiting` decides.
pub(crate) enum Verdict {
    /// Wait: add the task's waker to the done callbacks.
    Wait,
    /// A future the task must not wait on, met for the first time: wake the task, whose
    /// next step polls it again.
    WakeToFail,
    /// The same future, met again at the step after: fail with this error.
    Fail(Error),
}

/// The task whose step runs now.
#[derive(Clone, Copy)]
struct Running {
    id: u64,
    lp: usize,  // its loop's address
    own: usize, // the address of its own output's future
}

/// The running step, as the thread-local slot keeps it.
struct StepSlot {
    task: Option<Running>,
    awaited: Awaited, // what it stopped at (asyncio's `_fut_waiter`, being decided)
    refused: Option<usize>, // the future its task must not have waited on: it fails now
}

const IDLE: StepSlot = StepSlot {
    task: None,
    awaited: Awaited::Nothing,
    refused: None,
};

thread_local! {
    /// The running step: a queue or a socket operation names the task that waits (stages
    /// 2 to 4 had it in their `current` slot), a future notes itself. One slot, so that
    /// a step's start and end each touch the thread-local once.
    static STEP: RefCell<StepSlot> = const { RefCell::new(IDLE) };
}

/// The task whose step runs now, as the trace names it, if a task's step runs.
pub(crate) fn current_task() -> Option<Id> {
    STEP.with_borrow(|step| step.task.map(|task| Id::Task(task.id)))
}

/// The future at `address`, of the loop at `lp`, is pending as the running step polls it:
/// note it (`future` makes the weak reference only if it is needed), and say whether to
/// wait. Outside a task's step, nothing to note: wait.
pub(crate) fn awaiting(
    address: usize,
    lp: usize,
    future: impl FnOnce() -> Weak<dyn Cancel>,
) -> Verdict {
    STEP.with_borrow_mut(|step| {
        let Some(task) = step.task else {
            return Verdict::Wait;
        };
        // ANCHOR: refused
        let refused = if address == task.own {
            Some(Error::AwaitsItself)
        } else if lp != task.lp {
            Some(Error::ForeignFuture)
        } else {
            None
        };
        if let Some(error) = refused {
            if step.refused == Some(address) {
                return Verdict::Fail(error);
            }
            step.awaited = Awaited::Refused(address);
            return Verdict::WakeToFail;
        }
        // ANCHOR_END: refused
        step.awaited = match std::mem::take(&mut step.awaited) {
            Awaited::Nothing => Awaited::One(address, future()),
            Awaited::One(known, weak) if known == address => Awaited::One(known, weak),
            Awaited::Refused(other) => Awaited::Refused(other),
            Awaited::One(..) | Awaited::Several => Awaited::Several,
        };
        Verdict::Wait
    })
}

/// The running step waits on several things at once, whatever it notes after this.
pub(crate) fn awaiting_several() {
    STEP.with_borrow_mut(|step| {
        if step.task.is_some() && !matches!(step.awaited, Awaited::Refused(_)) {
            step.awaited = Awaited::Several;
        }
    });
}

/// What a task remembers from one step to the next: what its last step stopped at, of
/// which the next step needs the future it waits on (asyncio's `_fut_waiter`) or the one
/// it must not wait on, which fails then.
///
/// Boxed, and only once a step stops at a future: a task that only ever waits on sockets
/// (an idle connection, of which a server holds thousands) keeps one null pointer here;
/// the box, once made, is kept for the task's later steps.
#[derive(Default)]
pub(crate) struct LastAwait(Cell<Option<Box<Awaited>>>);

impl LastAwait {
    /// Task `id` of the loop at `lp`, whose output's future is at `own`, steps: it waits
    /// on nothing now, and the future it must not wait on fails.
    #[inline]
    pub(crate) fn enter(&self, id: u64, lp: usize, own: usize) -> Current<'_> {
        let mut refused = None;
        if let Some(mut last) = self.0.take() {
            if let Awaited::Refused(address) = *last {
                refused = Some(address);
            }
            *last = Awaited::Nothing;
            self.0.set(Some(last));
        }
        let task = Some(Running { id, lp, own });
        let previous = STEP.with_borrow_mut(|step| match step.task {
            // No step runs (the usual case): the slot is idle, fill it in place.
            None => {
                step.task = task;
                step.refused = refused;
                None
            }
            // A step runs inside another (a nested `run_until_complete`): keep the outer.
            Some(_) => Some(std::mem::replace(
                step,
                StepSlot {
                    task,
                    awaited: Awaited::Nothing,
                    refused,
                },
            )),
        });
        Current {
            last_await: self,
            previous,
        }
    }

    /// Remember what the step that just ended stopped at, in the box (made once, kept for
    /// the task's later steps). Out of line: a step that waited on a socket has nothing to
    /// note, and its end stays small.
    #[inline(never)]
    fn note(&self, awaited: Awaited) {
        let mut last = self.0.take().unwrap_or_default();
        *last = awaited;
        self.0.set(Some(last));
    }

    /// Cancel the future the task waits on (asyncio's `_fut_waiter.cancel()`); false if
    /// there is none, or it was done. It stays noted: a second cancel asks it again.
    pub(crate) fn cancel_awaited(&self) -> bool {
        let last = self.0.take();
        let upgraded = match last.as_deref() {
            Some(Awaited::One(_, future)) => future.upgrade(),
            _ => None,
        };
        self.0.set(last);
        upgraded.is_some_and(Cancel::cancel_awaited)
    }
}

/// Marks a task's step as running for as long as it lives, even through a panic; at the
/// end, notes in the task's `LastAwait` what the step stopped at.
pub(crate) struct Current<'a> {
    last_await: &'a LastAwait,
    previous: Option<StepSlot>, // the step this one interrupted, if any: put back at the end
}

impl Drop for Current<'_> {
    #[inline]
    fn drop(&mut self) {
        let awaited = match self.previous.take() {
            // Back to idle, in place: what the step stopped at is taken out.
            None => STEP.with_borrow_mut(|step| {
                step.task = None;
                step.refused = None;
                std::mem::take(&mut step.awaited)
            }),
            Some(previous) => STEP.replace(previous).awaited,
        };
        // Several futures, or none: nothing to cancel or fail (and no box to make).
        if let Awaited::One(..) | Awaited::Refused(_) = awaited {
            self.last_await.note(awaited);
        }
    }
}
