//! Chapter 3's exercises (book chapter 3; Beazley's talk, its `Task`). Each item below is a
//! stub that compiles and does the wrong thing; `tests/ch3.rs` says what the right thing
//! is. Run one with `cargo run -p exercises -- run 3.1`.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use stage2::runtime::Suspended;
use stage3::{NewTask, Scheduler, Task};

/// Exercise 3.1: start `coroutine` as a task whose first step runs after `delay`, not at
/// once. A task is a callback: schedule it like one.
///
/// As shipped, it starts the task at once, with `new_task`.
pub fn spawn_after(
    s: &Scheduler,
    delay: Duration,
    coroutine: impl Future<Output = ()> + 'static,
) -> Rc<Task<Scheduler>> {
    let _ = delay; // the stub ignores it: that is the exercise
    s.new_task(coroutine)
}

/// Exercise 3.2: a one-value channel from any callback to a task. The task waits without
/// polling: it steps out of `current` and is woken by `send`.
pub fn oneshot<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Rc::new(RefCell::new(Slot {
        value: None,
        waiter: None,
    }));
    (Sender { slot: slot.clone() }, Receiver { slot })
}

struct Slot<T> {
    value: Option<T>,
    #[allow(dead_code)] // the finished exercise keeps the waiting task here
    waiter: Option<Suspended>,
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
        self.slot.borrow_mut().value = Some(value);
    }
}

impl<T> Receiver<T> {
    /// Wait for the value (inside a task). `None` if it can never come.
    ///
    /// As shipped, it does not wait at all: it takes whatever is there now. Make it wait
    /// the way stage 2's queue does (`runtime::suspend`, then `switch().await`), and make
    /// `send` wake it. A `Sender` dropped without sending must wake it too, to `None`.
    pub async fn recv(self) -> Option<T> {
        self.slot.borrow_mut().value.take()
    }
}
