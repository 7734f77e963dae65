//! What the loop holds (book introduction, "Watching a run"; chapter 5, "The loop's state
//! and `call_*`"). No public source: asyncio's loop shows nothing of itself.
//!
//! Not part of chapter 5's lesson: the counts tests ask for ([`EventLoop::ready_len`], ...),
//! and the whole state, which [`scaffold::state`] asks at every reported step while a
//! recording is on (`--record`, `--step`, the book's steppers), and never otherwise. A
//! child of `event_loop` so that it can read the loop's private fields.
//!
//! What changed from stage 4's `inspect.rs`: the ready queue and the heap hold handles
//! (a task's step is a handle too: while it runs, the recording shows the task, from its
//! `step` event); the heap is listed by `when` then sequence, cancelled timers included,
//! as they stay on it until step 1 or step 4 takes them off; the waits are the I/O
//! table's readers and writers (`fd 6 read`) and the signal handlers (`signal 2`), but not
//! the self-pipe's reader (`c0`, the loop's own, always there). What runs is remembered
//! only while a `run` is reported: only a recording reads it.

use scaffold::state::{Inspect, State, Timer, Wait};

use crate::event_loop::scheduling::clamped;
use crate::event_loop::{EventLoop, Handle, LoopInner};

impl EventLoop {
    /// How many handles wait in the ready queue.
    pub fn ready_len(&self) -> usize {
        self.inner.core.ready.borrow().len()
    }

    /// How many timers are in the heap, cancelled ones included.
    pub fn scheduled_len(&self) -> usize {
        self.inner.core.scheduled.borrow().len()
    }

    /// How many timers in the heap are known to be cancelled.
    pub fn timer_cancelled_count(&self) -> usize {
        self.inner.core.scheduled.borrow().cancelled_count()
    }

    /// Report that `handle` runs (step 5), remembering it as the one running while
    /// someone listens: an untraced loop pays one check.
    pub(super) fn report_run(&self, handle: &Handle) {
        if scaffold::emit::enabled() {
            let id = handle.trace_id();
            self.inner.running_handle.set(Some(id));
            self.report(scaffold::Event::Run { id });
        }
    }

    /// Step 5's batch is over: nothing runs.
    pub(super) fn ran(&self) {
        self.inner.running_handle.set(None);
    }
}

impl Inspect for LoopInner {
    fn state(&self) -> Option<State> {
        // `try_borrow`: a step reported while a table is being changed shows no state
        // rather than panicking.
        let ready = self.core.ready.try_borrow().ok()?;
        let scheduled = self.core.scheduled.try_borrow().ok()?;
        let (io, signals) = self.io.try_tables()?;
        let timers = scheduled.iter().map(|(handle, when, seq)| Timer {
            due: clamped(when),
            seq,
            id: handle.trace_id(),
        });
        let readers = io.callbacks().filter(|(_, _, handle)| handle.id() != 0);
        let readers = readers.map(|(fd, interest, handle)| Wait {
            id: handle.trace_id(),
            on: format!("fd {fd} {}", interest.name()),
        });
        let signals = signals.handles().map(|(sig, handle)| Wait {
            id: handle.trace_id(),
            on: format!("signal {sig}"),
        });
        let state = State::default()
            .with_running(self.running_handle.get())
            .with_ready(ready.iter().map(Handle::trace_id))
            .with_timers(timers)
            .with_waits(readers.chain(signals));
        Some(state)
    }
}
