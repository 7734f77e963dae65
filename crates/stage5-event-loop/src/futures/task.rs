//! `Task`: a Rust future driven by the loop, with a real `Waker` (book chapter 6, "Tasks"
//! and "Real wakers"; asyncio's `tasks.py`, `Task`).
//!
//! asyncio's `Task.__init__` ends with `self._loop.call_soon(self.__step)`: a task drives
//! itself. Each `__step` runs the coroutine until it awaits a future; the task then adds
//! its `__wakeup` as a done callback of that future, and when the future completes,
//! `call_soon` brings the task back for its next step. When the coroutine returns, the task
//! (which *is* a future) sets its own result.
//!
//! Ours is the same, with Rust's vocabulary. A step is a handle that polls the task's
//! future once; what the future awaits keeps the task's real [`Waker`] (`waker.rs`), and
//! waking it schedules the next step. The task's output goes into a [`Future`], so a
//! [`Task<T>`] is a future of its output (it derefs to one).
//!
//! What changed since stage 4: stages 2 to 4 polled tasks with a no-op waker and knew which
//! task was waiting through the scheduler's `current` slot, which worked only for the
//! scheduler's own awaitables. A real waker travels into any future, with no global slot.

use std::cell::Cell;
use std::fmt;
use std::ops::Deref;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use scaffold::{Event, Id};

use crate::errors::{Error, catch};
use crate::event_loop::EventLoop;
use crate::futures::future::{Canceller, Future};
use crate::futures::waker::{TaskWaker, schedule_step};
use crate::parts::current::LastAwait;
use crate::parts::registry::{Step, TaskKey};

/// A task: a Rust future the loop drives, and the [`Future`] of its output (it derefs to
/// it: `done()`, `result()`, `cancel()`, `add_done_callback()` are the future's). Awaiting
/// a task gives its output. Cloning gives another handle to the same task.
pub struct Task<T> {
    future: Future<T>,
    id: u64,
}

impl<T> Clone for Task<T> {
    fn clone(&self) -> Self {
        Task {
            future: self.future.clone(),
            id: self.id,
        }
    }
}

impl<T> Deref for Task<T> {
    type Target = Future<T>;

    fn deref(&self) -> &Future<T> {
        &self.future
    }
}

impl<T> From<Task<T>> for Future<T> {
    fn from(task: Task<T>) -> Future<T> {
        task.future
    }
}

impl<T> Task<T> {
    /// The number the trace knows this task by: `t2`, `<Task t2>`.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl<T: Clone + 'static> std::future::Future for Task<T> {
    type Output = Result<T, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.future).poll(cx)
    }
}

impl<T> fmt::Display for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<Task t{}>", self.id)
    }
}

impl<T> fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<Task t{} {}>", self.id, self.future)
    }
}

// ANCHOR: core
struct TaskCore<F, T> {
    id: u64,
    key: TaskKey,                      // where the registry keeps it
    scheduled: Cell<bool>,             // a step is in the ready queue
    cancel_requested: Cell<bool>,      // `cancel()` was called: the next step ends the task
    last_await: LastAwait,             // the future it waits on (`_fut_waiter`)
    waker: Waker,                      // holds `key`: what its step polls the future with
    future: Cell<Option<Pin<Box<F>>>>, // `None` once finished (and while polled)
    result: Future<T>,                 // knows the loop, weakly
}
// ANCHOR_END: core

impl<T: 'static> Task<T> {
    // ANCHOR: create_task
    /// asyncio's `Task.__init__`, which the loop's `create_task` calls: wrap `future` in a
    /// task and schedule its first step with `call_soon` (the task drives itself). The
    /// future returns what a coroutine returns or raises: `Ok` is the task's result, `Err`
    /// its exception, and `Err(Cancelled)` (what `?` passes on from a cancelled future)
    /// ends the task cancelled.
    pub(crate) fn new<F>(lp: &EventLoop, future: F) -> Result<Task<T>, Error>
    where
        F: std::future::Future<Output = Result<T, Error>> + 'static,
    {
        let result = Future::new(lp);
        // In the loop's table of live tasks (`_register_task`), by a key its waker holds.
        let core = lp.register_task(|id, key| {
            Rc::new(TaskCore {
                id,
                key,
                scheduled: Cell::new(false),
                cancel_requested: Cell::new(false),
                last_await: LastAwait::default(),
                waker: TaskWaker::waker(lp, key),
                future: Cell::new(Some(Box::pin(future))),
                result: result.clone(),
            })
        });
        let id = core.id;
        let weak: Weak<dyn Step<EventLoop>> = Rc::downgrade(&core) as _;
        result.set_canceller(Canceller::Task(weak));
        // The first step: `call_soon(self.__step)` at the end of asyncio's `Task.__init__`.
        loop_event!(lp, Event::NewTask { task: Id::Task(id) });
        core.scheduled.set(true);
        lp.call_soon_step(core)?;
        Ok(Task { future: result, id })
    }
    // ANCHOR_END: create_task
}

impl<F, T> TaskCore<F, T>
where
    F: std::future::Future<Output = Result<T, Error>> + 'static,
    T: 'static,
{
    /// The task is over: take it out of the registry (its waker now wakes nothing).
    fn forget(&self, lp: &EventLoop) {
        let removed = lp.unregister_task(self.key);
        drop(removed); // outside the borrow: dropping the task may look at the loop
    }

    // ANCHOR: finish
    /// The coroutine is over (`outcome` is `Err` if it panicked): its outcome becomes the
    /// task's, as asyncio's `__step` decides it.
    fn finish(&self, lp: &EventLoop, outcome: Result<Result<T, Error>, Error>) {
        self.forget(lp);
        let ended = match outcome {
            // It returned, but a cancel came first (it cancelled itself): cancelled.
            Ok(Ok(_)) if self.cancel_requested.get() => self.end_cancelled(lp),
            Ok(Ok(value)) => {
                loop_event!(
                    lp,
                    Event::Finished {
                        task: Id::Task(self.id)
                    }
                );
                self.result.set_result(value).is_ok()
            }
            // A `CancelledError` escaped the coroutine (`?` on a cancelled future).
            Ok(Err(Error::Cancelled)) => self.end_cancelled(lp),
            // An exception, or a panic: the task's exception.
            Ok(Err(error)) | Err(error) => {
                loop_trace!(lp, "t{} failed: {error}", self.id);
                self.result.set_canceller(Canceller::failed(self.id));
                self.result.set_exception(error).is_ok()
            }
        };
        debug_assert!(
            ended,
            "the task's own future is pending until its coroutine ends"
        );
    }

    /// End the task cancelled; true if it was pending.
    fn end_cancelled(&self, lp: &EventLoop) -> bool {
        loop_trace!(lp, "t{} cancelled", self.id);
        self.result.cancel_now()
    }
    // ANCHOR_END: finish
}

impl<F, T> Step<EventLoop> for TaskCore<F, T>
where
    F: std::future::Future<Output = Result<T, Error>> + 'static,
    T: 'static,
{
    // ANCHOR: step
    /// One step: poll the future once. Ready: the task ends (`finish`). Pending:
    /// whatever the future waits for holds the waker and will schedule the next step. A
    /// requested cancel drops the future instead (its destructors run: a `sleep` cancels
    /// its timer) and marks the task cancelled. A panic becomes the task's exception.
    fn step(self: Rc<Self>, lp: &EventLoop) {
        self.scheduled.set(false);
        let Some(mut future) = self.future.take() else {
            return; // finished already
        };
        if self.cancel_requested.get() {
            loop_trace!(lp, "step t{}: cancelled", self.id);
            // Cancellation is the future's drop: its destructors are the coroutine's
            // `except CancelledError`, and one that panics fails the task instead.
            match catch(|| drop(future)) {
                Ok(()) => {
                    self.forget(lp);
                    self.result.cancel_now();
                }
                Err(panic) => self.finish(lp, Err(panic)),
            }
            return;
        }
        loop_event!(
            lp,
            Event::Step {
                task: Id::Task(self.id)
            }
        );
        let mut cx = Context::from_waker(&self.waker);
        let polled = {
            let _current = self
                .last_await
                .enter(self.id, lp.address(), self.result.address());
            catch(|| future.as_mut().poll(&mut cx))
        };
        match polled {
            Ok(Poll::Pending) => {
                loop_event!(
                    lp,
                    Event::Suspend {
                        task: Id::Task(self.id)
                    }
                );
                self.future.set(Some(future));
            }
            Ok(Poll::Ready(output)) => {
                drop(future);
                self.finish(lp, Ok(output));
            }
            Err(panic) => {
                drop(future);
                self.finish(lp, Err(panic));
            }
        }
    }
    // ANCHOR_END: step

    fn scheduled(&self) -> &Cell<bool> {
        &self.scheduled
    }

    fn id(&self) -> u64 {
        self.id
    }

    /// `Task.cancel()`: false if the task is done; otherwise remember the request, and
    /// cancel the future the task awaits, as asyncio cancels `_fut_waiter` (a task, a
    /// `gather` and its children end too): its end wakes the task, whose next step ends
    /// it. If there is none, or it cannot be cancelled, schedule that step now.
    fn cancel(self: Rc<Self>) -> bool {
        if self.result.done() {
            return false;
        }
        self.cancel_requested.set(true);
        let Some(lp) = self.result.event_loop() else {
            return true;
        };
        loop_trace!(&lp, "cancel t{}", self.id);
        if !self.last_await.cancel_awaited() {
            schedule_step(&lp, self);
        }
        true
    }

    fn exception(&self) -> Option<Error> {
        self.result.exception().ok().flatten()
    }

    fn when_done(&self, callback: Box<dyn FnOnce(&EventLoop)>) {
        self.result.add_done_callback(move |lp, _| callback(lp));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;
    use std::cell::RefCell;
    use std::future::poll_fn;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    #[test]
    fn a_task_runs_on_call_soon_and_its_result_is_a_future() {
        let lp = vloop();
        let task = lp.create_task(async { Ok(6 * 7) }).unwrap();
        assert_eq!(
            lp.ready_len(),
            1,
            "creating a task schedules its first step"
        );
        assert!(!task.done());
        assert_eq!(lp.run_until_complete(&task).unwrap(), 42);
        assert_eq!(lp.task_count(), 0);
    }

    #[test]
    fn waking_twice_schedules_one_step() {
        let lp = vloop();
        let polls = Rc::new(Cell::new(0));
        let p = polls.clone();
        let task = lp
            .create_task(poll_fn(move |cx| {
                p.set(p.get() + 1);
                if p.get() == 1 {
                    cx.waker().wake_by_ref();
                    cx.waker().wake_by_ref();
                    // `wake` by value goes through `Wake::wake`, the other entry point.
                    #[allow(clippy::waker_clone_wake)]
                    cx.waker().clone().wake();
                    Poll::Pending
                } else {
                    Poll::Ready(Ok(()))
                }
            }))
            .unwrap();
        lp.run_once().unwrap();
        assert_eq!(lp.ready_len(), 1, "three wakes, one step");
        lp.run_until_complete(&task).unwrap();
        assert_eq!(polls.get(), 2);
    }

    #[test]
    fn a_wake_from_another_thread_is_drained_by_the_loop() {
        let lp = vloop();
        let waker = Rc::new(RefCell::new(None::<Waker>));
        let w = waker.clone();
        let done = Rc::new(Cell::new(false));
        let d = done.clone();
        let task = lp
            .create_task(poll_fn(move |cx| {
                if d.get() {
                    return Poll::Ready(Ok(()));
                }
                *w.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }))
            .unwrap();
        lp.run_once().unwrap();
        assert_eq!(lp.ready_len(), 0);
        let sendable = waker.borrow_mut().take().unwrap();
        std::thread::spawn(move || {
            sendable.wake_by_ref();
            sendable.wake(); // deduplicated: still queued
        })
        .join()
        .unwrap();
        assert!(lp.remote().pending());
        done.set(true);
        lp.run_once().unwrap(); // drains the wake in step 3 and runs the step in step 5
        assert!(task.done());
    }

    #[test]
    fn a_failed_task_nobody_asked_is_reported_with_its_name() {
        let lp = vloop();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        lp.set_exception_handler(Some(Rc::new(move |_, context| {
            let task = context.task.clone().unwrap_or_default();
            s.borrow_mut().push(format!("{} / {task}", context.message))
        })));
        let task = lp
            .create_task(async { Err::<(), _>(Error::msg("boom")) })
            .unwrap();
        lp.run_once().unwrap();
        drop(task);
        assert_eq!(
            *seen.borrow(),
            ["Task exception was never retrieved / <Task t1 finished with an exception>"]
        );
    }

    #[test]
    fn a_panicking_task_fails_and_the_loop_goes_on() {
        let lp = vloop();
        let bad = lp
            .create_task(async {
                if std::hint::black_box(true) {
                    panic!("task boom");
                }
                Ok(())
            })
            .unwrap();
        let good = lp.create_task(async { Ok("fine") }).unwrap();
        let err = lp.run_until_complete(&bad).unwrap_err();
        assert_eq!(err.to_string(), "panicked: task boom");
        assert_eq!(lp.run_until_complete(&good).unwrap(), "fine");
    }
}
