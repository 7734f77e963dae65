//! Build it 1.4: one program on your `Scheduler::run` (`src/build/ch1.rs`) and on stage 1's
//! scheduler, both on the virtual clock; the two runs must match line for line. Run it with
//! `cargo run -p exercises -- run 1.4` (or
//! `cargo test -p exercises --test build_ch1 -- --ignored`).

// Your code, compiled into this test alone (`src/build/ch1.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch1.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch1.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch1;

use std::time::Duration;

use ch1::Scheduler;
use exercises::assert_yours;
use exercises::build::{Log, assert_same_run};
use stage1::VirtualClock;

/// What the program needs of a scheduler: stage 1's and yours both have it.
trait Schedule: Sized + 'static {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static);
    fn later(&self, secs: u64, callback: impl FnOnce(&Self) + 'static);
    fn now(&self) -> Duration;
}

impl Schedule for stage1::Scheduler {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) {
        self.call_soon(callback);
    }
    fn later(&self, secs: u64, callback: impl FnOnce(&Self) + 'static) {
        self.call_later(Duration::from_secs(secs), callback);
    }
    fn now(&self) -> Duration {
        self.time()
    }
}

impl Schedule for Scheduler {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) {
        self.call_soon(callback);
    }
    fn later(&self, secs: u64, callback: impl FnOnce(&Self) + 'static) {
        self.call_later(Duration::from_secs(secs), callback);
    }
    fn now(&self) -> Duration {
        self.time()
    }
}

/// A callback that writes `what`, with the time, into `log`.
fn say<S: Schedule>(log: &Log, what: &'static str) -> impl FnOnce(&S) + 'static {
    let log = log.clone();
    move |s| {
        let line = format!("{:.3} {what}", s.now().as_secs_f64());
        log.borrow_mut().push(line);
    }
}

/// A callback that writes `what`, then runs `then`.
fn say_then<S: Schedule>(
    log: &Log,
    what: &'static str,
    then: impl FnOnce(&S) + 'static,
) -> impl FnOnce(&S) + 'static {
    let say = say(log, what);
    move |s| {
        say(s);
        then(s);
    }
}

/// Ready callbacks that schedule more, a timer due at once, three timers due at 2 s
/// scheduled at different times (one of which schedules a callback), one at 3 s.
fn program<S: Schedule>(s: &S, log: &Log) {
    let l = log.clone();
    s.soon(say_then(log, "A", move |s: &S| {
        s.later(2, say(&l, "A's timer"))
    }));
    let l = log.clone();
    s.later(
        2,
        say_then(log, "T1", move |s: &S| s.soon(say(&l, "T1's callback"))),
    );
    s.later(2, say(log, "T2"));
    let l = log.clone();
    s.soon(say_then(log, "B", move |s: &S| {
        s.soon(say(&l, "B's callback"))
    }));
    let l = log.clone();
    s.later(
        1,
        say_then(log, "C", move |s: &S| {
            let l2 = l.clone();
            s.later(
                1,
                say_then(&l, "C's timer", move |s: &S| {
                    s.soon(say(&l2, "C's timer's callback"))
                }),
            );
        }),
    );
    s.later(0, say(log, "Z"));
    s.later(3, say(log, "the end"));
}

fn lines(log: &Log) -> Vec<String> {
    log.borrow().clone()
}

#[test]
#[ignore = "exercise 1.4: the callback scheduler"]
fn ex1_4_run_matches_stage_1() {
    let (expected, got) = (Log::default(), Log::default());
    let stage = stage1::Scheduler::new(VirtualClock::new());
    program(&stage, &expected);
    stage.run();
    let yours = Scheduler::new(VirtualClock::new());
    program(&yours, &got);
    yours.run();
    assert_same_run("stage 1", &lines(&expected), &lines(&got));
    assert_yours!(
        yours.time(),
        Duration::from_secs(3),
        "your clock ends where the last timer was due"
    );
}
