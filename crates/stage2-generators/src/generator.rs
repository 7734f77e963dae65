//! Generators by hand (book chapter 2, "Generators by hand"; Beazley's talk).
//!
//! The talk turns `countdown` back into a loop and marks where it may pause with `yield`.
//! Calling it does not run it; it makes a *generator*, an object that runs up to the next
//! `yield` each time someone calls `next()` on it, and raises `StopIteration` at the end.
//!
//! Stable Rust has no `yield`, so here is what a generator *is*: a value that remembers
//! where it stopped, and a `resume` that runs from there to the next pause. [`Countdown`]
//! and [`Countup`] are the talk's two functions written as such state machines, one enum
//! variant per place the function can be paused at. Chapter 2 sets them beside the
//! `async fn` versions: the compiler writes the same machine for you.
//!
//! [`Scheduler`] is the talk's first generator scheduler: a round-robin of tasks, each
//! resumed once per turn and put back at the end of the queue until it completes. What
//! changed from stage 1: the queue holds *paused computations* instead of callbacks, and a
//! task's loop stays a loop.

use scaffold::{Event, Id, event, say};

mod inspect;

use inspect::Ready;

/// What a generator did when resumed: paused at a `yield`, or ran to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratorState {
    /// Stopped at a `yield`; resume it again later.
    Yielded,
    /// Finished (Python's `StopIteration`); never resume it again.
    Complete,
}

/// A computation that can be paused and resumed: the talk's generator object.
pub trait Generator {
    /// Run until the next pause (`Yielded`) or the end (`Complete`): Python's `next(gen)`.
    fn resume(&mut self) -> GeneratorState;
}

// ANCHOR: countdown
/// `countdown(n)` as a state machine. The talk's body is
/// `while n > 0: print('Down', n); yield; n -= 1`: it can be paused at one place, the
/// `yield`, so besides "not started" and "done" there is one state, holding the only
/// variable that lives across the pause.
#[derive(Debug)]
pub enum Countdown {
    /// Created, not yet resumed: the talk's `countdown(n)` call.
    Start {
        /// The argument.
        n: u32,
    },
    /// Paused at the `yield`, with `n` as it was there.
    Paused {
        /// The loop variable.
        n: u32,
    },
    /// Returned.
    Done,
}

impl Countdown {
    /// A countdown from `n`, not started yet.
    pub fn new(n: u32) -> Self {
        Countdown::Start { n }
    }
}

impl Generator for Countdown {
    fn resume(&mut self) -> GeneratorState {
        let n = match *self {
            Countdown::Start { n } => n,
            Countdown::Paused { n } => n - 1, // the statement after `yield`: `n -= 1`
            Countdown::Done => return GeneratorState::Complete,
        };
        // The top of `while n > 0`.
        if n > 0 {
            say!("Down {n}");
            *self = Countdown::Paused { n };
            GeneratorState::Yielded
        } else {
            *self = Countdown::Done;
            GeneratorState::Complete
        }
    }
}
// ANCHOR_END: countdown

/// `countup(stop)`: `x = 0; while x < stop: print('Up', x); yield; x += 1`, by hand.
#[derive(Debug)]
pub enum Countup {
    /// Created, not yet resumed.
    Start {
        /// The argument.
        stop: u32,
    },
    /// Paused at the `yield`.
    Paused {
        /// The loop variable.
        x: u32,
        /// The argument, still needed after the pause.
        stop: u32,
    },
    /// Returned.
    Done,
}

impl Countup {
    /// A count from 0 up to `stop - 1`, not started yet.
    pub fn new(stop: u32) -> Self {
        Countup::Start { stop }
    }
}

impl Generator for Countup {
    fn resume(&mut self) -> GeneratorState {
        let (x, stop) = match *self {
            Countup::Start { stop } => (0, stop),
            Countup::Paused { x, stop } => (x + 1, stop),
            Countup::Done => return GeneratorState::Complete,
        };
        if x < stop {
            say!("Up {x}");
            *self = Countup::Paused { x, stop };
            GeneratorState::Yielded
        } else {
            *self = Countup::Done;
            GeneratorState::Complete
        }
    }
}

// ANCHOR: round_robin
/// The talk's first generator scheduler: round robin over a queue of generators.
#[derive(Default)]
pub struct Scheduler {
    ready: Ready, // (id, generator) pairs, front first: a deque the recording can read
    next_id: u64,
}

impl Scheduler {
    /// An empty scheduler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queue a generator to be run.
    pub fn new_task(&mut self, task: impl Generator + 'static) {
        self.next_id += 1;
        self.ready.push_back((self.next_id, Box::new(task)));
        event!(Event::NewTask {
            task: Id::Task(self.next_id)
        });
    }

    /// Resume each task in turn, re-queueing it until it completes.
    pub fn run(&mut self) {
        while let Some((id, mut task)) = self.ready.pop_front() {
            event!(Event::Step { task: Id::Task(id) }); // the talk's `next(task)`
            match task.resume() {
                GeneratorState::Yielded => self.ready.push_back((id, task)),
                GeneratorState::Complete => event!(Event::Finished { task: Id::Task(id) }),
            }
        }
    }
}
// ANCHOR_END: round_robin

#[cfg(test)]
mod tests {
    use super::*;

    /// Resume `g` until it completes; how many times it yielded.
    fn drive(mut g: impl Generator) -> usize {
        let mut yields = 0;
        while g.resume() == GeneratorState::Yielded {
            yields += 1;
        }
        // A finished generator stays finished, like Python's StopIteration on every later next().
        assert_eq!(g.resume(), GeneratorState::Complete);
        yields
    }

    #[test]
    fn generators_yield_once_per_line() {
        let text = scaffold::transcript(false, |_| {
            assert_eq!(drive(Countdown::new(3)), 3);
            assert_eq!(drive(Countup::new(2)), 2);
            assert_eq!(drive(Countdown::new(0)), 0);
        });
        assert_eq!(
            text,
            "  0.000 | Down 3\n  0.000 | Down 2\n  0.000 | Down 1\n  0.000 | Up 0\n  0.000 | Up 1\n"
        );
    }

    #[test]
    fn round_robin_interleaves_and_drops_finished_tasks() {
        let text = scaffold::transcript(false, |_| {
            let mut s = Scheduler::new();
            s.new_task(Countdown::new(2));
            s.new_task(Countup::new(3));
            s.run();
            assert!(s.ready.is_empty());
        });
        let lines: Vec<_> = text.lines().map(|l| &l[10..]).collect();
        assert_eq!(lines, ["Down 2", "Up 0", "Down 1", "Up 1", "Up 2"]);
    }
}
