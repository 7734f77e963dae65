//! Chapter 1's exercises: each test fails on the stub in `src/ch1.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 1.1`
//! (or `cargo test -p exercises --test ch1 -- --ignored ex1_1`).

// Your code, compiled into this test alone (`src/ch1.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch1.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch1.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch1;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ch1::{CallbackQueue, Log, call_at, chunked};
use exercises::assert_yours;
use scaffold::VirtualClock;
use stage1::Scheduler;

fn note(log: &Log, what: String) {
    log.borrow_mut().push(what);
}

#[test]
#[ignore = "exercise 1.1: let the timers in"]
fn ex1_1_a_due_timer_runs_between_chunks() {
    let s = Scheduler::new(VirtualClock::new());
    let log: Log = Rc::default();
    let l = log.clone();
    s.call_later(Duration::ZERO, move |_| note(&l, "timer".into()));
    chunked(&s, log.clone(), 3);
    s.run();
    assert_yours!(
        *log.borrow(),
        ["chunk 0", "timer", "chunk 1", "chunk 2"],
        "what ran, in order: the timer due at 0 between the chunks"
    );
}

#[test]
#[ignore = "exercise 1.2: call_at"]
fn ex1_2_call_at_is_a_time_not_a_delay() {
    let s = Scheduler::new(VirtualClock::new());
    let log: Log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    s.call_later(Duration::from_secs(3), move |s| {
        for (name, when) in [("at 5", 5), ("at 1", 1)] {
            let l = l.clone();
            call_at(s, Duration::from_secs(when), move |s| {
                note(&l, format!("{name}: ran at {:.3}", s.time().as_secs_f64()))
            });
        }
    });
    s.run();
    assert_yours!(
        *log.borrow(),
        ["at 1: ran at 3.000", "at 5: ran at 5.000"],
        "a time in the past runs at once, a future one at that time"
    );
}

#[test]
#[ignore = "exercise 1.3: pop when promised"]
fn ex1_3_two_consumers_one_item() {
    let s = Scheduler::new(VirtualClock::new());
    let q = Rc::new(CallbackQueue::default());
    let log: Log = Rc::default();
    q.put(&s, 0);
    for name in ["A", "B"] {
        let l = log.clone();
        q.get(&s, move |s, item: u32| {
            note(
                &l,
                format!("{:.3} {name} got {item}", s.time().as_secs_f64()),
            )
        });
    }
    let q2 = q.clone();
    s.call_later(Duration::from_secs(1), move |s| q2.put(s, 1));
    s.run();
    assert_yours!(
        *log.borrow(),
        ["0.000 A got 0", "1.000 B got 1"],
        "who got which item, when"
    );
}
