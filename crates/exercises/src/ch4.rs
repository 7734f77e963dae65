//! Chapter 4's exercises (book chapter 4; Beazley's talk, its `select()`). Each item below
//! is a stub that compiles and does the wrong thing; `tests/ch4.rs` says what the right
//! thing is. Run one with `cargo run -p exercises -- run 4.1`.

use std::io::{self, Write};
use std::time::Duration;

use scaffold::{Clock, VirtualClock};
use stage1::TimerHeap;

/// Exercise 4.1: how long may `select` block? `None` means no limit. With no timer, no
/// limit; on the virtual clock, never block while a timer is pending; otherwise until the
/// next deadline, or not at all if it has passed.
pub fn select_timeout(
    next_deadline: Option<Duration>,
    now: Duration,
    virtual_clock: bool,
) -> Option<Duration> {
    // As shipped: ignores the virtual clock, and panics on a deadline that has passed.
    let _ = virtual_clock; // the stub ignores it: that is the exercise
    next_deadline.map(|deadline| deadline - now)
}

/// Exercise 4.2: is a timer with this deadline due at `now`? The loop below asks.
///
/// As shipped, this is the talk's test, `now > deadline`.
pub fn is_due(deadline: Duration, now: Duration) -> bool {
    deadline < now
}

/// The loop kept turning without running anything: it spins.
#[derive(Debug, PartialEq, Eq)]
pub struct Spin {
    /// How many turns it took before giving up.
    pub turns: usize,
}

/// Not part of the exercise: stage 4's loop, cut down to its timers, on the virtual clock.
/// Each turn computes the timeout, "selects" (nothing to wait for: the virtual clock jumps
/// to the deadline), then runs the timers [`is_due`] says are due. Returns when each timer
/// fired, or [`Spin`] after `max_turns` turns.
pub fn run_timers(deadlines: &[Duration], max_turns: usize) -> Result<Vec<Duration>, Spin> {
    let clock = VirtualClock::new();
    let mut heap = TimerHeap::new();
    for &deadline in deadlines {
        heap.push(deadline, ());
    }
    let mut fired = Vec::new();
    let mut turns = 0;
    while let Some(next) = heap.peek().map(|t| t.deadline) {
        turns += 1;
        if turns > max_turns {
            return Err(Spin { turns });
        }
        clock.sleep_until(next); // select(timeout) found nothing: jump to the deadline
        while heap.peek().is_some_and(|t| is_due(t.deadline, clock.now())) {
            heap.pop();
            fired.push(clock.now());
        }
    }
    Ok(fired)
}

/// Exercise 4.3: write all of `data`. `write` may take only part of it (a full socket
/// buffer), be interrupted by a signal, or take nothing at all (the peer is gone).
///
/// As shipped, this is the talk's `send`: one `write`, whatever it took.
pub fn sendall(out: &mut impl Write, data: &[u8]) -> io::Result<()> {
    out.write(data).map(drop) // the count is the lost information
}
