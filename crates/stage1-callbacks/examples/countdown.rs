//! # countdown (stage 1): two loops become two chains of callbacks
//!
//! From Beazley's talk. `countdown(5)` prints `Down 5` … `Down 1`, one line every 4 s;
//! `countup(20)` prints `Up 0` … `Up 19`, one every second. Neither function loops or
//! sleeps: each prints one line and asks the scheduler to call it again later, so both
//! make progress on one thread.
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage1 --example countdown                          # 20 s, real clock
//! cargo run -p stage1 --example countdown -- --virtual-time        # at once, stamped
//! cargo run -p stage1 --example countdown -- --virtual-time --trace
//! ```
//!
//! Look for: at 4.000 both `Down 4` and `Up 4` are due. `Down 4` comes first because its
//! timer was registered first (at 0.000, against 3.000 for `Up 4`): the heap's sequence
//! number breaks the tie. The trace shows both sequences.

use std::time::Duration;

use scaffold::{Options, say};
use stage1::Scheduler;

// ANCHOR: countdown
/// Print `Down n`, then come back in 4 s for `n - 1`.
fn countdown(s: &Scheduler, n: u32) {
    if n > 0 {
        say!("Down {n}");
        s.call_later(Duration::from_secs(4), move |s| countdown(s, n - 1));
    }
}

/// Print `Up 0` … `Up stop-1`, one a second.
fn countup(s: &Scheduler, stop: u32) {
    fn step(s: &Scheduler, x: u32, stop: u32) {
        if x < stop {
            say!("Up {x}");
            s.call_later(Duration::from_secs(1), move |s| step(s, x + 1, stop));
        }
    }
    step(s, 0, stop);
}
// ANCHOR_END: countdown

// ANCHOR: program
/// The talk's program: schedule both, then the caller runs the scheduler.
pub fn program(s: &Scheduler) {
    s.call_soon(|s| countdown(s, 5));
    s.call_soon(|s| countup(s, 20));
}
// ANCHOR_END: program

fn main() {
    let options = Options::parse("countdown(5) and countup(20) as callbacks");
    let clock = options.install();
    let s = Scheduler::new(clock);
    program(&s);
    s.run();
    options.finish();
}
