//! # Stage 1: the callback scheduler
//!
//! Book chapter 1, [Callbacks](../../../docs/book/ch01-callbacks.html). Retraces seed 003,
//! sections 2 and 3: a scheduler that runs functions instead of threads. `call_soon` queues
//! a callback to run now, `call_later` parks one in a heap ordered by
//! `(deadline, sequence)`, and `run` drains the ready queue and sleeps until the next
//! deadline. Producer and consumer talk through a queue whose `get` takes a callback.
//!
//! This stage also lays the ground every later stage stands on:
//!
//! | module | concept | later stages |
//! | --- | --- | --- |
//! | [`clock`] | real and virtual time | every stage runs on it |
//! | [`timer`] | the `(deadline, sequence)` heap | stage 2 puts tasks in it |
//! | [`scheduler`] | ready queue, sleeping heap, `run` | stage 3 runs tasks on it |
//! | [`queue`] | callback `AsyncQueue` | stage 2 makes it awaitable |
//! | [`console`] | `say!`, `trace!`, `warn!`, transcripts | every example prints through it |
//! | [`output`] | a writer thread, so that printing never blocks the loop | behind every `say!` |
//! | [`event`](mod@event), [`emit`] | the scheduler's steps as data: `event!` | every stage reports through it |
//! | [`record`], [`timeline`] | recording a run, drawing it as SVG (`--timeline`) | every stage's pictures |
//! | [`cli`] | the flags of every example | every example parses them |
//! | [`net`] | listening, replying | every echo server |
//!
//! Nothing came before it; it has no scheduler traits to reuse.

pub mod cli;
pub mod clock;
pub mod console;
pub mod emit;
pub mod event;
pub mod net;
pub mod output;
pub mod queue;
pub mod record;
pub mod scheduler;
pub mod timeline;
pub mod timer;

pub use cli::Options;
pub use clock::{Clock, RealClock, VirtualClock};
pub use console::{Transcript, transcript};
pub use event::{Event, Id};
pub use queue::{AsyncQueue, QueueClosed};
pub use scheduler::{CallbackId, Schedule, Scheduler};
pub use timer::{Timer, TimerHeap};
