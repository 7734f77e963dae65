//! Chapter 3's exercises: each test fails on the stub in `src/ch3.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 3.1`
//! (or `cargo test -p exercises --test ch3 -- --ignored ex3_1`).

// Your code, compiled into this test alone (`src/ch3.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch3.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch3.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch3;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use ch3::{oneshot, spawn_after};
use exercises::assert_yours;
use stage3::{NewTask, Scheduler, VirtualClock};

#[test]
#[ignore = "exercise 3.1: a task is a callback"]
fn ex3_1_the_first_step_runs_after_the_delay() {
    let s = Scheduler::new(VirtualClock::new());
    let started = Rc::new(Cell::new(None));
    let (flag, s2) = (started.clone(), s.clone());
    let task = spawn_after(&s, Duration::from_secs(2), async move {
        flag.set(Some(s2.time()));
    });
    s.run();
    assert_yours!(started.get(), Some(Duration::from_secs(2)));
    assert!(task.is_done());
}

/// Wraps a future and counts its polls: how many steps the task took.
struct CountPolls<F> {
    inner: Pin<Box<F>>,
    polls: Rc<Cell<u32>>,
}

impl<F: Future> Future for CountPolls<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.polls.set(self.polls.get() + 1);
        self.inner.as_mut().poll(cx)
    }
}

#[test]
#[ignore = "exercise 3.2: a oneshot channel"]
fn ex3_2_a_task_waits_for_a_callback_without_polling() {
    let s = Scheduler::new(VirtualClock::new());
    let (tx, rx) = oneshot::<u32>();
    let got = Rc::new(RefCell::new(None));
    let polls = Rc::new(Cell::new(0));
    let (g, s2) = (got.clone(), s.clone());
    s.new_task(CountPolls {
        inner: Box::pin(async move {
            let value = rx.recv().await;
            *g.borrow_mut() = Some((value, s2.time()));
        }),
        polls: polls.clone(),
    });
    s.call_later(Duration::from_secs(3), move |_| tx.send(42));
    s.run();
    assert_yours!(*got.borrow(), Some((Some(42), Duration::from_secs(3))));
    assert_yours!(polls.get(), 2, "one step to start waiting, one when woken");

    // A sender dropped without sending, while the task waits: the value can never come, so
    // the task is woken with `None` instead of staying parked. Bounded by counts: `run`
    // returns once nothing is scheduled, parked task or not.
    let (tx, rx) = oneshot::<u32>();
    let got = Rc::new(RefCell::new(None));
    let polls = Rc::new(Cell::new(0));
    let (g, s2) = (got.clone(), s.clone());
    s.new_task(CountPolls {
        inner: Box::pin(async move {
            let value = rx.recv().await;
            *g.borrow_mut() = Some((value, s2.time()));
        }),
        polls: polls.clone(),
    });
    s.call_later(Duration::from_secs(1), move |_| drop(tx));
    s.run();
    assert_yours!(
        *got.borrow(),
        Some((None, Duration::from_secs(4))),
        "a Sender dropped while the task waits wakes it, with None"
    );
    assert_yours!(polls.get(), 2, "one step to start waiting, one when woken");
}
