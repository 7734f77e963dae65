//! The coroutine scheduler (book chapter 2, "The scheduler"; Beazley's talk).
//!
//! The talk's last generator scheduler has a ready queue of coroutines, the sleeping heap
//! from stage 1, and a `current` slot. `run` takes one task from the ready queue, makes it
//! `current`, sends it `None` (runs it to its next pause) and, if it is still `current`,
//! appends it to the ready queue again. When nothing is ready, it waits for the earliest
//! sleeper.
//!
//! What changed from stage 1:
//!
//! - The queue holds *tasks* (paused computations) instead of callbacks; the sleeping heap
//!   is stage 1's [`TimerHeap`], reused as it is, holding task ids instead of callbacks.
//! - `coro.send(None)` is `future.poll(cx)`. Python passes the coroutine object around by
//!   reference; in Rust every task has one owner, the task table, and the queues, the
//!   heap and `current` hold its [`TaskId`]. While a task runs it is taken out of the table,
//!   so the scheduler owns it outright during the poll.
//! - The `Context` passed to `poll` carries a *no-op* waker ([`Waker::noop`]). A waker is
//!   how a future tells its executor "poll me again", and nothing here needs to: a task that
//!   is still `current` after its turn is re-queued by the scheduler itself, and a task
//!   that left `current` is put back by whoever it left it for (the sleeping heap, a queue's
//!   waiting list). Stage 5 has futures woken from outside the scheduler and needs real
//!   wakers.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use scaffold::{Clock, Event, Id, event};
use stage1::TimerHeap;

use crate::runtime::{self, Runtime, Suspended};

mod inspect;

/// A coroutine as the scheduler holds it: any future of `()`, boxed and pinned.
pub type Coroutine = Pin<Box<dyn Future<Output = ()>>>;

/// The number a scheduler gives each task, in order; the trace shows it as `tn` (`t2`), in
/// the id scheme every stage shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(pub u64);

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Id::from(*self).fmt(f)
    }
}

impl From<TaskId> for Id {
    fn from(id: TaskId) -> Id {
        Id::Task(id.0)
    }
}

/// The coroutine scheduler. Cloning gives another handle to the same scheduler.
#[derive(Clone)]
pub struct Scheduler {
    inner: Rc<Inner>,
}

// ANCHOR: state
struct Inner {
    clock: Rc<dyn Clock>,
    tasks: RefCell<HashMap<TaskId, Coroutine>>, // every unfinished task, by id
    ready: RefCell<VecDeque<TaskId>>,           // to run now, in order
    sleeping: RefCell<TimerHeap<TaskId>>,       // stage 1's heap, now of tasks
    current: Cell<Option<TaskId>>,              // the task being run
    next_id: Cell<u64>,
}
// ANCHOR_END: state

impl Scheduler {
    /// An empty scheduler running on `clock`.
    pub fn new(clock: Rc<dyn Clock>) -> Scheduler {
        let inner = Rc::new(Inner {
            clock,
            tasks: RefCell::new(HashMap::new()),
            ready: RefCell::new(VecDeque::new()),
            sleeping: RefCell::new(TimerHeap::new()),
            current: Cell::new(None),
            next_id: Cell::new(0),
        });
        // A recording (if one is on) reads our queues at every step (`inspect.rs`).
        scaffold::state::watch(&inner);
        Scheduler { inner }
    }

    /// The current time on this scheduler's clock.
    pub fn time(&self) -> Duration {
        self.inner.clock.now()
    }

    /// Add a coroutine (any `Future<Output = ()>`) as a new task, ready to run.
    pub fn new_task(&self, coroutine: impl Future<Output = ()> + 'static) -> TaskId {
        let id = TaskId(self.inner.next_id.get() + 1);
        self.inner.next_id.set(id.0);
        self.inner
            .tasks
            .borrow_mut()
            .insert(id, Box::pin(coroutine));
        self.inner.ready.borrow_mut().push_back(id);
        event!(Event::NewTask { task: id.into() });
        id
    }

    /// How many tasks exist, ready or not.
    pub fn tasks(&self) -> usize {
        self.inner.tasks.borrow().len()
    }

    /// Run tasks until none is ready and none is sleeping.
    ///
    /// A task that panics ends `run` with its panic (no exception handler before chapter
    /// 5): that task is dropped, the others stay queued, and the next `run` goes on with
    /// them. A task that waits for something that never comes (a queue nobody puts to) is
    /// left waiting, and `run` returns without it.
    pub fn run(&self) {
        let inner = self.inner.clone();
        runtime::enter(inner.clone(), || inner.run());
        let stuck = self.tasks();
        if stuck > 0 {
            event!(Event::note(format!(
                "run: {stuck} task(s) left waiting for something that never came"
            )));
        }
    }
}

impl Inner {
    fn run(&self) {
        loop {
            if self.ready.borrow().is_empty() {
                event!(self.queues());
                let Some(timer) = self.sleeping.borrow_mut().pop() else {
                    break;
                };
                event!(Event::WaitTimer {
                    until: timer.deadline,
                    id: timer.item.into(),
                    seq: timer.sequence
                });
                self.clock.sleep_until(timer.deadline);
                self.ready.borrow_mut().push_back(timer.item);
            }
            // The lengths as the loop finds them, before it takes the first: reported after
            // the pop, their state would show that task neither ready nor running.
            event!(self.queues());
            let id = self.ready.borrow_mut().pop_front().expect("checked above");
            self.step(id);
        }
        event!(Event::Done {
            why: "nothing ready, nothing sleeping"
        });
    }

    /// How long the queues are, as the timeline's charts show them.
    fn queues(&self) -> Event {
        Event::Queues {
            ready: self.ready.borrow().len(),
            timers: self.sleeping.borrow().len(),
        }
    }

    // ANCHOR: step
    /// One turn of one task: the talk's `current = ready.popleft(); current.send(None)`.
    fn step(&self, id: TaskId) {
        // Out of the table while it runs: the scheduler owns it during the poll.
        let Some(mut coroutine) = self.tasks.borrow_mut().remove(&id) else {
            return; // finished already; a finished task is never resumed
        };
        // `outer` is a task whose step called `run` itself, if any: it is current again
        // once this step is over.
        let outer = self.current.replace(Some(id));
        event!(Event::Step { task: id.into() });
        let mut cx = Context::from_waker(Waker::noop());
        let poll = coroutine.as_mut().poll(&mut cx);
        let still_current = self.current.replace(outer) == Some(id);
        match poll {
            Poll::Ready(()) => event!(Event::Finished { task: id.into() }),
            Poll::Pending => {
                self.tasks.borrow_mut().insert(id, coroutine);
                // Still `current`: it only switched, so it goes to the back of the queue.
                if still_current {
                    self.ready.borrow_mut().push_back(id);
                }
            }
        }
    }
    // ANCHOR_END: step

    fn take_current(&self) -> TaskId {
        self.current
            .take()
            .expect("stage2: a task suspended itself twice in one turn, or outside a task")
    }
}

impl Runtime for Inner {
    fn suspend_current(self: Rc<Self>) -> Suspended {
        let id = self.take_current();
        event!(Event::Suspend { task: id.into() });
        let scheduler = Rc::downgrade(&self);
        Suspended::new(move || {
            // The scheduler may be gone by the time a waker fires: then there is no one
            // left to run the task, and nothing to do.
            if let Some(inner) = scheduler.upgrade() {
                inner.ready.borrow_mut().push_back(id);
                event!(Event::Wake {
                    to: id.into(),
                    by: ""
                });
            }
        })
    }

    // ANCHOR: sleep_current
    fn sleep_current(self: Rc<Self>, delay: Duration) {
        let id = self.take_current();
        let deadline = self.clock.now().saturating_add(delay);
        let sequence = self.sleeping.borrow_mut().push(deadline, id);
        event!(Event::Sleep {
            task: id.into(),
            delay,
            timer: Some((deadline, sequence))
        });
    }
    // ANCHOR_END: sleep_current
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scheduler")
            .field("time", &self.time())
            .field("tasks", &self.tasks())
            .field("ready", &self.inner.ready.borrow().len())
            .field("sleeping", &self.inner.sleeping.borrow().len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{sleep, switch};
    use scaffold::VirtualClock;

    type Log = Rc<RefCell<Vec<String>>>;

    fn setup() -> (Scheduler, Log) {
        (Scheduler::new(VirtualClock::new()), Rc::default())
    }

    fn note(log: &Log, s: &Scheduler, what: &str) {
        log.borrow_mut()
            .push(format!("{:.3} {what}", s.time().as_secs_f64()));
    }

    /// A future that is ready at once and counts how often it is polled.
    struct CountPolls(Rc<Cell<u32>>);
    impl Future for CountPolls {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            self.0.set(self.0.get() + 1);
            Poll::Ready(())
        }
    }

    #[test]
    fn a_finished_task_is_never_resumed_again() {
        let (s, _) = setup();
        let polls = Rc::new(Cell::new(0));
        let id = s.new_task(CountPolls(polls.clone()));
        // Queue the same id a second time, as a buggy waker might.
        s.inner.ready.borrow_mut().push_back(id);
        s.run();
        assert_eq!(polls.get(), 1);
        assert_eq!(s.tasks(), 0);
    }

    #[test]
    fn a_task_that_runs_the_scheduler_inside_its_step_is_not_lost() {
        // A careless coroutine calls `run` itself: the inner run steps another task, which
        // fills and empties `current`. The outer task must still be current when its own
        // step goes on, or its next switch leaves it out of the ready queue for good (and
        // its next sleep trips the "suspended itself twice" check).
        let (s, log) = setup();
        let (l, s1) = (log.clone(), s.clone());
        s.new_task(async move {
            let (l2, s2) = (l.clone(), s1.clone());
            s1.new_task(async move {
                note(&l2, &s2, "inner 1");
                switch().await;
                note(&l2, &s2, "inner 2");
            });
            s1.run();
            note(&l, &s1, "outer after the inner run");
            switch().await;
            sleep(Duration::from_secs(1)).await;
            note(&l, &s1, "outer done");
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            [
                "0.000 inner 1",
                "0.000 inner 2",
                "0.000 outer after the inner run",
                "1.000 outer done"
            ]
        );
        assert_eq!(s.tasks(), 0);
    }

    #[test]
    fn a_panicking_task_ends_run_and_the_others_go_on_in_the_next() {
        let (s, log) = setup();
        let (l, s1) = (log.clone(), s.clone());
        s.new_task(async move {
            switch().await;
            note(&l, &s1, "survivor");
        });
        s.new_task(async { panic!("a careless coroutine") });
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.run()));
        assert!(ran.is_err(), "stage 2 has no handler: the panic ends run");
        assert_eq!(s.tasks(), 1, "the panicking task is gone, not the other");
        s.run();
        assert_eq!(*log.borrow(), ["0.000 survivor"]);
        assert_eq!(s.tasks(), 0);
    }

    #[test]
    fn a_sleeping_task_is_not_requeued_early() {
        let (s, log) = setup();
        let (l1, s1) = (log.clone(), s.clone());
        s.new_task(async move {
            note(&l1, &s1, "sleeper starts");
            sleep(Duration::from_secs(2)).await;
            note(&l1, &s1, "sleeper wakes");
        });
        let (l2, s2) = (log.clone(), s.clone());
        s.new_task(async move {
            for _ in 0..3 {
                note(&l2, &s2, "spinner");
                switch().await;
            }
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            [
                "0.000 sleeper starts",
                "0.000 spinner",
                "0.000 spinner",
                "0.000 spinner",
                "2.000 sleeper wakes"
            ]
        );
    }

    #[test]
    fn equal_wake_up_times_keep_registration_order() {
        let (s, log) = setup();
        for name in ["a", "b", "c"] {
            let (l, s2) = (log.clone(), s.clone());
            s.new_task(async move {
                sleep(Duration::from_secs(1)).await;
                note(&l, &s2, name);
            });
        }
        s.run();
        assert_eq!(*log.borrow(), ["1.000 a", "1.000 b", "1.000 c"]);
    }

    #[test]
    fn switch_gives_round_robin() {
        let (s, log) = setup();
        for name in ["x", "y"] {
            let (l, s2) = (log.clone(), s.clone());
            s.new_task(async move {
                for i in 0..2 {
                    note(&l, &s2, &format!("{name}{i}"));
                    switch().await;
                }
            });
        }
        s.run();
        assert_eq!(
            *log.borrow(),
            ["0.000 x0", "0.000 y0", "0.000 x1", "0.000 y1"]
        );
    }

    #[test]
    fn a_task_waiting_for_nothing_is_left_behind_not_spun() {
        let (s, _) = setup();
        s.new_task(async {
            // Suspend and drop the handle: nobody will ever wake this task.
            drop(crate::runtime::suspend());
            switch().await;
        });
        s.run();
        assert_eq!(s.tasks(), 1);
    }
}
