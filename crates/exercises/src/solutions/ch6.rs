//! Chapter 6's exercises, solved (book chapter 6, futures and tasks; asyncio's
//! `futures.py`, `tasks.py`, how a Task drives itself, and `locks.py`). Compare with
//! `src/ch6.rs`, the stubs.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use stage5::{Error, EventLoop, Future, Task, gather};

/// Exercise 6.1, an `Event` (asyncio's `asyncio.Event`): a flag that tasks can wait for.
/// `wait` returns at once if the flag is set, else when someone sets it; `set` wakes every
/// waiter; `clear` lowers the flag, so that later waiters wait again.
///
/// `set` completes every waiter's future (each waiter's task runs in the next iteration)
/// and empties the deque: those who wait after a `clear` get new futures.
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
        let waiters = self.inner.waiters.take();
        for waiter in waiters {
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
/// A waiter's task may be cancelled while it waits: its future is dropped, and with it the
/// guard `acquire` holds, whose `drop` is asyncio's `except CancelledError` (as in chapter
/// 6's queue). A waiter that goes away leaves no trace in the deque, and one that goes away
/// after the lock was handed to it passes the lock on.
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
        let mut guard = Waiting {
            lock: self,
            waiter: waiter.clone(),
            finished: false,
        };
        let outcome = waiter.await;
        guard.finished = true;
        outcome
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

/// A waiter inside `acquire`: dropped before it finished means its task was cancelled.
struct Waiting<'a> {
    lock: &'a Lock,
    waiter: Future<()>,
    finished: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if self.waiter.done() {
            // The lock was handed to us, and we are gone: hand it on.
            let released = self.lock.release();
            debug_assert!(released.is_ok(), "a lock being handed over is locked");
        } else {
            let waiter = &self.waiter;
            self.lock
                .inner
                .waiters
                .borrow_mut()
                .retain(|other| !other.ptr_eq(waiter));
        }
    }
}

/// Exercise 6.3, `shield` (asyncio's `asyncio.shield`): an outer future that ends as
/// `inner` ends (its result, its exception, cancelled if it is cancelled), but whose own
/// cancellation leaves `inner` alone. `wait_for(shield(work), 1.0)` gives up after a
/// second, and the work goes on.
///
/// A new future, and a done callback on the inner one that copies its outcome over, unless
/// the outer one was cancelled meanwhile: then nobody listens, and the inner outcome is
/// only marked as seen (asyncio's `_inner_done_callback`).
pub fn shield<T: Clone + 'static>(lp: &EventLoop, inner: &Future<T>) -> Future<T> {
    let outer = lp.create_future();
    let copy = outer.clone();
    inner.add_done_callback(move |_, inner| {
        if copy.done() {
            let _ = inner.exception(); // seen: nobody else will look at it
            return;
        }
        // The outer future is pending (checked above): none of these can fail.
        match inner.result() {
            Ok(value) => copy.set_result_unless_done(value),
            Err(Error::Cancelled) => copy.cancel(),
            Err(error) => copy.set_exception(error).is_ok(),
        };
    });
    outer
}

/// Exercise 6.4, a `TaskGroup` (asyncio's `asyncio.TaskGroup`, in small): spawn tasks,
/// then `wait` for all of them. Their results come in spawn order. The first task that
/// fails fails the group at once: the others are cancelled, and `wait` returns that
/// error after they have all ended, so no task of the group outlives it.
///
/// `gather` fails at the first failure, whichever task it comes from; then every task is
/// cancelled (those that ended already ignore it) and awaited until it has ended.
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
    pub async fn wait(self, lp: &EventLoop) -> Result<Vec<T>, Error> {
        let outcome = gather(lp, self.tasks.iter().cloned()).await;
        if outcome.is_err() {
            for task in &self.tasks {
                task.cancel();
            }
            for task in self.tasks {
                let _ = task.await; // it ended: cancelled, or with an outcome nobody asked for
            }
        }
        outcome
    }
}
