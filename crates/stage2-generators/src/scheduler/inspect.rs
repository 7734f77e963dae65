//! What the scheduler holds, for a recording (book introduction, "Watching a run"). No
//! public source: the talk's scheduler shows nothing of itself.
//!
//! Not part of chapter 2's lesson: [`scaffold::state`] asks this at every reported step
//! while a recording is on (`--record`, `--step`, the book's steppers), and never
//! otherwise. A child of `scheduler` so that it can read the private queues.
//!
//! What changed from stage 1's `inspect.rs`: the ready queue and the heap hold task ids
//! instead of callbacks, and what runs is the talk's `current` slot: a task that sleeps or
//! waits takes itself out of it, so during the rest of its turn nothing is shown running.
//! A consumer waiting on a queue is held by the queue, not here: the recording notes that
//! wait from the events (`scaffold::why`).

use scaffold::state::{Inspect, State, Timer};

use super::Inner;

impl Inspect for Inner {
    fn state(&self) -> Option<State> {
        // `try_borrow`: a step reported while the queues are being changed shows no state
        // rather than panicking (stage 2 reports none that way).
        let ready = self.ready.try_borrow().ok()?;
        let sleeping = self.sleeping.try_borrow().ok()?;
        let timers = sleeping.iter().map(|t| Timer {
            due: t.deadline,
            seq: t.sequence,
            id: t.item.into(),
        });
        let state = State::default()
            .with_running(self.current.get().map(Into::into))
            .with_ready(ready.iter().map(|&id| id.into()))
            .with_timers(timers);
        Some(state)
    }
}
