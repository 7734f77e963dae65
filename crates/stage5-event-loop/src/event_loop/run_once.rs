//! One iteration of the loop: asyncio's `_run_once` (book chapter 5, "One iteration:
//! `run_once`" and its steps; asyncio's `base_events.py`,
//! `BaseEventLoop._run_once`).
//!
//! CPython's docstring speaks of the iteration as a whole; readings of it divide it into
//! three or four phases. The book numbers it in five steps, one function each: (1) clean
//! cancelled timers off the heap, (2) compute how long to wait, (3) select and process the
//! events, (4) move the due timers to the ready queue, (5) run exactly the handles that are
//! ready now. Whatever step 5 schedules waits for the next iteration.
//!
//! What changed since stage 4: stage 4's `run_once` ran the ready queue dry, new arrivals
//! included; here a batch is fixed when it starts (`ntodo`), and a panic in a callback is
//! caught and reported instead of ending the program.

use std::time::Duration;

use crate::errors::{Error, catch};
use scaffold::Event;

use crate::event_loop::running::Running;
use crate::event_loop::scheduling::clamped;
use crate::event_loop::{EventLoop, Handle, Level};

mod events; // step 3's second half: what other threads left, what the selector found

/// The longest a single `select` waits, even if the next timer is further away (CPython's
/// `MAXIMUM_SELECT_TIMEOUT`, 24 hours).
pub const MAXIMUM_SELECT_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// The clock's resolution, in seconds: a timer is due when `when < now + CLOCK_RESOLUTION`.
/// CPython reads it from `time.get_clock_info('monotonic')`, 1 ns on Linux; our clocks
/// count in nanoseconds too.
pub const CLOCK_RESOLUTION: f64 = 1e-9;

impl EventLoop {
    // ANCHOR: run_once
    /// One full iteration of the loop, in five steps. Public so that tests can drive the
    /// loop one iteration at a time; fails on a closed or running loop.
    pub fn run_once(&self) -> Result<(), Error> {
        self.check_closed()?;
        let _running = Running::enter_once(self)?;
        self.run_once_inner()
    }

    pub(super) fn run_once_inner(&self) -> Result<(), Error> {
        let inner = &*self.inner;
        inner.core.iteration.set(inner.core.iteration.get() + 1);
        self.clean_scheduled(); // step 1
        let timeout = self.compute_timeout(); // step 2
        let events = self.select(timeout)?; // step 3
        self.process_events(events);
        self.move_due_timers_to_ready(); // step 4
        self.run_ready(); // step 5
        Ok(())
    }
    // ANCHOR_END: run_once

    // ANCHOR: step1
    /// Step 1: if more than 100 timers are scheduled and more than half of them are
    /// cancelled, rebuild the heap without them; otherwise pop the cancelled ones off the
    /// head, where they would otherwise decide the select timeout.
    fn clean_scheduled(&self) {
        let mut scheduled = self.inner.core.scheduled.borrow_mut();
        if scheduled.is_empty() {
            return; // a loop busy with callbacks only: nothing to clean
        }
        if let Some((cancelled, before)) = scheduled.rebuild_if_mostly_cancelled() {
            let after = scheduled.len();
            drop(scheduled); // a report may look at the heap (`inspect.rs`)
            loop_trace!(
                self,
                "clean heap: {cancelled} of {before} timers cancelled: rebuilt with {after}"
            );
            return;
        }
        while let Some(handle) = scheduled.pop_cancelled_head() {
            drop(scheduled); // a report may look at the heap
            let id = handle.trace_id();
            loop_trace!(self, "clean heap: drop cancelled {id} off the head");
            scheduled = self.inner.core.scheduled.borrow_mut();
        }
    }
    // ANCHOR_END: step1

    // ANCHOR: step2
    /// Step 2: how long step 3 may wait. Not at all if something is ready or the loop is
    /// stopping; until the first timer if there is one (at most 24 h); else without limit.
    fn compute_timeout(&self) -> Option<Duration> {
        let inner = &*self.inner;
        if !inner.core.ready.borrow().is_empty()
            || inner.state.stopping.get()
            || inner.io.remote().pending()
        {
            return Some(Duration::ZERO);
        }
        let when = inner.core.scheduled.borrow().next_when()?;
        let wait = (when - self.time()).clamp(0.0, MAXIMUM_SELECT_TIMEOUT.as_secs_f64());
        Some(Duration::from_secs_f64(wait))
    }
    // ANCHOR_END: step2

    // ANCHOR: step3
    /// Step 3: wait on the selector for at most `timeout`.
    ///
    /// On the virtual clock, waiting for real would be wrong while a timer is pending
    /// (virtual time does not pass while we wait), so the loop polls without blocking and,
    /// if nothing happened, jumps the clock by `timeout`: to the first timer. With no timer
    /// and nothing ready, only the outside world can wake the loop: a reader or writer, a
    /// signal, another thread holding a `ThreadsafeLoop`. Then the loop blocks for real, as it
    /// would on the real clock. With none of those either, no event can ever come: on the
    /// real clock asyncio would block forever; on the virtual clock that is a hang in a
    /// test, so the iteration fails with [`Error::NothingToWaitFor`] instead.
    fn select(&self, timeout: Option<Duration>) -> Result<usize, Error> {
        self.inner.io.before_select(); // chapter 7: re-arm, release, check waits
        // A virtual loop with a timer jumps to it; with nothing to wait for, it fails. With
        // no timer, only the outside world can end the wait: it blocks as the real one does.
        if self.inner.core.virtual_clock && (timeout.is_some() || !self.inner.io.watches_anything())
        {
            return self.select_virtual(timeout);
        }
        loop_event!(
            self,
            Event::Select {
                timeout,
                virtual_next: None
            }
        );
        Ok(self.select_io(timeout)?)
    }
    // ANCHOR_END: step3

    /// Step 3 on the virtual clock, with a timer: poll, and jump the clock if nothing
    /// came. Without one (and nothing outside to wait for), fail.
    #[inline(never)] // out of the real clock's way
    fn select_virtual(&self, timeout: Option<Duration>) -> Result<usize, Error> {
        let Some(timeout) = timeout else {
            loop_trace!(
                self,
                "select: nothing ready, no timer, no I/O: nothing to wait for"
            );
            return Err(Error::NothingToWaitFor);
        };
        let next = self.inner.core.clock.now().saturating_add(timeout);
        // The virtual clock polls; it says where it will jump if nothing comes.
        let virtual_next = (timeout > Duration::ZERO).then_some(next);
        loop_event!(
            self,
            Event::Select {
                timeout: Some(timeout),
                virtual_next
            }
        );
        let mut events = self.select_io(Some(Duration::ZERO))?;
        let mut woke = false;
        // The jump is this clock's sleep: first check the waits (chapter 7).
        if events == 0 && timeout > Duration::ZERO && self.inner.io.has_unchecked_waits() {
            woke = self.check_all_waits();
            events = self.select_io(Some(Duration::ZERO))?;
        }
        if events == 0 && timeout > Duration::ZERO && !woke {
            self.inner.core.clock.sleep_until(next);
            loop_event!(self, Event::Jump { to: next });
        }
        Ok(events)
    }

    /// Step 3's `select` for at most `timeout` (`IoDriver::select`: a nap first, then a
    /// check of the waits not checked yet, before a long sleep).
    fn select_io(&self, timeout: Option<Duration>) -> std::io::Result<usize> {
        let clock = &*self.inner.core.clock;
        self.inner
            .io
            .select(timeout, clock, |checked| self.checked_waits(checked))
    }

    /// Check every wait not checked yet (the loop is about to sleep); true if a task was
    /// woken.
    fn check_all_waits(&self) -> bool {
        self.inner
            .io
            .check_all_waits(|checked| self.checked_waits(checked))
    }

    /// The trace's word on a check before sleeping.
    fn checked_waits(&self, checked: usize) {
        loop_trace!(self, "select: checked {checked} waits before sleeping");
    }

    // ANCHOR: step4
    /// Step 4: move every timer that is due (`when < now + clock resolution`) to the
    /// ready queue, earliest first; cancelled ones too (step 5 skips them).
    fn move_due_timers_to_ready(&self) {
        let mut scheduled = self.inner.core.scheduled.borrow_mut();
        if scheduled.is_empty() {
            return; // no timer: no clock to read (CPython reads it anyway; "Going further")
        }
        let end_time = self.time() + CLOCK_RESOLUTION;
        while let Some((handle, seq)) = scheduled.pop_due(end_time) {
            drop(scheduled); // the report looks at the heap (`inspect.rs`)
            let (id, when) = (handle.trace_id(), handle.when());
            self.push_ready(handle);
            loop_event!(self, {
                let due = clamped(when.unwrap_or_default());
                Event::TimerDue { id, due, seq }
            });
            scheduled = self.inner.core.scheduled.borrow_mut();
        }
    }
    // ANCHOR_END: step4

    // ANCHOR: step5
    /// Step 5: run the handles that are ready now (`ntodo` of them), skipping cancelled
    /// ones. Whatever they schedule goes to the back of the ready queue and runs in the
    /// next iteration, after another select.
    fn run_ready(&self) {
        let ntodo = self.inner.core.ready.borrow().len();
        loop_event!(self, self.queues());
        for _ in 0..ntodo {
            // The borrow ends with the statement: the callback will call `call_soon`.
            let next = self.inner.core.ready.borrow_mut().pop_front();
            let Some(handle) = next else { break };
            if handle.cancelled() {
                self.ran(); // the one before is over, and this one does not run
                loop_trace!(self, "skip cancelled {}", handle.trace_id());
                continue;
            }
            self.report_run(&handle); // `run c3` in the trace
            if self.inner.settings.debug.get() {
                self.run_handle_timed(&handle);
            } else {
                self.run_handle(&handle);
            }
        }
        self.ran(); // between batches, nothing runs
    }
    // ANCHOR_END: step5

    // ANCHOR: run_handle
    /// Run one handle; a panic goes to the exception handler, and the loop goes on
    /// (asyncio's `Handle._run`).
    pub(super) fn run_handle(&self, handle: &Handle) {
        if let Err(error) = catch(|| handle.run(self)) {
            self.callback_failed(handle, error);
        }
    }

    // ANCHOR_END: run_handle

    /// Debug mode: run one handle and report it if it took `slow_callback_duration` or
    /// more.
    fn run_handle_timed(&self, handle: &Handle) {
        let start = self.time();
        self.run_handle(handle);
        let took = self.time() - start;
        if took >= self.inner.settings.slow_callback_duration.get() {
            let message = format!("Executing {handle} took {took:.3} seconds");
            self.log(Level::Warning, &message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;

    #[test]
    fn an_idle_virtual_loop_does_not_hang() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        assert!(matches!(lp.run_forever(), Err(Error::NothingToWaitFor)));
        assert!(!lp.is_running());
        let future: crate::Future<u32> = lp.create_future();
        assert!(matches!(
            lp.run_until_complete(&future),
            Err(Error::NothingToWaitFor)
        ));
    }
}
