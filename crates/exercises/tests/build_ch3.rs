//! Build it 3.3: two tasks and a few callbacks on stage 1's scheduler, once with your
//! `Task::step` (`src/build/ch3.rs`) and once with stage 3's `Task`, both on the virtual
//! clock; the two runs must match line for line. Run it with
//! `cargo run -p exercises -- run 3.3` (or
//! `cargo test -p exercises --test build_ch3 -- --ignored`).

// Your code, compiled into this test alone (`src/build/ch3.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch3.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch3.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch3;

use std::future::Future;
use std::time::Duration;

use exercises::build::{Log, assert_same_run};
use stage1::{Scheduler, VirtualClock};
use stage3::NewTask;

/// How a program makes tasks and sleeps: stage 3's way or yours.
trait Tasks {
    fn spawn(s: &Scheduler, coroutine: impl Future<Output = ()> + 'static);
    fn sleep(secs: u64) -> impl Future<Output = ()>;
}

struct Stage3;

impl Tasks for Stage3 {
    fn spawn(s: &Scheduler, coroutine: impl Future<Output = ()> + 'static) {
        s.new_task(coroutine);
    }
    fn sleep(secs: u64) -> impl Future<Output = ()> {
        stage3::sleep(Duration::from_secs(secs))
    }
}

struct Yours;

impl Tasks for Yours {
    fn spawn(s: &Scheduler, coroutine: impl Future<Output = ()> + 'static) {
        ch3::spawn(s, coroutine);
    }
    fn sleep(secs: u64) -> impl Future<Output = ()> {
        ch3::sleep(Duration::from_secs(secs))
    }
}

/// Write `what`, with the time on `s`, into `log`.
fn note(log: &Log, s: &Scheduler, what: &str) {
    let line = format!("{:.3} {what}", s.time().as_secs_f64());
    log.borrow_mut().push(line);
}

/// Two tasks that switch and sleep, callbacks before, between and after them, and a
/// timer due when both tasks wake.
fn program<T: Tasks>(s: &Scheduler, log: &Log) {
    let l = log.clone();
    s.call_soon(move |s| {
        note(&l, s, "callback 1");
        let l = l.clone();
        s.call_soon(move |s| note(&l, s, "callback 1's callback"));
    });
    let (l, s2) = (log.clone(), s.clone());
    T::spawn(s, async move {
        note(&l, &s2, "A 1");
        ch3::switch().await;
        note(&l, &s2, "A 2");
        T::sleep(1).await;
        note(&l, &s2, "A 3");
        ch3::switch().await;
        note(&l, &s2, "A done");
    });
    let (l, s2) = (log.clone(), s.clone());
    T::spawn(s, async move {
        note(&l, &s2, "B 1");
        T::sleep(1).await;
        note(&l, &s2, "B 2");
        T::sleep(0).await;
        note(&l, &s2, "B 3");
        T::sleep(2).await;
        note(&l, &s2, "B done");
    });
    let l = log.clone();
    s.call_soon(move |s| note(&l, s, "callback 2"));
    let l = log.clone();
    s.call_later(Duration::from_secs(1), move |s| note(&l, s, "timer at 1"));
}

fn run<T: Tasks>() -> Vec<String> {
    let log = Log::default();
    let s = Scheduler::new(VirtualClock::new());
    program::<T>(&s, &log);
    s.run();
    log.take()
}

#[test]
#[ignore = "exercise 3.3: the talk's Task.__call__"]
fn ex3_3_task_step_matches_stage_3() {
    assert_same_run("stage 3", &run::<Stage3>(), &run::<Yours>());
}
