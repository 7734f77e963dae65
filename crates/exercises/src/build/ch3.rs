//! Build it 3.3: a coroutine wrapped as a callback (book chapter 3, "The Task" and "Sleep
//! is `call_later`"; Beazley's talk: the `Task` whose `__call__` sends the coroutine
//! `None`, on the callback scheduler). A build-it exercise: the skeleton below is given,
//! and you write [`Task::step`]. `tests/build_ch3.rs` runs tasks and plain callbacks
//! together on stage 1's scheduler, once with your `Task` and once with stage 3's, on the
//! virtual clock, and compares what ran when.
//!
//! The scheduler is stage 1's, unchanged: it runs callbacks and knows nothing of
//! coroutines. A task is a callback that polls its coroutine once. The talk's
//! `sched.current` is the thread-local slot below ([`set_current`], [`take_current`]): the
//! task fills it before it polls, and a coroutine that goes to sleep empties it ([`sleep`]
//! hands the task to `call_later`), so a task still current after its poll only switched,
//! and must schedule its own next step.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use stage1::Scheduler;
/// The pause of one turn: stage 2's, as the talk's `switch()` (`Pending` once).
pub use stage2::switch;

/// A coroutine as a task holds it: a future of `()`, boxed and pinned.
pub type Coroutine = Pin<Box<dyn Future<Output = ()>>>;

thread_local! {
    /// The talk's `sched.current`: the task whose coroutine is being polled.
    static CURRENT: RefCell<Option<Rc<Task>>> = const { RefCell::new(None) };
}

/// Make `task` the current one (the talk's `sched.current = self`).
pub fn set_current(task: Rc<Task>) {
    CURRENT.with(|current| *current.borrow_mut() = Some(task));
}

/// Empty the slot, and return the task that was in it, if any (`sched.current = None`).
pub fn take_current() -> Option<Rc<Task>> {
    CURRENT.with(|current| current.borrow_mut().take())
}

/// A coroutine wrapped so that stage 1's scheduler can run it like a callback.
pub struct Task {
    // Taken out while it is polled; `None` once it has returned.
    #[allow(dead_code)] // `step`, once written, polls it
    coroutine: RefCell<Option<Coroutine>>,
    scheduler: Scheduler,
}

/// Wrap `coroutine` in a task and schedule its first step with `call_soon` (the talk's
/// `new_task`).
pub fn spawn(s: &Scheduler, coroutine: impl Future<Output = ()> + 'static) -> Rc<Task> {
    let task = Rc::new(Task {
        coroutine: RefCell::new(Some(Box::pin(coroutine))),
        scheduler: s.clone(),
    });
    let first = task.clone();
    s.call_soon(move |s| first.step(s));
    task
}

/// Pause the running task for `delay` (the talk's `sched.sleep`): take it out of the
/// `current` slot, have the scheduler call its step once `delay` has passed, and switch.
pub async fn sleep(delay: Duration) {
    let task = take_current()
        .expect("exercise 3.3: sleep() found no current task; step() must set it before polling");
    let scheduler = task.scheduler.clone();
    scheduler.call_later(delay, move |s| task.step(s));
    switch().await;
}

impl Task {
    /// Build it 3.3: one step of the task, a callback of `s` (the talk's `Task.__call__`).
    ///
    /// Take the coroutine out (a task without one has finished: do nothing), make this
    /// task the current one, poll the coroutine once (a no-op waker is enough: nothing here
    /// wakes a task but the scheduler), then look at the slot. If the coroutine returned,
    /// the task is finished: drop it. If it is pending, put it back; and if the task is
    /// still current (it only switched), schedule its next step with `call_soon`. If it
    /// is not (it went to sleep), `sleep` has already scheduled it.
    ///
    /// As shipped, it does nothing: no coroutine ever runs.
    pub fn step(self: Rc<Self>, s: &Scheduler) {
        let _ = s; // unused until the exercise is done: scheduling the step is the exercise
    }
}
