//! # Scaffold: what every stage shares and no chapter teaches
//!
//! The [book introduction](../../../docs/book/introduction.html) explains it; no chapter is
//! about it, and it retraces no public source. Every stage stands on this crate, stage 1
//! included: the output contract every example follows (the talk's `print`, plus
//! `--timestamps`, `--virtual-time`, `--trace`, `--timeline`, `--record` and `--step`), the scheduler's steps as
//! trace events and their recording, the timeline drawing, the examples' options, and the
//! echo servers' network helpers. None of it changes from stage to stage, so it lives here
//! once, apart from the lessons: a stage's crate holds only what its chapter teaches.
//!
//! | module | what it holds | where the book explains it |
//! | --- | --- | --- |
//! | [`clock`] | the real clock and the virtual one, which `--virtual-time` and every snapshot run on | introduction, "Running the examples"; chapter 1, "Time without waiting" |
//! | [`console`] | `say!`, `trace!`, `warn!`, transcripts: where the examples' lines go | introduction, "Running the examples" |
//! | [`output`] | a writer thread, so that printing never blocks the loop | "Going further", "Output that never blocks the loop" |
//! | [`event`](mod@event) | the scheduler's steps as data, in one id scheme | introduction, "Reading a trace" |
//! | [`emit`] | `event!`: one step, printed as a trace line and recorded | introduction, "Reading a trace" |
//! | [`record`] | recording a run's events for its timeline | introduction, "Timelines" |
//! | [`state`] | what a scheduler holds (ready queue, heap, waits), as it reports it | introduction, "Watching a run" |
//! | [`why`] | why each entry is ready: the cause chain a stepper walks | introduction, "Watching a run" |
//! | [`steps`] | a recorded run, step by step with its state, for the book's steppers | introduction, "Watching a run" |
//! | [`step`] | `--step`: the run paused at every step, its scheduler drawn in the terminal | introduction, "Watching a run" |
//! | [`timeline`] | drawing a recorded run as SVG (`--timeline`) | introduction, "Timelines" |
//! | [`trace_events`] | a recorded run as Chrome trace events, for Perfetto (`--record`) | introduction, "Watching a run" |
//! | [`cli`] | the flags every example accepts ([`Options`]) | introduction, "Running the examples" |
//! | [`net`] | the echo servers' listening socket, reply, flags and accept retry | chapter 1, "A polling echo server"; chapter 4, "Out of file descriptors" |
//!
//! The clock is the one module a chapter teaches: chapter 1 explains why a scheduler
//! waits through a `Clock` trait. It lives here because the output contract needs it beneath
//! every stage: `--virtual-time` picks the clock, every stamped line and recorded event
//! reads it, and a transcript runs its program on a fresh virtual one.
//!
//! Stage 1 does not re-export any of it: every stage, example and test imports from
//! `scaffold` directly (`scaffold::say!`, `scaffold::Options`). Stages 2 to 5 re-export the
//! items their public API always had.

pub mod cli;
pub mod clock;
pub mod console;
pub mod emit;
pub mod event;
pub mod net;
pub mod output;
pub mod record;
pub mod run_file;
pub mod state;
pub mod step;
pub mod steps;
pub mod timeline;
pub mod trace_events;
pub mod why;

pub use cli::Options;
pub use clock::{Clock, RealClock, VirtualClock};
pub use console::{Transcript, transcript};
pub use event::{Event, Id};
