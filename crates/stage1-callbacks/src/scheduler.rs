//! The callback scheduler (book chapter 1, "The ready queue" and "Running it"; Beazley's talk).
//!
//! Two collections and a loop, as in the talk:
//!
//! - `ready`: a FIFO of callbacks to run now (`call_soon` appends);
//! - `sleeping`: the [`TimerHeap`] of callbacks due later (`call_later` pushes);
//! - `run`: drain `ready`, including callbacks added while draining; when it is empty,
//!   wait for the earliest sleeper and move it to `ready`; stop when both are empty.
//!
//! What changed from Python: the talk reaches its scheduler through a global `sched`.
//! Here nothing is global. [`Scheduler`] is a cheap handle (an `Rc`), and every callback
//! is handed `&Scheduler` when it runs, so "schedule the next step" is
//! `s.call_later(delay, ...)` on the scheduler that is running you. The collections sit
//! in `RefCell`s, and `run` never holds a borrow while a callback runs, because that
//! callback will want to borrow them again to schedule more work.
//!
//! The ready queue and the loop are written by hand: they are the lesson.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use scaffold::clock::Clock;
use scaffold::event;
use scaffold::event::{Event, Id};

use crate::timer::TimerHeap;

mod inspect;

/// A scheduled callback, with the number the trace knows it by. The talk's callbacks are
/// Python functions of no arguments; ours take the scheduler `S` that runs them, which
/// replaces the talk's global `sched`. (Generic so that stage 4's scheduler, which adds
/// I/O, can hold callbacks that take *it*.)
pub struct Callback<S> {
    /// The callback's number.
    pub id: CallbackId,
    run: Box<dyn FnOnce(&S)>,
}

impl<S> Callback<S> {
    /// Box `run` as callback number `id`.
    pub fn new(id: CallbackId, run: impl FnOnce(&S) + 'static) -> Self {
        Callback {
            id,
            run: Box::new(run),
        }
    }

    /// Run it (once: it is consumed).
    pub fn call(self, scheduler: &S) {
        (self.run)(scheduler)
    }
}

/// The number a scheduler gives each callback it accepts, in order; the trace shows it as
/// `cn` (`c3`), in the id scheme every stage shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallbackId(pub u64);

impl fmt::Display for CallbackId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Id::from(*self).fmt(f)
    }
}

impl From<CallbackId> for Id {
    fn from(id: CallbackId) -> Id {
        Id::Callback(id.0)
    }
}

// ANCHOR: schedule
/// What a callback scheduler offers the code it runs: the talk's `call_soon`, `call_later`
/// and the time. Stage 1's [`Scheduler`] implements it, and so does stage 4's, which adds
/// I/O; stage 3's `Task` is written against this trait, so it runs on either.
pub trait Schedule: Clone + 'static {
    /// Run `callback` as soon as the callbacks already waiting have run.
    fn call_soon(&self, callback: impl FnOnce(&Self) + 'static) -> CallbackId;
    /// Run `callback` once `delay` has passed.
    fn call_later(&self, delay: Duration, callback: impl FnOnce(&Self) + 'static) -> CallbackId;
    /// The current time on the scheduler's clock.
    fn time(&self) -> Duration;
}
// ANCHOR_END: schedule

/// The callback scheduler: a ready queue, a sleeping heap and a loop. Cloning gives another
/// handle to the same scheduler.
#[derive(Clone)]
pub struct Scheduler {
    inner: Rc<Inner>,
}

struct Inner {
    clock: Rc<dyn Clock>,
    // ANCHOR: collections
    ready: RefCell<VecDeque<Callback<Scheduler>>>, // to run now, first in first out
    sleeping: RefCell<TimerHeap<Callback<Scheduler>>>, // to run later, earliest first
    // ANCHOR_END: collections
    next_id: Cell<u64>,
    running: Cell<Option<CallbackId>>, // the callback running now, for the trace
}

impl Scheduler {
    /// An empty scheduler running on `clock`.
    pub fn new(clock: Rc<dyn Clock>) -> Scheduler {
        let inner = Rc::new(Inner {
            clock,
            ready: RefCell::new(VecDeque::new()),
            sleeping: RefCell::new(TimerHeap::new()),
            next_id: Cell::new(0),
            running: Cell::new(None),
        });
        // A recording (if one is on) reads our queues at every step (`inspect.rs`).
        scaffold::state::watch(&inner);
        Scheduler { inner }
    }

    /// The current time on this scheduler's clock, as time since start.
    pub fn time(&self) -> Duration {
        self.inner.clock.now()
    }

    /// The clock this scheduler runs on.
    pub fn clock(&self) -> &Rc<dyn Clock> {
        &self.inner.clock
    }

    fn wrap(&self, run: impl FnOnce(&Scheduler) + 'static) -> Callback<Scheduler> {
        let id = self.inner.next_id.get() + 1;
        self.inner.next_id.set(id);
        Callback::new(CallbackId(id), run)
    }

    // ANCHOR: call_soon
    /// Run `callback` as soon as the callbacks already waiting have run.
    pub fn call_soon(&self, callback: impl FnOnce(&Scheduler) + 'static) -> CallbackId {
        let callback = self.wrap(callback);
        let id = callback.id;
        self.inner.ready.borrow_mut().push_back(callback);
        event!(Event::CallSoon { id: id.into() });
        id
    }
    // ANCHOR_END: call_soon

    // ANCHOR: call_later
    /// Run `callback` once `delay` has passed. Callbacks due at the same moment run in the
    /// order they were scheduled.
    pub fn call_later(
        &self,
        delay: Duration,
        callback: impl FnOnce(&Scheduler) + 'static,
    ) -> CallbackId {
        let callback = self.wrap(callback);
        let id = callback.id;
        // `saturating_add`: a delay of `Duration::MAX` is "at the end of time" (see `run`),
        // not an overflow panic.
        let deadline = self.time().saturating_add(delay);
        let sequence = self.inner.sleeping.borrow_mut().push(deadline, callback);
        event!(Event::CallLater {
            id: id.into(),
            delay,
            due: deadline,
            seq: sequence
        });
        id
    }
    // ANCHOR_END: call_later

    /// The callback running now, if any: who is asking, for a trace that wants to say.
    pub fn running(&self) -> Option<CallbackId> {
        self.inner.running.get()
    }

    /// How many callbacks are ready to run and how many are sleeping.
    pub fn pending(&self) -> (usize, usize) {
        (
            self.inner.ready.borrow().len(),
            self.inner.sleeping.borrow().len(),
        )
    }

    // ANCHOR: run
    /// Run callbacks until none is ready and none is sleeping.
    ///
    /// A callback that panics ends `run` with its panic: this stage has no exception
    /// handler (chapter 5 adds one). The callbacks still queued stay queued, and the next
    /// `run` goes on with them. A delay of `Duration::MAX` is due at the end of time: the
    /// virtual clock jumps there, the real clock waits for ever.
    pub fn run(&self) {
        // However `run` ends, `running` goes back to what it was (see `Restore`).
        let _restore = Restore(&self.inner.running, self.inner.running.get());
        loop {
            if self.inner.ready.borrow().is_empty() {
                event!(self.queues());
                // Nothing to do now: wait for the earliest sleeper, then make it ready.
                let Some(timer) = self.inner.sleeping.borrow_mut().pop() else {
                    break; // nothing sleeping either: done
                };
                event!(Event::WaitTimer {
                    until: timer.deadline,
                    id: timer.item.id.into(),
                    seq: timer.sequence
                });
                self.inner.clock.sleep_until(timer.deadline);
                self.inner.ready.borrow_mut().push_back(timer.item);
            }
            // Drain the ready queue, including what the callbacks add to it. The borrow of
            // `ready` ends with the `pop_front` statement, before the callback runs.
            loop {
                let next = self.inner.ready.borrow_mut().pop_front();
                let Some(callback) = next else { break };
                self.report_run(callback.id); // `run c3` in the trace
                callback.call(self);
                self.inner.running.set(None); // between callbacks, nothing runs
            }
        }
        event!(Event::Done {
            why: "nothing ready, nothing sleeping"
        });
    }
    // ANCHOR_END: run
}

impl Scheduler {
    /// How long the queues are, as the timeline's charts show them.
    fn queues(&self) -> Event {
        let (ready, timers) = self.pending();
        Event::Queues { ready, timers }
    }

    /// Report that callback `id` runs, and remember it as the one running. It runs from the
    /// moment it left the ready queue: the lengths reported first are the queues without
    /// it, so the state they leave has it running, not lost between the two.
    fn report_run(&self, id: CallbackId) {
        self.inner.running.set(Some(id));
        event!(self.queues());
        event!(Event::Run { id: id.into() });
    }
}

/// Puts back the callback that was running when `run` began (`None`, unless a callback
/// calls `run` itself), however `run` ends: by returning, or by a callback's panic.
struct Restore<'a>(&'a Cell<Option<CallbackId>>, Option<CallbackId>);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        self.0.set(self.1);
    }
}

impl Schedule for Scheduler {
    fn call_soon(&self, callback: impl FnOnce(&Self) + 'static) -> CallbackId {
        Scheduler::call_soon(self, callback)
    }

    fn call_later(&self, delay: Duration, callback: impl FnOnce(&Self) + 'static) -> CallbackId {
        Scheduler::call_later(self, delay, callback)
    }

    fn time(&self) -> Duration {
        Scheduler::time(self)
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ready, sleeping) = self.pending();
        f.debug_struct("Scheduler")
            .field("time", &self.time())
            .field("ready", &ready)
            .field("sleeping", &sleeping)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::clock::VirtualClock;

    /// A scheduler on a virtual clock and a log the callbacks write into.
    fn setup() -> (Scheduler, Rc<RefCell<Vec<String>>>) {
        (
            Scheduler::new(VirtualClock::new()),
            Rc::new(RefCell::new(Vec::new())),
        )
    }

    fn note(log: &Rc<RefCell<Vec<String>>>, s: &Scheduler, what: &str) {
        log.borrow_mut()
            .push(format!("{:.3} {what}", s.time().as_secs_f64()));
    }

    #[test]
    fn call_soon_runs_in_fifo_order() {
        let (s, log) = setup();
        for name in ["a", "b", "c"] {
            let log = log.clone();
            s.call_soon(move |s| note(&log, s, name));
        }
        s.run();
        assert_eq!(*log.borrow(), ["0.000 a", "0.000 b", "0.000 c"]);
    }

    #[test]
    fn equal_deadlines_run_in_registration_order() {
        let (s, log) = setup();
        for name in ["first", "second", "third"] {
            let log = log.clone();
            s.call_later(Duration::from_secs(2), move |s| note(&log, s, name));
        }
        let early = log.clone();
        s.call_later(Duration::from_secs(1), move |s| note(&early, s, "early"));
        s.run();
        assert_eq!(
            *log.borrow(),
            ["1.000 early", "2.000 first", "2.000 second", "2.000 third"]
        );
    }

    #[test]
    fn callbacks_added_during_a_drain_run_in_the_same_drain() {
        let (s, log) = setup();
        let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
        s.call_soon(move |s| {
            note(&l1, s, "a");
            s.call_soon(move |s| note(&l3, s, "a's child"));
        });
        s.call_soon(move |s| note(&l2, s, "b"));
        // A sleeper due now must wait until the drain has emptied the ready queue.
        let l4 = log.clone();
        s.call_later(Duration::ZERO, move |s| note(&l4, s, "sleeper"));
        s.run();
        assert_eq!(
            *log.borrow(),
            ["0.000 a", "0.000 b", "0.000 a's child", "0.000 sleeper"]
        );
    }

    #[test]
    fn the_clock_jumps_to_each_deadline_and_never_back() {
        let (s, log) = setup();
        let l = log.clone();
        s.call_later(Duration::from_secs(3), move |s| {
            note(&l, s, "at 3");
            // Due "now" while the clock reads 3: runs at 3, not earlier.
            let l = l.clone();
            s.call_later(Duration::ZERO, move |s| note(&l, s, "zero delay"));
        });
        s.run();
        assert_eq!(*log.borrow(), ["3.000 at 3", "3.000 zero delay"]);
        assert_eq!(s.time(), Duration::from_secs(3));
    }

    #[test]
    fn a_callback_that_calls_run_is_still_the_one_running_afterwards() {
        let (s, log) = setup();
        let l = log.clone();
        let outer = s.call_soon(move |s| {
            let l2 = l.clone();
            s.call_later(Duration::from_secs(1), move |s| note(&l2, s, "inner"));
            s.run(); // careless, but allowed: runs everything else now
            note(&l, s, &format!("outer again, running {:?}", s.running()));
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            [
                "1.000 inner".to_owned(),
                format!("1.000 outer again, running {:?}", Some(outer))
            ]
        );
        assert_eq!(s.running(), None);
    }

    #[test]
    fn a_panicking_callback_ends_run_and_the_rest_stays_queued() {
        let (s, log) = setup();
        s.call_soon(|_| panic!("a careless callback"));
        let l = log.clone();
        s.call_soon(move |s| note(&l, s, "after the panic"));
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.run()));
        assert!(ran.is_err(), "stage 1 has no handler: the panic ends run");
        assert_eq!(s.pending(), (1, 0));
        assert_eq!(s.running(), None, "nothing runs once run has ended");
        s.run();
        assert_eq!(*log.borrow(), ["0.000 after the panic"]);
        assert_eq!(s.running(), None);
    }

    #[test]
    fn a_huge_delay_does_not_overflow() {
        let (s, _) = setup();
        s.call_later(Duration::MAX, |_| {});
        assert_eq!(s.pending(), (0, 1));
    }

    #[test]
    fn callback_ids_count_up_and_run_returns_when_empty() {
        let (s, _) = setup();
        assert_eq!(s.call_soon(|_| {}), CallbackId(1));
        assert_eq!(s.call_later(Duration::from_secs(1), |_| {}), CallbackId(2));
        assert_eq!(CallbackId(2).to_string(), "c2");
        s.run();
        assert_eq!(s.pending(), (0, 0));
    }
}
