//! Why each entry is in the ready queue (book introduction, "Watching a run"). No public
//! source: the project's own instrument.
//!
//! The loop itself performs every `call_soon`, every timer's move to the ready queue, every
//! wake and every I/O readiness, and reports each as an event at the moment it does it. So
//! the recording can note, as each happens, who put which callback or task where: a
//! [`Cause`] names what it was, who was running, and the step it happened at. At that
//! step the one running had a cause of its own, and so on back to the program's start: the
//! chain a stepper's "why?" link walks.
//!
//! Two things no scheduler holds are noted here too. A task's step inside a callback
//! (stage 3's `Task`, stage 5's step handle) is the task's: while it runs, the task is shown
//! running and is who its steps are by. A task that suspends waits for what the step
//! before it named (a queue found empty, a socket), or else for a future: the queue or the
//! future holds it, not the scheduler, until a wake or its next step.
//!
//! A [`Snapshot`] is a scheduler's [`State`](crate::state::State) with these causes
//! attached, as the recording keeps it at every step.

use crate::event::Id;
use crate::state::{Timer, Wait};

mod causes;

pub(crate) use causes::Causes;

/// How something got into the ready queue (or onto the heap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// What happened, in the trace's words: `call_soon`, `timer due (call_later)`,
    /// `wake t2 (queue put)`, `fd 5 ready for read`.
    pub what: String,
    /// Who was running when it happened (`None`: the program's main, or the loop itself).
    pub by: Option<Id>,
    /// The index of the step it happened at, in the recording.
    pub step: usize,
}

/// A callback or task, and why it is where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its id.
    pub id: Id,
    /// Its cause, if the recording saw it happen.
    pub why: Option<Cause>,
}

/// A timer on the heap, and who set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerEntry {
    /// The timer, as the heap holds it.
    pub timer: Timer,
    /// Who set it, if the recording saw it happen.
    pub why: Option<Cause>,
}

/// The state after one step, with causes: what the recording keeps per step.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// The event loop's iteration (stage 5's `[n]`), if it has them.
    pub iteration: Option<u64>,
    /// What runs now, and why it was ready.
    pub running: Option<Entry>,
    /// The ready queue, front first (its first [`crate::state::SHOWN`]).
    pub ready: Vec<Entry>,
    /// How many are ready.
    pub ready_len: usize,
    /// The timer heap in pop order (its first [`crate::state::SHOWN`]).
    pub timers: Vec<TimerEntry>,
    /// How many timers are on the heap.
    pub timers_len: usize,
    /// Who waits for what.
    pub waits: Vec<Wait>,
}
