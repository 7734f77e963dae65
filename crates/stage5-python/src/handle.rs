//! Python's view of stage 5's handles (book chapter 9, "How a Python callback becomes a
//! Rust handle"; asyncio's `events.py`: `Handle` and `TimerHandle`).
//!
//! `call_soon` returns a handle the caller may `cancel()`; `call_at` a timer handle that
//! also says `when()`. The Python objects here hold stage 5's handles themselves, so a
//! `cancel()` from Python is stage 5's `cancel`: the callback is dropped at once, and a
//! timer still in the heap is counted for step 1's clean-up. A handle keeps a reference to
//! its callback only for its `repr`, dropped when it is cancelled, as asyncio's is.

use pyo3::prelude::*;

/// Stage 5's handle inside a Python one: a plain one or a timer.
enum Inner {
    Plain(stage5::Handle),
    Timer(stage5::TimerHandle),
}

// ANCHOR: handle
/// asyncio's `Handle`: what `call_soon`, `add_reader` and `add_signal_handler` return.
#[pyclass(unsendable, subclass, weakref, module = "scratchloop._core")]
pub struct Handle {
    inner: Inner,
    callback: Option<Py<PyAny>>, // for `repr`; `None` once cancelled
}

#[pymethods]
impl Handle {
    /// Cancel the callback: stage 5 drops it now, and skips the handle when its turn
    /// comes (a timer in the heap is also counted as cancelled there).
    fn cancel(&mut self) {
        match &self.inner {
            Inner::Plain(handle) => handle.cancel(),
            Inner::Timer(timer) => timer.cancel(),
        }
        self.callback = None;
    }

    /// True once cancelled.
    fn cancelled(&self) -> bool {
        match &self.inner {
            Inner::Plain(handle) => handle.cancelled(),
            Inner::Timer(timer) => timer.cancelled(),
        }
    }
    // ANCHOR_END: handle

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut text = match &self.inner {
            Inner::Plain(_) => "<Handle".to_owned(),
            Inner::Timer(timer) => format!("<TimerHandle when={}", timer.when()),
        };
        if self.cancelled() {
            text.push_str(" cancelled");
        } else if let Some(callback) = &self.callback {
            text.push(' ');
            text.push_str(&callback.bind(py).repr()?.to_string());
        }
        text.push('>');
        Ok(text)
    }
}

/// asyncio's `TimerHandle`: what `call_at` and `call_later` return.
#[pyclass(unsendable, extends = Handle, module = "scratchloop._core")]
pub struct TimerHandle {
    when: f64,
}

#[pymethods]
impl TimerHandle {
    /// When the callback is due, on the loop's clock (`loop.time()`).
    fn when(&self) -> f64 {
        self.when
    }
}

impl Handle {
    /// The Python handle for stage 5's `handle` of `callback`.
    pub fn plain(handle: stage5::Handle, callback: Py<PyAny>) -> Handle {
        Handle {
            inner: Inner::Plain(handle),
            callback: Some(callback),
        }
    }
}

impl TimerHandle {
    /// The Python timer handle for stage 5's `timer` of `callback`.
    pub fn timer(timer: stage5::TimerHandle, callback: Py<PyAny>) -> (TimerHandle, Handle) {
        let when = timer.when();
        let base = Handle {
            inner: Inner::Timer(timer),
            callback: Some(callback),
        };
        (TimerHandle { when }, base)
    }
}
