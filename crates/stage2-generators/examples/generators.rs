//! # generators (stage 2): pausing functions, by hand and by the compiler
//!
//! From Beazley's talk. `countdown(5)` and `countup(5)` are loops again,
//! each pausing after every line, and a round-robin scheduler resumes them in turn, so
//! their lines interleave: `Down 5`, `Up 0`, `Down 4`, `Up 1`, ... Nothing sleeps: everything
//! happens at 0.000.
//!
//! By default the generators are the hand-written state machines of
//! `stage2::generator`. With `--async` the same two loops are `async fn`s that
//! `switch().await` where the talk writes `yield`, run by stage 2's coroutine scheduler:
//! the compiler writes the state machine, and the output is the same.
//!
//! ```text
//! cargo run -p stage2 --example generators -- --virtual-time
//! cargo run -p stage2 --example generators -- --virtual-time --async --trace
//! ```
//!
//! Look for: in the trace, each `step tN` prints exactly one line; then the task goes to
//! the back of the queue.

use stage2::generator::{self, Countdown, Countup};
use stage2::{Options, Scheduler, say, switch};

/// The hand-written version (4.1.1): generator structs on the round-robin scheduler.
pub fn by_hand() {
    let mut s = generator::Scheduler::new();
    s.new_task(Countdown::new(5));
    s.new_task(Countup::new(5));
    s.run();
}

// ANCHOR: async_countdown
/// `countdown` as the compiler's state machine: the talk's loop, with `switch().await`
/// where it writes `yield`.
async fn countdown(mut n: u32) {
    while n > 0 {
        say!("Down {n}");
        switch().await;
        n -= 1;
    }
}
// ANCHOR_END: async_countdown

async fn countup(stop: u32) {
    let mut x = 0;
    while x < stop {
        say!("Up {x}");
        switch().await;
        x += 1;
    }
}

/// The async version (4.1.2): the same loops as coroutines.
pub fn with_async(s: &Scheduler) {
    s.new_task(countdown(5));
    s.new_task(countup(5));
    s.run();
}

fn main() {
    let mut use_async = false;
    let options = Options::parse_with(
        "countdown(5) and countup(5) as generators, resumed in turn",
        "      --async          the same loops as async fns with switch().await",
        |flag, _| {
            Ok(match flag {
                "async" => {
                    use_async = true;
                    true
                }
                _ => false,
            })
        },
    );
    let clock = options.install();
    if use_async {
        with_async(&Scheduler::new(clock));
    } else {
        by_hand();
    }
    options.finish();
}
