//! What each stage's scheduler says it holds, step by step (book introduction, "Watching a
//! run"): the state the book's steppers show beside each trace line.
//!
//! Three kinds of test:
//!
//! - snapshots of the state at a few chosen steps of one run per stage (the first timer
//!   that fires, the first step where something waits, the last step), one line per panel,
//!   as a stepper shows them;
//! - every step of those runs agrees with its own trace line (a `call_soon cN` leaves cN at
//!   the back of the ready queue, a `run cN` leaves cN running, ...), and every entry's
//!   cause leads back, step by step, to something the program's main did;
//! - each stage's inspector on a tiny program written here, asked directly.

// Stage 4's scripted run includes the echo server's example file, which `stages` does not.
#![allow(clippy::duplicate_mod)]

use std::fmt::Write as _;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::time::Duration;

use scaffold::event::{Event, Id};
use scaffold::record::{Record, Records};
use scaffold::state::{State, Wait};
use scaffold::why::{Cause, Snapshot};
use scaffold::{Clock, VirtualClock};

#[allow(dead_code)]
#[path = "support/stages.rs"]
mod stages;

#[allow(dead_code)]
#[path = "../crates/stage4-select/tests/support/scripted_io.rs"]
mod stage4_scripted_io;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/callbacks.rs"]
mod stage5_callbacks;

/// One run a stepper replays: its name and the program, on the clock it is given.
struct Run {
    name: &'static str,
    run: fn(Rc<dyn Clock>),
}

const RUNS: &[Run] = &[
    Run {
        name: "stage1_producer_consumer",
        run: |clock| stages::run_stage1(clock, stages::stage1_producer_consumer::program),
    },
    Run {
        name: "stage2_producer_consumer",
        run: |clock| stages::run_stage2(clock, stages::stage2_producer_consumer::program),
    },
    Run {
        name: "stage3_mixed",
        run: |clock| stages::stage3_mixed::concurrently(&stage3::Scheduler::new(clock)),
    },
    Run {
        name: "stage4_producer_consumer",
        run: |clock| stages::run_stage4(clock, stages::stage4_producer_consumer::program),
    },
    Run {
        name: "stage4_scripted_io",
        run: stage4_scripted_io::run,
    },
    Run {
        name: "stage5_callbacks",
        run: |clock| {
            let lp = stage5::EventLoop::with_clock(clock);
            stage5_callbacks::one_loop(&lp).expect("parts 1 and 2 run to their end");
        },
    },
    Run {
        name: "stage5_countdown",
        run: |clock| stages::run_stage5(clock, stages::stage5_countdown::program),
    },
    Run {
        name: "stage5_producer_consumer",
        run: |clock| stages::run_stage5(clock, stages::stage5_producer_consumer::program),
    },
];

/// `look` at the records of `run`, on a thread of its own (stage 3 numbers its tasks per
/// thread: a run must not follow another on one thread).
fn with_records<T: Send + 'static>(run: &'static Run, look: fn(&Records) -> T) -> T {
    std::thread::spawn(move || look(&scaffold::timeline::capture(run.run)))
        .join()
        .expect("the program runs to its end")
}

/// ` (call_soon by c2 at step 9)`, or ` (call_soon at step 9)` when main did it.
fn cause(why: &Option<Cause>) -> String {
    match why {
        Some(Cause {
            what,
            by: Some(by),
            step,
        }) => format!(" ({what} by {by} at step {step})"),
        Some(Cause {
            what,
            by: None,
            step,
        }) => format!(" ({what} at step {step})"),
        None => " (no cause seen)".to_owned(),
    }
}

/// The state as a stepper's panels show it, one line each.
fn panels(s: &Snapshot) -> String {
    let running = match &s.running {
        Some(entry) => format!("{}{}", entry.id, cause(&entry.why)),
        None => "-".to_owned(),
    };
    let ready: Vec<String> = s.ready.iter().map(|e| e.id.to_string()).collect();
    let heap: Vec<String> = s
        .timers
        .iter()
        .map(|t| {
            let (due, seq, id) = (t.timer.due.as_secs_f64(), t.timer.seq, t.timer.id);
            format!("{due:.3} #{seq} {id}")
        })
        .collect();
    let waits: Vec<String> = s
        .waits
        .iter()
        .map(|w| format!("{} on {}", w.id, w.on))
        .collect();
    let more = |shown: usize, all: usize| match all > shown {
        true => format!(" ({all} in all)"),
        false => String::new(),
    };
    format!(
        "running: {running}\nready: {}{}\nheap: {}{}\nwaits: {}\n",
        ready.join(" "),
        more(s.ready.len(), s.ready_len),
        heap.join(", "),
        more(s.timers.len(), s.timers_len),
        waits.join(", ")
    )
}

/// Step `i` as a stepper shows it: its trace line (or what it is), then its state.
fn shown(records: &[Record], i: usize) -> String {
    let record = &records[i];
    let line = match &record.event {
        Event::Say(said) => format!("say: {said}"),
        event => scaffold::steps::trace_line(None, event)
            .unwrap_or_else(|| scaffold::steps::kind(event).to_owned()),
    };
    let at = record.at.as_secs_f64();
    let state = record
        .state
        .as_deref()
        .map_or("no state\n".to_owned(), panels);
    format!("step {i} at {at:.3}: {line}\n{state}")
}

/// The chosen steps of a run: the first timer that fires and the run that follows it, the
/// first step where something waits (if any does), the last step.
fn chosen(records: &Records) -> String {
    let records = &records.records;
    let timer = records
        .iter()
        .position(|r| matches!(r.event, Event::TimerDue { .. } | Event::WaitTimer { .. }));
    let after = timer.and_then(|t| {
        let mut runs = records[t..].iter();
        let run = runs.position(|r| matches!(r.event, Event::Run { .. } | Event::Step { .. }));
        run.map(|r| t + r)
    });
    let waits = records
        .iter()
        .position(|r| r.state.as_ref().is_some_and(|s| !s.waits.is_empty()));
    let mut text = String::new();
    for (what, step) in [
        ("the first timer fires", timer),
        ("what runs next", after),
        ("something waits", waits),
        ("the last step", records.len().checked_sub(1)),
    ] {
        match step {
            Some(i) => writeln!(text, "-- {what}\n{}", shown(records, i)),
            None => writeln!(text, "-- {what}: never\n"),
        }
        .expect("a String takes every write");
    }
    descriptors_by_letter(&text)
}

/// `text` with each descriptor number (`fd 7`) replaced by a letter in the order they first
/// appear (`fd A`): the numbers the kernel hands out depend on what else the test process
/// has open, the order does not.
fn descriptors_by_letter(text: &str) -> String {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("fd ") {
        let (before, from) = rest.split_at(at + 3);
        out.push_str(before);
        let digits = from.len() - from.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (number, after) = from.split_at(digits);
        if !number.is_empty() {
            let index = seen.iter().position(|n| *n == number).unwrap_or_else(|| {
                seen.push(number);
                seen.len() - 1
            });
            out.push(char::from(b'A' + u8::try_from(index % 26).unwrap_or(0)));
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[test]
fn the_state_at_chosen_steps_of_every_stage() {
    for run in RUNS {
        let text = with_records(run, chosen);
        insta::assert_snapshot!(run.name, text);
    }
}

/// Who ran at step `at`, and why it was ready: the state there says, or (for a task that
/// took itself out of `current` in that step, stage 2) the nearest state before it that
/// shows `by` running.
fn running_at(records: &[Record], at: usize, by: Id) -> Option<Option<Cause>> {
    records[..=at].iter().rev().find_map(|r| {
        let running = r.state.as_ref()?.running.as_ref()?;
        (running.id == by).then(|| running.why.clone())
    })
}

/// What disagrees between each step's state and its trace line, and which causes do not
/// lead back to the program's main.
fn disagreements(records: &Records) -> Vec<String> {
    let records = &records.records;
    let mut wrong = Vec::new();
    let mut before: Option<&Snapshot> = None;
    for (i, record) in records.iter().enumerate() {
        let Some(s) = record.state.as_deref() else {
            wrong.push(format!("step {i}: no state ({})", record.event));
            continue;
        };
        let ready: Vec<Id> = s.ready.iter().map(|e| e.id).collect();
        // Nothing leaves the ready queue but to run: a step that shows one gone from the
        // queue and nothing running was reported before its scheduler was done with it.
        let gone = before
            .filter(|b| b.ready_len == b.ready.len() && s.ready_len == ready.len())
            .into_iter()
            .flat_map(|b| b.ready.iter().map(|e| e.id))
            .filter(|id| !ready.contains(id) && s.running.as_ref().map(|e| e.id) != Some(*id));
        for id in gone {
            wrong.push(format!(
                "step {i}: {id} left the ready queue, and does not run"
            ));
        }
        before = Some(s);
        let back = (s.ready_len == ready.len())
            .then(|| ready.last().copied())
            .flatten();
        let running = s.running.as_ref().map(|e| e.id);
        let on_heap = |id: Id| s.timers.iter().any(|t| t.timer.id == id);
        let ok = match record.event {
            Event::CallSoon { id } | Event::IoReady { id, .. } => back == Some(id),
            Event::TimerDue { id, .. } => back == Some(id) && !on_heap(id),
            Event::WaitTimer { id, .. } => !on_heap(id),
            Event::CallLater { id, .. } => on_heap(id) || s.timers_len > s.timers.len(),
            Event::Run { id } => running == Some(id) && !ready.contains(&id),
            Event::Step { task } => running == Some(task),
            Event::IoWait { id, .. } => s.waits.iter().any(|w| w.id == id),
            _ => true,
        };
        if !ok {
            wrong.push(format!("step {i}: `{}` left {s:?}", record.event));
        }
        // Every cause leads back, step by step, to one with nobody running (main).
        let entries = s.ready.iter().map(|e| (e.id, &e.why));
        let timers = s.timers.iter().map(|t| (t.timer.id, &t.why));
        let running = s.running.iter().map(|e| (e.id, &e.why));
        for (id, why) in entries.chain(timers).chain(running) {
            let mut why = why.clone();
            let mut before = i + 1;
            loop {
                match why {
                    None => wrong.push(format!("step {i}: {id} has no cause")),
                    Some(Cause { by: None, .. }) => {}
                    Some(Cause {
                        by: Some(by), step, ..
                    }) if step < before => {
                        before = step;
                        match running_at(records, step, by) {
                            Some(next) => {
                                why = next;
                                continue;
                            }
                            None => wrong.push(format!("step {i}: {id}'s {by} ran at no step")),
                        }
                    }
                    Some(cause) => wrong.push(format!("step {i}: {id}'s chain loops at {cause:?}")),
                }
                break;
            }
        }
    }
    wrong
}

#[test]
fn every_step_agrees_with_its_trace_line_and_every_cause_leads_back_to_main() {
    for run in RUNS {
        let wrong = with_records(run, disagreements);
        assert!(wrong.is_empty(), "{}:\n{}", run.name, wrong.join("\n"));
    }
}

/// Stage 2's `generators`: no stepper replays it, but `--step` and `--record` show it.
#[allow(dead_code)]
#[path = "../crates/stage2-generators/examples/generators.rs"]
mod stage2_generators;

#[test]
fn stage2_generators_by_hand_and_with_async_keep_a_true_state_at_every_step() {
    const GENERATORS: &[Run] = &[
        Run {
            name: "stage2_generators_by_hand",
            run: |_| stage2_generators::by_hand(),
        },
        Run {
            name: "stage2_generators_with_async",
            run: |clock| stage2_generators::with_async(&stage2::Scheduler::new(clock)),
        },
    ];
    for run in GENERATORS {
        let wrong = with_records(run, disagreements);
        assert!(wrong.is_empty(), "{}:\n{}", run.name, wrong.join("\n"));
    }
}

/// The state now, asked directly of the scheduler under watch.
fn now() -> State {
    scaffold::state::inspect().expect("a scheduler under watch that can look")
}

fn waits(state: &State) -> Vec<(Id, &str)> {
    state
        .waits
        .iter()
        .map(|w: &Wait| (w.id, w.on.as_str()))
        .collect()
}

/// Run `program` with a recording on (else nothing is watched), on a thread of its own.
fn recording(program: fn(Rc<dyn Clock>)) {
    std::thread::spawn(move || {
        let clock: Rc<dyn Clock> = VirtualClock::new();
        scaffold::record::start(clock.clone());
        program(clock);
        // The recording itself is checked by the tests above; here only the inspector.
        drop(scaffold::record::stop());
    })
    .join()
    .expect("the inspector's checks pass");
}

#[test]
fn nothing_is_watched_without_a_recording() {
    std::thread::spawn(|| {
        let s = stage2::Scheduler::new(VirtualClock::new());
        s.new_task(async {});
        assert_eq!(scaffold::state::inspect(), None);
    })
    .join()
    .expect("nothing is watched");
}

#[test]
fn stage1_lists_ready_callbacks_and_the_heap_in_pop_order() {
    recording(|clock| {
        let s = stage1::Scheduler::new(clock);
        s.call_later(Duration::from_secs(2), |_| {});
        s.call_later(Duration::from_secs(1), |_| {});
        s.call_soon(|_| {
            let state = now();
            assert_eq!(state.running, Some(Id::Callback(3)));
            let heap: Vec<_> = state
                .timers
                .iter()
                .map(|t| (t.due.as_secs(), t.seq, t.id))
                .collect();
            assert_eq!(heap, [(1, 2, Id::Callback(2)), (2, 1, Id::Callback(1))]);
            assert_eq!(state.ready, [Id::Callback(4)]);
        });
        s.call_soon(|_| {});
        s.run();
        assert_eq!(now(), State::default(), "nothing left, nothing running");
    });
}

#[test]
fn stage2_lists_a_sleeping_task_on_the_heap_and_the_running_one() {
    recording(|clock| {
        let s = stage2::Scheduler::new(clock);
        s.new_task(stage2::sleep(Duration::from_secs(3)));
        s.new_task(async {
            stage2::switch().await; // let the first one go to sleep
            let state = now();
            assert_eq!(state.running, Some(Id::Task(2)));
            let heap: Vec<_> = state
                .timers
                .iter()
                .map(|t| (t.due.as_secs(), t.id))
                .collect();
            assert_eq!(heap, [(3, Id::Task(1))]);
            assert!(state.ready.is_empty());
        });
        assert_eq!(now().ready, [Id::Task(1), Id::Task(2)]);
        s.run();
    });
}

#[test]
fn stage3_shows_the_task_of_a_step_running_and_a_consumer_waiting_on_the_queue() {
    // Stage 3 runs on stage 1's scheduler and its inspector: the task comes from the events.
    std::thread::spawn(|| {
        let records = scaffold::timeline::capture(|clock| {
            use stage3::NewTask;
            let s = stage3::Scheduler::new(clock);
            let q: stage3::AsyncQueue<u32> = stage3::AsyncQueue::new();
            let (q1, q2) = (q.clone(), q.clone());
            s.new_task(async move { assert_eq!(q1.get().await, Ok(7)) });
            s.new_task(async move { q2.put(7).expect("the queue is open") });
            s.run();
        });
        let records = &records.records;
        let suspend = records
            .iter()
            .position(|r| matches!(r.event, Event::Suspend { .. }))
            .expect("the consumer waits");
        let s = records[suspend].state.as_deref().expect("a state");
        let waiting: Vec<_> = s.waits.iter().map(|w| (w.id, w.on.as_str())).collect();
        assert_eq!(waiting, [(Id::Task(1), "queue")]);
        let step = records
            .iter()
            .position(|r| r.event == Event::Step { task: Id::Task(2) })
            .expect("the producer steps");
        let s = records[step].state.as_deref().expect("a state");
        assert_eq!(s.running.as_ref().map(|e| e.id), Some(Id::Task(2)));
        let wake = records
            .iter()
            .position(|r| matches!(r.event, Event::Wake { .. }))
            .expect("the put wakes the consumer");
        let s = records[wake].state.as_deref().expect("a state");
        assert!(s.waits.is_empty(), "a woken task waits no more");
    })
    .join()
    .expect("the inspector's checks pass");
}

#[test]
fn stage4_lists_its_socket_waits() {
    recording(|clock| {
        let s = stage4::Scheduler::new(clock).expect("a selector");
        let (a, b) = UnixStream::pair().expect("a socket pair");
        a.set_nonblocking(true).expect("non-blocking");
        s.read_wait(&a, |_| {}).expect("a read wait");
        s.write_wait(&b, |_| {}).expect("a write wait");
        let (ra, wb) = (a.as_raw_fd(), b.as_raw_fd());
        let read = format!("fd {ra} read");
        let write = format!("fd {wb} write");
        let mut want = vec![
            (Id::Callback(1), read.as_str()),
            (Id::Callback(2), write.as_str()),
        ];
        want.sort_by_key(|&(_, on)| if on.contains("read") { ra } else { wb });
        assert_eq!(waits(&now()), want);
        assert!(
            s.cancel_wait(&a, stage4::Interest::Read)
                .expect("cancelled")
        );
        assert_eq!(waits(&now()), [(Id::Callback(2), write.as_str())]);
        s.run().expect("the writable socket fires");
        assert!(waits(&now()).is_empty());
    });
}

#[test]
fn stage5_lists_readers_and_cancelled_timers_but_not_its_self_pipe() {
    recording(|clock| {
        let lp = stage5::EventLoop::with_clock(clock);
        assert_eq!(
            now(),
            State::default(),
            "the self-pipe's reader is not listed"
        );
        let (a, _b) = UnixStream::pair().expect("a socket pair");
        let reader = lp.add_reader(a.as_raw_fd(), |_| {}).expect("a reader");
        let on = format!("fd {} read", a.as_raw_fd());
        assert_eq!(waits(&now()), [(reader.trace_id(), on.as_str())]);
        let later = lp.call_later(2.0, |_| {}).expect("a timer");
        let sooner = lp.call_later(1.0, |_| {}).expect("a timer");
        later.cancel();
        let heap: Vec<_> = now()
            .timers
            .iter()
            .map(|t| (t.due.as_secs(), t.id))
            .collect();
        let ids = (Id::Callback(sooner.id()), Id::Callback(later.id()));
        assert_eq!(
            heap,
            [(1, ids.0), (2, ids.1)],
            "cancelled, still on the heap"
        );
        assert!(lp.remove_reader(a.as_raw_fd()));
        assert!(waits(&now()).is_empty());
        lp.close().expect("the loop closes");
    });
}
