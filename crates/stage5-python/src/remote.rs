//! `call_soon_threadsafe` from other Python threads (book chapter 9, "Which parts are
//! ours"; asyncio's `base_events.py`: `call_soon_threadsafe` and `_write_to_self`).
//!
//! The loop's face ([`Core`](crate::core::Core)) is stage 5's `EventLoop`, an `Rc` that
//! must stay on its thread: pyo3 refuses to touch an `unsendable` object from another
//! thread. What other threads get is this [`Remote`], stage 5's `ThreadsafeLoop` (`Send +
//! Sync`): its remote queue and the self-pipe's write end. The Python loop puts an
//! asyncio `Handle` through it; the loop's thread takes it out in step 3 and runs it in
//! step 5, unless it was cancelled meanwhile. asyncio's `Handle._run` reports an
//! exception itself; what it lets through (`SystemExit`, `KeyboardInterrupt`) stops the
//! loop, as a callback's does.
//!
//! What changed from stage 5: its `ThreadsafeLoop`, unchanged, as a Python object.

use pyo3::intern;
use pyo3::prelude::*;
use stage5::{EventLoop, ThreadsafeLoop};

use crate::callback::Kept;
use crate::errors::to_py;

// ANCHOR: remote
/// What other threads may hold: stage 5's `ThreadsafeLoop`.
#[pyclass(frozen, module = "scratchloop._core")]
pub struct Remote {
    threadsafe: ThreadsafeLoop,
    kept: Kept, // the loop's slot for what `_run` lets through
}

#[pymethods]
impl Remote {
    /// Run asyncio's `handle` (an `asyncio.Handle`) on the loop's thread, in its next
    /// batch, and wake the loop. Fails once the loop is closed.
    fn call_soon_threadsafe(&self, handle: Py<PyAny>) -> PyResult<()> {
        let kept = self.kept.clone();
        self.threadsafe
            .call_soon_threadsafe(move |lp| run_handle(lp, &kept, handle))
            .map_err(to_py)
    }

    /// Wake the loop without queueing anything (asyncio's `_write_to_self`).
    fn write_to_self(&self) {
        self.threadsafe.write_to_self();
    }
}
// ANCHOR_END: remote

impl Remote {
    /// A remote for the loop `threadsafe` belongs to.
    pub fn new(threadsafe: ThreadsafeLoop, kept: Kept) -> Remote {
        Remote { threadsafe, kept }
    }
}

/// On the loop's thread: run asyncio's `handle` unless it was cancelled.
fn run_handle(lp: &EventLoop, kept: &Kept, handle: Py<PyAny>) {
    Python::attach(|py| {
        let handle = handle.bind(py);
        let ran = handle
            .call_method0(intern!(py, "cancelled"))
            .and_then(|cancelled| cancelled.is_truthy())
            .and_then(|cancelled| match cancelled {
                true => Ok(()),
                false => handle.call_method0(intern!(py, "_run")).map(drop),
            });
        if let Err(error) = ran {
            kept.keep_and_stop(lp, error); // `_run` let it through: `SystemExit` or `KeyboardInterrupt`
        }
    });
}
