//! # Stage 3: the task-wrapping hybrid
//!
//! Book chapter 3, [Tasks](../../../docs/book/ch03-tasks.html). Retraces the part of David
//! Beazley's talk [*Build Your Own Async*](https://www.youtube.com/watch?v=Y4Gt3Xjd7G8) on
//! asyncio's real design, where a `Task` wraps a coroutine so that the *callback* scheduler of
//! stage 1 runs it like any other callback. Plain callbacks and tasks share one ready queue and one
//! timer heap.
//!
//! | module | concept | in the talk |
//! | --- | --- | --- |
//! | [`task`] | `Task` (a callback that drives a coroutine), `current`, `new_task`, `sleep` as `call_later` | `Task` |
//!
//! Everything else is reused, not copied: the scheduler of stage 1; the clock and output
//! contract of the `scaffold` crate beneath every stage; `switch`, `sleep`, the `Runtime`
//! trait, the awaitable `AsyncQueue` and the polling socket operations of stage 2. `Task`
//! implements stage 2's `Runtime`, which is all those need to work on this scheduler.

pub mod task;

pub use task::{NewTask, Task, TaskId};

/// The scaffold's clock and output contract.
pub use scaffold::{
    Clock, Event, Id, Options, RealClock, Transcript, VirtualClock, cli, console, event, net, say,
    timeline, trace, transcript,
};
/// The callback scheduler of stage 1, unchanged.
pub use stage1::Scheduler;
/// Stage 2's coroutine tools; on this scheduler, `sleep` is `call_later` of the current task.
pub use stage2::{AsyncQueue, QueueClosed, io, sleep, switch};
