//! Snapshot tests of the stage 4 examples, running the examples' own code on the virtual
//! clock. Review a changed snapshot with `cargo insta review` before accepting it.

#[allow(dead_code)]
#[path = "../examples/countdown.rs"]
mod countdown;
#[allow(dead_code)]
#[path = "../examples/producer_consumer.rs"]
mod producer_consumer;

use stage4::{Scheduler, transcript};

fn run(trace: bool, program: fn(&Scheduler)) -> String {
    transcript(trace, |clock| {
        let s = Scheduler::new(clock).unwrap();
        program(&s);
        s.run().unwrap();
    })
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
