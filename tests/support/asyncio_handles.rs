//! An asyncio program's handles, replayed on stage 5's loop (book chapter 9, "What asyncio
//! asks of a loop"; asyncio's `base_events.py`, `call_soon` and `call_at`, the only way
//! asyncio's `Task`, `Future` and `sleep` reach a loop's core).
//!
//! `crates/stage5-python/conformance/handles.py` runs a program on CPython's asyncio loop
//! and records every handle it scheduled: which handle's run scheduled it, soon or after
//! what delay, which task's step or wake-up it is, and, for each run, what it printed,
//! what it scheduled, whether its task finished and whether it stopped the loop. Replayed
//! here, each handle is a stage 5 closure that does what the record says its Python
//! callback did, through stage 5's `call_soon` and `call_later`, as scratchloop's core
//! passes asyncio's calls on: stage 5 decides the order, and [`replay`] returns it, to be
//! compared with the order asyncio ran them in. asyncio's tasks are named in the trace
//! (`new_task`, `step`, `wake`, `finished`, as stage 5's own tasks are), since stage 5,
//! under asyncio, sees only handles.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use scaffold::{Event, Id, event, say};
use stage5::EventLoop;

/// What a handle's run did, in order.
#[derive(Clone, Debug, PartialEq)]
enum Action {
    Say(String),
    Schedule(String),
    Finished,
    Stop,
}

/// One handle: who scheduled it, how, and the task it steps or wakes, if any.
#[derive(Clone, Debug)]
struct Scheduled {
    delay: Option<f64>,
    task: Option<String>,
}

/// A record, read.
#[derive(Debug, Default)]
pub struct Record {
    handles: HashMap<String, Scheduled>,
    /// The handles scheduled before the loop ran, in order.
    first: Vec<String>,
    actions: HashMap<String, Vec<Action>>,
    /// The handles in the order asyncio ran them.
    pub runs: Vec<String>,
    /// The tasks, in the order they were created: `t1` is the first.
    tasks: Vec<String>,
}

/// Read a record (`soon`, `later`, `run`, `say`, `finished`, `stop` lines; `#` comments).
pub fn parse(text: &str) -> Result<Record, String> {
    let mut record = Record::default();
    for (n, line) in text.lines().enumerate() {
        let bad = || format!("line {}: cannot read {line:?}", n + 1);
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            [] | [""] => {}
            [comment, ..] if comment.starts_with('#') => {}
            [how @ ("soon" | "later"), handle, "by", by, rest @ ..] => {
                let (delay, rest) = match (*how, rest) {
                    ("later", [delay, rest @ ..]) => {
                        (Some(delay.parse().map_err(|_| bad())?), rest)
                    }
                    ("soon", rest) => (None, rest),
                    _ => return Err(bad()),
                };
                let ["name", _, "task", task] = rest else {
                    return Err(bad());
                };
                let task = (*task != "-").then(|| task.to_string());
                if let Some(task) = &task
                    && !record.tasks.contains(task)
                {
                    record.tasks.push(task.clone());
                }
                record
                    .handles
                    .insert(handle.to_string(), Scheduled { delay, task });
                match *by {
                    "-" => record.first.push(handle.to_string()),
                    by => action(&mut record, by, Action::Schedule(handle.to_string())),
                }
            }
            ["run", handle] => record.runs.push(handle.to_string()),
            ["say", handle, said @ ..] => action(&mut record, handle, Action::Say(said.join(" "))),
            ["finished", handle] => action(&mut record, handle, Action::Finished),
            ["stop", handle] => action(&mut record, handle, Action::Stop),
            _ => return Err(bad()),
        }
    }
    Ok(record)
}

fn action(record: &mut Record, handle: &str, action: Action) {
    record
        .actions
        .entry(handle.to_string())
        .or_default()
        .push(action);
}

impl Record {
    fn task_id(&self, task: &str) -> Id {
        let n = self.tasks.iter().position(|t| t == task).unwrap_or(0);
        Id::Task(n as u64 + 1)
    }
}

/// The replay's state: the record, the tasks created so far, the handles run so far.
struct Replay {
    record: Record,
    created: RefCell<Vec<String>>,
    ran: RefCell<Vec<String>>,
}

/// Run `record` on `lp` until the handle that stopped asyncio's loop stops it; the handles
/// in the order stage 5 ran them.
pub fn replay(lp: &EventLoop, record: Record) -> Vec<String> {
    let replay = Rc::new(Replay {
        record,
        created: RefCell::default(),
        ran: RefCell::default(),
    });
    for handle in replay.record.first.clone() {
        schedule(lp, &replay, &handle);
    }
    lp.run_forever().expect("the replay runs until its stop");
    replay.ran.borrow().clone()
}

/// Schedule `handle` as asyncio did; a task's first step makes the task, a later one wakes it.
fn schedule(lp: &EventLoop, replay: &Rc<Replay>, handle: &str) {
    let scheduled = replay.record.handles[handle].clone();
    if let Some(task) = &scheduled.task {
        let id = replay.record.task_id(task);
        let new = !replay.created.borrow().contains(task);
        if new {
            replay.created.borrow_mut().push(task.clone());
            event!(Event::NewTask { task: id });
        } else {
            event!(Event::Wake { to: id, by: "" });
        }
    }
    let run = {
        let replay = replay.clone();
        let handle = handle.to_string();
        move |lp: &EventLoop| run(lp, &replay, &handle)
    };
    match scheduled.delay {
        None => lp.call_soon(run).map(drop),
        Some(delay) => lp.call_later(delay, run).map(drop),
    }
    .expect("the loop is open");
}

/// Run `handle`: what the record says its Python callback did.
fn run(lp: &EventLoop, replay: &Rc<Replay>, handle: &str) {
    replay.ran.borrow_mut().push(handle.to_string());
    let task = replay.record.handles[handle]
        .task
        .as_ref()
        .map(|task| replay.record.task_id(task));
    if let Some(task) = task {
        event!(Event::Step { task });
    }
    let actions = replay
        .record
        .actions
        .get(handle)
        .cloned()
        .unwrap_or_default();
    for action in &actions {
        match action {
            Action::Say(line) => say!("{line}"),
            Action::Schedule(child) => schedule(lp, replay, child),
            Action::Finished => {
                if let Some(task) = task {
                    event!(Event::Finished { task });
                }
            }
            Action::Stop => lp.stop(),
        }
    }
    if let Some(task) = task
        && !actions.contains(&Action::Finished)
    {
        event!(Event::Suspend { task }); // it awaits a future
    }
}
