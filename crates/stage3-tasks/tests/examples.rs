//! Snapshot tests of the stage 3 examples, running the examples' own code on the virtual
//! clock. Review a changed snapshot with `cargo insta review` before accepting it.

// `mixed` includes the `countdown` and `producer_consumer` examples as its own modules; a
// file may be loaded only once, so they are reached through it.
#[allow(dead_code)]
#[path = "../examples/mixed.rs"]
mod mixed;

use mixed::{countdown, producer_consumer};

use stage3::{Scheduler, transcript};

/// Schedule `program` on a virtual clock and run the scheduler to the end.
fn run(trace: bool, program: fn(&Scheduler)) -> String {
    transcript(trace, |clock| {
        let s = Scheduler::new(clock);
        program(&s);
        s.run();
    })
}

/// Run `program`, which runs the scheduler itself, on a virtual clock.
fn run_whole(program: fn(&Scheduler)) -> String {
    transcript(false, |clock| program(&Scheduler::new(clock)))
}

#[test]
fn countdown_virtual_time() {
    insta::assert_snapshot!(run(false, countdown::program));
}

#[test]
fn countdown_trace() {
    insta::assert_snapshot!(run(true, countdown::program));
}

#[test]
fn producer_consumer_virtual_time() {
    insta::assert_snapshot!(run(false, producer_consumer::program));
}

#[test]
fn producer_consumer_trace() {
    insta::assert_snapshot!(run(true, producer_consumer::program));
}

#[test]
fn mixed_one_after_the_other() {
    insta::assert_snapshot!(run_whole(mixed::one_after_the_other));
}

#[test]
fn mixed_concurrently() {
    insta::assert_snapshot!(run_whole(mixed::concurrently));
}
