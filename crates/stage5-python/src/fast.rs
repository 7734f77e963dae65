//! `call_soon`, `call_later` and `call_at` without a Python frame (book chapter 9, "How a
//! Python callback becomes a Rust handle"; asyncio's `base_events.py`: `call_soon`,
//! `call_later`, `call_at`).
//!
//! The loop's Python class answered each call with a method of its own that checked the
//! thread and called the core with `*args` and `context=`: a Python frame, and a dict for
//! the keywords, per callback (W1's profile: half its time in the interpreter). Outside
//! debug mode the loop binds these instead, as instance attributes: the thread check is
//! here, and the call goes straight to the core. In debug mode the class's own methods
//! run, which also keep where each handle was made.
//!
//! The core is bound to its thread (pyo3 would answer another thread with a panic), so
//! this holds the thread and checks it first, with the `RuntimeError` the loop's `_here`
//! gives.
//!
//! What changed from stage 5: nothing; this is the shortest way in from Python.

use std::thread::{self, ThreadId};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::core::Core;
use crate::handle::{Handle, TimerHandle};

/// The scheduling methods of one loop's core, callable from any thread (which is refused).
#[pyclass(frozen, module = "scratchloop._core")]
pub struct Fast {
    thread: ThreadId,
    core: Py<Core>,
}

#[pymethods]
impl Fast {
    /// The fast methods of `core`, made on its thread.
    #[new]
    fn new(core: Py<Core>) -> Fast {
        Fast {
            thread: thread::current().id(),
            core,
        }
    }

    /// asyncio's `call_soon`.
    #[pyo3(signature = (callback, *args, context = None))]
    fn call_soon(
        &self,
        py: Python<'_>,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Handle>> {
        self.core(py)?
            .borrow()
            .call_soon(py, callback, args, context)
    }

    /// asyncio's `call_later`: `call_at(time() + delay)`.
    #[pyo3(signature = (delay, callback, *args, context = None))]
    fn call_later(
        &self,
        py: Python<'_>,
        delay: Option<f64>,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<TimerHandle>> {
        let Some(delay) = delay else {
            return Err(PyTypeError::new_err("delay must not be None"));
        };
        let core = self.core(py)?.borrow();
        core.call_at(py, core.time() + delay, callback, args, context)
    }

    /// asyncio's `call_at`.
    #[pyo3(signature = (when, callback, *args, context = None))]
    fn call_at(
        &self,
        py: Python<'_>,
        when: Option<f64>,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<TimerHandle>> {
        let Some(when) = when else {
            return Err(PyTypeError::new_err("when cannot be None"));
        };
        self.core(py)?
            .borrow()
            .call_at(py, when, callback, args, context)
    }
}

impl Fast {
    /// The core, on its own thread; elsewhere the loop's `RuntimeError`.
    fn core<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, Core>> {
        if thread::current().id() != self.thread {
            return Err(PyRuntimeError::new_err(
                "Non-thread-safe operation invoked on a ScratchLoop from another thread \
                 than the one that made it; use call_soon_threadsafe()",
            ));
        }
        Ok(self.core.bind(py))
    }
}
