//! # Stage 2: the generator scheduler
//!
//! Book chapter 2, [Generators](../../../docs/book/ch02-generators.html).
//! Retraces the second part of David Beazley's talk
//! [*Build Your Own Async*](https://www.youtube.com/watch?v=Y4Gt3Xjd7G8): tasks that pause
//! themselves instead of chains of callbacks. First generators by hand, then the same
//! machines written by the compiler with `async`/`await` and a `switch()` that pauses once,
//! a non-blocking `sleep` on stage 1's heap, and an awaitable queue.
//!
//! | module | concept | in the talk |
//! | --- | --- | --- |
//! | [`generator`] | `Generator`, `Countdown`, `Countup`, round-robin `Scheduler` | the generators |
//! | [`mod@switch`] | `switch()`: `Pending` exactly once | `Awaitable` |
//! | [`scheduler`] | `Scheduler`: ready queue, sleeping heap, `current` | the coroutine scheduler |
//! | [`runtime`] | how a task finds its scheduler; `sleep` | `sched.sleep` |
//! | [`queue`] | awaitable `AsyncQueue` (all waiters woken on close) | the awaitable queue |
//! | [`io`] | `accept`/`recv`/`send` by polling | `recv`, `send`, `accept`, without `select` |
//!
//! What it reuses from stage 1: the [`TimerHeap`](stage1::TimerHeap) (now holding tasks)
//! and [`QueueClosed`]; from the `scaffold` crate beneath every stage, the [`Clock`] and the
//! output contract (`say!`, `trace!`, [`Options`]). What it adds for stage 3: the
//! [`Runtime`] trait, through which `sleep` and the queue talk to any scheduler.

pub mod generator;
pub mod io;
pub mod queue;
pub mod runtime;
pub mod scheduler;
pub mod switch;

pub use queue::{AsyncQueue, QueueClosed};
pub use runtime::{Runtime, Suspended, sleep};
pub use scheduler::{Scheduler, TaskId};
pub use switch::{Switch, switch};

/// The scaffold's pieces that every stage-2 program uses, re-exported so an example needs one
/// `use stage2::...`.
pub use scaffold::{
    Clock, Event, Id, Options, RealClock, Transcript, VirtualClock, cli, console, event, net, say,
    timeline, trace, transcript,
};
