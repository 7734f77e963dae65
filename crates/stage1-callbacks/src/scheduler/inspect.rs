//! What the scheduler holds, for a recording (book introduction, "Watching a run"). No
//! public source: the talk's scheduler shows nothing of itself.
//!
//! Not part of chapter 1's lesson: [`scaffold::state`] asks this at every reported step
//! while a recording is on (`--record`, `--step`, the book's steppers), and never
//! otherwise. A child of `scheduler` so that it can read the private queues. Every stage
//! answers the same question from its own collections, in a file of this name.

use scaffold::state::{Inspect, State, Timer};

use super::Inner;

impl Inspect for Inner {
    fn state(&self) -> Option<State> {
        // `try_borrow`: a step reported while the queues are being changed shows no state
        // rather than panicking (stage 1 reports none that way).
        let ready = self.ready.try_borrow().ok()?;
        let sleeping = self.sleeping.try_borrow().ok()?;
        let timers = sleeping.iter().map(|t| Timer {
            due: t.deadline,
            seq: t.sequence,
            id: t.item.id.into(),
        });
        let state = State::default()
            .with_running(self.running.get().map(Into::into))
            .with_ready(ready.iter().map(|c| c.id.into()))
            .with_timers(timers);
        Some(state)
    }
}
