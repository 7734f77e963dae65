//! The scheduler's steps as data (book introduction, "Reading a trace"; chapter 1, "The
//! heap and its tie-breaker", its first trace). No public source: the talk's schedulers
//! print nothing about themselves; this is the project's own instrument, shared by every
//! stage.
//!
//! A scheduler reports each step it takes (queue a callback, run it, sleep until a
//! deadline, wake a task, ...) as one [`Event`], through [`event!`](macro@crate::event). The
//! same event becomes two things:
//!
//! - a line of `--trace` output: [`Event`]'s `Display` is that line, so the words of the
//!   trace are written once, here;
//! - a mark in the `--timeline` picture ([`crate::timeline`]), drawn from the recorded
//!   events (with the time each was reported at).
//!
//! Every stage names what it runs with one id scheme ([`Id`]): `c3` is callback number 3
//! (a handle, in stage 5), `t2` is task number 2. Other numbers in a trace are not ids:
//! `seq n` is the timer heap's tie-breaker, `fd n` a file descriptor, `[n]` an iteration of
//! stage 5's loop. The book's introduction has the legend.
//!
//! A few events draw nothing and only print ([`Event::Note`]); a few draw and never print
//! ([`Event::Queues`], [`Event::Say`], [`Event::Iteration`]).
//!
//! An event loop with handles, tasks and iterations (stage 5) reports the same way:
//! [`Event::Iteration`] at the start of each `run_once` (every trace line after it is
//! prefixed `[n] `), a handle as [`Id::Callback`], a task as [`Id::Task`];
//! [`Event::CallSoon`]/[`Event::CallLater`] when a handle is scheduled, [`Event::Select`]
//! before it waits, [`Event::IoReady`] and [`Event::TimerDue`] for what it makes ready,
//! [`Event::Run`] for each handle it runs, [`Event::Queues`] once per iteration;
//! [`Event::NewTask`], [`Event::Step`], [`Event::Finished`] for tasks, and for a wait
//! [`Event::QueueWait`] or [`Event::IoWait`], then [`Event::Suspend`], then
//! [`Event::Wake`] from whatever wakes it. Its own step lines are [`Event::Note`]s.

use std::fmt;
use std::time::Duration;

/// What an event is about, in the one scheme every stage's trace uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// A callback (stages 1, 3 and 4) or a handle (stage 5), shown as `c3`.
    Callback(u64),
    /// A task (stages 2 to 5), shown as `t2`.
    Task(u64),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Callback(n) => write!(f, "c{n}"),
            Id::Task(n) => write!(f, "t{n}"),
        }
    }
}

/// One step of a scheduler. `Display` writes it as its `--trace` line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `id` joins the back of the ready queue.
    CallSoon {
        /// The new callback.
        id: Id,
    },
    /// `id` goes on the timer heap, due at `due`; `seq` breaks ties between equal deadlines.
    CallLater {
        /// The new callback.
        id: Id,
        /// The delay asked for.
        delay: Duration,
        /// Its deadline.
        due: Duration,
        /// The heap's tie-breaker.
        seq: u64,
    },
    /// The loop runs callback `id`.
    Run {
        /// The callback.
        id: Id,
    },
    /// A task is created.
    NewTask {
        /// The task.
        task: Id,
    },
    /// A task's coroutine runs one step (one `poll`, the talk's `send(None)`).
    Step {
        /// The task.
        task: Id,
    },
    /// A task's coroutine returned.
    Finished {
        /// The task.
        task: Id,
    },
    /// A task goes to sleep. `timer` is its place on the heap when the task itself is the
    /// timer (stage 2); a stage that sleeps with `call_later` reports that separately.
    Sleep {
        /// The task.
        task: Id,
        /// How long.
        delay: Duration,
        /// `(due, seq)`, when the task itself is on the heap.
        timer: Option<(Duration, u64)>,
    },
    /// A task steps out of `current` to wait for something (the talk's
    /// `sched.current = None`).
    Suspend {
        /// The task.
        task: Id,
    },
    /// A consumer finds the queue empty and waits: `who` (when the queue knows it) and how
    /// many wait now.
    QueueWait {
        /// The waiting callback, if known (a task reports itself with [`Event::Suspend`]).
        who: Option<Id>,
        /// Waiters, this one included.
        waiting: usize,
    },
    /// `to` is made ready again by what is running now (`by` says what, or is empty).
    Wake {
        /// The waiter woken.
        to: Id,
        /// What wakes it, such as `"queue put"`; empty for a plain wake.
        by: &'static str,
    },
    /// Callback `id` waits for file descriptor `fd` to be ready for `interest`.
    IoWait {
        /// The descriptor.
        fd: i32,
        /// `"read"` or `"write"`.
        interest: &'static str,
        /// The waiting callback.
        id: Id,
    },
    /// The selector reports `fd` ready: callback `id` is made ready.
    IoReady {
        /// The descriptor.
        fd: i32,
        /// `"read"` or `"write"`.
        interest: &'static str,
        /// The callback made ready.
        id: Id,
    },
    /// Timer `id`, due at `due`, moves from the heap to the ready queue.
    TimerDue {
        /// The timer's callback or task.
        id: Id,
        /// Its deadline.
        due: Duration,
        /// Its tie-breaker.
        seq: u64,
    },
    /// Nothing is ready: the loop sleeps until `until`, the deadline of timer `id`.
    WaitTimer {
        /// The deadline.
        until: Duration,
        /// The timer's callback or task.
        id: Id,
        /// Its tie-breaker.
        seq: u64,
    },
    /// Nothing is ready: the loop asks the selector, with this timeout (`None`: no limit).
    Select {
        /// How long the selector may block.
        timeout: Option<Duration>,
        /// The next timer's deadline, when the virtual clock polls instead of waiting.
        virtual_next: Option<Duration>,
    },
    /// The selector found nothing and the virtual clock jumps to the next deadline.
    Jump {
        /// Where the clock jumps to.
        to: Duration,
    },
    /// The loop returns: nothing is left to run (`why` says what it checked).
    Done {
        /// What is empty, such as `"nothing ready, nothing sleeping"`.
        why: &'static str,
    },
    /// How long the ready queue and the timer heap are now. Drawn, never printed.
    Queues {
        /// Ready callbacks or tasks.
        ready: usize,
        /// Timers on the heap.
        timers: usize,
    },
    /// A new iteration of an event loop starts (stage 5's `[n]`). Drawn, never printed;
    /// trace lines after it are prefixed with `[n] `.
    Iteration(u64),
    /// A line of the program's own output (`say!`). Drawn (it names the lane that said it
    /// first), never printed as a trace line: the console prints it already.
    Say(String),
    /// Anything else worth a trace line; draws nothing.
    Note(String),
}

impl Event {
    /// A [`Event::Note`] from anything printable.
    pub fn note(text: impl Into<String>) -> Event {
        Event::Note(text.into())
    }

    /// True for the events that make a `--trace` line.
    pub fn is_printed(&self) -> bool {
        !matches!(
            self,
            Event::Queues { .. } | Event::Iteration(_) | Event::Say(_)
        )
    }
}

/// Seconds with three decimals, as every trace line writes a time.
struct Secs(Duration);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}", self.0.as_secs_f64())
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::CallSoon { id } => write!(f, "call_soon {id}"),
            Event::CallLater {
                id,
                delay,
                due,
                seq,
            } => write!(
                f,
                "call_later {id} in {} s: due {}, seq {seq}",
                Secs(*delay),
                Secs(*due)
            ),
            Event::Run { id } => write!(f, "run {id}"),
            Event::NewTask { task } => write!(f, "new_task {task}"),
            Event::Step { task } => write!(f, "step {task}"),
            Event::Finished { task } => write!(f, "{task} finished"),
            Event::Sleep { task, delay, timer } => {
                write!(f, "{task} sleeps {} s", Secs(*delay))?;
                match timer {
                    Some((due, seq)) => write!(f, ": due {}, seq {seq}", Secs(*due)),
                    None => Ok(()),
                }
            }
            Event::Suspend { task } => write!(f, "{task} waits"),
            Event::QueueWait { who, waiting } => match who {
                Some(who) => write!(f, "queue get: empty, {who} waits ({waiting} waiting)"),
                None => write!(f, "queue get: empty, the task waits ({waiting} waiting)"),
            },
            Event::Wake { to, by: "" } => write!(f, "wake {to}"),
            Event::Wake { to, by } => write!(f, "{by}: wake {to}"),
            Event::IoWait { fd, interest, id } => write!(f, "{interest}_wait fd {fd}: {id} waits"),
            Event::IoReady { fd, interest, id } => {
                write!(f, "select: fd {fd} ready to {interest}, {id} ready")
            }
            Event::TimerDue { id, due, seq } => {
                write!(f, "timer due {} (seq {seq}): {id} ready", Secs(*due))
            }
            Event::WaitTimer { until, id, seq } => write!(
                f,
                "ready queue empty: wait until {} for {id} (seq {seq})",
                Secs(*until)
            ),
            Event::Select {
                timeout,
                virtual_next,
            } => match (timeout, virtual_next) {
                (_, Some(next)) => write!(
                    f,
                    "select: poll without waiting (virtual clock; next timer at {})",
                    Secs(*next)
                ),
                (Some(timeout), None) => write!(f, "select: timeout {} s", Secs(*timeout)),
                (None, None) => f.write_str("select: no timer, block until a socket is ready"),
            },
            Event::Jump { to } => write!(f, "select: nothing ready, jump to {}", Secs(*to)),
            Event::Done { why } => write!(f, "run: {why}: done"),
            Event::Queues { ready, timers } => write!(f, "ready {ready}, timers {timers}"),
            Event::Iteration(n) => write!(f, "iteration {n}"),
            Event::Say(line) => f.write_str(line),
            Event::Note(text) => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_one_scheme() {
        assert_eq!(Id::Callback(3).to_string(), "c3");
        assert_eq!(Id::Task(2).to_string(), "t2");
    }

    #[test]
    fn events_print_as_trace_lines() {
        let s = Duration::from_secs;
        let lines = [
            (
                Event::CallLater {
                    id: Id::Callback(3),
                    delay: s(1),
                    due: s(4),
                    seq: 2,
                },
                "call_later c3 in 1.000 s: due 4.000, seq 2",
            ),
            (
                Event::Wake {
                    to: Id::Callback(5),
                    by: "queue put",
                },
                "queue put: wake c5",
            ),
            (
                Event::Wake {
                    to: Id::Task(2),
                    by: "",
                },
                "wake t2",
            ),
            (
                Event::Sleep {
                    task: Id::Task(1),
                    delay: s(1),
                    timer: Some((s(2), 7)),
                },
                "t1 sleeps 1.000 s: due 2.000, seq 7",
            ),
            (
                Event::Select {
                    timeout: Some(Duration::ZERO),
                    virtual_next: Some(s(3)),
                },
                "select: poll without waiting (virtual clock; next timer at 3.000)",
            ),
        ];
        for (event, line) in lines {
            assert_eq!(event.to_string(), line);
            assert!(event.is_printed());
        }
        assert!(
            !Event::Queues {
                ready: 1,
                timers: 2
            }
            .is_printed()
        );
    }
}
