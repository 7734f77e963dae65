//! The loop's clock, on `time.monotonic()`'s scale (book chapter 9, "What asyncio asks of
//! a loop"; asyncio's `BaseEventLoop.time`, which returns `time.monotonic()`).
//!
//! Stage 5's real clock reads 0 when the loop starts. asyncio's `loop.time()` is
//! `time.monotonic()`, and Python code mixes the two (a deadline computed from one,
//! compared with the other), so this clock is stage 5's real clock shifted by where
//! `time.monotonic()` stood when the loop was made: both read `CLOCK_MONOTONIC`.
//!
//! What changed from stage 5: its `RealClock` starts at 0; this one reads it plus that
//! starting point. (The shift lives here, not in `RealClock`: a field added there cost
//! stage 5's W1 about a fifth, measured with the benchmarks' `bench-stage5 W1`.)

use std::rc::Rc;
use std::time::Duration;

use stage5::{Clock, RealClock};

/// Stage 5's real clock, read on `time.monotonic()`'s scale.
#[derive(Debug)]
pub struct MonotonicClock {
    real: Rc<RealClock>,
    at_start: Duration, // `time.monotonic()` when `real` read 0
}

impl MonotonicClock {
    /// A clock that reads `at_start` seconds now.
    pub fn new(at_start: f64) -> MonotonicClock {
        MonotonicClock {
            real: RealClock::new(),
            at_start: Duration::try_from_secs_f64(at_start).unwrap_or_default(),
        }
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.at_start + self.real.now()
    }

    fn sleep_until(&self, deadline: Duration) {
        self.real
            .sleep_until(deadline.saturating_sub(self.at_start));
    }

    fn is_virtual(&self) -> bool {
        false
    }
}
