//! The causes a recording notes as the steps are reported (book introduction, "Watching a
//! run"). No public source: the project's own instrument; [`super`] says what is noted and
//! why.
//!
//! Besides what the events say, one thing is seen only in the states: a task that a
//! scheduler puts back in its ready queue after its step, with no event of its own (stage
//! 2's round robin after a `yield`, its coroutine scheduler after a `switch`). Such a task
//! is ready because its step paused: it is noted so, by itself, at that step.

use std::collections::HashMap;

use super::{Cause, Entry, Snapshot, TimerEntry};
use crate::event::{Event, Id};
use crate::state::{State, Wait};

/// The causes seen so far in one recording.
#[derive(Debug, Default)]
pub(crate) struct Causes {
    ready: HashMap<Id, Cause>,
    timers: HashMap<Id, Cause>,
    /// Who the scheduler said runs, at the step before this one.
    running: Option<Id>,
    running_why: Option<Cause>,
    iteration: Option<u64>,
    /// The last wake, for the `call_soon` that carries it out (stages 3 to 5 wake a task
    /// by scheduling its next step).
    last_wake: Option<(usize, Id, &'static str)>,
    /// The waits that objects outside the scheduler report (a queue's consumers, a
    /// stage 4 socket wait), in the order they began: the scheduler cannot list them.
    waiting: Vec<Wait>,
    /// The last report of what a task is about to wait for (a queue found empty, a
    /// socket wait), for the `Suspend` right after it: the task says it waits, the step
    /// before says for what.
    last_wait: Option<(usize, String)>,
    /// The task whose step runs now inside the callback or handle `.0` (stages 3 and
    /// 5): shown as running until its coroutine pauses or ends.
    stepping: Option<(Id, Id)>,
    /// Why that callback or handle was ready: what it shows again once the step is over.
    handle_why: Option<Cause>,
    /// The timer the stepping task set during this step, if any (stage 5's `sleep`).
    timer_in_step: Option<Id>,
    /// The step each task that the scheduler itself said runs last began at (stage 2):
    /// one that shows up ready with no cause was put back by that step.
    stepped: HashMap<Id, usize>,
}

impl Causes {
    /// Note what step `step`, `event`, did; `running` is who the scheduler says runs.
    pub(crate) fn note(&mut self, step: usize, event: &Event, running: Option<Id>) {
        // The task stepping inside the running callback, if any, is who acts.
        let by = match (running, self.stepping) {
            (Some(handle), Some((inside, task))) if handle == inside => Some(task),
            // Nothing runs, by the scheduler's word, right after something did: a task that
            // took itself out of `current` (stage 2's sleep, a wait) is still acting.
            (None, _) => self.running,
            _ => running,
        };
        // What runs takes its cause with it out of the ready queue, from the first step the
        // scheduler says it runs: stages 1 and 4 say so as it leaves the queue, before `run`.
        if let Some(id) = running
            && running != self.running
            && let Some(why) = self.ready.remove(&id)
        {
            self.running_why = Some(why);
        }
        self.running = running;
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
                self.timer_in_step = Some(id);
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
            Event::QueueWait { who: None, .. } => self.last_wait = Some((step, "queue".into())),
            Event::IoWait { fd, interest, id } => {
                let on = format!("fd {fd} {interest}");
                self.last_wait = Some((step, on.clone()));
                self.wait(id, on);
            }
            Event::Suspend { task } => self.suspend(step, task),
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
                if matches!(event, Event::Step { .. }) && running == Some(id) {
                    self.stepped.insert(id, step);
                }
                // A step inside a callback (stage 3's task, stage 5's step handle) is the
                // task's: it is what runs, and what the steps it takes are by.
                self.stepping = match (event, running) {
                    (Event::Step { .. }, Some(handle)) if handle != id => {
                        self.handle_why = self.running_why.clone();
                        Some((handle, id))
                    }
                    _ => None,
                };
                if let Some(why) = self.ready.remove(&id) {
                    self.running_why = Some(why);
                }
                self.timer_in_step = None;
            }
            Event::Finished { task } => self.step_over(task),
            Event::Iteration(n) => self.iteration = Some(n),
            Event::Done { .. } => {
                self.running_why = None;
                self.stepping = None;
            }
            _ => {}
        }
    }

    /// `task` pauses: its step is over, and it waits for what the step before named (a
    /// queue, a socket), for what it already waits on, or for a future: unless it was
    /// made ready again during its own step.
    fn suspend(&mut self, step: usize, task: Id) {
        self.step_over(task);
        let named = match self.last_wait.take() {
            Some((at, on)) if at + 1 == step => Some(on),
            _ => None,
        };
        if let Some(on) = named {
            self.wait(task, on);
        } else if !self.ready.contains_key(&task) && !self.waiting.iter().any(|w| w.id == task) {
            let on = match self.timer_in_step {
                Some(timer) => format!("future (timer {timer})"),
                None => "future".to_owned(),
            };
            self.wait(task, on);
        }
    }

    /// `task`'s step is over: the callback that ran it is what runs again.
    fn step_over(&mut self, task: Id) {
        if let Some((_, stepping)) = self.stepping
            && stepping == task
        {
            self.stepping = None;
            self.running_why = self.handle_why.take();
        }
    }

    fn wait(&mut self, id: Id, on: String) {
        self.waiting.retain(|w| w.id != id);
        self.waiting.push(Wait { id, on });
    }

    /// `snapshot` at the start of the iteration now: the same queues, nothing running.
    pub(crate) fn renumber(&self, snapshot: &Snapshot) -> Snapshot {
        Snapshot {
            iteration: self.iteration,
            running: None,
            ..snapshot.clone()
        }
    }

    /// `state` with the causes seen so far, and the waits it does not list itself.
    pub(crate) fn snapshot(&mut self, state: State) -> Snapshot {
        for &task in &state.ready {
            if let Some(&step) = self.stepped.get(&task)
                && !self.ready.contains_key(&task)
            {
                let why = Cause {
                    what: "yielded".to_owned(),
                    by: Some(task),
                    step,
                };
                self.ready.insert(task, why);
            }
        }
        let entry = |id: Id| Entry {
            id,
            why: self.ready.get(&id).cloned(),
        };
        // The task stepping inside the running callback, if one is, runs in its stead.
        let running = state.running.map(|id| match self.stepping {
            Some((handle, task)) if handle == id => task,
            _ => id,
        });
        let running = running.map(|id| Entry {
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

    #[test]
    fn a_task_its_own_step_put_back_was_ready_because_it_yielded() {
        // Stage 2's round robin: t1 steps, yields, and is queued again with no event; t2
        // steps; then t1 again, running for the same reason.
        let mut causes = Causes::default();
        let (t1, t2) = (Id::Task(1), Id::Task(2));
        causes.note(0, &Event::NewTask { task: t1 }, None);
        causes.note(1, &Event::NewTask { task: t2 }, None);
        causes.note(2, &Event::Step { task: t1 }, Some(t1));
        causes.note(3, &Event::Step { task: t2 }, Some(t2));
        let snapshot = causes.snapshot(State::default().with_ready([t1].into_iter()));
        let why = snapshot.ready[0].why.clone().expect("a cause");
        assert_eq!(
            (why.what.as_str(), why.by, why.step),
            ("yielded", Some(t1), 2)
        );
        causes.note(4, &Event::Step { task: t1 }, Some(t1));
        let snapshot = causes.snapshot(State::default().with_running(Some(t1)));
        let why = snapshot.running.expect("t1 runs").why.expect("a cause");
        assert_eq!(
            (why.what.as_str(), why.by, why.step),
            ("yielded", Some(t1), 2)
        );
    }
}
