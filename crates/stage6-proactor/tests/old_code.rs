//! The old code still runs, on the proactor (book chapter 10, "What stays the same";
//! asyncio's proactor loop runs the same coroutines as its selector loop): stage 4's
//! scripted I/O scenario (its echo server written against stage 4's `WaitIo`, the talk's
//! producer and consumer, a scripted client), the very file stage 5's `tests/bridge.rs`
//! runs, on stage 6's loop. Its readiness waits go through stage 5's table and epoll, and
//! epoll wakes the ring; its lines are stage 4's and stage 5's, in the same order.

#[allow(dead_code)] // its producer_consumer is for stage 5's trace test
#[path = "../../stage5-event-loop/tests/support/old_code.rs"]
mod old_code;

#[test]
fn stage_4s_scripted_io_runs_unchanged_on_the_proactor_loop() {
    if stage6::setup::ring().is_err() {
        return eprintln!("skipped: io_uring refused here");
    }
    let text = scaffold::transcript(false, |clock| {
        let ring = stage6::setup::ring().expect("checked above");
        let lp = stage6::ProactorLoop::new(ring, clock).expect("a loop");
        old_code::scenario(&lp);
    });
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
