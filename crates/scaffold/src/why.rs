//! Why each entry is in the ready queue (book introduction, "Watching a run"). No seed
//! section: the project's own instrument.
//!
//! The loop itself performs every `call_soon`, every timer's move to the ready queue, every
//! wake and every I/O readiness, and reports each as an event at the moment it does it. So
//! the recording can note, as each happens, who put which callback or task where: a
//! [`Cause`] names what it was, who was running, and the step it happened at. At that
//! step the one running had a cause of its own, and so on back to the program's start: the
//! chain a stepper's "why?" link walks.
//!
//! A [`Snapshot`] is a scheduler's [`State`] with these causes attached, as the recording
//! keeps it at every step.

use std::collections::HashMap;

use crate::event::{Event, Id};
use crate::state::{State, Timer, Wait};

/// How something got into the ready queue (or onto the heap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// What happened, in the trace's words: `call_soon`, `timer due (call_later)`,
    /// `wake t2 (queue put)`, `fd 5 ready for read`.
    pub what: String,
    /// Who was running when it happened (`None`: the program's main, or the loop itself).
    pub by: Option<Id>,
    /// The index of the step it happened at, in the recording.
    pub step: usize,
}

/// A callback or task, and why it is where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its id.
    pub id: Id,
    /// Its cause, if the recording saw it happen.
    pub why: Option<Cause>,
}

/// A timer on the heap, and who set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerEntry {
    /// The timer, as the heap holds it.
    pub timer: Timer,
    /// Who set it, if the recording saw it happen.
    pub why: Option<Cause>,
}

/// The state after one step, with causes: what the recording keeps per step.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    /// The event loop's iteration (stage 5's `[n]`), if it has them.
    pub iteration: Option<u64>,
    /// What runs now, and why it was ready.
    pub running: Option<Entry>,
    /// The ready queue, front first (its first [`crate::state::SHOWN`]).
    pub ready: Vec<Entry>,
    /// How many are ready.
    pub ready_len: usize,
    /// The timer heap in pop order (its first [`crate::state::SHOWN`]).
    pub timers: Vec<TimerEntry>,
    /// How many timers are on the heap.
    pub timers_len: usize,
    /// Who waits for what.
    pub waits: Vec<Wait>,
}

/// The causes seen so far in one recording.
#[derive(Debug, Default)]
pub(crate) struct Causes {
    ready: HashMap<Id, Cause>,
    timers: HashMap<Id, Cause>,
    running: Option<Id>,
    running_why: Option<Cause>,
    iteration: Option<u64>,
    /// The last wake, for the `call_soon` that carries it out (stages 3 to 5 wake a task
    /// by scheduling its next step).
    last_wake: Option<(usize, Id, &'static str)>,
    /// The waits that objects outside the scheduler report (a queue's consumers, a
    /// stage 4 socket wait), in the order they began: the scheduler cannot list them.
    waiting: Vec<Wait>,
}

impl Causes {
    /// Note what step `step`, `event`, did; `running` is who the scheduler says runs.
    pub(crate) fn note(&mut self, step: usize, event: &Event, running: Option<Id>) {
        let by = running.or(self.running);
        let cause = |what: String| Cause { what, by, step };
        match *event {
            Event::CallSoon { id } => {
                let what = match self.last_wake {
                    Some((at, to, how)) if at + 1 == step => woken(to, how),
                    _ => "call_soon".to_owned(),
                };
                self.ready.insert(id, cause(what));
            }
            Event::CallLater { id, .. } => {
                self.timers.insert(id, cause("call_later".to_owned()));
            }
            Event::Sleep {
                task,
                timer: Some(_),
                ..
            } => {
                self.timers.insert(task, cause("sleep".to_owned()));
            }
            Event::TimerDue { id, .. } | Event::WaitTimer { id, .. } => {
                // The timer's own cause, renamed: the chain goes on from where it was set.
                let set = self.timers.remove(&id);
                let due = set.map(|set| Cause {
                    what: format!("timer due ({})", set.what),
                    ..set
                });
                self.ready
                    .insert(id, due.unwrap_or_else(|| cause("timer due".into())));
            }
            Event::QueueWait { who: Some(id), .. } => self.wait(id, "queue".into()),
            Event::IoWait { fd, interest, id } => self.wait(id, format!("fd {fd} {interest}")),
            Event::Wake { to, by: how } => {
                self.waiting.retain(|w| w.id != to);
                self.last_wake = Some((step, to, how));
                self.ready.insert(to, cause(woken(to, how)));
            }
            Event::IoReady { fd, interest, id } => {
                self.waiting.retain(|w| w.id != id);
                let what = format!("fd {fd} ready for {interest}");
                self.ready.insert(
                    id,
                    Cause {
                        by: None,
                        ..cause(what)
                    },
                );
            }
            Event::NewTask { task } => {
                self.ready
                    .entry(task)
                    .or_insert_with(|| cause("new task".into()));
            }
            Event::Run { id } | Event::Step { task: id } => {
                self.waiting.retain(|w| w.id != id);
                if let Some(why) = self.ready.remove(&id) {
                    self.running_why = Some(why);
                }
                if let Event::Run { .. } = event {
                    self.running = Some(id);
                }
            }
            Event::Iteration(n) => self.iteration = Some(n),
            Event::Done { .. } => {
                self.running = None;
                self.running_why = None;
            }
            _ => {}
        }
    }

    fn wait(&mut self, id: Id, on: String) {
        self.waiting.retain(|w| w.id != id);
        self.waiting.push(Wait { id, on });
    }

    /// `state` with the causes seen so far, and the waits it does not list itself.
    pub(crate) fn snapshot(&self, state: State) -> Snapshot {
        let entry = |id: Id| Entry {
            id,
            why: self.ready.get(&id).cloned(),
        };
        let running = state.running.map(|id| Entry {
            id,
            why: self.running_why.clone(),
        });
        let timers = state.timers.iter().map(|&timer| TimerEntry {
            timer,
            why: self.timers.get(&timer.id).cloned(),
        });
        Snapshot {
            iteration: self.iteration,
            running,
            ready: state.ready.iter().map(|&id| entry(id)).collect(),
            ready_len: state.ready_len,
            timers: timers.collect(),
            timers_len: state.timers_len,
            waits: {
                let mut waits = state.waits;
                let outside = self
                    .waiting
                    .iter()
                    .filter(|w| !waits.iter().any(|s| s.id == w.id));
                let outside: Vec<Wait> = outside.cloned().collect();
                waits.extend(outside);
                waits
            },
        }
    }
}

fn woken(to: Id, how: &str) -> String {
    if how.is_empty() {
        format!("wake {to}")
    } else {
        format!("wake {to} ({how})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_timer_due_keeps_the_cause_of_the_call_later_that_set_it() {
        let mut causes = Causes::default();
        let (c1, c2) = (Id::Callback(1), Id::Callback(2));
        causes.note(0, &Event::Run { id: c1 }, Some(c1));
        let later = Event::CallLater {
            id: c2,
            delay: Duration::from_secs(1),
            due: Duration::from_secs(1),
            seq: 0,
        };
        causes.note(1, &later, Some(c1));
        let due = Event::TimerDue {
            id: c2,
            due: Duration::from_secs(1),
            seq: 0,
        };
        causes.note(5, &due, None);
        let state = State::default().with_ready([c2].into_iter());
        let snapshot = causes.snapshot(state);
        let why = snapshot.ready[0].why.clone().unwrap();
        assert_eq!(
            (why.what.as_str(), why.by, why.step),
            ("timer due (call_later)", Some(c1), 1)
        );
    }

    #[test]
    fn the_call_soon_right_after_a_wake_carries_the_wake() {
        let mut causes = Causes::default();
        let (t2, c7, c9) = (Id::Task(2), Id::Callback(7), Id::Callback(9));
        let wake = Event::Wake {
            to: t2,
            by: "queue put",
        };
        causes.note(3, &wake, Some(c7));
        causes.note(4, &Event::CallSoon { id: c9 }, Some(c7));
        causes.note(6, &Event::Run { id: c9 }, Some(c9));
        let snapshot = causes.snapshot(State::default().with_running(Some(c9)));
        let why = snapshot.running.unwrap().why.unwrap();
        assert_eq!(
            (why.what.as_str(), why.by, why.step),
            ("wake t2 (queue put)", Some(c7), 4)
        );
    }
}
