//! The loop's faces for futures and tasks: `create_future`, `create_task` (book chapter 6,
//! "Futures" and "Tasks"; asyncio's `base_events.py`: `BaseEventLoop.create_future`,
//! `create_task`).
//!
//! asyncio's loop makes futures and tasks for its callers; the types themselves live in
//! `futures.py` and `tasks.py` and call the loop back (`call_soon`, the exception handler).
//! Ours is the same: the types are in `futures/`, below, and these methods make them.
//!
//! What changed since stage 4: stage 4's scheduler took its tasks as coroutines to drive;
//! here a task is a future of its own, and the loop only creates it.

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::futures::future::Future;
use crate::futures::task::Task;

impl EventLoop {
    /// A new pending future on this loop (asyncio's `loop.create_future()`).
    pub fn create_future<T: 'static>(&self) -> Future<T> {
        Future::new(self)
    }

    /// Wrap `future` in a task and schedule its first step (asyncio's `create_task`, which
    /// checks that the loop is open and calls `Task(coro, loop=self)`: [`Task`]'s `new`).
    pub fn create_task<F, T>(&self, future: F) -> Result<Task<T>, Error>
    where
        F: std::future::Future<Output = Result<T, Error>> + 'static,
        T: 'static,
    {
        self.check_closed()?;
        Task::new(self, future)
    }

    /// How many tasks are alive (created, not finished).
    pub fn task_count(&self) -> usize {
        self.inner.tasks.borrow().len()
    }
}
