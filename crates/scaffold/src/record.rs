//! Recording a run for its timeline (book introduction, "Timelines", `--timeline`). No
//! seed section: the project's own instrument.
//!
//! While a recording is on (this thread's, like the console), every [`Event`] a scheduler
//! reports and every line the program says is kept with the time it happened at, read from
//! the recording's clock. [`crate::timeline`] draws the picture from them afterwards. The
//! recording is bounded ([`LIMIT`] events): a long run on the real clock keeps its first
//! events and says that it stopped there, instead of growing without end.
//!
//! While a scheduler is under watch ([`crate::state::watch`]), each record also keeps the
//! scheduler's state as the step is reported, with the causes of what is ready
//! ([`crate::why::Snapshot`]). A scheduler reports a step once it has made it (the callback
//! is in the queue when `call_soon` is reported), so that is the state the step left. A
//! state equal to the one before is shared, not copied; at most [`STATE_LIMIT`] distinct
//! states are kept.
//!
//! A [`Hook`] ([`set_hook`]) is shown each record as it is kept, state included: `--step`
//! pauses there ([`crate::step`]). It is called once the recording is no longer borrowed,
//! so that it may take its time (it waits for a key) and stop itself.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

use crate::clock::Clock;
use crate::event::Event;
use crate::state;
use crate::why::{Causes, Snapshot};

/// At most this many events are kept; later ones are counted, not stored.
pub const LIMIT: usize = 100_000;

/// At most this many distinct states are kept; later steps are kept without one.
pub const STATE_LIMIT: usize = 20_000;

/// One event and when it was reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The scheduler's time when the event was reported.
    pub at: Duration,
    /// What happened.
    pub event: Event,
    /// The scheduler's state after it happened, if a scheduler was under watch.
    pub state: Option<Rc<Snapshot>>,
}

impl Record {
    /// `event` at `at`, with no state.
    pub fn new(at: Duration, event: Event) -> Record {
        Record {
            at,
            event,
            state: None,
        }
    }
}

/// Everything one recording kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Records {
    /// The events, in the order they were reported.
    pub records: Vec<Record>,
    /// How many events came after [`LIMIT`] and were dropped.
    pub dropped: usize,
    /// How many steps were kept without their state, after [`STATE_LIMIT`].
    pub states_dropped: usize,
}

struct Recording {
    clock: Rc<dyn Clock>,
    records: Records,
    causes: Causes,
    /// The last state kept, to share when the next is equal.
    last: Option<Rc<Snapshot>>,
    /// How many distinct states are kept.
    states: usize,
}

impl Recording {
    /// Give the last record the state `now`. An iteration's start changes no queue: it is
    /// reported just before the iteration's first step, which is already made by then, so
    /// it keeps the queues before, with its number and nothing running.
    fn settle(&mut self, now: Option<state::State>) {
        let iteration = matches!(self.records.records.last(), Some(r) if matches!(r.event, Event::Iteration(_)));
        let snapshot = match (&self.last, now) {
            (Some(last), _) if iteration => self.causes.renumber(last),
            (_, Some(now)) => self.causes.snapshot(now),
            (_, None) => return,
        };
        let Some(last) = self.records.records.last_mut() else {
            return;
        };
        last.state = match &self.last {
            Some(same) if **same == snapshot => Some(same.clone()),
            _ if self.states >= STATE_LIMIT => {
                self.records.states_dropped += 1;
                None
            }
            _ => {
                self.states += 1;
                let kept = Rc::new(snapshot);
                self.last = Some(kept.clone());
                Some(kept)
            }
        };
    }
}

/// What is shown each kept record: its index in the recording, and the record. It returns
/// whether it wants the next one (`false` removes it).
pub type Hook = Box<dyn FnMut(usize, &Record) -> bool>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
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
            causes: Causes::default(),
            last: None,
            states: 0,
        })
    });
    listen(RECORD, true);
    state::set_on(true);
}

/// Stop recording and return what was recorded (nothing, if no recording was on).
pub fn stop() -> Records {
    listen(RECORD, false);
    state::set_on(false);
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
    // Asked before the recording is borrowed: the inspector borrows the scheduler, and a
    // scheduler reports a step once it has made it, so this is the state the step left.
    let now = state::inspect();
    let hooked = HOOK.with(|h| h.borrow().is_some());
    let kept = RECORDING.with(|r| {
        let mut r = r.borrow_mut();
        let recording = r.as_mut()?;
        let step = recording.records.records.len();
        if step >= LIMIT {
            recording.records.dropped += 1;
            return None;
        }
        let running = now.as_ref().and_then(|s| s.running);
        recording.causes.note(step, &event, running);
        let at = recording.clock.now();
        recording.records.records.push(Record::new(at, event));
        recording.settle(now);
        // A copy only for a hook: the event and a shared pointer to its state.
        let last = recording.records.records.last().filter(|_| hooked);
        last.map(|record| (step, record.clone()))
    });
    if let Some((step, record)) = kept {
        show(step, &record);
    }
}

/// Show `record` to the hook, out of its cell while it runs: it may wait, or end itself.
fn show(step: usize, record: &Record) {
    let Some(mut hook) = HOOK.with(|h| h.borrow_mut().take()) else {
        return;
    };
    if hook(step, record) {
        // Unless the hook set another while it ran, it is this one again.
        HOOK.with(|h| {
            h.borrow_mut().get_or_insert(hook);
        });
    }
}

/// Show every record kept from now on to `hook` (`None`: to nobody); returns the hook it
/// replaces. Dropping a hook ends what it holds (`--step`'s terminal, say).
pub fn set_hook(hook: Option<Hook>) -> Option<Hook> {
    HOOK.with(|h| std::mem::replace(&mut *h.borrow_mut(), hook))
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
                Record::new(Duration::ZERO, Event::note("first")),
                Record::new(Duration::from_secs(2), Event::Say("Down 4".into())),
            ]
        );
        assert_eq!(stop(), Records::default());
    }

    #[test]
    fn a_hook_sees_each_kept_record_until_it_says_no_more() {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let into = seen.clone();
        set_hook(Some(Box::new(move |step, record| {
            into.borrow_mut().push((step, record.event.clone()));
            step < 1
        })));
        start(VirtualClock::new());
        for name in ["a", "b", "c"] {
            record(Event::note(name));
        }
        assert_eq!(stop().records.len(), 3);
        assert_eq!(
            *seen.borrow(),
            [(0, Event::note("a")), (1, Event::note("b"))]
        );
        assert!(set_hook(None).is_none(), "it removed itself");
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
