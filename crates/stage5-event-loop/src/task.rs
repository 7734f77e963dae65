//! `Task`: a Rust future driven by the loop, with a real `Waker` (book chapter 6, "Tasks"
//! and "Real wakers"; seed 001, "Task 对象的自我驱动机制").
//!
//! asyncio's `Task.__init__` ends with `self._loop.call_soon(self.__step)`: a task drives
//! itself. Each `__step` runs the coroutine until it awaits a future; the task then adds
//! its `__wakeup` as a done callback of that future, and when the future completes,
//! `call_soon` brings the task back for its next step. When the coroutine returns, the task
//! (which *is* a future) sets its own result.
//!
//! Ours is the same, with Rust's vocabulary. A step is a handle scheduled with `call_soon`
//! that polls the task's future once. What the future awaits registers the task's
//! [`Waker`]; waking it schedules the next step with `call_soon`, once: a task already
//! scheduled is not scheduled again. The task's output goes into a [`Future`], so a
//! [`Task<T>`] is a future of its output (it derefs to one).
//!
//! The waker is real (`std::task::Wake`), so it must be `Send + Sync`: it cannot hold the
//! loop's `Rc`s. It holds the loop's id and the task's key in the loop's task registry.
//! Woken on the loop's own thread, it finds the loop in a thread-local list and schedules
//! the step at once, in the right place in the ready queue. Woken from another thread, it
//! leaves itself in the queue the loop shares with other threads (`self_pipe.rs`), which
//! writes to the self-pipe so that a loop blocked in `select` wakes, and which the loop
//! drains in step 3 (chapter 7, "Threads").
//!
//! What changed since stage 4: stage 2 to 4 polled tasks with a no-op waker and found out
//! which task was waiting through the scheduler's `current` slot ("the task running now is
//! the one that will wait"). That worked only for the scheduler's own awaitables. A real
//! waker travels with the `Context` into any future, which can keep it, clone it, and wake
//! the task later, from anywhere, with no global slot.

use std::cell::{Cell, OnceCell, RefCell};
use std::fmt;
use std::ops::Deref;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use crate::errors::{Error, catch};
use crate::event_loop::{EventLoop, LoopInner};
use crate::future::Future;
use crate::self_pipe::{Remote, Shared};

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
    /// The number the trace knows this task by: `<Task #2>`.
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
        write!(f, "<Task #{}>", self.id)
    }
}

impl<T> fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<Task #{} {}>", self.id, self.future)
    }
}

// ANCHOR: core
/// What the loop keeps of a task, whatever its future's type: something it can step.
trait Step {
    fn step(self: Rc<Self>, lp: &EventLoop);
    fn scheduled(&self) -> &Cell<bool>;
    fn id(&self) -> u64;
}

struct TaskCore<F: std::future::Future> {
    id: u64,
    key: Cell<TaskKey>,           // where the registry keeps it
    scheduled: Cell<bool>,        // a step is in the ready queue
    cancel_requested: Cell<bool>, // `cancel()` was called: the next step ends the task
    waker: OnceCell<Waker>,
    future: Cell<Option<Pin<Box<F>>>>, // `None` once finished (and while polled)
    result: Future<F::Output>,
    lp: Weak<LoopInner>,
}
// ANCHOR_END: core

impl EventLoop {
    // ANCHOR: create_task
    /// Wrap `future` in a task and schedule its first step with `call_soon` (seed 001: the
    /// task drives itself).
    pub fn create_task<F>(&self, future: F) -> Result<Task<F::Output>, Error>
    where
        F: std::future::Future + 'static,
        F::Output: 'static,
    {
        self.check_closed()?;
        let result = self.create_future();
        let id = self.inner.tasks.borrow_mut().next_id();
        let core = Rc::new(TaskCore {
            id,
            key: Cell::new(TaskKey::default()),
            scheduled: Cell::new(false),
            cancel_requested: Cell::new(false),
            waker: OnceCell::new(),
            future: Cell::new(Some(Box::pin(future))),
            result: result.clone(),
            lp: Rc::downgrade(&self.inner),
        });
        let key = self.inner.tasks.borrow_mut().insert(core.clone());
        core.key.set(key);
        let waker = Waker::from(Arc::new(TaskWaker {
            loop_id: self.inner.id,
            key,
            shared: self.inner.shared.clone(),
            queued: AtomicBool::new(false),
        }));
        let _ = core.waker.set(waker);
        let weak = Rc::downgrade(&core);
        result.set_canceller(
            Box::new(move || weak.upgrade().is_some_and(TaskCore::request_cancel)),
            "Task",
        );
        // The first step: `call_soon(self.__step)` at the end of asyncio's `Task.__init__`.
        loop_trace!(
            &self.inner,
            "create_task <Task #{id}>: call_soon its first step"
        );
        core.scheduled.set(true);
        let _ = self.call_soon(move |lp| core.step(lp));
        Ok(Task { future: result, id })
    }
    // ANCHOR_END: create_task

    /// How many tasks are alive (created, not finished).
    pub fn task_count(&self) -> usize {
        self.inner.tasks.borrow().len()
    }
}

impl<F: std::future::Future + 'static> TaskCore<F> {
    /// `Task.cancel()`: false if the task is done; otherwise remember the request and make
    /// sure a step comes, which ends the task.
    fn request_cancel(self: Rc<Self>) -> bool {
        if self.result.done() {
            return false;
        }
        self.cancel_requested.set(true);
        if let Some(inner) = self.lp.upgrade() {
            let lp = EventLoop { inner };
            loop_trace!(&lp.inner, "cancel <Task #{}>", self.id);
            schedule_step(&lp, self);
        }
        true
    }

    /// The task is over: take it out of the registry (its waker now wakes nothing).
    fn forget(&self, lp: &EventLoop) {
        let removed = lp.inner.tasks.borrow_mut().remove(self.key.get());
        drop(removed);
    }
}

impl<F: std::future::Future + 'static> Step for TaskCore<F> {
    // ANCHOR: step
    /// One step: poll the future once. Ready: the task's future gets the output. Pending:
    /// whatever the future waits for holds the waker and will schedule the next step. A
    /// requested cancel drops the future instead (its destructors run: a `sleep` cancels
    /// its timer) and marks the task cancelled. A panic becomes the task's exception.
    fn step(self: Rc<Self>, lp: &EventLoop) {
        self.scheduled.set(false);
        let Some(mut future) = self.future.take() else {
            return; // finished already
        };
        if self.cancel_requested.get() {
            loop_trace!(&lp.inner, "step <Task #{}>: cancelled", self.id);
            drop(future);
            self.forget(lp);
            self.result.cancel_now();
            return;
        }
        loop_trace!(&lp.inner, "step <Task #{}>", self.id);
        let waker = self.waker.get().expect("set when the task was created");
        let mut cx = Context::from_waker(waker);
        match catch(|| future.as_mut().poll(&mut cx)) {
            Ok(Poll::Pending) => self.future.set(Some(future)),
            Ok(Poll::Ready(output)) => {
                drop(future);
                self.forget(lp);
                loop_trace!(&lp.inner, "<Task #{}> done", self.id);
                let _ = self.result.set_result(output);
            }
            Err(error) => {
                drop(future);
                self.forget(lp);
                loop_trace!(&lp.inner, "<Task #{}> failed: {error}", self.id);
                let _ = self.result.set_exception(error);
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
}

// ANCHOR: schedule_step
/// Schedule a task's next step with `call_soon`, unless one is already in the ready queue.
fn schedule_step(lp: &EventLoop, task: Rc<dyn Step>) {
    if task.scheduled().replace(true) {
        loop_trace!(&lp.inner, "wake <Task #{}>: already scheduled", task.id());
        return;
    }
    loop_trace!(&lp.inner, "wake <Task #{}>: call_soon its step", task.id());
    // On a closed loop nothing runs any more; the task stays where it is.
    let _ = lp.call_soon(move |lp| task.step(lp));
}
// ANCHOR_END: schedule_step

fn wake_task(lp: &EventLoop, key: TaskKey) {
    let task = lp.inner.tasks.borrow().get(key).cloned();
    if let Some(task) = task {
        schedule_step(lp, task);
    }
}

/// Where a task sits in its loop's registry: a slot, and the slot's generation, so that a
/// stale waker of a finished task never wakes the next task stored in the same slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskKey {
    index: u32,
    generation: u32,
}

/// The loop's live tasks, by key: what a waker's key leads to.
#[derive(Default)]
pub(crate) struct TaskRegistry {
    slots: Vec<(u32, Option<Rc<dyn Step>>)>, // (generation, task)
    free: Vec<u32>,
    live: usize,
    last_id: u64,
}

impl TaskRegistry {
    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    fn insert(&mut self, task: Rc<dyn Step>) -> TaskKey {
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.1 = Some(task);
            return TaskKey {
                index,
                generation: slot.0,
            };
        }
        let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 live tasks");
        self.slots.push((0, Some(task)));
        TaskKey {
            index,
            generation: 0,
        }
    }

    fn get(&self, key: TaskKey) -> Option<&Rc<dyn Step>> {
        match self.slots.get(key.index as usize) {
            Some((generation, Some(task))) if *generation == key.generation => Some(task),
            _ => None,
        }
    }

    fn remove(&mut self, key: TaskKey) -> Option<Rc<dyn Step>> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.0 != key.generation || slot.1.is_none() {
            return None;
        }
        slot.0 = slot.0.wrapping_add(1);
        self.free.push(key.index);
        self.live -= 1;
        slot.1.take()
    }

    fn len(&self) -> usize {
        self.live
    }
}

// ANCHOR: waker
/// A task's waker: `Send + Sync`, so it holds only numbers and the loop's thread-safe
/// part.
pub(crate) struct TaskWaker {
    loop_id: u64,
    key: TaskKey,
    shared: Arc<Shared>,
    queued: AtomicBool, // already in the loop's remote queue, not drained yet
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        match local_loop(self.loop_id) {
            // On the loop's thread: schedule the step now, like asyncio's `call_soon`.
            Some(lp) => wake_task(&lp, self.key),
            // Elsewhere: hand it to the loop as `call_soon_threadsafe` does (chapter 7).
            // Once: a waker already queued needs no second step.
            None => {
                if !self.queued.swap(true, Ordering::AcqRel) {
                    let _ = self.shared.push(Remote::Wake(self.clone()));
                }
            }
        }
    }
}
// ANCHOR_END: waker

/// Step 3: a wake that came from another thread reaches the loop's thread.
pub(crate) fn wake_remote(lp: &EventLoop, waker: &TaskWaker) {
    waker.queued.store(false, Ordering::Release);
    wake_task(lp, waker.key);
}

thread_local! {
    /// The loops living on this thread, by id: how a waker woken here finds its loop.
    static LOOPS: RefCell<Vec<(u64, Weak<LoopInner>)>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn register_loop(inner: &Rc<LoopInner>) {
    LOOPS.with(|loops| loops.borrow_mut().push((inner.id, Rc::downgrade(inner))));
}

pub(crate) fn unregister_loop(id: u64) {
    // `try_with`: a loop dropped while the thread shuts down finds the list gone already.
    let _ = LOOPS.try_with(|loops| loops.borrow_mut().retain(|(other, _)| *other != id));
}

fn local_loop(id: u64) -> Option<EventLoop> {
    LOOPS
        .try_with(|loops| {
            let loops = loops.borrow();
            let (_, weak) = loops.iter().find(|(other, _)| *other == id)?;
            weak.upgrade().map(|inner| EventLoop { inner })
        })
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stage1::VirtualClock;
    use std::future::poll_fn;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    #[test]
    fn a_task_runs_on_call_soon_and_its_result_is_a_future() {
        let lp = vloop();
        let task = lp.create_task(async { 6 * 7 }).unwrap();
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
                    Poll::Ready(())
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
                    return Poll::Ready(());
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
        assert!(lp.inner.shared.pending());
        done.set(true);
        lp.run_once().unwrap(); // drains the wake in step 3 and runs the step in step 5
        assert!(task.done());
    }

    #[test]
    fn a_stale_key_wakes_nothing() {
        let mut registry = TaskRegistry::default();
        struct Nothing(Cell<bool>);
        impl Step for Nothing {
            fn step(self: Rc<Self>, _: &EventLoop) {}
            fn scheduled(&self) -> &Cell<bool> {
                &self.0
            }
            fn id(&self) -> u64 {
                0
            }
        }
        let a = registry.insert(Rc::new(Nothing(Cell::new(false))));
        assert!(registry.remove(a).is_some());
        let b = registry.insert(Rc::new(Nothing(Cell::new(false))));
        assert_eq!(a.index, b.index);
        assert!(registry.get(a).is_none());
        assert!(registry.get(b).is_some());
        assert!(registry.remove(a).is_none());
        assert_eq!(registry.len(), 1);
    }

    #[test]
    fn a_panicking_task_fails_and_the_loop_goes_on() {
        let lp = vloop();
        let bad = lp
            .create_task(async {
                if std::hint::black_box(true) {
                    panic!("task boom");
                }
            })
            .unwrap();
        let good = lp.create_task(async { "fine" }).unwrap();
        let err = lp.run_until_complete(&bad).unwrap_err();
        assert_eq!(err.to_string(), "panicked: task boom");
        assert_eq!(lp.run_until_complete(&good).unwrap(), "fine");
    }
}
