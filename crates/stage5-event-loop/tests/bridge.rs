//! The old code still runs (book chapter 5, "The old code still runs"): stage 4's
//! scripted I/O scenario, unchanged, on stage 5's event loop.
//!
//! Stage 4's echo server (`tcp_server`, written against stage 4's `WaitIo`), the talk's
//! producer and consumer (stage 3's tasks, stage 2's `sleep` and `AsyncQueue`) and the
//! scripted client are the very files stage 4's `tests/virtual_io.rs` runs: included here
//! as they are. Only the scheduler differs: `EventLoop` implements stage 1's `Schedule` and
//! stage 4's `WaitIo`. The program's lines are snapshotted, and compared with stage 4's.

#[path = "support/old_code.rs"]
mod old_code;

use stage5::{EventLoop, transcript};

#[test]
fn stage_4s_scripted_io_runs_unchanged_on_the_event_loop() {
    let text = transcript(false, |clock| {
        old_code::scenario(&EventLoop::with_clock(clock))
    });
    insta::assert_snapshot!(text);
    // The same lines as on stage 4, in the same order.
    let stage4 = include_str!(
        "../../stage4-select/tests/snapshots/virtual_io__a_client_connects_while_timers_are_pending.snap"
    );
    let stage4: Vec<&str> = stage4
        .lines()
        .skip_while(|l| !l.starts_with("  0.000"))
        .collect();
    let here: Vec<&str> = text.lines().collect();
    assert_eq!(here, stage4);
}

/// The same producer and consumer with the trace on: stage 3's tasks (`step tN`) now step
/// inside the loop's iterations (`[n]`), each step a handle of the loop's own.
#[test]
fn the_trace_shows_what_the_loop_does_differently() {
    let text = transcript(true, |clock| {
        let lp = EventLoop::with_clock(clock);
        old_code::producer_consumer(&lp, 2);
        old_code::run_until_idle(&lp);
    });
    insta::assert_snapshot!(text);
}
