//! # countdown (stage 4): stage 1's callbacks on the I/O scheduler
//!
//! From Beazley's talk. Stage 4's scheduler is stage 1's callback scheduler with
//! I/O waits added; plain callbacks run on it exactly as before. So this is stage 1's
//! program, unchanged: `countdown(5)` every 4 s and `countup(20)` every second, as callbacks
//! that reschedule themselves.
//!
//! ```text
//! cargo run -p stage4 --example countdown -- --virtual-time --trace
//! ```
//!
//! Look for: the output is stage 1's. The trace shows the new loop: with nothing ready, the
//! scheduler waits in `select` (here with no socket at all, so `select` is just a sleep with
//! a timeout; on the virtual clock, a zero-timeout poll and then a jump to the deadline).

use std::time::Duration;

use stage4::{Options, Scheduler, cli, say};

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
    let options = Options::parse("countdown(5) and countup(20) as callbacks on the I/O scheduler");
    let clock = options.install();
    let s = Scheduler::new(clock).unwrap_or_else(|error| cli::exit_with_error(error));
    program(&s);
    s.run().unwrap_or_else(|error| cli::exit_with_error(error));
    options.finish();
}
