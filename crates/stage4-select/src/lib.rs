//! # Stage 4: select-based I/O
//!
//! Book chapter 4, [Select](../../../docs/book/ch04-select.html). Retraces the last part of David
//! Beazley's talk [*Build Your Own Async*](https://www.youtube.com/watch?v=Y4Gt3Xjd7G8): instead of
//! polling sockets, the scheduler asks the operating system which sockets are ready, and sleeps in
//! that call until one is or the next timer is due. Tasks wait with `read_wait`/`write_wait`;
//! `accept`, `recv`, `send` and `sendall` are built on them; the echo server finally serves many
//! clients at no cost while idle.
//!
//! | module | concept | in the talk |
//! | --- | --- | --- |
//! | [`selector`] | `Selector` (the `select()` call) and `MioSelector` on `mio::Poll`; one-shot waits on an edge-triggered selector | `select` |
//! | [`scheduler`] | `Scheduler`: stage 1's queues + I/O waits; the loop with `select`; `run_once` | `Scheduler.run` |
//! | [`io`] | `WaitIo`: `read_wait`/`write_wait`, and on them `wait`, `accept`, `recv`, `send`, `sendall` | `Scheduler.recv` … |
//!
//! Reused, not copied: stage 1's `Schedule` trait, `Callback` and `TimerHeap`; the clock and
//! output contract of the `scaffold` crate beneath every stage; stage 2's `switch`,
//! `Runtime`, `AsyncQueue` and `sleep`; stage 3's `Task` and `new_task`, which run on this
//! scheduler because it implements `Schedule`.

// The selector waits on raw file descriptors through mio's Unix API (epoll on Linux,
// kqueue on macOS and the BSDs). Elsewhere, say so in one sentence instead of a page of
// unresolved imports.
#[cfg(not(unix))]
compile_error!(
    "stage4 waits on file descriptors through mio's Unix API: it builds on Linux, macOS and \
     the BSDs (Unix), not on this system; stages 1 to 3 need only the standard library"
);

#[cfg(unix)]
pub mod io;
#[cfg(unix)]
pub mod scheduler;
#[cfg(unix)]
pub mod selector;

#[cfg(unix)]
pub use io::WaitIo;
#[cfg(unix)]
pub use scheduler::Scheduler;
#[cfg(unix)]
pub use selector::{Interest, MioSelector, Selector};

/// The scaffold's clock and output contract.
pub use scaffold::{
    Clock, Event, Id, Options, RealClock, Transcript, VirtualClock, cli, console, event, net, say,
    timeline, trace, transcript,
};
/// Stage 1's scheduling trait.
pub use stage1::Schedule;
/// Stage 2's coroutine tools: on this scheduler `sleep` is `call_later` of the task.
pub use stage2::{AsyncQueue, QueueClosed, sleep, switch};
/// Stage 3's tasks, which run on this scheduler unchanged.
pub use stage3::{NewTask, Task, TaskId};
