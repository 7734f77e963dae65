//! The GIL around select (book chapter 9, "The GIL around select"; CPython's
//! `selectmodule.c`, whose `epoll.poll` releases the GIL while it waits, which
//! `selectors.EpollSelector.select` and so `_run_once` rely on).
//!
//! While asyncio's loop sleeps in `epoll_wait`, other Python threads run: a thread pool's
//! worker finishing `run_in_executor` work, a thread calling `call_soon_threadsafe`. A
//! Rust loop has no GIL to release, so stage 5's selector offers a seam, `WaitAround`: a
//! function the wait runs inside. Ours is `Python::detach`, pyo3's safe way to release
//! the GIL around a closure that touches only `Send` data (the wait touches the
//! `mio::Poll` and its event buffer, nothing of Python's).
//!
//! Once the GIL is back, Python's signal handlers run (`check_signals`), as they do when
//! `epoll.poll` returns: a `KeyboardInterrupt` from Ctrl-C then ends the wait with an
//! error, which ends stage 5's `run_forever`, and the module raises the exception.
//!
//! What changed from stage 5: its selector waited by itself; now a host may wrap the wait.

use std::io;

use pyo3::prelude::*;
use stage5::{Wait, WaitAround};

use crate::callback::Kept;

// ANCHOR: release_gil
/// The wait, with the GIL released; then Python's signal handlers, whose exception is
/// kept in `kept`, the loop's slot.
pub fn release_gil(kept: Kept) -> WaitAround {
    Box::new(move |wait: Wait<'_>| {
        Python::attach(|py| {
            let waited = py.detach(wait);
            if let Err(raised) = py.check_signals() {
                kept.keep(raised);
                // Ends stage 5's `run_forever` at once, as the exception leaves `select`
                // in asyncio; the core's `run_forever` raises what is kept, not this.
                return Err(io::Error::other("a Python signal handler raised"));
            }
            waited
        })
    })
}
// ANCHOR_END: release_gil
