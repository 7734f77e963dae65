//! Chapter 2's exercises: each test fails on the stub in `src/ch2.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 2.1`
//! (or `cargo test -p exercises --test ch2 -- --ignored ex2_1`).

// Your code, compiled into this test alone (`src/ch2.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch2.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch2.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch2;

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use ch2::{Mailbox, Squares, pause};
use exercises::assert_yours;
use stage2::generator::{self, Countdown, Generator, GeneratorState};
use stage2::{Scheduler, VirtualClock, transcript};

#[test]
#[ignore = "exercise 2.1: a generator by hand"]
fn ex2_1_squares_pause_after_every_line() {
    let mut squares = Squares::new(3);
    let text = transcript(false, |_| {
        let mut yields = 0;
        while squares.resume() == GeneratorState::Yielded {
            yields += 1;
            assert!(yields <= 3, "squares(3) pauses three times, then finishes");
        }
        assert_yours!(yields, 3, "how often squares(3) paused before it finished");
    });
    assert_yours!(
        text,
        "  0.000 | Square 1\n  0.000 | Square 4\n  0.000 | Square 9\n",
        "what squares(3) printed"
    );
    // And it takes turns with another generator on the round robin.
    let text = transcript(false, |_| {
        let mut s = generator::Scheduler::new();
        s.new_task(Squares::new(2));
        s.new_task(Countdown::new(2));
        s.run();
    });
    let lines: Vec<_> = text.lines().map(|l| &l[10..]).collect();
    assert_yours!(
        lines,
        ["Square 1", "Down 2", "Square 4", "Down 1"],
        "the two generators, taking turns"
    );
}

/// A waker that counts how often it is woken.
struct Counter(AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
#[ignore = "exercise 2.2: a future that pauses n times"]
fn ex2_2_pause_is_pending_n_times_and_asks_to_be_polled_again() {
    let counter = Arc::new(Counter(AtomicUsize::new(0)));
    let waker = Waker::from(counter.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(pause(3));
    let mut polls = 0;
    loop {
        polls += 1;
        assert!(polls <= 10, "pause(3) should be ready on its fourth poll");
        if future.as_mut().poll(&mut cx) == Poll::Ready(()) {
            break;
        }
    }
    assert_yours!(polls, 4, "Pending three times, then Ready");
    assert_yours!(
        counter.0.load(Ordering::Relaxed),
        3,
        "each Pending wakes the waker once"
    );
}

#[test]
#[ignore = "exercise 2.3: close wakes every waiter"]
fn ex2_3_close_wakes_every_waiting_consumer() {
    let s = Scheduler::new(VirtualClock::new());
    let mailbox: Mailbox<u32> = Mailbox::default();
    let log = Rc::new(RefCell::new(Vec::new()));
    for name in ["A", "B", "C"] {
        let (m, log) = (mailbox.clone(), log.clone());
        s.new_task(async move {
            while let Some(item) = m.get().await {
                log.borrow_mut().push(format!("{name} got {item}"));
            }
            log.borrow_mut().push(format!("{name} done"));
        });
    }
    let m = mailbox.clone();
    s.new_task(async move {
        m.put(1);
        m.close();
    });
    s.run();
    assert_yours!(
        *log.borrow(),
        ["A got 1", "A done", "B done", "C done"],
        "what the consumers did, in order"
    );
    assert_yours!(s.tasks(), 0, "no consumer may be left waiting for ever");
}
