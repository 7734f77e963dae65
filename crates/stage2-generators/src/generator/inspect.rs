//! What the round robin holds, for a recording (book introduction, "Watching a run"). No
//! public source: the talk's round robin shows nothing of itself.
//!
//! Not part of chapter 2's lesson: [`scaffold::state`] asks this at every reported step
//! while a recording is on (`--record`, `--step`, the book's steppers), and never
//! otherwise. The talk's round robin owns a plain deque; the recording reads the state
//! from outside, at each step, so the queue here is shared with it behind an `Rc`, under
//! watch from the moment the scheduler is made. What runs is the task the queue handed out
//! last: from its `step` until the next one is taken (its `finished` included: the round
//! robin still holds it then).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use scaffold::Id;
use scaffold::state::{Inspect, State};

use super::Generator;

/// One task of the round robin: its number and its generator.
pub(super) type Task = (u64, Box<dyn Generator>);

/// The round robin's queue, front first, readable by the recording.
pub(super) struct Ready(Rc<Queue>);

struct Queue {
    tasks: RefCell<VecDeque<Task>>,
    running: Cell<Option<u64>>,
}

impl Default for Ready {
    fn default() -> Ready {
        let queue = Rc::new(Queue {
            tasks: RefCell::default(),
            running: Cell::new(None),
        });
        scaffold::state::watch(&queue);
        Ready(queue)
    }
}

impl Ready {
    /// Queue `task` at the back.
    pub(super) fn push_back(&self, task: Task) {
        self.0.tasks.borrow_mut().push_back(task);
    }

    /// Take the front task: the one running from now until the next is taken.
    pub(super) fn pop_front(&self) -> Option<Task> {
        let task = self.0.tasks.borrow_mut().pop_front();
        self.0.running.set(task.as_ref().map(|&(id, _)| id));
        task
    }

    /// True when no task is queued (the lesson's tests ask).
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.0.tasks.borrow().is_empty()
    }
}

impl Inspect for Queue {
    fn state(&self) -> Option<State> {
        // `try_borrow`: a step reported while the queue is being changed shows no state
        // rather than panicking (the round robin reports none that way).
        let tasks = self.tasks.try_borrow().ok()?;
        let state = State::default()
            .with_running(self.running.get().map(Id::Task))
            .with_ready(tasks.iter().map(|&(id, _)| Id::Task(id)));
        Some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Countdown, Countup, Scheduler};
    use scaffold::{Event, Id, record};

    #[test]
    fn each_step_keeps_the_round_robins_queue_as_it_left_it() {
        let mut records = Vec::new();
        // The lines the tasks say are not under test: the transcript only keeps them quiet.
        let _ = scaffold::transcript(false, |clock| {
            record::start(clock);
            let mut s = Scheduler::new();
            s.new_task(Countdown::new(1));
            s.new_task(Countup::new(1));
            s.run();
            records = record::stop().records;
        });
        let steps: Vec<(Event, Option<Id>, Vec<Id>)> = records
            .iter()
            .filter(|r| !matches!(r.event, Event::Say(_)))
            .map(|r| {
                let state = r.state.as_deref().expect("every step has a state");
                let ready = state.ready.iter().map(|e| e.id).collect();
                (r.event.clone(), state.running.as_ref().map(|e| e.id), ready)
            })
            .collect();
        let (t1, t2) = (Id::Task(1), Id::Task(2));
        let new_task = |task| Event::NewTask { task };
        let step = |task| Event::Step { task };
        let finished = |task| Event::Finished { task };
        assert_eq!(
            steps,
            [
                (new_task(t1), None, vec![t1]),
                (new_task(t2), None, vec![t1, t2]),
                (step(t1), Some(t1), vec![t2]),
                (step(t2), Some(t2), vec![t1]),
                (step(t1), Some(t1), vec![t2]),
                (finished(t1), Some(t1), vec![t2]),
                (step(t2), Some(t2), vec![]),
                (finished(t2), Some(t2), vec![]),
            ]
        );
    }
}
