//! A run in the Chrome trace-event format, for the Perfetto UI or `chrome://tracing`
//! (book introduction, "Watching a run"; `--record FILE.json`). No public source: the
//! project's own instrument.
//!
//! It reads the recording the timeline draws from ([`crate::record`]), through the same
//! lanes ([`crate::timeline::lanes`]), and writes `{"traceEvents": [...]}`: one process,
//! one track (thread) per row of the timeline, the loop's own first. A run is a complete
//! (`X`) slice; a sleep or a wait is an async (`b`/`e`) slice on its row, since a row's
//! waits may overlap its runs and each other; a wake is a flow (`s` to `f`) from the row
//! that woke to the next run of the row woken; the ready queue's length, the timer heap's
//! size and the clock itself are counters (`C`).
//!
//! On the virtual clock many steps share one instant, and slices that share one cannot
//! nest. So `ts` is a logical tick, the step's index in the recording, one microsecond
//! apart; each event keeps the clock's time, in seconds, in its `args` (`{"clock": 1.5}`),
//! and the `clock` counter shows how the clock moved against the ticks.
//!
//! Where the scheduler was under watch, each step that changed its state adds an instant
//! (`i`) named `state` on the loop's track, with the state in its `args` as the book's
//! stepper reads it ([`crate::steps::state_json`]): click it in Perfetto to see the ready
//! queue, the heap and the waits at that step.
//!
//! A program with several loops on several threads (`echo_server --loops N`) writes one
//! process per loop, each loop's recording made into trace events on its own thread (the
//! child module `groups`).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::event::Event;
use crate::record::{Record, Records};
use crate::run_file;
use crate::steps;
use crate::timeline::{lanes, model::BarKind};

/// The process id every event of a loop carries until the trace numbers its loops
/// ([`groups`]): a loop is one process.
const PID: u32 = 1;

mod groups;

pub use crate::run_file::WriteError;
pub use groups::{Group, hand_in, handed_in};

/// Write `records` as trace events into `path`, titled `title`.
pub fn write(path: &Path, title: &str, records: &Records) -> Result<(), WriteError> {
    write_loops(path, vec![group(title, records)])
}

/// Write several loops' recordings as one trace into `path`, a process each, in order.
pub fn write_loops(path: &Path, loops: Vec<Group>) -> Result<(), WriteError> {
    run_file::write("recording", path, groups::trace(loops))
}

/// The tick of the `index`th recorded step.
fn tick(index: usize) -> Duration {
    Duration::from_micros(index as u64)
}

/// `records` on the logical clock: each step at its tick, and each deadline it names at
/// the tick of the first step (from `index` on) that came at or after it.
fn ticked(records: &[Record]) -> Vec<Record> {
    let at_or_after = |index: usize, time: Duration| {
        tick(index + records[index..].partition_point(|r| r.at < time))
    };
    let retime = |index: usize, event: &Event| {
        let mut event = event.clone();
        match &mut event {
            Event::CallLater { due, .. } => *due = at_or_after(index, *due),
            Event::Sleep {
                timer: Some((due, _)),
                ..
            } => *due = at_or_after(index, *due),
            Event::WaitTimer { until, .. } => *until = at_or_after(index, *until),
            _ => {}
        }
        event
    };
    let steps = records.iter().enumerate();
    let ticked = steps.map(|(i, r)| Record::new(tick(i), retime(i, &r.event)));
    ticked.collect()
}

/// The trace-event JSON of `records`, its process named `title`.
pub fn to_json(title: &str, records: &Records) -> String {
    groups::trace(vec![group(title, records)])
}

/// The trace events of one loop's `records`, its process named `title`.
pub fn group(title: &str, records: &Records) -> Group {
    let steps = &records.records;
    let timeline = lanes::read(&ticked(steps));
    let micros = |d: Duration| d.as_micros() as u64;
    // The clock's time at a tick (past the last step: the last step's).
    let clock = |ts: u64| {
        let step = steps.get(ts as usize).or(steps.last());
        step.map_or(0.0, |r| r.at.as_secs_f64())
    };
    let mut events = Vec::new();
    let mut name = title.to_owned();
    if records.dropped > 0 {
        let (kept, dropped) = (steps.len(), records.dropped);
        name.push_str(&format!(
            " (the first {kept} events only, {dropped} more dropped)"
        ));
    }
    if records.states_dropped > 0 {
        let (limit, without) = (crate::record::STATE_LIMIT, records.states_dropped);
        name.push_str(&format!(
            " (the scheduler's state kept for its first {limit} changes; {without} steps without)"
        ));
    }
    let meta = |name: &str, tid: usize, args: Value| json!({"ph": "M", "name": name, "pid": PID, "tid": tid, "args": args});
    events.push(meta("process_name", 0, json!({"name": name})));
    events.push(meta("thread_name", 0, json!({"name": "loop"})));
    events.push(meta("thread_sort_index", 0, json!({"sort_index": 0})));
    for (i, lane) in timeline.lanes.iter().enumerate() {
        let label = lane.label.as_deref().unwrap_or_default();
        let name = format!("{}: {label}", lane.name);
        events.push(meta("thread_name", i + 1, json!({"name": name})));
        events.push(meta(
            "thread_sort_index",
            i + 1,
            json!({"sort_index": i + 1}),
        ));
    }
    let metadata = events.len();

    // A run lasts until the next step that starts another run or leaves the loop idle.
    let mut stops: Vec<u64> = timeline
        .lanes
        .iter()
        .flat_map(|l| &l.runs)
        .map(|&d| micros(d))
        .collect();
    let idles = steps.iter().enumerate().filter(|(_, r)| {
        matches!(
            r.event,
            Event::WaitTimer { .. }
                | Event::Select { .. }
                | Event::Done { .. }
                | Event::Iteration(_)
                | Event::TimerDue { .. }
                | Event::IoReady { .. }
        )
    });
    stops.extend(idles.map(|(i, _)| i as u64));
    stops.sort_unstable();
    let end = |ts: u64| {
        let next = stops[stops.partition_point(|&s| s <= ts)..].first();
        next.copied().unwrap_or(steps.len() as u64).max(ts + 1)
    };
    let slice = |name: &str, tid: usize, ts: u64, to: u64| {
        let args = json!({"clock": clock(ts), "until": clock(to)});
        json!({"ph": "X", "name": name, "cat": "run", "pid": PID, "tid": tid, "ts": ts, "dur": to - ts, "args": args})
    };
    for (i, lane) in timeline.lanes.iter().enumerate() {
        for &run in &lane.runs {
            let ts = micros(run);
            events.push(slice("run", i + 1, ts, end(ts)));
        }
        if let Some(done) = lane.finished {
            let ts = micros(done);
            let args = json!({"clock": clock(ts)});
            events.push(json!({"ph": "i", "s": "t", "name": "finished", "pid": PID, "tid": i + 1, "ts": ts, "args": args}));
        }
    }
    // The loop's idle stretches, one after another on its track (clipped, should two touch).
    let mut free = 0;
    for bar in &timeline.scheduler.bars {
        let (from, to) = (micros(bar.from).max(free), micros(bar.to));
        if to > from {
            let what = if bar.kind == BarKind::Io {
                "select"
            } else {
                "sleep"
            };
            events.push(slice(what, 0, from, to));
            free = to;
        }
    }
    for &at in &timeline.iterations {
        let ts = micros(at);
        let args = json!({"clock": clock(ts)});
        events.push(json!({"ph": "i", "s": "t", "name": "iteration", "pid": PID, "tid": 0, "ts": ts, "args": args}));
    }

    // Sleeps and waits, as async slices: each its own id.
    let mut id = 0;
    for (i, lane) in timeline.lanes.iter().enumerate() {
        for bar in &lane.bars {
            let name = match bar.kind {
                BarKind::Sleep => "sleep",
                BarKind::Queue => "queue wait",
                BarKind::Io => "socket wait",
                BarKind::Wait => "wait",
            };
            id += 1;
            let (from, to) = (micros(bar.from), micros(bar.to).max(micros(bar.from)));
            let args = json!({"clock": clock(from), "open": bar.open});
            events.push(json!({"ph": "b", "cat": "wait", "name": name, "id": id, "pid": PID, "tid": i + 1, "ts": from, "args": args}));
            let args = json!({"clock": clock(to)});
            events.push(json!({"ph": "e", "cat": "wait", "name": name, "id": id, "pid": PID, "tid": i + 1, "ts": to, "args": args}));
        }
    }

    // Wakes: from the waker (or the loop) to the next run of the row woken.
    for (n, arrow) in timeline.arrows.iter().enumerate() {
        let (ts, lane) = (micros(arrow.at), &timeline.lanes[arrow.to]);
        let next = lane.runs.iter().map(|&r| micros(r)).find(|&r| r >= ts);
        let to = next.unwrap_or(ts);
        let from_tid = arrow.from.map_or(0, |lane| lane + 1);
        let args = json!({"clock": clock(ts)});
        events.push(json!({"ph": "s", "cat": "wake", "name": "wake", "id": n + 1, "pid": PID, "tid": from_tid, "ts": ts, "args": args}));
        let args = json!({"clock": clock(to)});
        events.push(json!({"ph": "f", "bp": "e", "cat": "wake", "name": "wake", "id": n + 1, "pid": PID, "tid": arrow.to + 1, "ts": to, "args": args}));
    }

    // The scheduler's state, where it changed: an instant on the loop's track, the state
    // in its args (what the book's stepper shows, `crate::steps`).
    let mut last = None;
    for (i, record) in steps.iter().enumerate() {
        let Some(state) = &record.state else { continue };
        if last.is_some_and(|l| std::rc::Rc::ptr_eq(l, state)) {
            continue;
        }
        last = Some(state);
        let args = json!({"clock": record.at.as_secs_f64(), "state": steps::state_json(state)});
        events.push(json!({"ph": "i", "s": "t", "name": "state", "cat": "state", "pid": PID, "tid": 0, "ts": i, "args": args}));
    }

    // Counters: the queues as the scheduler reported them, and the clock against the ticks.
    let counter = |name: &str, ts: u64, args: Value| json!({"ph": "C", "name": name, "pid": PID, "tid": 0, "ts": ts, "args": args});
    for &(at, length) in &timeline.ready {
        events.push(counter(
            "ready queue",
            micros(at),
            json!({"length": length}),
        ));
    }
    for &(at, size) in &timeline.timers {
        events.push(counter("timer heap", micros(at), json!({"size": size})));
    }
    let mut last = None;
    for (i, step) in steps.iter().enumerate() {
        if last != Some(step.at) {
            last = Some(step.at);
            let seconds = step.at.as_secs_f64();
            events.push(counter("clock (s)", i as u64, json!({"seconds": seconds})));
        }
    }

    events[metadata..].sort_by_key(|event| event["ts"].as_u64());
    Group::new(events, records.dropped, records.states_dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Id;
    use crate::timeline::capture;
    use std::collections::{HashMap, HashSet};

    /// What a trace viewer needs of the JSON: flows paired, each track's ticks in order,
    /// every track named; returns the count of events per phase.
    fn check(json: &str) -> HashMap<String, usize> {
        let trace: Value = serde_json::from_str(json).expect("the JSON parses");
        assert_eq!(trace["displayTimeUnit"], "ms");
        let events = trace["traceEvents"].as_array().expect("a list of events");
        let mut phases = HashMap::new();
        let (mut starts, mut finishes) = (HashMap::new(), HashMap::new());
        let mut named = HashSet::new();
        let mut last_ts = HashMap::new();
        for event in events {
            let ph = event["ph"].as_str().expect("a phase").to_owned();
            let track = (
                event["pid"].as_u64().unwrap(),
                event["tid"].as_u64().unwrap(),
            );
            if ph == "M" && event["name"] == "thread_name" {
                named.insert(track);
            }
            if ph != "M" {
                let ts = event["ts"].as_u64().expect("a tick");
                let last = last_ts.insert(track, ts).unwrap_or(0);
                assert!(ts >= last, "{event} comes before tick {last} on its track");
            }
            let id = event["id"].as_u64();
            match ph.as_str() {
                "s" => *starts.entry(id.unwrap()).or_insert(0) += 1,
                "f" => {
                    assert_eq!(event["bp"], "e", "{event}");
                    *finishes.entry(id.unwrap()).or_insert(0) += 1;
                }
                _ => {}
            }
            *phases.entry(ph).or_insert(0) += 1;
        }
        for event in events {
            if ["X", "s", "f"].contains(&event["ph"].as_str().unwrap()) {
                let track = (
                    event["pid"].as_u64().unwrap(),
                    event["tid"].as_u64().unwrap(),
                );
                assert!(named.contains(&track), "{event} is on an unnamed track");
            }
        }
        assert!(starts.values().chain(finishes.values()).all(|&n| n == 1));
        assert_eq!(
            starts.keys().collect::<HashSet<_>>(),
            finishes.keys().collect::<HashSet<_>>(),
            "every flow's start has its finish"
        );
        phases
    }

    /// Stage 1's producer and consumer, reported by hand: `c1` puts an item and wakes `c2`,
    /// which waits on the queue, then sleeps a second.
    #[test]
    fn a_recorded_run_becomes_trace_events() {
        let records = producer_consumer();
        let json = to_json("stage 1 · test", &records);
        let phases = check(&json);
        assert!(phases["X"] >= 4 && phases["C"] >= 2, "{phases:?}");
        assert_eq!((phases["s"], phases["f"]), (1, 1), "{phases:?}");
        assert!(json.contains(r#""name":"c2: consumer: waiting""#), "{json}");
        assert!(json.contains(r#""clock":1.0"#), "{json}");
    }

    #[test]
    fn several_loops_are_a_process_each_and_their_ids_do_not_meet() {
        let records = producer_consumer();
        let loops = ["loop 0", "loop 1"].map(|name| group(name, &records));
        let json = groups::trace(loops.to_vec());
        // `check` finds every flow's start and finish once: the second loop's ids moved on.
        let phases = check(&json);
        assert_eq!((phases["s"], phases["f"]), (2, 2), "{phases:?}");
        let trace: Value = serde_json::from_str(&json).unwrap();
        let processes: Vec<(u64, &str)> = trace["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"] == "process_name")
            .map(|e| {
                (
                    e["pid"].as_u64().unwrap(),
                    e["args"]["name"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(processes, [(1, "loop 0"), (2, "loop 1")]);
    }

    /// The steps of a producer and a consumer, reported by hand.
    fn producer_consumer() -> Records {
        let s = Duration::from_secs;
        let (c1, c2, c3) = (Id::Callback(1), Id::Callback(2), Id::Callback(3));
        capture(|clock| {
            crate::event!(Event::CallSoon { id: c1 });
            crate::event!(Event::CallSoon { id: c2 });
            crate::event!(Event::Queues {
                ready: 2,
                timers: 0
            });
            crate::event!(Event::Run { id: c2 });
            crate::say!("consumer: waiting");
            crate::event!(Event::QueueWait {
                who: None,
                waiting: 1
            });
            crate::event!(Event::Run { id: c1 });
            crate::say!("producer: put 1");
            crate::event!(Event::Wake {
                to: c2,
                by: "queue put"
            });
            crate::event!(Event::CallSoon { id: c3 });
            crate::event!(Event::CallLater {
                id: Id::Callback(4),
                delay: s(1),
                due: s(1),
                seq: 0
            });
            crate::event!(Event::Queues {
                ready: 1,
                timers: 1
            });
            crate::event!(Event::Run { id: c3 });
            crate::event!(Event::WaitTimer {
                until: s(1),
                id: Id::Callback(4),
                seq: 0
            });
            clock.sleep_until(s(1));
            crate::event!(Event::Run {
                id: Id::Callback(4)
            });
            crate::event!(Event::Done {
                why: "nothing left"
            });
        })
    }

    #[test]
    fn a_path_that_cannot_be_written_is_one_line() {
        let path = Path::new("/nonexistent directory/run.json");
        let error = run_file::create("recording", path).unwrap_err().to_string();
        assert!(
            error.starts_with("cannot write the recording /nonexistent"),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
        assert_eq!(crate::record::stop(), Records::default());
    }
}
