//! Chapter 3's exercises, solved (book chapter 3; Beazley's talk, its `Task`). Compare with
//! `src/ch3.rs`, the stubs.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use stage2::runtime::{self, Suspended};
use stage2::switch;
use stage3::{Scheduler, Task};

/// Exercise 3.1: start `coroutine` as a task whose first step runs after `delay`, not at
/// once. A task is a callback: schedule it like one.
pub fn spawn_after(
    s: &Scheduler,
    delay: Duration,
    coroutine: impl Future<Output = ()> + 'static,
) -> Rc<Task<Scheduler>> {
    let task = Task::new(s, coroutine);
    let first = task.clone();
    s.call_later(delay, move |s| first.run(s));
    task
}

/// Exercise 3.2: a one-value channel from any callback to a task. The task waits without
/// polling: it steps out of `current` and is woken by `send`, or by the `Sender`'s drop
/// if it goes away without sending.
pub fn oneshot<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Rc::new(RefCell::new(Slot {
        value: None,
        waiter: None,
        closed: false,
    }));
    (Sender { slot: slot.clone() }, Receiver { slot })
}

struct Slot<T> {
    value: Option<T>,
    waiter: Option<Suspended>,
    closed: bool, // the sender is gone: no value will come after `value`
}

/// The sending half.
pub struct Sender<T> {
    slot: Rc<RefCell<Slot<T>>>,
}

/// The receiving half.
pub struct Receiver<T> {
    slot: Rc<RefCell<Slot<T>>>,
}

impl<T> Sender<T> {
    /// Deliver `value`, waking the task waiting for it.
    pub fn send(self, value: T) {
        let waiter = {
            let mut slot = self.slot.borrow_mut();
            slot.value = Some(value);
            slot.waiter.take()
        };
        if let Some(waiter) = waiter {
            waiter.resume();
        }
    }
}

impl<T> Drop for Sender<T> {
    /// Gone, sent or not: a task still waiting is woken, to find the value or `None`
    /// (after `send`, the waiter was taken already and nothing is resumed twice).
    fn drop(&mut self) {
        let waiter = {
            let mut slot = self.slot.borrow_mut();
            slot.closed = true;
            slot.waiter.take()
        };
        if let Some(waiter) = waiter {
            waiter.resume();
        }
    }
}

impl<T> Receiver<T> {
    /// Wait for the value (inside a task). `None` if it can never come.
    pub async fn recv(self) -> Option<T> {
        loop {
            {
                let mut slot = self.slot.borrow_mut();
                if let Some(value) = slot.value.take() {
                    return Some(value);
                }
                if slot.closed {
                    return None; // the sender is gone without sending
                }
                slot.waiter = Some(runtime::suspend());
            }
            switch().await;
        }
    }
}
