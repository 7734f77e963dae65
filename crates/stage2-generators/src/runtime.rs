//! How a coroutine finds the scheduler running it (book chapter 2, "No global `sched`";
//! Beazley's talk).
//!
//! The talk's coroutines reach their scheduler through a global: `sched.sleep(1)` inside
//! `countdown`, `sched.current` inside the queue. Stage 1 replaced the global with an
//! argument, but a future cannot receive one: all it gets when polled is a `Context`.
//!
//! So the scheduler leaves a pointer to itself in a thread-local while it runs a task,
//! and the few functions a coroutine calls ([`sleep`], [`suspend`], and through them
//! [`AsyncQueue`](crate::AsyncQueue)) look it up there. The pointer is typed as the small
//! [`Runtime`] trait rather than as stage 2's [`Scheduler`](crate::Scheduler), so that stage
//! 3's scheduler can stand in for it and reuse this queue and `sleep` as they are.
//!
//! `Runtime` is also where the talk's `current` slot is used. The scheduler sets
//! `current` to the task it is about to run, and re-queues the task afterwards only if it
//! is still there. A coroutine that must *not* be re-queued (it sleeps, or waits for a
//! queue) takes itself out first: the talk's `sched.current = None`.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use crate::switch::switch;

/// What a coroutine may ask of whatever scheduler is running it.
pub trait Runtime {
    /// Take the running task out of the `current` slot, so the scheduler will not re-queue
    /// it after this turn (`sched.current = None`), and return what makes it ready again.
    fn suspend_current(self: Rc<Self>) -> Suspended;

    /// Take the running task out of `current` and have it made ready again once `delay`
    /// has passed: the body of the talk's `sched.sleep`, without the switch.
    fn sleep_current(self: Rc<Self>, delay: Duration);
}

/// A task taken out of its scheduler's `current` slot; [`Suspended::resume`] puts it back
/// in the ready queue. Dropping it instead leaves the task waiting forever.
#[must_use = "a suspended task that is never resumed never runs again"]
pub struct Suspended {
    resume: Box<dyn FnOnce()>,
}

impl Suspended {
    /// Wrap what a scheduler must do to make a task ready again.
    pub fn new(resume: impl FnOnce() + 'static) -> Suspended {
        Suspended {
            resume: Box::new(resume),
        }
    }

    /// Make the task ready again: the talk's `sched.ready.append(task)`.
    pub fn resume(self) {
        (self.resume)();
    }
}

impl fmt::Debug for Suspended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Suspended")
    }
}

thread_local! {
    static RUNNING: RefCell<Option<Rc<dyn Runtime>>> = const { RefCell::new(None) };
}

// ANCHOR: enter
/// Run `f` with `runtime` as this thread's running scheduler; the previous one (if any) is
/// restored afterwards, even if `f` panics.
pub fn enter<R>(runtime: Rc<dyn Runtime>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Rc<dyn Runtime>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            RUNNING.with(|r| *r.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(RUNNING.with(|r| r.replace(Some(runtime))));
    f()
}

/// The scheduler running the current task. Calling a coroutine helper outside any
/// scheduler is a programming error, reported as such.
fn running() -> Rc<dyn Runtime> {
    RUNNING.with(|r| r.borrow().clone()).expect(
        "stage2: sleep() and AsyncQueue::get() must be awaited inside a task run by a scheduler",
    )
}
// ANCHOR_END: enter

/// Take the running task out of its scheduler's `current` slot; see
/// [`Runtime::suspend_current`]. The caller stores the result where whoever will wake the
/// task can find it, then awaits [`switch()`](crate::switch()).
pub fn suspend() -> Suspended {
    running().suspend_current()
}

// ANCHOR: sleep
/// Pause the running task for `delay` without blocking the scheduler: the talk's
/// `sched.sleep`. The task leaves the `current` slot for the sleeping heap, then switches
/// away; the scheduler makes it ready again when the delay has passed.
pub async fn sleep(delay: Duration) {
    running().sleep_current(delay);
    switch().await;
}
// ANCHOR_END: sleep
