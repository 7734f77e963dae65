//! A Python callback inside a stage 5 handle (book chapter 9, "How a Python callback
//! becomes a Rust handle"; asyncio's `events.py`: `Handle.__init__` and `Handle._run`).
//!
//! asyncio's `Handle` keeps the callback, its arguments and a `contextvars.Context` (the
//! one given with `context=`, else a copy of the current one), and `_run` calls
//! `context.run(callback, *args)`. `SystemExit` and `KeyboardInterrupt` leave
//! `run_forever` at once; any other exception, a `BaseException` such as a
//! `CancelledError` included, goes to the loop's exception handler with the message
//! `Exception in callback ...`, its traceback and the handle, and the loop goes on.
//!
//! Here the three are a [`PyCallback`], which a stage 5 closure owns, so stage 5's handle,
//! queue and heap carry it as they carry any Rust closure. Stage 5 knows nothing of
//! Python: running it takes the GIL (already held: the loop runs inside a Python call,
//! and only the wait releases it), calls the context's `run`, and sorts the outcome.
//! `SystemExit` and `KeyboardInterrupt` cannot unwind through stage 5's batch as they
//! unwind through `_run_once`: they are kept in their loop's [`Kept`] slot, the loop is
//! asked to stop, and that loop's `run_forever` raises them once the batch is over. The
//! rest of that batch runs first (a named deviation). The slot is the loop's, not the
//! thread's: a loop that keeps one while it is not running (a `pause_writing` that raised
//! inside a `write` made between two runs) raises it at its own next run, and another loop
//! on the same thread never sees it.
//!
//! What changed from stage 5: stage 5's callbacks are Rust closures; this is the closure
//! that carries a Python one.

use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::{PyKeyboardInterrupt, PySystemExit, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyWeakrefMethods, PyWeakrefReference};
use stage5::EventLoop;

// ANCHOR: kept
/// One loop's slot for the `SystemExit` or `KeyboardInterrupt` a callback, a protocol or a
/// Python signal handler raised, for that loop's `run_forever` to raise when the loop has
/// stopped. The first one wins, as the first would in Python. Its core, its callbacks, its
/// protocols, its wait and its [`Remote`](crate::remote::Remote) share it; the `Remote`
/// is `Send` (other threads hold it), hence an `Arc<Mutex>`, though only the loop's
/// thread ever locks it.
#[derive(Clone, Default)]
pub struct Kept(Arc<Mutex<Option<PyErr>>>);

impl Kept {
    /// Keep `error` for `run_forever` (the first one kept wins).
    pub fn keep(&self, error: PyErr) {
        // A poisoned lock only means a panic elsewhere held it: the slot is still sound.
        let mut pending = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.is_none() {
            *pending = Some(error);
        }
    }

    /// Keep `error` and ask `lp` (this slot's loop) to stop.
    pub fn keep_and_stop(&self, lp: &EventLoop, error: PyErr) {
        self.keep(error);
        lp.stop();
    }

    /// The `BaseException` kept since the last call, if any.
    pub fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}
// ANCHOR_END: kept

/// What a callback knows of its loop: the Python loop (weakly: its exception handler) and
/// the loop's [`Kept`] slot. One per loop, shared by its callbacks.
pub struct Home {
    owner: Py<PyWeakrefReference>,
    kept: Kept,
}

impl Home {
    /// The home of the Python loop `owner`, whose core keeps `kept`.
    pub fn new(owner: Py<PyWeakrefReference>, kept: Kept) -> Rc<Home> {
        Rc::new(Home { owner, kept })
    }
}

/// `contextvars.copy_context`, looked up once.
static COPY_CONTEXT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

// ANCHOR: py_callback
/// What asyncio's `Handle` holds: the callback, its arguments, its context, a timer's due
/// time, and its loop's [`Home`]: whose exception handler hears of its failures, where
/// a `SystemExit` is kept.
pub struct PyCallback {
    callback: Py<PyAny>,
    args: Py<PyTuple>,
    context: Py<PyAny>,
    when: Option<f64>,
    home: Rc<Home>,
}

impl PyCallback {
    /// `callback(*args)` in `context` (`None`: a copy of the current context, as
    /// asyncio's `Handle` takes), due at `when` if it is a timer's. A callback that cannot
    /// be called is a `TypeError` now, not a failure later.
    pub fn new(
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        context: Option<&Bound<'_, PyAny>>,
        when: Option<f64>,
        home: &Rc<Home>,
    ) -> PyResult<PyCallback> {
        let py = callback.py();
        if !callback.is_callable() {
            let shown = callback.repr()?;
            return Err(PyTypeError::new_err(format!(
                "a callable object was expected, got {shown}"
            )));
        }
        let context = match context {
            Some(context) if !context.is_none() => context.clone().unbind(),
            _ => copy_context(py)?,
        };
        Ok(PyCallback {
            callback: callback.clone().unbind(),
            args: args.clone().unbind(),
            context,
            when,
            home: home.clone(),
        })
    }

    /// Run it once on `lp` (asyncio's `Handle._run`).
    pub fn run(&self, lp: &EventLoop) {
        Python::attach(|py| {
            let context = self.context.bind(py);
            let run = intern!(py, "run");
            let ran = if self.args.bind(py).is_empty() {
                // A task's step, a future's callback: no arguments, no tuple to build.
                context.call_method1(run, (self.callback.bind(py),))
            } else {
                self.call_args(py)
                    .and_then(|call| context.call_method1(run, call))
            };
            if let Err(error) = ran {
                self.failed(py, lp, error);
            }
        });
    }
    // ANCHOR_END: py_callback

    /// `(callback, *args)`, the arguments of `Context.run`.
    fn call_args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let callback = self.callback.bind(py).clone();
        let args = self.args.bind(py);
        let all: Vec<Bound<'py, PyAny>> = std::iter::once(callback).chain(args.iter()).collect();
        PyTuple::new(py, all)
    }

    // ANCHOR: failed
    /// The callback raised: `SystemExit` and `KeyboardInterrupt` stop the loop and wait for
    /// `run_forever` to raise them; anything else goes to the loop's exception handler,
    /// with its traceback, through the Python loop's `_scratch_callback_failed`, which
    /// builds asyncio's context dict.
    fn failed(&self, py: Python<'_>, lp: &EventLoop, error: PyErr) {
        if error.is_instance_of::<PySystemExit>(py)
            || error.is_instance_of::<PyKeyboardInterrupt>(py)
        {
            self.home.kept.keep_and_stop(lp, error);
            return;
        }
        let Some(owner) = self.home.owner.bind(py).upgrade() else {
            return; // the Python loop is gone: nobody left to tell
        };
        // `into_value` puts the traceback pyo3 holds beside the exception on the exception,
        // where Python code (the handler, `traceback`) looks for it.
        let exc = error.into_value(py);
        let args = (self.callback.bind(py), self.args.bind(py), exc, self.when);
        if let Err(broken) = owner.call_method1(intern!(py, "_scratch_callback_failed"), args) {
            broken.write_unraisable(py, Some(&owner)); // the handler itself failed
        }
    }
    // ANCHOR_END: failed

    /// The callback, for a handle's `repr` (asyncio shows it there too).
    pub fn callback(&self) -> &Py<PyAny> {
        &self.callback
    }
}

/// A fresh `contextvars.copy_context()`.
fn copy_context(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let copy = COPY_CONTEXT.get_or_try_init(py, || {
        PyResult::Ok(py.import("contextvars")?.getattr("copy_context")?.unbind())
    })?;
    Ok(copy.bind(py).call0()?.unbind())
}
