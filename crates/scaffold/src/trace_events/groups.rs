//! Several loops' recordings in one trace, for `echo_server --loops N` (book introduction,
//! "Watching a run", and the book's "Beyond one core"). No seed section: the project's own
//! instrument.
//!
//! A recording stays on its loop's thread (its states are `Rc`s), so each loop but the
//! first makes its own into trace events there, a [`Group`] of plain JSON values that may
//! cross threads, and hands it in ([`hand_in`]) when it ends. The first loop's thread takes
//! them ([`handed_in`]) and writes them after its own when the program ends. Each loop is a
//! process of the trace, a track group in Perfetto named by its loop, and its ticks count
//! its own steps: the same tick on two loops is not the same moment (each event's
//! `args.clock` is its loop's time).

use std::sync::Mutex;

use serde_json::{Value, json};

/// One loop's trace events, ready to join others in a trace.
#[derive(Debug, Clone, Default)]
pub struct Group {
    events: Vec<Value>,
    dropped: usize,
    states_dropped: usize,
}

impl Group {
    /// `events` (the process's name first, then in tick order) and what the recording
    /// left out.
    pub(super) fn new(events: Vec<Value>, dropped: usize, states_dropped: usize) -> Group {
        Group {
            events,
            dropped,
            states_dropped,
        }
    }
}

/// The groups handed in by the loops that have ended, with their loop's number.
static HANDED_IN: Mutex<Vec<(usize, Group)>> = Mutex::new(Vec::new());

/// Hand in loop `index`'s events, for the first loop to write with its own.
pub fn hand_in(index: usize, group: Group) {
    // A thread that panicked holding the lock left the list whole: a push cannot tear it.
    let mut groups = HANDED_IN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    groups.push((index, group));
}

/// Take every group handed in so far, in their loops' order.
pub fn handed_in() -> Vec<Group> {
    let mut groups = HANDED_IN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut taken = std::mem::take(&mut *groups);
    taken.sort_by_key(|(index, _)| *index);
    taken.into_iter().map(|(_, group)| group).collect()
}

/// The trace-event JSON of `loops`: loop `i` is process `i + 1`, and the ids that pair a
/// wait's begin with its end, and a wake's start with its finish, are made unique across
/// them (a viewer pairs them by id whatever the process).
pub fn trace(loops: Vec<Group>) -> String {
    let (mut dropped, mut states_dropped) = (0, 0);
    let mut events = Vec::new();
    let mut offset = 0;
    for (i, group) in loops.into_iter().enumerate() {
        dropped += group.dropped;
        states_dropped += group.states_dropped;
        let mut most = 0;
        for mut event in group.events {
            event["pid"] = json!(i + 1);
            if let Some(id) = event["id"].as_u64() {
                most = most.max(id);
                event["id"] = json!(id + offset);
            }
            events.push(event);
        }
        offset += most;
    }
    let clock_kind =
        "one tick (1 µs) per recorded step; args.clock is the scheduler's time in seconds";
    let trace = json!({
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {"ts": clock_kind, "dropped": dropped, "states_dropped": states_dropped},
    });
    trace.to_string()
}
