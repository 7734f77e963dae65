//! # mixed (stage 3): coroutines and callbacks on one scheduler
//!
//! Beazley's talk, the whole program: the coroutine producer/consumer (as tasks) *and*
//! the callback countdown/countup, on one scheduler. This example reuses the other two
//! examples' code as it is (`producer_consumer.rs` and `countdown.rs`, included as modules).
//!
//! As in the talk, by default they run one after the other: `run()` until the
//! producer/consumer is done, then the countdown is scheduled and `run()` again, on the same
//! clock, so it starts at 10.000. With `--concurrent` both are scheduled before a single
//! `run()`, and their lines interleave.
//!
//! ```text
//! cargo run -p stage3 --example mixed -- --virtual-time
//! cargo run -p stage3 --example mixed -- --virtual-time --concurrent --trace
//! ```
//!
//! Look for: with `--concurrent`, at 4.000 `Down 4`, `Producing 4` and `Up 4` are all due.
//! `Down 4` comes first: its timer was registered at 0.000, the others' at 3.000. Tasks and
//! callbacks share one heap and one tie-breaker, whichever world they come from.

#[allow(dead_code)]
#[path = "countdown.rs"]
pub mod countdown;
#[allow(dead_code)]
#[path = "producer_consumer.rs"]
pub mod producer_consumer;

use stage3::{Options, Scheduler};

// ANCHOR: mixed
/// The talk's order: producer/consumer to the end, then countdown/countup.
pub fn one_after_the_other(s: &Scheduler) {
    producer_consumer::program(s); // two tasks
    s.run();
    countdown::program(s); // two callbacks, from t = 10 on the same clock
    s.run();
}

/// Both programs on the scheduler at once.
pub fn concurrently(s: &Scheduler) {
    producer_consumer::program(s);
    countdown::program(s);
    s.run();
}
// ANCHOR_END: mixed

fn main() {
    let mut concurrent = false;
    let options = Options::parse_with(
        "the talk's whole program: coroutine tasks and callbacks on one scheduler",
        "      --concurrent     run both programs at once instead of one after the other",
        |flag, _| {
            Ok(match flag {
                "concurrent" => {
                    concurrent = true;
                    true
                }
                _ => false,
            })
        },
    );
    let s = Scheduler::new(options.install());
    if concurrent {
        concurrently(&s);
    } else {
        one_after_the_other(&s);
    }
    options.finish();
}
