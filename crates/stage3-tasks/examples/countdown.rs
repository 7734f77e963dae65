//! # countdown (stage 3): stage 1's callbacks on the hybrid scheduler
//!
//! Beazley's talk, second half. Stage 3's scheduler *is* stage 1's callback scheduler
//! (re-exported, not copied), with tasks added on top; plain callbacks still run on it
//! exactly as before. So this is stage 1's program, unchanged: `countdown(5)` every 4 s
//! and `countup(20)` every second, as callbacks that reschedule themselves.
//!
//! ```text
//! cargo run -p stage3 --example countdown -- --virtual-time --trace
//! ```
//!
//! Look for: the trace is stage 1's, line for line. The `mixed` example runs these same
//! callbacks beside coroutine tasks.

use std::time::Duration;

use stage3::{Options, Scheduler, say};

fn countdown(s: &Scheduler, n: u32) {
    if n > 0 {
        say!("Down {n}");
        s.call_later(Duration::from_secs(4), move |s| countdown(s, n - 1));
    }
}

fn countup(s: &Scheduler, stop: u32) {
    fn step(s: &Scheduler, x: u32, stop: u32) {
        if x < stop {
            say!("Up {x}");
            s.call_later(Duration::from_secs(1), move |s| step(s, x + 1, stop));
        }
    }
    step(s, 0, stop);
}

/// The talk's program: schedule both callbacks; the caller runs the scheduler.
pub fn program(s: &Scheduler) {
    s.call_soon(|s| countdown(s, 5));
    s.call_soon(|s| countup(s, 20));
}

fn main() {
    let options =
        Options::parse("countdown(5) and countup(20) as callbacks on the hybrid scheduler");
    let clock = options.install();
    let s = Scheduler::new(clock);
    program(&s);
    s.run();
    options.finish();
}
