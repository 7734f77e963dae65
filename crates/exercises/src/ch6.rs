//! Chapter 6's exercises (book chapter 6, futures and tasks; asyncio's `futures.py`,
//! `tasks.py`, how a Task drives itself, and `locks.py`). Each item below is a stub that
//! compiles and does the wrong thing; `tests/ch6.rs` says what the right thing is. They use
//! stage 5's public API only: futures, done callbacks and tasks are enough to build
//! asyncio's other tools. Run one with `cargo run -p exercises -- run 6.1`.
//!
//! What changed since chapter 5's exercises: everything that waits is a future now.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use stage5::{Error, EventLoop, Future, Task};

/// Exercise 6.1, an `Event` (asyncio's `asyncio.Event`): a flag that tasks can wait for.
/// `wait` returns at once if the flag is set, else when someone sets it; `set` wakes every
/// waiter; `clear` lowers the flag, so that later waiters wait again.
///
/// As shipped, `set` wakes only the first waiter: a lock's release, not an event's set.
#[derive(Clone, Default)]
pub struct Event {
    inner: Rc<EventState>,
}

#[derive(Default)]
struct EventState {
    flag: Cell<bool>,
    waiters: RefCell<VecDeque<Future<()>>>,
}

impl Event {
    /// A new event, not set.
    pub fn new() -> Event {
        Event::default()
    }

    /// True if the flag is set.
    pub fn is_set(&self) -> bool {
        self.inner.flag.get()
    }

    /// Set the flag and wake the waiters.
    pub fn set(&self) {
        self.inner.flag.set(true);
        let first = self.inner.waiters.borrow_mut().pop_front();
        if let Some(waiter) = first {
            waiter.set_result_unless_done(()); // false: it was done already, nothing to do
        }
    }

    /// Lower the flag.
    pub fn clear(&self) {
        self.inner.flag.set(false);
    }

    /// Wait until the flag is set (at once if it is).
    pub async fn wait(&self, lp: &EventLoop) -> Result<(), Error> {
        if self.is_set() {
            return Ok(());
        }
        let waiter = lp.create_future();
        self.inner.waiters.borrow_mut().push_back(waiter.clone());
        waiter.await
    }
}

/// Exercise 6.2, a `Lock` (asyncio's `asyncio.Lock`): one holder at a time, the others
/// wait in a deque, first come, first served. `release` hands the lock straight to the
/// first waiter (it stays locked, and the waiter's task holds it when it next runs), or
/// unlocks it if nobody waits.
///
/// As shipped, `acquire` forgets that its task may be cancelled while it waits. Chapter
/// 6's queue shows what must happen then: a waiter that goes away leaves no trace in the
/// deque, and one that goes away after the lock was handed to it passes the lock on.
#[derive(Clone, Default)]
pub struct Lock {
    inner: Rc<LockState>,
}

#[derive(Default)]
struct LockState {
    locked: Cell<bool>,
    waiters: RefCell<VecDeque<Future<()>>>,
}

impl Lock {
    /// A new lock, not locked.
    pub fn new() -> Lock {
        Lock::default()
    }

    /// True while someone holds the lock (or it is handed to a waiter).
    pub fn locked(&self) -> bool {
        self.inner.locked.get()
    }

    /// Wait until the lock is ours.
    pub async fn acquire(&self, lp: &EventLoop) -> Result<(), Error> {
        if !self.locked() {
            self.inner.locked.set(true);
            return Ok(());
        }
        let waiter = lp.create_future();
        self.inner.waiters.borrow_mut().push_back(waiter.clone());
        waiter.await
    }

    /// Give the lock to the first waiter, or unlock it. Releasing a lock nobody holds is
    /// asyncio's `RuntimeError`.
    pub fn release(&self) -> Result<(), Error> {
        if !self.locked() {
            return Err(Error::InvalidState("Lock is not acquired."));
        }
        let first = self.inner.waiters.borrow_mut().pop_front();
        match first {
            // Handed over: the lock stays locked, and now belongs to that waiter.
            Some(waiter) => {
                waiter.set_result_unless_done(()); // pending: only `release` completes it
            }
            None => self.inner.locked.set(false),
        }
        Ok(())
    }
}

/// Exercise 6.3, `shield` (asyncio's `asyncio.shield`): an outer future that ends as
/// `inner` ends (its result, its exception, cancelled if it is cancelled), but whose own
/// cancellation leaves `inner` alone. `wait_for(shield(work), 1.0)` gives up after a
/// second, and the work goes on.
///
/// As shipped, the outer future *is* the inner one, so cancelling it cancels the work.
pub fn shield<T: Clone + 'static>(_lp: &EventLoop, inner: &Future<T>) -> Future<T> {
    inner.clone()
}

/// Exercise 6.4, a `TaskGroup` (asyncio's `asyncio.TaskGroup`, in small): spawn tasks,
/// then `wait` for all of them. Their results come in spawn order. The first task that
/// fails fails the group at once: the others are cancelled, and `wait` returns that
/// error after they have all ended, so no task of the group outlives it.
///
/// As shipped, `wait` awaits the tasks one by one, in spawn order: a failure is seen only
/// when its turn comes, and the other tasks go on running after the group has failed.
pub struct TaskGroup<T> {
    tasks: Vec<Task<T>>,
}

impl<T: Clone + 'static> Default for TaskGroup<T> {
    fn default() -> Self {
        TaskGroup { tasks: Vec::new() }
    }
}

impl<T: Clone + 'static> TaskGroup<T> {
    /// An empty group.
    pub fn new() -> TaskGroup<T> {
        TaskGroup::default()
    }

    /// Run `future` as a task of the group.
    pub fn spawn(
        &mut self,
        lp: &EventLoop,
        future: impl std::future::Future<Output = Result<T, Error>> + 'static,
    ) -> Result<Task<T>, Error> {
        let task = lp.create_task(future)?;
        self.tasks.push(task.clone());
        Ok(task)
    }

    /// Every task's result, in spawn order; or the first failure, once every task ended.
    pub async fn wait(self, _lp: &EventLoop) -> Result<Vec<T>, Error> {
        let mut results = Vec::new();
        for task in self.tasks {
            results.push(task.await?);
        }
        Ok(results)
    }
}
