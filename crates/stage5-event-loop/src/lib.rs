//! # Stage 5: the asyncio-style event loop
//!
//! Book chapters 5, 6 and 7. Retraces seeds 000/004, 001 and 002:
//! CPython's `BaseEventLoop` as it really is, and its I/O half from `selector_events.py`. `call_soon` wraps a callback in a [`Handle`]
//! the caller can cancel; `call_later`/`call_at` push a [`TimerHandle`] onto a heap; one
//! iteration of the loop, [`EventLoop::run_once`], does CPython's five steps (clean the
//! heap, compute the select timeout, select, move due timers to the ready queue, run
//! exactly the handles that were ready). On top of it: [`Future`], [`Task`] with a real
//! `Waker`, [`sleep()`], [`Queue`], [`gather`] and [`wait_for`]. Chapter 7 connects it to
//! the outside world: readers and writers on the selector, the self-pipe and
//! `call_soon_threadsafe`, signal handlers, and socket operations as futures.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`handle`] | `Handle`, `TimerHandle` | `events.Handle`, `events.TimerHandle` |
//! | [`event_loop`] | `EventLoop`: `run_once`, `run_forever`, `call_*`, exceptions, debug | `base_events.BaseEventLoop` |
//! | [`selector`] | the selector step 3 waits on, its counters | `selectors.DefaultSelector` |
//! | [`readers`] | `add_reader`/`add_writer`, level-triggered on edge-triggered mio | `selector_events`: `_add_reader`, `_process_events` |
//! | [`self_pipe`] | the self-pipe, `LoopHandle`, `call_soon_threadsafe` | `_make_self_pipe`, `_write_to_self`, `call_soon_threadsafe` |
//! | [`signals`] | `add_signal_handler`, `remove_signal_handler` | `unix_events`: `add_signal_handler`, `_handle_signal` |
//! | [`sockets`] | `sock_recv`, `sock_sendall`, `sock_accept`, `sock_connect`, `start_serving` | `selector_events`: `sock_*`, `_accept_connection` |
//! | [`future`] | `Future<T>` | `futures.Future` |
//! | [`task`] | `Task<T>`, its waker | `tasks.Task` |
//! | [`sleep`](mod@sleep) | `sleep` | `tasks.sleep` |
//! | [`queue`] | `Queue<T>` | `queues.Queue` |
//! | [`combinators`] | `gather`, `wait_for` | `tasks.gather`, `tasks.wait_for` |
//! | [`errors`] | `Error`, panics caught | `RuntimeError`, `CancelledError`, ... |
//!
//! From stage 4 it reuses [`Interest`] (read or write); its selector is not stage 4's
//! one-shot `Selector` trait (chapter 7 says why). From stage 1 it reuses the clock, the console (`say!`, `trace!`, transcripts), the
//! command-line options and the timer ordering ([`stage1::Timer`]'s `(deadline, sequence)`
//! order is the heap's order here too).

/// Report a loop step when tracing (`--trace`), prefixed with the loop's iteration number.
/// The flag is read once, when the loop is created: a disabled trace costs one branch.
macro_rules! loop_trace {
    ($inner:expr, $($arg:tt)*) => {{
        let inner: &$crate::event_loop::LoopInner = $inner;
        if inner.trace {
            ::stage1::console::trace(::std::format_args!(
                "[{}] {}",
                inner.iteration.get(),
                ::std::format_args!($($arg)*)
            ));
        }
    }};
}

pub mod combinators;
pub mod errors;
pub mod event_loop;
pub mod future;
pub mod handle;
pub mod queue;
pub mod readers;
pub mod selector;
pub mod self_pipe;
pub mod signals;
pub mod sleep;
pub mod sockets;
pub mod task;

pub use combinators::{gather, wait_for};
pub use errors::{Error, QueueFull};
pub use event_loop::{EventLoop, ExceptionContext, ExceptionHandler, Level, Logger};
pub use future::{CallbackId, Future};
pub use handle::{Handle, TimerHandle};
pub use queue::Queue;
pub use selector::SelectorStats;
pub use self_pipe::LoopHandle;
pub use sleep::{Sleep, sleep};
pub use sockets::{ACCEPT_RETRY_DELAY, Server};
pub use stage4::Interest;
pub use task::Task;

pub use stage1::{Clock, Options, RealClock, VirtualClock, say, transcript};
