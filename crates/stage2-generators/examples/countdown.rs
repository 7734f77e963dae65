//! # countdown (stage 2): the loops are back
//!
//! From Beazley's talk. The same program as stage 1's `countdown` (countdown(5) every
//! 4 s, countup(20) every second), written as the talk's coroutines: plain loops that
//! `sleep(...).await` where the blocking version called `time.sleep`. `sleep` does not block:
//! it parks the task in the scheduler's sleeping heap and switches to another task.
//!
//! ```text
//! cargo run -p stage2 --example countdown                          # 20 s, real clock
//! cargo run -p stage2 --example countdown -- --virtual-time        # at once
//! cargo run -p stage2 --example countdown -- --virtual-time --trace
//! ```
//!
//! Look for: the output is line for line stage 1's (the root `cross_stage` snapshot shows
//! them side by side); the trace is different: tasks sleep and resume instead of callbacks
//! being scheduled.

use std::time::Duration;

use stage2::{Options, Scheduler, say, sleep};

// ANCHOR: countdown
async fn countdown(mut n: u32) {
    while n > 0 {
        say!("Down {n}");
        sleep(Duration::from_secs(4)).await;
        n -= 1;
    }
}

async fn countup(stop: u32) {
    let mut x = 0;
    while x < stop {
        say!("Up {x}");
        sleep(Duration::from_secs(1)).await;
        x += 1;
    }
}
// ANCHOR_END: countdown

/// The talk's program: two tasks; the caller runs the scheduler.
pub fn program(s: &Scheduler) {
    s.new_task(countdown(5));
    s.new_task(countup(20));
}

fn main() {
    let options = Options::parse("countdown(5) and countup(20) as coroutines");
    let clock = options.install();
    let s = Scheduler::new(clock);
    program(&s);
    s.run();
    options.finish();
}
