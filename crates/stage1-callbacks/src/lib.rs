//! # Stage 1: the callback scheduler
//!
//! Book chapter 1, [Callbacks](../../../docs/book/ch01-callbacks.html). Retraces the first part of
//! David Beazley's talk [*Build Your Own Async*](https://www.youtube.com/watch?v=Y4Gt3Xjd7G8): a
//! scheduler that runs functions instead of threads. `call_soon` queues a callback to run now,
//! `call_later` parks one in a heap ordered by `(deadline, sequence)`, and `run` drains the ready
//! queue and sleeps until the next deadline. Producer and consumer talk through a queue whose `get`
//! takes a callback.
//!
//! This crate holds the lesson and nothing else:
//!
//! | module | concept | later stages |
//! | --- | --- | --- |
//! | [`timer`] | the `(deadline, sequence)` heap | stage 2 puts tasks in it, stage 5 timer handles |
//! | [`scheduler`] | ready queue, sleeping heap, `run` | stage 3 runs tasks on it |
//! | [`queue`] | callback `AsyncQueue` | stage 2 makes it awaitable |
//!
//! What every stage shares and no chapter teaches lives one crate below, in [`scaffold`]:
//! the clock the scheduler runs on (real or virtual; re-exported here, since
//! `Scheduler::new` takes one), the output contract (`say!`,
//! `--timestamps`, `--trace`), the scheduler's steps as events (`event!`) and their
//! recording, the `--timeline` drawing, the examples' options and the echo servers'
//! network helpers. The scheduler and the queue report their steps through it; the
//! examples import from it directly.
//!
//! Nothing came before it; it has no scheduler traits to reuse.

pub mod queue;
pub mod scheduler;
pub mod timer;

pub use queue::{AsyncQueue, QueueClosed};
pub use scheduler::{CallbackId, Schedule, Scheduler};
pub use timer::{Timer, TimerHeap};

// The clock a `Scheduler` is built on, named here so that a program using stage 1 finds it
// beside the scheduler. Chapter 1 ("Time without waiting") teaches it; it lives in
// `scaffold` because the examples' options and the output contract make and read clocks too.
pub use scaffold::{Clock, RealClock, VirtualClock};
