//! A recorded run, step by step with the scheduler's state, as the book's steppers read it
//! (book introduction, "Watching a run"). No public source: the project's own instrument.
//!
//! [`to_json`] writes one JSON object:
//!
//! ```text
//! { "title": "...", "dropped": 0, "states_dropped": 0,
//!   "lanes": [ { "name": "c1", "label": "countdown A" }, ... ],   the timeline's rows
//!   "steps": [ { "at": 1.5, "x": 120.4, "iteration": 3, "kind": "run", "who": "c4",
//!                "trace": "[3] run c4", "say": null, "state": 7 }, ... ],
//!   "states": [ { "running": {"id": "c4", "why": {...}}, "ready": [...], "ready_len": 2,
//!                 "timers": [...], "timers_len": 1, "waits": [...] }, ... ] }
//! ```
//!
//! A step is one reported event: `at` its time on the clock (seconds), `x` where the
//! timeline picture draws that time, `kind` the event's kind, `who` the callback or task
//! it is about, `trace` its `--trace` line (`null` for the events the trace does not
//! print), `say` the program's line (for a `say!`), `state` the index of the scheduler's
//! state after it (equal states are written once) or `null`. A cause (`why`) is
//! `{"what": "call_soon", "by": "c2", "step": 14}`: the step it happened at, and who ran.

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use serde_json::{Value, json};

use crate::event::{Event, Id};
use crate::record::Records;
use crate::run_file::{self, WriteError};
use crate::timeline::{lanes, svg};
use crate::why::{Cause, Entry, Snapshot};

/// Write `records` step by step into `path`, titled `title`.
pub fn write(path: &Path, title: &str, records: &Records) -> Result<(), WriteError> {
    run_file::write("steps", path, to_json(title, records))
}

/// The steps of `records`, as JSON, titled `title`.
pub fn to_json(title: &str, records: &Records) -> String {
    let timeline = lanes::read(&records.records);
    let lanes: Vec<Value> = timeline
        .lanes
        .iter()
        .map(|l| json!({"name": l.name, "label": l.label}))
        .collect();
    let mut states: Vec<Value> = Vec::new();
    let mut index: HashMap<*const Snapshot, usize> = HashMap::new();
    let mut iteration = None;
    let mut steps = Vec::with_capacity(records.records.len());
    for record in &records.records {
        if let Event::Iteration(n) = record.event {
            iteration = Some(n);
        }
        let state = record.state.as_ref().map(|s| {
            *index.entry(Rc::as_ptr(s)).or_insert_with(|| {
                states.push(state_json(s));
                states.len() - 1
            })
        });
        let at = record.at.as_secs_f64();
        let x = (svg::x_of(&timeline, record.at) * 10.0).round() / 10.0;
        steps.push(json!({
            "at": at,
            "x": x,
            "iteration": iteration,
            "kind": kind(&record.event),
            "who": who(&record.event).map(|id| id.to_string()),
            "trace": trace_line(iteration, &record.event),
            "say": match &record.event { Event::Say(line) => Some(line.as_str()), _ => None },
            "state": state,
        }));
        if let Event::Done { .. } = record.event {
            iteration = None;
        }
    }
    let run = json!({
        "title": title,
        "dropped": records.dropped,
        "states_dropped": records.states_dropped,
        "lanes": lanes,
        "steps": steps,
        "states": states,
    });
    // `to_string` on a `Value` cannot fail; one step per line keeps a diff of two runs legible.
    let text = run.to_string();
    text.replace(r#"},{"at""#, "},\n{\"at\"")
}

/// The `--trace` line of `event` (with its iteration's `[n] `), if the trace prints it.
pub fn trace_line(iteration: Option<u64>, event: &Event) -> Option<String> {
    if !event.is_printed() {
        return None;
    }
    Some(match iteration {
        Some(n) => format!("[{n}] {event}"),
        None => event.to_string(),
    })
}

/// One state as JSON.
pub fn state_json(state: &Snapshot) -> Value {
    let id = |id: &Id| id.to_string();
    let entry = |e: &Entry| json!({"id": id(&e.id), "why": e.why.as_ref().map(cause_json)});
    let timers: Vec<Value> = state
        .timers
        .iter()
        .map(|t| {
            let (due, seq) = (t.timer.due.as_secs_f64(), t.timer.seq);
            json!({"due": due, "seq": seq, "id": id(&t.timer.id), "why": t.why.as_ref().map(cause_json)})
        })
        .collect();
    let waits: Vec<Value> = state
        .waits
        .iter()
        .map(|w| json!({"id": id(&w.id), "on": w.on}))
        .collect();
    json!({
        "iteration": state.iteration,
        "running": state.running.as_ref().map(entry),
        "ready": state.ready.iter().map(entry).collect::<Vec<_>>(),
        "ready_len": state.ready_len,
        "timers": timers,
        "timers_len": state.timers_len,
        "waits": waits,
    })
}

fn cause_json(cause: &Cause) -> Value {
    json!({"what": cause.what, "by": cause.by.map(|id| id.to_string()), "step": cause.step})
}

/// The event's kind, as a stepper's "run to" names it.
pub fn kind(event: &Event) -> &'static str {
    match event {
        Event::CallSoon { .. } => "call_soon",
        Event::CallLater { .. } => "call_later",
        Event::Run { .. } => "run",
        Event::NewTask { .. } => "new_task",
        Event::Step { .. } => "step",
        Event::Finished { .. } => "finished",
        Event::Sleep { .. } => "sleep",
        Event::Suspend { .. } => "suspend",
        Event::QueueWait { .. } => "queue_wait",
        Event::Wake { .. } => "wake",
        Event::IoWait { .. } => "io_wait",
        Event::IoReady { .. } => "io_ready",
        Event::TimerDue { .. } => "timer_due",
        Event::WaitTimer { .. } => "wait_timer",
        Event::Select { .. } => "select",
        Event::Jump { .. } => "jump",
        Event::Done { .. } => "done",
        Event::Queues { .. } => "queues",
        Event::Iteration(_) => "iteration",
        Event::Say(_) => "say",
        Event::Note(_) => "note",
    }
}

/// The callback or task `event` is about, if one.
pub fn who(event: &Event) -> Option<Id> {
    match *event {
        Event::CallSoon { id }
        | Event::CallLater { id, .. }
        | Event::Run { id }
        | Event::IoWait { id, .. }
        | Event::IoReady { id, .. }
        | Event::TimerDue { id, .. }
        | Event::WaitTimer { id, .. } => Some(id),
        Event::NewTask { task }
        | Event::Step { task }
        | Event::Finished { task }
        | Event::Sleep { task, .. }
        | Event::Suspend { task } => Some(task),
        Event::Wake { to, .. } => Some(to),
        Event::QueueWait { who, .. } => who,
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record;
    use crate::state::{Inspect, State, watch};
    use crate::{Clock, VirtualClock, emit::emit};
    use std::cell::{Cell, RefCell};
    use std::time::Duration;

    /// A scheduler by hand: a ready queue the test fills and who runs, reported as they are.
    #[derive(Clone, Default)]
    struct ByHand(Rc<RefCell<Vec<Id>>>, Rc<Cell<Option<Id>>>);

    impl Inspect for ByHand {
        fn state(&self) -> Option<State> {
            let ready = self.0.try_borrow().ok()?;
            let state = State::default().with_ready(ready.iter().copied());
            Some(state.with_running(self.1.get()))
        }
    }

    #[test]
    fn each_step_carries_the_state_it_left_and_equal_states_are_written_once() {
        let clock = VirtualClock::new();
        record::start(clock.clone());
        let scheduler = Rc::new(ByHand::default());
        watch(&scheduler);
        let (c1, c2) = (Id::Callback(1), Id::Callback(2));
        // As a scheduler does: make the step, then report it.
        scheduler.0.borrow_mut().push(c1);
        emit(Event::CallSoon { id: c1 });
        emit(Event::note("nothing changes"));
        clock.sleep_until(Duration::from_secs(1));
        scheduler.0.borrow_mut().remove(0);
        scheduler.1.set(Some(c1));
        emit(Event::Run { id: c1 });
        scheduler.0.borrow_mut().push(c2);
        emit(Event::CallSoon { id: c2 });
        let json: Value = serde_json::from_str(&to_json("by hand", &record::stop())).unwrap();
        let steps = json["steps"].as_array().unwrap();
        let states: Vec<_> = steps.iter().map(|s| s["state"].clone()).collect();
        assert_eq!(states, [json!(0), json!(0), json!(1), json!(2)]);
        assert_eq!(json["states"][0]["ready"][0]["id"], "c1");
        assert_eq!(json["states"][0]["ready"][0]["why"]["what"], "call_soon");
        assert_eq!(json["states"][1]["ready_len"], 0);
        // c2 was queued while c1 ran, at step 3: the link a "why?" walks back.
        let why = &json["states"][2]["ready"][0]["why"];
        assert_eq!(
            (why["by"].as_str(), why["step"].as_u64()),
            (Some("c1"), Some(3))
        );
        assert_eq!(steps[2]["at"], 1.0);
        assert_eq!(steps[2]["trace"], "run c1");
        assert_eq!(steps[1]["kind"], "note");
    }
}
