//! A task's waker, and what waking does (book chapter 6, "Real wakers"; asyncio's
//! `tasks.py`: `Task.__wakeup`, which a future schedules with `call_soon`).
//!
//! asyncio wakes a task by calling its `__wakeup` done callback, which schedules
//! `__step` with `call_soon`. A Rust future wakes its task through the [`Waker`] it found in
//! its `Context`, which it may clone, keep, and wake later, from anywhere: another thread
//! included. So the waker must be `Send + Sync`, and cannot hold the loop or the task (both
//! are `Rc`s). It holds the task's key in the loop's table, and the loop's thread-safe part,
//! whose address is also how it finds its loop among the loops of the thread it is woken
//! on.
//!
//! Woken on the loop's thread, it finds its loop (`EventLoop::on_this_thread`) and the task
//! (the table), and schedules the task's step at once, in the right place in the ready
//! queue, with `call_soon_step` (`call_soon` with a reused handle, `event_loop/reuse.rs`):
//! unless a step is already scheduled, for a task runs one step per wake-up however often
//! it is woken. Woken on another thread, it leaves itself in the loop's remote queue
//! (`self_pipe.rs`), which wakes a loop blocked in `select`; the loop wakes it again on its
//! own thread in step 3.
//!
//! What changed since stage 4: stages 2 to 4 polled tasks with a no-op waker and knew which
//! task was waiting through the scheduler's `current` slot. That worked only for the
//! scheduler's own awaitables; a real waker works for any future.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Wake, Waker};

use crate::event_loop::EventLoop;
use crate::io_driver::self_pipe::{Remote, RemoteQueue};
use crate::parts::registry::{Step, TaskKey};

// ANCHOR: waker
/// A task's waker: `Send + Sync`, so it holds only numbers and the loop's thread-safe
/// part.
pub(crate) struct TaskWaker {
    key: TaskKey,
    remote: Arc<RemoteQueue<EventLoop>>, // its address is the loop's id
    queued: AtomicBool,                  // already in the loop's remote queue, not drained yet
}

impl TaskWaker {
    /// The waker of the task under `key` in `lp`'s table.
    pub(crate) fn waker(lp: &EventLoop, key: TaskKey) -> Waker {
        Waker::from(Arc::new(TaskWaker {
            key,
            remote: lp.remote().clone(),
            queued: AtomicBool::new(false),
        }))
    }
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        match EventLoop::on_this_thread(&self.remote) {
            // On the loop's thread: schedule the step now, like asyncio's `call_soon`.
            Some(lp) => {
                self.queued.store(false, Ordering::Release);
                wake_task(&lp, self.key);
            }
            // Elsewhere: hand it to the loop as `call_soon_threadsafe` does (chapter 7).
            // Once: a waker already queued needs no second step.
            None => {
                if !self.queued.swap(true, Ordering::AcqRel) {
                    let again = Waker::from(self.clone());
                    // Refused only by a closed loop, which will never step the task.
                    let _ = self.remote.push(Remote::Wake(again));
                }
            }
        }
    }
}
// ANCHOR_END: waker

/// Schedule the next step of the task under `key`, if it is still alive.
fn wake_task(lp: &EventLoop, key: TaskKey) {
    let task = lp.task(key);
    if let Some(task) = task {
        schedule_step(lp, task);
    }
}

// ANCHOR: schedule_step
/// Schedule a task's next step (`call_soon` with a reused handle), unless one is already in
/// the ready queue.
pub(crate) fn schedule_step(lp: &EventLoop, task: Rc<dyn Step<EventLoop>>) {
    if task.scheduled().replace(true) {
        loop_trace!(lp, "wake t{}: already scheduled", task.id());
        return;
    }
    loop_event!(
        lp,
        scaffold::Event::Wake {
            to: scaffold::Id::Task(task.id()),
            by: ""
        }
    );
    // On a closed loop nothing runs any more; the task stays where it is.
    let _ = lp.call_soon_step(task);
}
// ANCHOR_END: schedule_step
