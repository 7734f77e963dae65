//! The clock every stage schedules by (book chapter 1, "Time without waiting").
//!
//! The talk calls `time.time()` for "now" and `time.sleep(delta)` to wait for the next
//! deadline. We put both behind one trait so a scheduler can run on either of two clocks:
//!
//! - [`RealClock`]: monotonic, and really sleeps. This is what the talk does.
//! - [`VirtualClock`]: starts at 0.000 and, where a scheduler would sleep until a deadline,
//!   jumps straight to it (trio's `MockClock` with autojump). A twenty-second demo finishes at
//!   once and prints exactly the same schedule, which is what makes snapshot tests possible.
//!
//! Times are [`Duration`]s since the clock started, not wall-clock timestamps: a schedule
//! only ever cares about "how long from the start", and `Duration` arithmetic is exact,
//! so two timers due at `0 + 4 s` and `3 s + 1 s` really are equal (the talk's floats are
//! not always).
//!
//! Every stage takes its clock from here. Chapter 1 teaches it, yet it lives in the
//! scaffold, beneath stage 1, because the output contract needs it as well: `--virtual-time`
//! picks the clock, every stamped line and recorded event reads it, and a transcript runs
//! its program on a fresh virtual one.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// A source of "now" that a scheduler can also wait on.
pub trait Clock {
    /// Time elapsed since the clock started.
    fn now(&self) -> Duration;

    /// Wait until `deadline` (a time since start). A deadline in the past returns at once.
    fn sleep_until(&self, deadline: Duration);

    /// True for a clock whose time moves only when a scheduler moves it. A scheduler that
    /// waits on the operating system (stage 4 onwards) must not block for real on such a
    /// clock while timers are pending: it polls without blocking and then jumps.
    fn is_virtual(&self) -> bool;
}

/// The clock the talk uses: real, monotonic time, and real sleeping.
#[derive(Debug)]
pub struct RealClock {
    start: Instant,
}

impl RealClock {
    /// A real clock that reads 0.000 now.
    pub fn new() -> Rc<Self> {
        Rc::new(RealClock {
            start: Instant::now(),
        })
    }
}

impl Clock for RealClock {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn sleep_until(&self, deadline: Duration) {
        let now = self.now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
    }

    fn is_virtual(&self) -> bool {
        false
    }
}

/// A clock that only moves when a scheduler waits on it, and then jumps to the deadline.
#[derive(Debug, Default)]
pub struct VirtualClock {
    now: Cell<Duration>,
}

impl VirtualClock {
    /// A virtual clock that reads 0.000 until someone waits on it.
    pub fn new() -> Rc<Self> {
        Rc::new(VirtualClock::default())
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> Duration {
        self.now.get()
    }

    /// Jump to `deadline`. A deadline in the past leaves the clock where it is: the
    /// virtual clock, like the real one, never goes back.
    fn sleep_until(&self, deadline: Duration) {
        if deadline > self.now.get() {
            self.now.set(deadline);
        }
    }

    fn is_virtual(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_starts_at_zero_and_jumps_to_deadlines() {
        let clock = VirtualClock::new();
        assert_eq!(clock.now(), Duration::ZERO);
        clock.sleep_until(Duration::from_secs(4));
        assert_eq!(clock.now(), Duration::from_secs(4));
    }

    #[test]
    fn virtual_clock_never_goes_back() {
        let clock = VirtualClock::new();
        clock.sleep_until(Duration::from_secs(4));
        clock.sleep_until(Duration::from_secs(1));
        assert_eq!(clock.now(), Duration::from_secs(4));
    }

    #[test]
    fn real_clock_is_monotonic_and_not_virtual() {
        let clock = RealClock::new();
        let a = clock.now();
        clock.sleep_until(Duration::ZERO);
        assert!(clock.now() >= a);
        assert!(!clock.is_virtual());
        assert!(VirtualClock::new().is_virtual());
    }
}
