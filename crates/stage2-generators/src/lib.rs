//! # Stage 2: the generator scheduler
//!
//! Book chapter 2, [Generators](../../../docs/book/ch02-generators.html).
//! Retraces seed 003, section 4: tasks that pause themselves instead of chains of
//! callbacks. First generators by hand (section 4.1.1), then the same machines written by
//! the compiler with `async`/`await` and a `switch()` that pauses once (4.1.2), a
//! non-blocking `sleep` on stage 1's heap (4.1.3), and an awaitable queue (4.2).
//!
//! | module | concept | seed |
//! | --- | --- | --- |
//! | [`generator`] | `Generator`, `Countdown`, `Countup`, round-robin `Scheduler` | 4.1.1 |
//! | [`mod@switch`] | `switch()`: `Pending` exactly once | 4.1.2 `Awaitable` |
//! | [`scheduler`] | `Scheduler`: ready queue, sleeping heap, `current` | 4.1.2, 4.1.3 |
//! | [`runtime`] | how a task finds its scheduler; `sleep` | 4.1.3 `sched.sleep` |
//! | [`queue`] | awaitable `AsyncQueue` (all waiters woken on close) | 4.2 |
//! | [`io`] | `accept`/`recv`/`send` by polling | 6, without `select` |
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
