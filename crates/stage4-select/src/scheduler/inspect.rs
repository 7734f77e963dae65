//! What the scheduler holds, for a recording (book introduction, "Watching a run"). No
//! public source: the talk's scheduler shows nothing of itself.
//!
//! Not part of chapter 4's lesson: [`scaffold::state`] asks this at every reported step
//! while a recording is on (`--record`, `--step`, the book's steppers), and never
//! otherwise. A child of `scheduler` so that it can read the private queues.
//!
//! What changed from stage 1's `inspect.rs` (which stage 3 runs on): the callbacks waiting
//! for a socket are the scheduler's own, so they are listed here as waits, `fd 5 read`,
//! in descriptor order (the map has none of its own). `running` is set only while a step
//! is reported (`report_run`), since nothing else reads it.

use scaffold::state::{Inspect, State, Timer, Wait};

use super::Inner;

impl Inspect for Inner {
    fn state(&self) -> Option<State> {
        // `try_borrow`: a step reported while the queues are being changed shows no state
        // rather than panicking.
        let ready = self.ready.try_borrow().ok()?;
        let sleeping = self.sleeping.try_borrow().ok()?;
        let waiting = self.waiting.try_borrow().ok()?;
        let timers = sleeping.iter().map(|t| Timer {
            due: t.deadline,
            seq: t.sequence,
            id: t.item.id.into(),
        });
        let mut waits: Vec<_> = waiting
            .iter()
            .map(|(&(fd, interest), callback)| (fd, interest.name(), callback.id))
            .collect();
        waits.sort_unstable();
        let waits = waits.into_iter().map(|(fd, interest, id)| Wait {
            id: id.into(),
            on: format!("fd {fd} {interest}"),
        });
        let state = State::default()
            .with_running(self.running.get().map(Into::into))
            .with_ready(ready.iter().map(|c| c.id.into()))
            .with_timers(timers)
            .with_waits(waits);
        Some(state)
    }
}
