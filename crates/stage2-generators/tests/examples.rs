//! Snapshot tests of the stage 2 examples, running the examples' own code on the virtual
//! clock. Review a changed snapshot with `cargo insta review` before accepting it.

#[allow(dead_code)]
#[path = "../examples/countdown.rs"]
mod countdown;
#[allow(dead_code)]
#[path = "../examples/generators.rs"]
mod generators;
#[allow(dead_code)]
#[path = "../examples/producer_consumer.rs"]
mod producer_consumer;

use stage2::{Scheduler, transcript};

fn run(trace: bool, program: fn(&Scheduler)) -> String {
    transcript(trace, |clock| {
        let s = Scheduler::new(clock);
        program(&s);
        s.run();
    })
}

#[test]
fn generators_by_hand() {
    insta::assert_snapshot!(transcript(true, |_| generators::by_hand()));
}

#[test]
fn generators_with_async_print_the_same_lines() {
    let by_hand = transcript(false, |_| generators::by_hand());
    let with_async = transcript(false, |clock| {
        generators::with_async(&Scheduler::new(clock))
    });
    assert_eq!(by_hand.lines().count(), 10);
    assert_eq!(by_hand, with_async);
    insta::assert_snapshot!(transcript(true, |clock| {
        generators::with_async(&Scheduler::new(clock))
    }));
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
