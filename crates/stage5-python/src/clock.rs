//! The loop's clock, on `time.monotonic()`'s scale (book chapter 9, "What asyncio asks of
//! a loop"; asyncio's `BaseEventLoop.time`, which returns `time.monotonic()`).
//!
//! Stage 5's real clock reads 0 when the loop starts. asyncio's `loop.time()` is
//! `time.monotonic()`, and Python code may mix the two (a deadline computed from one,
//! compared with the other), so this clock starts where `time.monotonic()` stands when the
//! loop is made and runs on Rust's `Instant` from there: both read `CLOCK_MONOTONIC`.
//!
//! What changed from stage 5: its `RealClock` starts at 0; this one at `time.monotonic()`.

use std::time::{Duration, Instant};

use stage5::Clock;

/// A real clock that reads `time.monotonic()`'s value.
#[derive(Debug)]
pub struct MonotonicClock {
    start: Instant,
    at_start: Duration, // `time.monotonic()` when `start` was taken
}

impl MonotonicClock {
    /// A clock that reads `at_start` seconds now.
    pub fn new(at_start: f64) -> MonotonicClock {
        MonotonicClock {
            start: Instant::now(),
            at_start: Duration::try_from_secs_f64(at_start).unwrap_or_default(),
        }
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.at_start + self.start.elapsed()
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
