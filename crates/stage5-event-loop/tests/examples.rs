//! Snapshot tests of the stage 5 examples, running the examples' own code on the virtual
//! clock (with `--trace` too for countdown and producer_consumer). Review a changed
//! snapshot with `cargo insta review` (see the book's introduction) before accepting it.
//! `threads` runs real threads, whose order of completion depends on the machine: its
//! test checks the results, not the order. The echo server has its own tests (`echo.rs`).

#[allow(dead_code)]
#[path = "../examples/callbacks.rs"]
mod callbacks;
#[allow(dead_code)]
#[path = "../examples/countdown.rs"]
mod countdown;
#[allow(dead_code)]
#[path = "../examples/producer_consumer.rs"]
mod producer_consumer;
#[allow(dead_code)]
#[path = "../examples/threads.rs"]
mod threads;

use stage5::{Error, EventLoop, transcript};

fn run(trace: bool, program: fn(&EventLoop) -> Result<(), Error>) -> String {
    transcript(trace, |clock| {
        let lp = EventLoop::with_clock(clock);
        program(&lp).expect("the program runs to completion");
        lp.close().unwrap();
    })
}

/// Run an asyncio-style `main` with `stage5::run`, as the example's `main` does.
fn run_main<F>(trace: bool, main: fn(EventLoop) -> F) -> String
where
    F: std::future::Future<Output = Result<(), Error>> + 'static,
{
    transcript(trace, |clock| {
        stage5::run(clock, |lp| main(lp.clone())).expect("the program runs to completion");
    })
}

/// Stage 1's output for the same program, for the line-for-line comparison.
fn stage1_run(program: fn(&stage1::Scheduler)) -> String {
    transcript(false, |clock| {
        let s = stage1::Scheduler::new(clock);
        program(&s);
        s.run();
    })
}

#[allow(dead_code)]
#[path = "../../stage1-callbacks/examples/countdown.rs"]
mod stage1_countdown;
#[allow(dead_code)]
#[path = "../../stage1-callbacks/examples/producer_consumer.rs"]
mod stage1_producer_consumer;

#[test]
fn countdown_virtual_time() {
    let text = run_main(false, countdown::program);
    assert_eq!(text.lines().count(), 25);
    assert_eq!(
        text,
        stage1_run(stage1_countdown::program),
        "same lines as stage 1"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn countdown_trace() {
    insta::assert_snapshot!(run_main(true, countdown::program));
}

#[test]
fn producer_consumer_virtual_time() {
    let text = run_main(false, producer_consumer::program);
    assert_eq!(
        text,
        stage1_run(stage1_producer_consumer::program),
        "same lines as stage 1"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn producer_consumer_trace() {
    insta::assert_snapshot!(run_main(true, producer_consumer::program));
}

#[test]
fn callbacks_virtual_time() {
    insta::assert_snapshot!(run(false, callbacks::program));
}

#[test]
fn threads_hand_every_result_back_to_the_loop_thread() {
    let text = stage1::console::Transcript::capture(stage5::RealClock::new(), false);
    let lp = EventLoop::with_clock(stage5::RealClock::new());
    let mut results = threads::program(&lp).unwrap();
    lp.close().unwrap();
    results.sort();
    let expected: Vec<(usize, u64)> = threads::BOUNDS
        .iter()
        .enumerate()
        .map(|(id, &bound)| (id, threads::primes_below(bound)))
        .collect();
    assert_eq!(results, expected);
    let lines = text.text();
    assert_eq!(lines.lines().count(), 2 + threads::BOUNDS.len(), "{lines}");
    assert!(
        lines.contains("| worker 3: 7837 primes below 80000"),
        "{lines}"
    );
}
