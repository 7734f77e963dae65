//! Reporting a scheduler step (book introduction, "Reading a trace"). No public source.
//!
//! A scheduler reports a step with [`event!`](macro@crate::event): `event!(Event::Run { id })`.
//! The one event goes to both places that want it: printed as a `--trace` line by the
//! console (marked `~`), and kept by the recording for `--timeline`. When neither is on,
//! the macro does not even build the event, so an untraced run pays one check per step.
//!
//! Stage 5's loop numbers its iterations: after [`Event::Iteration`]`(n)` every trace line
//! starts with `[n] `, until [`Event::Done`].

use std::cell::Cell;

use crate::console;
use crate::event::Event;
use crate::record;

thread_local! {
    static ITERATION: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The event loop iteration the trace lines are prefixed with now, if any (stage 5 keeps
/// it in step with the loop that reports).
pub fn iteration() -> Option<u64> {
    ITERATION.get()
}

/// True when an event would be printed or recorded (inlined, as [`record::listening`] is).
#[inline]
pub fn enabled() -> bool {
    record::listening()
}

/// Print `event` as a trace line (with `--trace`) and record it (with `--timeline`). Use it
/// through [`event!`](macro@crate::event).
pub fn emit(event: Event) {
    if let Event::Iteration(n) = event {
        ITERATION.set(Some(n));
    }
    // `console::trace` prints only if the console traces: no need to ask it first.
    if event.is_printed() {
        match ITERATION.get() {
            Some(n) => console::trace(format_args!("[{n}] {event}")),
            None => console::trace(format_args!("{event}")),
        }
    }
    if let Event::Done { .. } = event {
        ITERATION.set(None);
    }
    record::record(event);
}

/// Report a scheduler step: `event!(Event::Run { id })`. The expression is evaluated only
/// when a trace or a recording wants it.
#[macro_export]
macro_rules! event {
    ($event:expr) => {
        if $crate::emit::enabled() {
            $crate::emit::emit($event)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Id;
    use crate::{VirtualClock, transcript};

    #[test]
    fn one_event_is_a_trace_line_and_a_record() {
        let clock = VirtualClock::new();
        record::start(clock.clone());
        let text = transcript(true, |_| {
            crate::event!(Event::Run {
                id: Id::Callback(3)
            });
            crate::event!(Event::Queues {
                ready: 1,
                timers: 0
            });
        });
        assert_eq!(text, "  0.000 ~ run c3\n");
        assert_eq!(record::stop().records.len(), 2);
    }

    #[test]
    fn iterations_prefix_the_lines_until_done() {
        let text = transcript(true, |_| {
            crate::event!(Event::Iteration(4));
            crate::event!(Event::note("step 3"));
            crate::event!(Event::Done { why: "stopped" });
            crate::event!(Event::note("after"));
        });
        assert_eq!(
            text,
            "  0.000 ~ [4] step 3\n  0.000 ~ [4] run: stopped: done\n  0.000 ~ after\n"
        );
    }

    #[test]
    fn nothing_is_built_when_nobody_listens() {
        let built = Cell::new(false);
        crate::event!({
            built.set(true);
            Event::note("x")
        });
        assert!(!built.get());
    }
}
