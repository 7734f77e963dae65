//! A `Task`: a coroutine wrapped so that it can be scheduled like a callback (book chapter
//! 3, "The Task"; Beazley's talk).
//!
//! This is asyncio's real design. Stage 1's scheduler runs callbacks and knows nothing
//! about coroutines; stage 2's runs coroutines and knows nothing about callbacks. A
//! [`Task`] joins them: it owns a coroutine, and calling it (the talk's `__call__`) polls the
//! coroutine once. If the coroutine only switched, the task schedules *itself* again with
//! `call_soon`, exactly like a callback that reschedules itself. The scheduler is stage 1's,
//! unchanged; it never learns that some of its callbacks are tasks.
//!
//! What changed, visibly, from the talk: the talk adds a `current` attribute to its
//! `Scheduler`. We reuse stage 1's `Scheduler` as it is (re-exported, not copied), and it has
//! no such field; `current` belongs to the tasks anyway, so it lives here, as a
//! thread-local slot beside the `Task` that fills it.
//!
//! A running task is also what its coroutine talks to: `Task` implements stage 2's
//! [`Runtime`], so stage 2's `sleep` and `AsyncQueue` work unchanged. Where stage 2 parked
//! a sleeper in its own heap, a task now asks stage 1's scheduler to call it later:
//! `sleep` is `call_later(delay, current task)`, the talk's one-liner.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use scaffold::{Event, event};
use stage1::Schedule;
use stage2::runtime::{self, Runtime, Suspended};
use stage2::scheduler::Coroutine;

pub use stage2::TaskId;

thread_local! {
    /// The talk's `sched.current`: which task's coroutine is running right now. The slot
    /// holds the task's id; the task itself is at hand whenever the slot is looked at.
    static CURRENT: Cell<Option<TaskId>> = const { Cell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// A coroutine wrapped as a callback of any [`Schedule`]r: stage 1's `Scheduler`, or
/// stage 4's. Held in an `Rc`: the ready queue, a sleeping timer or a queue's waiting list
/// may each hold the task while it waits.
///
/// A coroutine that panics panics out of its step, like any callback: on stage 1's or
/// stage 4's scheduler that ends `run` (neither has an exception handler; stage 5's loop
/// reports it and goes on). The coroutine is dropped, so the task never runs again and
/// is never [`done`](Task::is_done).
pub struct Task<S: Schedule> {
    id: TaskId,
    coroutine: RefCell<Option<Coroutine>>, // taken out while it runs
    done: Cell<bool>,
    scheduler: S,
}

impl<S: Schedule> Task<S> {
    /// Wrap `coroutine` as a task for `scheduler` (not scheduled yet).
    pub fn new(scheduler: &S, coroutine: impl Future<Output = ()> + 'static) -> Rc<Self> {
        let id = TaskId(NEXT_ID.with(|n| {
            n.set(n.get() + 1);
            n.get()
        }));
        Rc::new(Task {
            id,
            coroutine: RefCell::new(Some(Box::pin(coroutine))),
            done: Cell::new(false),
            scheduler: scheduler.clone(),
        })
    }

    /// The task's number, shown as `t1`, `t2`, ... in the trace.
    pub fn id(&self) -> TaskId {
        self.id
    }

    /// True once the coroutine has returned (never, if it panicked).
    pub fn is_done(&self) -> bool {
        self.done.get()
    }

    /// Schedule this task's next step with `call_soon`: how a task is made ready.
    pub fn schedule(self: Rc<Self>) {
        let scheduler = self.scheduler.clone();
        scheduler.call_soon(move |s| self.run(s));
    }

    // ANCHOR: run
    /// The talk's `Task.__call__`: drive the coroutine one step. If it is still the current
    /// task afterwards (it only switched), schedule the next step at once.
    pub fn run(self: Rc<Self>, s: &S) {
        // Taken out while it runs; a finished task has none, so it is never run again.
        let Some(mut coroutine) = self.coroutine.borrow_mut().take() else {
            return;
        };
        event!(Event::Step {
            task: self.id.into()
        });
        let step = Step::enter(self.id); // sched.current = self
        let mut cx = Context::from_waker(Waker::noop());
        let poll = runtime::enter(self.clone(), || coroutine.as_mut().poll(&mut cx));
        let still_current = step.end() == Some(self.id);
        match poll {
            Poll::Ready(()) => {
                self.done.set(true); // the coroutine is dropped here: never run again
                event!(Event::Finished {
                    task: self.id.into()
                });
            }
            Poll::Pending => {
                *self.coroutine.borrow_mut() = Some(coroutine);
                if still_current {
                    // if sched.current: sched.ready.append(self)
                    s.call_soon(move |s| self.run(s));
                }
            }
        }
    }
    // ANCHOR_END: run
}

/// The `current` slot, filled for one step. Whoever was current before comes back when
/// the step ends, even by a panic: a coroutine that calls `run` itself steps other tasks
/// inside its own step, and must find itself current again afterwards.
struct Step {
    outer: Option<TaskId>,
}

impl Step {
    fn enter(id: TaskId) -> Step {
        Step {
            outer: CURRENT.replace(Some(id)),
        }
    }

    /// End the step: who was current at its end (the task itself, if it only switched).
    fn end(self) -> Option<TaskId> {
        CURRENT.get() // `drop(self)` puts the outer task back
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        CURRENT.set(self.outer);
    }
}

impl<S: Schedule> Task<S> {
    /// Take this (running) task out of the `current` slot: the talk's
    /// `sched.current = None`.
    fn leave_current(&self) {
        let current = CURRENT.take();
        assert_eq!(
            current,
            Some(self.id),
            "stage3: a task suspended itself twice in one step, or outside its step"
        );
    }
}

// While a task's coroutine runs, the task itself is the `Runtime` it talks to (see `run`):
// `self` below is the running task.
impl<S: Schedule> Runtime for Task<S> {
    fn suspend_current(self: Rc<Self>) -> Suspended {
        self.leave_current();
        event!(Event::Suspend {
            task: self.id.into()
        });
        Suspended::new(move || {
            event!(Event::Wake {
                to: self.id.into(),
                by: ""
            });
            self.schedule();
        })
    }

    // ANCHOR: sleep
    fn sleep_current(self: Rc<Self>, delay: Duration) {
        self.leave_current();
        event!(Event::Sleep {
            task: self.id.into(),
            delay,
            timer: None // the `call_later` below reports where it sleeps
        });
        let scheduler = self.scheduler.clone();
        scheduler.call_later(delay, move |s| self.run(s));
    }
    // ANCHOR_END: sleep
}

impl<S: Schedule> fmt::Debug for Task<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("id", &self.id)
            .field("done", &self.is_done())
            .finish()
    }
}

// ANCHOR: new_task
/// What stage 3 adds to any callback scheduler: `new_task`, the talk's
/// `self.ready.append(Task(coro))`.
pub trait NewTask: Schedule {
    /// Wrap `coroutine` in a [`Task`] and schedule its first step with `call_soon`.
    fn new_task(&self, coroutine: impl Future<Output = ()> + 'static) -> Rc<Task<Self>>;
}

impl<S: Schedule> NewTask for S {
    fn new_task(&self, coroutine: impl Future<Output = ()> + 'static) -> Rc<Task<Self>> {
        let task = Task::new(self, coroutine);
        event!(Event::NewTask {
            task: task.id.into()
        });
        task.clone().schedule();
        task
    }
}
// ANCHOR_END: new_task

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;
    use stage1::Scheduler;
    use stage2::{AsyncQueue, sleep, switch};

    type Log = Rc<RefCell<Vec<String>>>;

    fn note(log: &Log, what: impl Into<String>) {
        log.borrow_mut().push(what.into());
    }

    #[test]
    fn a_task_that_finishes_is_not_called_again() {
        let s = Scheduler::new(VirtualClock::new());
        let steps = Rc::new(Cell::new(0));
        let counter = steps.clone();
        let task = s.new_task(async move {
            counter.set(counter.get() + 1);
            switch().await;
            counter.set(counter.get() + 1);
        });
        s.run();
        assert_eq!(steps.get(), 2);
        assert!(task.is_done());
        // Calling the finished task again, as a stale callback might, does nothing.
        let again = task.clone();
        s.call_soon(move |s| again.run(s));
        s.run();
        assert_eq!(steps.get(), 2);
    }

    #[test]
    fn a_task_that_runs_the_scheduler_inside_its_step_is_not_lost() {
        // A careless coroutine calls `run` itself: the inner run steps another task, which
        // fills and empties the `current` slot. The outer task must still be current when
        // its own step goes on, or its next switch leaves it out of the ready queue for good
        // (and its next sleep trips the "suspended itself twice" check).
        let s = Scheduler::new(VirtualClock::new());
        let log: Log = Rc::default();
        let (l, s2) = (log.clone(), s.clone());
        let outer = s.new_task(async move {
            let l2 = l.clone();
            s2.new_task(async move {
                note(&l2, "inner 1");
                switch().await;
                note(&l2, "inner 2");
            });
            s2.run();
            note(&l, "outer after the inner run");
            switch().await;
            sleep(Duration::from_secs(1)).await;
            note(&l, "outer done");
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            [
                "inner 1",
                "inner 2",
                "outer after the inner run",
                "outer done"
            ]
        );
        assert!(outer.is_done());
    }

    #[test]
    fn a_panicking_coroutine_ends_run_and_its_task_never_runs_again() {
        let s = Scheduler::new(VirtualClock::new());
        let steps = Rc::new(Cell::new(0));
        let counter = steps.clone();
        let failed = s.new_task(async move {
            counter.set(counter.get() + 1);
            panic!("a careless coroutine");
        });
        let survivor = s.new_task(switch());
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.run()));
        assert!(ran.is_err(), "stage 1 has no handler: the panic ends run");
        let again = failed.clone();
        s.call_soon(move |s| again.run(s)); // a stale callback: does nothing
        s.run();
        assert_eq!(steps.get(), 1);
        assert!(!failed.is_done() && survivor.is_done());
    }

    #[test]
    fn callbacks_and_tasks_interleave_in_fifo_order() {
        let s = Scheduler::new(VirtualClock::new());
        let log: Log = Rc::default();
        let l = log.clone();
        s.call_soon(move |_| note(&l, "callback 1"));
        let l = log.clone();
        s.new_task(async move {
            note(&l, "task step 1");
            switch().await;
            note(&l, "task step 2");
        });
        let l = log.clone();
        s.call_soon(move |s| {
            note(&l, "callback 2");
            let l = l.clone();
            s.call_soon(move |_| note(&l, "callback 3"));
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            [
                "callback 1",
                "task step 1",
                "callback 2",
                "task step 2",
                "callback 3"
            ]
        );
    }

    #[test]
    fn a_task_woken_by_the_queue_runs_after_the_callbacks_already_queued() {
        let s = Scheduler::new(VirtualClock::new());
        let log: Log = Rc::default();
        let q = AsyncQueue::new();
        let (l, q2) = (log.clone(), q.clone());
        s.new_task(async move {
            let item = q2.get().await.unwrap();
            note(&l, format!("consumer got {item}"));
        });
        let (l, q2) = (log.clone(), q.clone());
        s.call_later(Duration::from_secs(1), move |s| {
            let l2 = l.clone();
            s.call_soon(move |_| note(&l2, "queued before put"));
            q2.put(7).unwrap();
            note(&l, "put done");
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            ["put done", "queued before put", "consumer got 7"]
        );
    }

    #[test]
    fn sleep_is_call_later_of_the_task() {
        let s = Scheduler::new(VirtualClock::new());
        let log: Log = Rc::default();
        let (l, s2) = (log.clone(), s.clone());
        s.new_task(async move {
            sleep(Duration::from_secs(2)).await;
            note(&l, format!("woke at {:.3}", s2.time().as_secs_f64()));
        });
        // After the first step the task is not in the ready queue but a sleeping timer.
        let probe = s.clone();
        s.call_soon(move |_| assert_eq!(probe.pending(), (0, 1)));
        s.run();
        assert_eq!(*log.borrow(), ["woke at 2.000"]);
    }
}
