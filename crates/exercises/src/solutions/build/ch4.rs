//! Build it 4.4, solved: the run loop with `select` (book chapter 4, "The run loop with
//! I/O"; Beazley's talk: `Scheduler.run`, which sleeps in `select()` with a timeout that
//! ends at the next timer instead of in `time.sleep`). The reference solution of a build-it
//! exercise; the stub is `src/build/ch4.rs`. `tests/build_ch4.rs` runs a scripted exchange
//! on a socket pair inside the process, with timers around it, on your scheduler and on
//! stage 4's, both on the virtual clock, and compares what ran when.
//!
//! The skeleton is stage 1's scheduler plus the talk's two dicts of callbacks waiting for a
//! socket (one table here, by descriptor and direction) and a selector: stage 4's
//! [`MioSelector`], whose waits are one-shot (a wait reported ready is gone). Its one
//! awkward case, the virtual clock, is hidden in [`Scheduler::select`]: you compute the
//! timeout as for a real clock, and on the virtual one `select` polls and, if nothing is
//! ready, jumps the clock by the timeout.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use stage1::{Clock, TimerHeap};
use stage4::{Interest, MioSelector, Selector};

/// A callback: runs once, handed the scheduler that runs it.
pub type Callback = Box<dyn FnOnce(&Scheduler)>;

/// The callback scheduler with I/O waits.
pub struct Scheduler {
    clock: Rc<dyn Clock>,
    ready: RefCell<VecDeque<Callback>>,
    sleeping: RefCell<TimerHeap<Callback>>,
    waiting: RefCell<HashMap<(RawFd, Interest), Callback>>,
    selector: RefCell<MioSelector>,
}

impl Scheduler {
    /// An empty scheduler on `clock`; fails if the system refuses a selector.
    pub fn new(clock: Rc<dyn Clock>) -> io::Result<Scheduler> {
        Ok(Scheduler {
            clock,
            ready: RefCell::default(),
            sleeping: RefCell::new(TimerHeap::new()),
            waiting: RefCell::default(),
            selector: RefCell::new(MioSelector::new()?),
        })
    }

    /// The time on the scheduler's clock.
    pub fn time(&self) -> Duration {
        self.clock.now()
    }

    /// Run `callback` as soon as the callbacks already ready have run.
    pub fn call_soon(&self, callback: impl FnOnce(&Scheduler) + 'static) {
        self.ready.borrow_mut().push_back(Box::new(callback));
    }

    /// Run `callback` once `delay` has passed.
    pub fn call_later(&self, delay: Duration, callback: impl FnOnce(&Scheduler) + 'static) {
        let deadline = self.time() + delay;
        self.sleeping
            .borrow_mut()
            .push(deadline, Box::new(callback));
    }

    /// Run `callback` once `source` is readable (once: wait again for more).
    pub fn read_wait(
        &self,
        source: &impl AsRawFd,
        callback: impl FnOnce(&Scheduler) + 'static,
    ) -> io::Result<()> {
        let key = (source.as_raw_fd(), Interest::Read);
        self.selector.borrow_mut().add(key.0, key.1)?;
        self.waiting.borrow_mut().insert(key, Box::new(callback));
        Ok(())
    }

    /// How many callbacks are ready, asleep, and waiting for a socket.
    pub fn pending(&self) -> (usize, usize, usize) {
        (
            self.ready.borrow().len(),
            self.sleeping.borrow().len(),
            self.waiting.borrow().len(),
        )
    }

    /// Wait until a socket is ready or `timeout` has passed (`None`: until a socket is
    /// ready, however long), and return the waits that are ready, each `(fd, interest)`;
    /// the selector has forgotten them. On the virtual clock it never blocks while a
    /// timeout is given: it polls, and if nothing is ready, moves the clock on by
    /// `timeout`. Two mistakes are errors here rather than a hang: no timeout while a
    /// timer is asleep (the wait would go past its deadline), and no timeout with no
    /// socket to wait for (nothing could ever end the wait).
    pub fn select(&self, timeout: Option<Duration>) -> io::Result<Vec<(RawFd, Interest)>> {
        if timeout.is_none() && !self.sleeping.borrow().is_empty() {
            return Err(io::Error::other(
                "select(None) while a timer is asleep: the wait must end at its deadline",
            ));
        }
        if timeout.is_none() && self.waiting.borrow().is_empty() {
            return Err(io::Error::other(
                "select(None) with no socket to wait for would block for ever",
            ));
        }
        let virtual_wait = timeout.filter(|_| self.clock.is_virtual());
        let mut events = Vec::new();
        let selector_timeout = virtual_wait.map_or(timeout, |_| Some(Duration::ZERO));
        self.selector
            .borrow_mut()
            .select(selector_timeout, &mut events)?;
        if let (Some(wait), true) = (virtual_wait, events.is_empty()) {
            self.clock.sleep_until(self.clock.now() + wait);
        }
        Ok(events)
    }

    /// Build it 4.4: run until nothing is ready, asleep or waiting for a socket.
    ///
    /// Stage 1's loop, with the sleep replaced by `select`. Each turn, if nothing is
    /// ready: work out how long the loop may sleep (until the earliest timer, or, with no
    /// timer, for as long as it takes a socket; with neither, it is done), `select` for
    /// that long, move the callbacks of the waits it reports to the ready queue, then the
    /// timers that are due by now (`TimerHeap::pop_due`), earliest first. Then run the
    /// ready queue until it is empty, including what the callbacks add to it.
    pub fn run(&self) -> io::Result<()> {
        while self.pending() != (0, 0, 0) {
            if self.ready.borrow().is_empty() {
                // Sleep in the selector until the earliest timer; with no timer, until a
                // socket is ready (there is one: `pending` said so).
                let next = self.sleeping.borrow().peek().map(|timer| timer.deadline);
                let timeout = next.map(|deadline| deadline.saturating_sub(self.time()));
                for wait in self.select(timeout)? {
                    let callback = self.waiting.borrow_mut().remove(&wait);
                    if let Some(callback) = callback {
                        self.ready.borrow_mut().push_back(callback);
                    }
                }
                // Then the timers due by now: `deadline <= now`, not the talk's `<`.
                let now = self.time();
                loop {
                    let due = self.sleeping.borrow_mut().pop_due(now);
                    let Some(timer) = due else { break };
                    self.ready.borrow_mut().push_back(timer.item);
                }
            }
            loop {
                let next = self.ready.borrow_mut().pop_front();
                let Some(callback) = next else { break };
                callback(self);
            }
        }
        Ok(())
    }
}
