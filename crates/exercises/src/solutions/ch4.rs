//! Chapter 4's exercises, solved (book chapter 4; Beazley's talk, its `select()`). Compare
//! with `src/ch4.rs`, the stubs.

use std::io::{self, ErrorKind, Write};
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
    match next_deadline {
        None => None,
        Some(_) if virtual_clock => Some(Duration::ZERO),
        Some(deadline) => Some(deadline.saturating_sub(now)),
    }
}

/// Exercise 4.2: is a timer with this deadline due at `now`? The loop below asks.
pub fn is_due(deadline: Duration, now: Duration) -> bool {
    deadline <= now
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
pub fn sendall(out: &mut impl Write, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match out.write(data) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => data = &data[n..],
            // A signal interrupted the call before anything was written: try again.
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}
