//! Snapshot tests of every stage's examples, running the examples' own code on the virtual
//! clock, without and with `--trace`. One harness for the six stages: the programs and the
//! runners are in `support/stages.rs`, shared with `cross_stage.rs`. Review a changed
//! snapshot with `cargo insta review` (see the book's introduction) before accepting it.
//!
//! Each stage's test checks what is particular to it, beside its snapshots: stage 1's
//! countdown prints its 25 lines, stage 2's generators by hand and with `async` print the
//! same lines, stage 5 prints stage 1's lines exactly, and stage 5's `threads` hands every
//! worker's result back (their order depends on the machine, so no snapshot).

// Stage 2's `generators` and stage 5's `callbacks` and `threads` are only here; the rest
// come from `support/stages.rs`.
#[allow(dead_code)]
#[path = "../crates/stage2-generators/examples/generators.rs"]
mod stage2_generators;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/callbacks.rs"]
mod stage5_callbacks;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/threads.rs"]
mod stage5_threads;
#[path = "support/stages.rs"]
mod stages;

use scaffold::transcript;
use stages::*;

/// The two snapshots of one example: its lines, then its lines with the trace. Each run
/// gets a thread of its own, as a program would: stage 3 numbers its tasks per thread.
fn both(stage: u32, example: &str, run: impl Fn(bool) -> String + Sync) -> String {
    let fresh = |trace| std::thread::scope(|s| s.spawn(|| run(trace)).join().expect("it runs"));
    let text = fresh(false);
    insta::assert_snapshot!(format!("stage{stage}_{example}_virtual_time"), text);
    insta::assert_snapshot!(format!("stage{stage}_{example}_trace"), fresh(true));
    text
}

#[test]
fn stage1_examples() {
    let countdown = both(1, "countdown", |t| stage1(t, stage1_countdown::program));
    assert_eq!(countdown.lines().count(), 25);
    both(1, "producer_consumer", |t| {
        stage1(t, stage1_producer_consumer::program)
    });
}

#[test]
fn stage2_examples() {
    both(2, "countdown", |t| stage2(t, stage2_countdown::program));
    both(2, "producer_consumer", |t| {
        stage2(t, stage2_producer_consumer::program)
    });
    let by_hand = transcript(false, |_| stage2_generators::by_hand());
    let with_async = transcript(false, |clock| {
        stage2_generators::with_async(&stage2::Scheduler::new(clock))
    });
    assert_eq!(by_hand.lines().count(), 10);
    assert_eq!(
        by_hand, with_async,
        "by hand and with async: the same lines"
    );
    insta::assert_snapshot!(
        "stage2_generators_by_hand",
        transcript(true, |_| stage2_generators::by_hand())
    );
    insta::assert_snapshot!(
        "stage2_generators_with_async",
        transcript(true, |clock| {
            stage2_generators::with_async(&stage2::Scheduler::new(clock))
        })
    );
}

#[test]
fn stage3_examples() {
    both(3, "countdown", |t| {
        stage1(t, stage3_mixed::countdown::program)
    });
    both(3, "producer_consumer", |t| {
        stage1(t, stage3_mixed::producer_consumer::program)
    });
    // `mixed` runs the scheduler itself, in two rounds or one.
    let whole = |program: fn(&stage3::Scheduler)| {
        transcript(false, |clock| program(&stage3::Scheduler::new(clock)))
    };
    insta::assert_snapshot!(
        "stage3_mixed_one_after_the_other",
        whole(stage3_mixed::one_after_the_other)
    );
    insta::assert_snapshot!(
        "stage3_mixed_concurrently",
        whole(stage3_mixed::concurrently)
    );
}

#[test]
fn stage4_examples() {
    both(4, "countdown", |t| stage4(t, stage4_countdown::program));
    both(4, "producer_consumer", |t| {
        stage4(t, stage4_producer_consumer::program)
    });
}

#[test]
fn stage5_examples() {
    let countdown = both(5, "countdown", |t| stage5(t, stage5_countdown::program));
    assert_eq!(
        countdown,
        stage1(false, stage1_countdown::program),
        "the same lines as stage 1"
    );
    let pc = both(5, "producer_consumer", |t| {
        stage5(t, stage5_producer_consumer::program)
    });
    assert_eq!(
        pc,
        stage1(false, stage1_producer_consumer::program),
        "the same lines as stage 1"
    );
    insta::assert_snapshot!(
        "stage5_callbacks_virtual_time",
        transcript(false, |clock| {
            let lp = stage5::EventLoop::with_clock(clock);
            stage5_callbacks::program(&lp).expect("the walk runs to its end");
        })
    );
}

#[test]
fn stage6_examples() {
    if !io_uring_here() {
        return;
    }
    let countdown = both(6, "countdown", |t| stage6(t, stage6_countdown::program));
    assert_eq!(
        countdown,
        stage5(false, stage5_countdown::program),
        "the same lines as stage 5"
    );
    let pc = both(6, "producer_consumer", |t| {
        stage6(t, stage6_producer_consumer::program)
    });
    assert_eq!(
        pc,
        stage5(false, stage5_producer_consumer::program),
        "the same lines as stage 5"
    );
}

#[test]
fn stage6_examples_say_in_one_line_that_io_uring_is_refused_and_exit_2() {
    for example in ["countdown", "producer_consumer", "echo_server"] {
        let run = std::process::Command::new(env!("CARGO"))
            .args(["run", "-q", "-p", "stage6", "--example", example, "--"])
            .args(
                ["--virtual-time", "--addr", "127.0.0.1:0"]
                    .iter()
                    .take(match example {
                        "echo_server" => 3,
                        _ => 1,
                    }),
            )
            .env(stage6::setup::REFUSE_VAR, "refuse")
            .output()
            .expect("cargo runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{example}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{example}: {stderr}");
        assert!(
            stderr.starts_with(&format!("{example}: io_uring refused here")),
            "{stderr}"
        );
        assert!(run.stdout.is_empty(), "{example}");
    }
}

#[test]
fn stage5_threads_hand_every_result_back_to_the_loop_thread() {
    let text = scaffold::console::Transcript::capture(stage5::RealClock::new(), false);
    let lp = stage5::EventLoop::with_clock(stage5::RealClock::new());
    let mut results = stage5_threads::program(&lp).unwrap();
    lp.close().unwrap();
    results.sort();
    let expected: Vec<(usize, u64)> = stage5_threads::BOUNDS
        .iter()
        .enumerate()
        .map(|(id, &bound)| (id, stage5_threads::primes_below(bound)))
        .collect();
    assert_eq!(results, expected);
    let lines = text.text();
    let count = 2 + stage5_threads::BOUNDS.len();
    assert_eq!(lines.lines().count(), count, "{lines}");
    assert!(
        lines.contains("| worker 3: 7837 primes below 80000"),
        "{lines}"
    );
}
