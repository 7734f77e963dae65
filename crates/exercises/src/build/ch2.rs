//! Build it 2.4: a round robin of generators that sleep (book chapter 2, "Generators by
//! hand", "The scheduler" and "A non-blocking sleep"; Beazley's talk: the scheduler that
//! resumes each generator in turn, then the `sleep` that parks it in the heap instead of
//! blocking). A build-it exercise: the skeleton below is given, and you write
//! [`Scheduler::run`]. `tests/build_ch2.rs` runs the same tasks on your scheduler, as
//! generators by hand, and on stage 2's, as `async` blocks, both on the virtual clock, and
//! compares what ran when.
//!
//! A generator here says *why* it paused: [`Yield::Switch`] is the talk's bare `yield` (run
//! me again after the others), [`Yield::Sleep`] is its `await sleep(delay)` (run me again
//! once `delay` has passed), [`Yield::Done`] is the end (`StopIteration`). Where the talk's
//! coroutine leaves itself in the scheduler's `current` slot or takes itself out, a
//! generator by hand simply returns its request, and the scheduler acts on it.

use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use stage1::{Clock, TimerHeap};

use super::Log;

/// Why a generator gave control back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Yield {
    /// Paused at a plain `yield`: resume it on its next turn, after the tasks ready now.
    Switch,
    /// Asleep: resume it once this long has passed.
    Sleep(Duration),
    /// Finished: never resume it again.
    Done,
}

/// A computation that can be paused and resumed.
pub trait Generator {
    /// Run until the next pause and say why it paused; `now` is the scheduler's time.
    fn resume(&mut self, now: Duration) -> Yield;
}

/// A generator by hand: `for i in 1..=times { log(name, i); pause(i) }`, where the pauses
/// follow `pauses` round and round; at the end it logs `name done`. Its state between two
/// resumes is how many lines it has written.
pub struct Ticker {
    name: &'static str,
    times: u32,
    written: u32,
    pauses: &'static [Yield],
    log: Log,
}

impl Ticker {
    /// A ticker, not started yet.
    pub fn new(log: &Log, name: &'static str, times: u32, pauses: &'static [Yield]) -> Ticker {
        Ticker {
            name,
            times,
            written: 0,
            pauses,
            log: log.clone(),
        }
    }
}

impl Generator for Ticker {
    fn resume(&mut self, now: Duration) -> Yield {
        let now = now.as_secs_f64();
        if self.written == self.times {
            self.log
                .borrow_mut()
                .push(format!("{now:.3} {} done", self.name));
            return Yield::Done;
        }
        self.written += 1;
        let line = format!("{now:.3} {} {}", self.name, self.written);
        self.log.borrow_mut().push(line);
        self.pauses[(self.written as usize - 1) % self.pauses.len()]
    }
}

/// A task: a generator, boxed.
pub type Task = Box<dyn Generator>;

/// The generator scheduler: the tasks ready to run, in order; the tasks asleep, in stage
/// 1's heap by `(deadline, sequence)`; the clock.
pub struct Scheduler {
    clock: Rc<dyn Clock>,
    ready: VecDeque<Task>,
    sleeping: TimerHeap<Task>,
}

impl Scheduler {
    /// An empty scheduler on `clock`.
    pub fn new(clock: Rc<dyn Clock>) -> Scheduler {
        Scheduler {
            clock,
            ready: VecDeque::new(),
            sleeping: TimerHeap::new(),
        }
    }

    /// The time on the scheduler's clock.
    pub fn time(&self) -> Duration {
        self.clock.now()
    }

    /// Add a task, ready to run (the talk's `new_task`).
    pub fn new_task(&mut self, task: impl Generator + 'static) {
        self.ready.push_back(Box::new(task));
    }

    /// How many tasks are ready and how many asleep.
    pub fn pending(&self) -> (usize, usize) {
        (self.ready.len(), self.sleeping.len())
    }

    /// Build it 2.4: run the tasks until none is ready and none is asleep.
    ///
    /// One task per turn: when nothing is ready, take the earliest sleeper off the heap,
    /// wait on the clock until its deadline and make it ready. Then take the first ready
    /// task and resume it once (with the time), and do what it asks: a switch goes to the
    /// back of the ready queue, a sleep goes into the heap, due at now plus the delay,
    /// and a finished task is dropped.
    ///
    /// As shipped, it returns at once: no task runs.
    pub fn run(&mut self) {}
}
