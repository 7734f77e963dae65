//! Recording a run for its timeline (book introduction, "Timelines", `--timeline`). No
//! seed section: the project's own instrument.
//!
//! While a recording is on (this thread's, like the console), every [`Event`] a scheduler
//! reports and every line the program says is kept with the time it happened at, read from
//! the recording's clock. [`crate::timeline`] draws the picture from them afterwards. The
//! recording is bounded ([`LIMIT`] events): a long run on the real clock keeps its first
//! events and says that it stopped there, instead of growing without end.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use crate::clock::Clock;
use crate::event::Event;

/// At most this many events are kept; later ones are counted, not stored.
pub const LIMIT: usize = 100_000;

/// One event and when it was reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The scheduler's time when the event was reported.
    pub at: Duration,
    /// What happened.
    pub event: Event,
}

/// Everything one recording kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Records {
    /// The events, in the order they were reported.
    pub records: Vec<Record>,
    /// How many events came after [`LIMIT`] and were dropped.
    pub dropped: usize,
}

struct Recording {
    clock: Rc<dyn Clock>,
    records: Records,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
    /// Who wants events on this thread: the trace, the recording, both or neither. One
    /// `Cell` read answers `event!`'s question, so that an untraced run pays almost nothing
    /// per step (the benchmarks run stages 1 to 4 untraced).
    static LISTENING: Cell<u8> = const { Cell::new(0) };
}

const TRACE: u8 = 1;
const RECORD: u8 = 2;

fn listen(bit: u8, on: bool) {
    LISTENING.with(|l| l.set(if on { l.get() | bit } else { l.get() & !bit }));
}

/// True when the trace or a recording wants events (what [`event!`](macro@crate::event) asks).
/// Inlined: every traced point of every stage asks it, several times per loop iteration,
/// and a call across crates costs more than the thread-local byte it reads.
#[inline]
pub fn listening() -> bool {
    LISTENING.with(|l| l.get() != 0)
}

/// Tell whether this thread's console prints trace lines (the console calls this when it
/// is installed).
pub fn set_tracing(on: bool) {
    listen(TRACE, on);
}

/// Start recording this thread's events, stamped by `clock`. A recording already running is
/// replaced (and its events lost).
pub fn start(clock: Rc<dyn Clock>) {
    RECORDING.with(|r| {
        *r.borrow_mut() = Some(Recording {
            clock,
            records: Records::default(),
        })
    });
    listen(RECORD, true);
}

/// Stop recording and return what was recorded (nothing, if no recording was on).
pub fn stop() -> Records {
    listen(RECORD, false);
    RECORDING.with(|r| r.borrow_mut().take().map(|r| r.records).unwrap_or_default())
}

/// True while a recording is on: the flag `start` sets and `stop` clears, one `Cell` read
/// where the recording itself would need a `RefCell` borrow.
fn recording() -> bool {
    LISTENING.with(|l| l.get() & RECORD != 0)
}

/// Keep `event`, stamped with the recording's clock; nothing happens when no recording is
/// on (then it costs one flag read: the trace alone calls this for every event).
pub fn record(event: Event) {
    if !recording() {
        return;
    }
    RECORDING.with(|r| {
        if let Some(recording) = r.borrow_mut().as_mut() {
            let records = &mut recording.records;
            if records.records.len() < LIMIT {
                let at = recording.clock.now();
                records.records.push(Record { at, event });
            } else {
                records.dropped += 1;
            }
        }
    });
}

/// Keep a line of program output (the console calls this for every `say!`).
pub fn say(args: fmt::Arguments<'_>) {
    if recording() {
        record(Event::Say(args.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VirtualClock;

    #[test]
    fn events_are_stamped_and_kept_only_while_recording() {
        record(Event::note("before"));
        let clock = VirtualClock::new();
        start(clock.clone());
        record(Event::note("first"));
        clock.sleep_until(Duration::from_secs(2));
        say(format_args!("Down {}", 4));
        let records = stop();
        record(Event::note("after"));
        assert_eq!(
            records.records,
            [
                Record {
                    at: Duration::ZERO,
                    event: Event::note("first")
                },
                Record {
                    at: Duration::from_secs(2),
                    event: Event::Say("Down 4".into())
                },
            ]
        );
        assert_eq!(stop(), Records::default());
    }

    #[test]
    fn a_recording_is_bounded() {
        start(VirtualClock::new());
        for _ in 0..LIMIT + 3 {
            record(Event::note("x"));
        }
        let records = stop();
        assert_eq!((records.records.len(), records.dropped), (LIMIT, 3));
    }
}
