//! Chapter 5's exercises: each test fails on the stub in `src/ch5.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 5.1`
//! (or `cargo test -p exercises --test ch5 -- --ignored ex5_1`).

// Your code, compiled into this test alone (`src/ch5.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch5.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch5.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch5;

use std::cell::Cell;
use std::rc::Rc;

use ch5::{Log, Timeout, observed_order, predicted_order, ticker};
use exercises::assert_yours;
use stage5::{EventLoop, VirtualClock, sleep};

fn vloop() -> EventLoop {
    EventLoop::with_clock(VirtualClock::new())
}

#[test]
#[ignore = "exercise 5.1: call it off"]
fn ex5_1_disarmed_timeouts_leave_the_heap() {
    let lp = vloop();
    let fired = Rc::new(Cell::new(0));
    // One request that never finishes: its timeout must fire.
    let f = fired.clone();
    let _forgotten = Timeout::arm(&lp, 60.0, move |_| f.set(f.get() + 1)).unwrap();
    // A thousand requests that finish at once, all in one callback.
    let f = fired.clone();
    lp.call_soon(move |lp| {
        for _ in 0..1000 {
            let f = f.clone();
            let timeout = Timeout::arm(lp, 60.0, move |_| f.set(f.get() + 100)).unwrap();
            timeout.disarm();
        }
    })
    .unwrap();
    lp.run_once().unwrap(); // the thousand are armed and disarmed
    // Something ready, so that the next iteration does not sleep until the deadlines.
    lp.call_soon(|_| {}).unwrap();
    lp.run_once().unwrap(); // step 1 cleans the heap
    assert_yours!(
        lp.scheduled_len(),
        1,
        "the heap keeps only the timeout still armed"
    );
    let l = lp.clone();
    let end = lp
        .create_task(async move { sleep(&l, 61.0).await })
        .unwrap();
    lp.run_until_complete(&end).unwrap();
    assert_yours!(fired.get(), 1, "only the timeout never disarmed fired");
}

#[test]
#[ignore = "exercise 5.2: predict the order"]
fn ex5_2_the_predicted_order_is_the_loops() {
    if let Some(wrong) = first_wrong_line(&predicted_order(), &observed_order().unwrap()) {
        panic!("{wrong}");
    }
}

/// Where a prediction first differs from what the loop did: which line, what was predicted
/// there and what the loop ran there. Not the loop's whole answer, which could be copied
/// without reading step 4: the lines after the first wrong one are still to be found.
fn first_wrong_line(predicted: &[(u64, &str)], observed: &[(u64, &str)]) -> Option<String> {
    let right = predicted
        .iter()
        .zip(observed)
        .take_while(|(p, o)| p == o)
        .count();
    let line = right + 1;
    let before = match right {
        0 => String::new(),
        1 => " (the line before it is right)".to_owned(),
        n => format!(" (the {n} lines before it are right)"),
    };
    let ran = |(iteration, label): &(u64, &str)| format!("{label:?} in iteration {iteration}");
    match (predicted.get(right), observed.get(right)) {
        (None, None) => None,
        (Some(p), Some(o)) => Some(format!(
            "line {line} of your prediction is wrong{before}: you predicted {}, \
             the loop ran {} there",
            ran(p),
            ran(o)
        )),
        (Some(p), None) => Some(format!(
            "your prediction is longer than what the loop ran: its line {line}, {}, \
             never ran{before}",
            ran(p)
        )),
        (None, Some(o)) => Some(format!(
            "your prediction stops after {right} lines; the loop ran more, and line {line} \
             is {}",
            ran(o)
        )),
    }
}

#[test]
fn first_wrong_line_names_one_line_not_the_whole_answer() {
    let loop_ran = [(1, "a"), (2, "b"), (2, "c"), (3, "d")];
    assert_eq!(first_wrong_line(&loop_ran, &loop_ran), None);
    assert_eq!(
        first_wrong_line(&[(1, "a"), (2, "c"), (2, "b"), (3, "d")], &loop_ran).as_deref(),
        Some(
            "line 2 of your prediction is wrong (the line before it is right): you predicted \
             \"c\" in iteration 2, the loop ran \"b\" in iteration 2 there"
        )
    );
    assert_eq!(
        first_wrong_line(&[(2, "a")], &loop_ran).as_deref(),
        Some(
            "line 1 of your prediction is wrong: you predicted \"a\" in iteration 2, the loop \
             ran \"a\" in iteration 1 there"
        )
    );
    assert_eq!(
        first_wrong_line(&loop_ran[..2], &loop_ran).as_deref(),
        Some(
            "your prediction stops after 2 lines; the loop ran more, and line 3 is \"c\" in \
             iteration 2"
        )
    );
    assert_eq!(
        first_wrong_line(
            &[(1, "a"), (2, "b"), (2, "c"), (3, "d"), (3, "e")],
            &loop_ran
        )
        .as_deref(),
        Some(
            "your prediction is longer than what the loop ran: its line 5, \"e\" in \
             iteration 3, never ran (the 4 lines before it are right)"
        )
    );
}

#[test]
#[ignore = "exercise 5.3: one tick per turn"]
fn ex5_3_a_due_timer_runs_after_one_tick() {
    let lp = vloop();
    let log: Log = Rc::default();
    let l = log.clone();
    lp.call_later(0.0, move |lp| {
        l.borrow_mut().push(format!("[{}] timer", lp.iteration()))
    })
    .unwrap();
    let done = ticker(&lp, log.clone(), 4).unwrap();
    lp.run_until_complete(&done).unwrap();
    assert_yours!(
        *log.borrow(),
        [
            "[1] tick 0",
            "[1] timer",
            "[2] tick 1",
            "[3] tick 2",
            "[4] tick 3"
        ],
        "one tick per iteration; the due timer runs in the first"
    );
}
