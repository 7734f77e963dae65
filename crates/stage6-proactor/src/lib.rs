//! # Stage 6: completion, asyncio's proactor on io_uring
//!
//! Book chapter 10, [Completion: asyncio's proactor on
//! io_uring](../../../docs/book/ch10-proactor.html). Retraces asyncio's
//! `proactor_events.py` (`BaseProactorEventLoop`, `_ProactorSocketTransport`) and
//! `windows_events.py` (`IocpProactor`, `_OverlappedFuture`), on Linux's io_uring. Beazley's
//! talk ends with the selector loop: this stage follows asyncio alone.
//!
//! Stages 1 to 5 wait for *readiness*: the kernel says a socket can be read, and the loop
//! reads. Here the loop hands the kernel the operation and its buffer, and is told when it
//! is *complete*. Stage 5's loop stays as it is (its ready queue, its heap, `run_once`'s
//! five steps, its futures and tasks): a [`Uring`](proactor::Uring) is installed in its
//! selector's place, through stage 5's `Proactor` seam, and step 3 waits on io_uring's
//! completion queue.
//!
//! | module | what | chapter |
//! | --- | --- | --- |
//! | [`ring`] | io_uring and the table of what the kernel holds: the one `unsafe` module | 10 |
//! | [`setup`] | where io_uring is refused: one line, exit 2 | 10 |
//! | [`proactor`] | `Uring`: step 3's wait, the continuations, cancel, close | 10 |
//! | [`op`] | `Op`: an operation's future, and its record (what it keeps in flight) | 10 |
//! | [`event_loop`] | `ProactorLoop`: stage 5's loop with the proactor installed; `run` | 10 |
//! | [`sockets`] | `sock_recv`, `sock_recv_into`, `sock_sendall`, `sock_accept`, `sock_connect` | 10 |
//! | [`transport`] | `Transport`, `Protocol`: one receive always submitted, writes queued, flow control | 10 |
//!
//! What it reuses: all of stage 5, through its public API.

// io_uring is Linux's. Elsewhere, say so in one sentence instead of a page of unresolved
// imports (io-uring is a Linux-only dependency).
#[cfg(not(target_os = "linux"))]
compile_error!(
    "stage6 waits on io_uring, which only Linux has (5.11 or later): it does not build on \
     this system; stages 4 and 5 wait on readiness and build on any Unix"
);

pub mod event_loop;
pub mod op;
pub mod proactor;
pub mod ring;
pub mod setup;
pub mod sockets;
pub mod transport;

pub use event_loop::{ProactorLoop, run};
pub use op::Op;
pub use ring::{Ring, RingStats};
pub use setup::{Refused, ring_or_exit};
pub use transport::{Protocol, Transport};

pub use stage5::{
    Clock, Error, EventLoop, First, Future, Options, Queue, RealClock, Task, VirtualClock,
    first_of, gather, say, sleep, timeout, wait_for,
};
