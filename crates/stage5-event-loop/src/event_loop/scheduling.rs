//! `call_soon`, `call_later` and `call_at`: how a callback gets onto the loop (book chapter
//! 5, "The loop's state and `call_*`" and "The timer heap"; asyncio's `base_events.py`:
//! `call_soon`, `call_later`, `call_at`).
//!
//! `call_soon` wraps the callback in a [`Handle`] and appends it to the ready queue;
//! `call_later(delay)` is `call_at(time() + delay)`, and `call_at` pushes a timer handle onto
//! the heap. Like CPython, the deadline is computed without clamping: a negative delay is a
//! deadline in the past, which is due at once, and two deadlines in the past keep their
//! order (`call_later(-2)` runs before `call_later(-1)`). Only NaN is refused: it has no
//! place in an order.
//!
//! What changed since stage 4: stage 4's `call_soon` queued a boxed closure and returned a
//! number; here the caller gets the handle itself, and can cancel it.

use std::time::Duration;

use scaffold::Event;

use crate::errors::Error;
use crate::event_loop::{EventLoop, Handle, TimerHandle};

impl EventLoop {
    // ANCHOR: call_soon
    /// Run `callback` in the next batch, after the callbacks already waiting: asyncio's
    /// `call_soon`, first in, first out.
    pub fn call_soon(&self, callback: impl FnOnce(&EventLoop) + 'static) -> Result<Handle, Error> {
        self.check_closed()?;
        let handle = Handle::new(self.next_handle_id(), None, callback);
        self.push_ready(handle.clone());
        let id = handle.trace_id();
        loop_event!(self, Event::CallSoon { id }, self.queues());
        Ok(handle)
    }
    // ANCHOR_END: call_soon

    /// How long the ready queue and the heap are: what the timeline charts.
    pub(crate) fn queues(&self) -> Event {
        let ready = self.inner.core.ready.borrow().len();
        let timers = self.inner.core.scheduled.borrow().len();
        Event::Queues { ready, timers }
    }

    /// Put `handle` at the back of the ready queue (asyncio's `_add_callback`).
    #[inline]
    pub(crate) fn push_ready(&self, handle: Handle) {
        self.inner.core.ready.borrow_mut().push_back(handle);
    }

    // ANCHOR: call_later
    /// Run `callback` once `delay` seconds have passed: `call_at(time() + delay)`. A
    /// negative delay is a time in the past: due at once, and earlier than a later past.
    /// A NaN delay is an error; an infinite one means "never".
    pub fn call_later(
        &self,
        delay: f64,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<TimerHandle, Error> {
        if delay.is_nan() {
            return Err(Error::NanTime);
        }
        self.call_at(self.time() + delay, callback)
    }

    /// Run `callback` at `when`, a time on the loop's clock (`loop.time()`). A time in the
    /// past means "as soon as possible", after the handles already ready.
    pub fn call_at(
        &self,
        when: f64,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<TimerHandle, Error> {
        if when.is_nan() {
            return Err(Error::NanTime);
        }
        self.check_closed()?;
        let handle = Handle::new(self.next_handle_id(), Some(when), callback);
        let id = handle.trace_id();
        let (timer, seq) = self.inner.core.scheduled.borrow_mut().push(handle);
        loop_event!(self, {
            let due = clamped(when);
            let delay = clamped(when - self.time());
            Event::CallLater {
                id,
                delay,
                due,
                seq,
            }
        });
        loop_event!(self, self.queues());
        Ok(timer)
    }
    // ANCHOR_END: call_later
}

/// Seconds as a `Duration`, for the trace and the timeline, which count from the clock's
/// start: a time in the past shows as 0, an infinite one as the largest `Duration`.
pub(crate) fn clamped(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;

    #[test]
    fn bad_delays_get_an_answer_and_nothing_overflows() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        assert!(matches!(
            lp.call_later(f64::NAN, |_| {}),
            Err(Error::NanTime)
        ));
        assert!(matches!(lp.call_at(f64::NAN, |_| {}), Err(Error::NanTime)));
        let never = lp.call_later(f64::INFINITY, |_| {}).unwrap();
        let huge = lp.call_at(1e300, |_| {}).unwrap();
        assert!(never.when() > 1e18 && huge.when() > 1e18);
        let past = lp.call_later(-5.0, |_| {}).unwrap();
        assert_eq!(past.when(), -5.0, "CPython does not clamp");
        // The past timer runs; the huge ones bound the select timeout at 24 h.
        lp.run_once().unwrap();
        assert_eq!(lp.scheduled_len(), 2);
        assert_eq!(lp.time(), 0.0);
        lp.run_once().unwrap();
        assert_eq!(
            lp.time(),
            crate::event_loop::run_once::MAXIMUM_SELECT_TIMEOUT.as_secs_f64()
        );
    }
}
