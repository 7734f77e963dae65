//! The scheduler's state, as the scheduler itself reports it (book introduction, "Watching
//! a run"). No public source: the talk's schedulers print nothing about themselves; this is
//! the project's own instrument, shared by every stage.
//!
//! A trace line says what a scheduler *did*; a learner stepping through a run also wants
//! to see what it *holds*: the ready queue in order, the timer heap in the order it will
//! pop, who waits for what, and what runs now. Each stage answers that from its own
//! collections by implementing [`Inspect`] (in its `inspect.rs`, beside the lesson, not in
//! it), and puts itself under watch as it is made ([`watch`]). While a recording is on,
//! [`crate::record`] asks the inspector at every event, so the state is read from the real
//! queues at the moment they change, never rebuilt from the events afterwards. For that to
//! hold, a scheduler reports each step *after* making it: `call_soon` pushes, then reports.
//!
//! Nothing here runs unless a recording is on: [`watch`] is then a no-op, and an untraced
//! run never builds a [`State`].

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

use crate::event::Id;

/// At most this many entries of the ready queue and of the timer heap are listed; the
/// lengths are always whole.
pub const SHOWN: usize = 16;

/// What a scheduler holds at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    /// The callback or task running now.
    pub running: Option<Id>,
    /// The ready queue, front first (its first [`SHOWN`]).
    pub ready: Vec<Id>,
    /// How many are ready.
    pub ready_len: usize,
    /// The timer heap in pop order: earliest deadline first, ties by sequence (its first
    /// [`SHOWN`]).
    pub timers: Vec<Timer>,
    /// How many timers are on the heap.
    pub timers_len: usize,
    /// Who waits for what, by waiter (callback or task id).
    pub waits: Vec<Wait>,
}

/// One timer on the heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timer {
    /// Its deadline.
    pub due: Duration,
    /// The heap's tie-breaker.
    pub seq: u64,
    /// The callback or task it wakes.
    pub id: Id,
}

/// One waiter and what it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wait {
    /// The waiting callback or task.
    pub id: Id,
    /// What for, in the trace's words: `fd 5 read`, `queue`, `future t3`.
    pub on: String,
}

impl State {
    /// The ready queue, front first: keeps the first [`SHOWN`] and the length.
    pub fn with_ready(mut self, ready: impl ExactSizeIterator<Item = Id>) -> State {
        self.ready_len = ready.len();
        self.ready = ready.take(SHOWN).collect();
        self
    }

    /// The timer heap in any order: keeps the first [`SHOWN`] in pop order and the
    /// length. (A binary heap's own order is not its pop order; this sorts a copy.)
    pub fn with_timers(mut self, timers: impl IntoIterator<Item = Timer>) -> State {
        let mut all: Vec<Timer> = timers.into_iter().collect();
        self.timers_len = all.len();
        if all.len() > SHOWN {
            // Only the first SHOWN need sorting: partition around the SHOWN-th first.
            all.select_nth_unstable(SHOWN);
            all.truncate(SHOWN);
        }
        all.sort_unstable();
        self.timers = all;
        self
    }

    /// The callback or task running now.
    pub fn with_running(mut self, running: Option<Id>) -> State {
        self.running = running;
        self
    }

    /// Who waits for what, listed by waiter: a table of descriptors keeps them in the
    /// order of their numbers, which the kernel picks anew on every run.
    pub fn with_waits(mut self, waits: impl IntoIterator<Item = Wait>) -> State {
        self.waits = waits.into_iter().collect();
        self.waits.sort_by_key(|w| w.id);
        self
    }
}

/// A scheduler that can say what it holds.
pub trait Inspect {
    /// The state now. `None` when the scheduler cannot look right now (one of its cells is
    /// borrowed by the code reporting the event): the step then shows no state.
    fn state(&self) -> Option<State>;
}

thread_local! {
    /// True while this thread records (the recording sets it: this module sits beneath
    /// the recording and never calls up into it).
    static ON: Cell<bool> = const { Cell::new(false) };
    /// The schedulers under watch on this thread, newest last. Weak: watching does not
    /// keep a scheduler alive, and one that is gone is skipped and forgotten.
    static WATCHED: RefCell<Vec<Weak<dyn Inspect>>> = const { RefCell::new(Vec::new()) };
}

/// Watch `scheduler` from now on, if a recording is on (else nothing happens): until it
/// is dropped, or a newer scheduler is watched, the recording reads its state at every
/// step. A scheduler calls this as it is made, so the steps its program takes before
/// `run` have their state too.
pub fn watch<T: Inspect + 'static>(scheduler: &Rc<T>) {
    if !ON.get() {
        return;
    }
    let scheduler: Rc<dyn Inspect> = scheduler.clone();
    let weak = Rc::downgrade(&scheduler);
    WATCHED.with(|w| {
        let mut watched = w.borrow_mut();
        watched.retain(|s| s.strong_count() > 0);
        watched.push(weak);
    });
}

/// Watch the schedulers made from now on (`true`), or none (`false`): the recording
/// calls this as it starts and stops.
pub fn set_on(on: bool) {
    ON.set(on);
    if !on {
        WATCHED.with(|w| w.borrow_mut().clear());
    }
}

/// The state of the newest scheduler under watch that is still alive, if it can say.
pub fn inspect() -> Option<State> {
    // Upgraded out of the list first: the inspector borrows the scheduler, which might
    // make a new scheduler that pushes to this list.
    let inspector = WATCHED.with(|w| w.borrow().iter().rev().find_map(Weak::upgrade))?;
    inspector.state()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timer(due: u64, seq: u64) -> Timer {
        Timer {
            due: Duration::from_secs(due),
            seq,
            id: Id::Callback(seq),
        }
    }

    #[test]
    fn the_heap_is_listed_in_pop_order_and_cut_at_shown() {
        let heap = (0..40).rev().map(|n| timer(n % 5, n));
        let state = State::default().with_timers(heap);
        assert_eq!(state.timers_len, 40);
        assert_eq!(state.timers.len(), SHOWN);
        let first: Vec<_> = state
            .timers
            .iter()
            .map(|t| (t.due.as_secs(), t.seq))
            .collect();
        assert_eq!(&first[..4], &[(0, 0), (0, 5), (0, 10), (0, 15)]);
        assert_eq!(first[SHOWN - 1], (1, 36));
    }

    #[test]
    fn waits_are_listed_by_waiter_whatever_order_a_table_keeps() {
        // An I/O table keeps its waiters by descriptor, and the kernel numbers descriptors
        // anew on every run: listed as given, two runs of one program would differ.
        let wait = |id, fd| Wait {
            id: Id::Callback(id),
            on: format!("fd {fd} read"),
        };
        let state = State::default().with_waits([wait(10, 4), wait(6, 5)]);
        let ids: Vec<Id> = state.waits.iter().map(|w| w.id).collect();
        assert_eq!(ids, [Id::Callback(6), Id::Callback(10)]);
    }

    #[test]
    fn the_ready_queue_keeps_its_order_and_its_length() {
        let state = State::default().with_ready((1..21u32).map(|n| Id::Callback(n.into())));
        assert_eq!(state.ready_len, 20);
        assert_eq!(state.ready.first(), Some(&Id::Callback(1)));
        assert_eq!(state.ready.last(), Some(&Id::Callback(SHOWN as u64)));
    }

    struct Fixed;
    impl Inspect for Fixed {
        fn state(&self) -> Option<State> {
            Some(State::default().with_running(Some(Id::Task(1))))
        }
    }

    #[test]
    fn nothing_is_watched_unless_recording_and_a_dropped_scheduler_is_forgotten() {
        let unseen = Rc::new(Fixed);
        watch(&unseen);
        assert_eq!(inspect(), None);
        crate::record::start(crate::VirtualClock::new());
        let seen = Rc::new(Fixed);
        watch(&seen);
        assert_eq!(inspect().and_then(|s| s.running), Some(Id::Task(1)));
        drop(seen);
        assert_eq!(inspect(), None);
        let _ = crate::record::stop(); // the recording itself is not under test here
    }
}
