//! # Stage 5: the asyncio-style event loop
//!
//! Book chapters 5, 6 and 7: [The event loop](../../../docs/book/ch05-event-loop.html),
//! [Futures and tasks](../../../docs/book/ch06-futures-tasks.html) and
//! [I/O, threads and signals](../../../docs/book/ch07-io.html). Retraces CPython 3.11's
//! asyncio: `BaseEventLoop` (`base_events.py`) as it really is, and its I/O half from
//! `selector_events.py`. `call_soon` wraps a callback in a [`Handle`] the caller can cancel;
//! `call_later`/`call_at` push a timer onto a heap and return a [`TimerHandle`]; one
//! iteration of the loop, [`EventLoop::run_once`], does five steps (clean the heap, compute
//! the select timeout, select, move due timers to the ready queue, run exactly the handles
//! that were ready).
//! On top of it: [`Future`], [`Task`] with a real `Waker`, [`sleep()`], [`Queue`],
//! [`gather`] and [`wait_for`]. Chapter 7 connects it to the outside world: readers and
//! writers on the selector, the self-pipe and `call_soon_threadsafe`, signal handlers,
//! socket operations as futures, and [`timeout`] for any of them.
//!
//! The modules are layered as the chapters are, and import only downward; their folders
//! follow the layers, so no folder imports from a folder above it:
//!
//! | folder | modules | chapter |
//! | --- | --- | --- |
//! | [`errors`] | `Error`, `catch` | 5 |
//! | [`events`] | `handle`: asyncio's `events.py`, `Handle`, `TimerHandle` | 5 |
//! | [`parts`] | what the loop owns for its tasks and knows nothing of it: `registry`, `current` | 6 |
//! | [`io_driver`] | the I/O driver, knowing nothing of the loop: `selector`, `io_table`, `self_pipe`, `signal_table`, `transport_fds` | 7, 8 |
//! | [`event_loop`] | the loop's base: state, timers, `call_*`, `run_once`, lifecycle, exceptions, its calls to the I/O driver | 5 |
//! | [`futures`] | future, waker, task, sleep, queue, combinators, `first_of`, `timeout` | 6, 7 |
//! | [`event_loop::runners`] | the loop's faces for futures and tasks (with `create_future`, `create_task`): `run_until_complete`, `run` | 6 |
//! | [`event_loop::io`] | the loop's faces: readers, threads, signals, sockets, server | 7 |
//! | [`transports`] | `Protocol`, `Transport`: buffering, flow control, closing after a flush | 8 |
//! | [`event_loop::connect`] | the loop's faces for transports: `create_server`, `create_connection` | 8 |
//! | [`streams`] | `StreamReader`, `StreamWriter`, `start_server`, `open_connection` | 8 |
//! | [`event_loop::bridge`] | stages 1 to 4's traits on this loop | 5 |
//!
//! Every method of [`EventLoop`] is in `event_loop/`, as asyncio's are in its loop classes:
//! the base below the futures, the faces that make tasks, sockets and transports above
//! them.
//!
//! What it reuses: stage 1's `Schedule` trait and `TimerHeap` (the loop's timer heap is
//! stage 1's, tie-breaker included); stage 4's `Interest` and its `WaitIo` trait; the clock,
//! console and options of the `scaffold` crate beneath every stage. The loop implements
//! `Schedule` and `WaitIo` ([`event_loop::bridge`]), so stage 3's `Task`, stage 2's `sleep` and
//! `AsyncQueue` and stage 4's `recv`/`send`/`accept` run on it unchanged; chapter 5 shows
//! that once `run_once` is known.

/// Report a step of the loop as a scaffold event, for `--trace` (a line prefixed with
/// the loop's iteration, `[n]`) and `--timeline` (a mark in the picture). The event is
/// built only when one of them is on: otherwise a report costs one check.
macro_rules! loop_event {
    ($lp:expr, $($event:expr),+) => {{
        if ::scaffold::emit::enabled() {
            let lp: &$crate::event_loop::EventLoop = $lp;
            $(lp.report($event);)+
        }
    }};
}

/// A trace line of the loop's own, which draws nothing: `loop_trace!(lp, "clean heap: ...")`.
macro_rules! loop_trace {
    ($lp:expr, $($arg:tt)*) => {
        loop_event!($lp, ::scaffold::Event::Note(::std::format!($($arg)*)))
    };
}

pub mod errors;
pub mod event_loop;
pub mod events;
pub mod futures;
pub mod io_driver;
pub mod parts;
pub mod streams;
pub mod transports;

pub use errors::{Error, QueueFull};
pub use event_loop::io::server::{ACCEPT_RETRY_DELAY, Server};
pub use event_loop::io::signals::hold_signal;
pub use event_loop::io::threads::ThreadsafeLoop;
pub use event_loop::runners::run;
pub use event_loop::{
    EventLoop, ExceptionContext, ExceptionHandler, Handle, Level, Logger, TimerHandle,
};
pub use futures::combinators::{gather, wait_for};
pub use futures::first_of::{First, first_of};
pub use futures::future::{CallbackId, Future};
pub use futures::queue::Queue;
pub use futures::sleep::{Sleep, sleep};
pub use futures::task::Task;
pub use futures::timeout::timeout;
pub use io_driver::selector::{Proactor, SelectorStats, Wait, WaitAround, Waited};
pub use stage4::Interest;
pub use streams::{
    IncompleteReadError, LimitOverrunError, StreamReader, StreamWriter, open_connection,
    start_server, start_server_on,
};
pub use transports::{Protocol, Transport};

pub use scaffold::{Clock, Options, RealClock, VirtualClock, say, transcript};
