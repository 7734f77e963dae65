//! Python's view of stage 5's handles (book chapter 9, "How a Python callback becomes a
//! Rust handle"; asyncio's `events.py`: `Handle` and `TimerHandle`).
//!
//! `call_soon` returns a handle the caller may `cancel()`; `call_at` a timer handle that
//! also says `when()`. The Python objects here hold stage 5's handles themselves, so a
//! `cancel()` from Python is stage 5's `cancel`: the callback is dropped at once, and a
//! timer still in the heap is counted for step 1's clean-up. A handle keeps a reference to
//! its callback only for its `repr`, dropped when it is cancelled, as asyncio's is.
//!
//! A stage 5 handle is an `Rc`, bound to the loop's thread, so the class is `unsendable`,
//! and pyo3 answers a use from another thread with a Rust panic. Where Rust differs from
//! Python: asyncio lets another thread call `cancel()` (a data race the GIL happens to
//! hide). Here the handle's first layer, [`Owner`], is `Send` and knows the loop's
//! thread: each method checks it before it touches the `Rc`, and answers another thread
//! with a `RuntimeError` that says to use `call_soon_threadsafe`.
//!
//! What changed from stage 5: its handles, unchanged, wrapped for Python.

use std::thread::{self, ThreadId};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Stage 5's handle inside a Python one: a plain one or a timer.
enum Inner {
    Plain(stage5::Handle),
    Timer(stage5::TimerHandle),
}

/// A handle's first layer: the thread its loop runs on (`Send`, read from any thread).
#[pyclass(frozen, subclass, module = "scratchloop._core")]
pub struct Owner {
    thread: ThreadId,
}

// ANCHOR: handle
/// asyncio's `Handle`: what `call_soon`, `add_reader` and `add_signal_handler` return.
#[pyclass(unsendable, subclass, weakref, extends = Owner, module = "scratchloop._core")]
pub struct Handle {
    inner: Inner,
    callback: Option<Py<PyAny>>, // for `repr`; `None` once cancelled
    /// Where it was made, in debug mode (asyncio's `_source_traceback`: the loop's
    /// Python class sets it); `None` otherwise.
    #[pyo3(get, set, name = "_source_traceback")]
    source_traceback: Option<Py<PyAny>>,
}

#[pymethods]
impl Handle {
    /// Cancel the callback: stage 5 drops it now, and skips the handle when its turn
    /// comes (a timer in the heap is also counted as cancelled there).
    fn cancel(slf: &Bound<'_, Handle>) -> PyResult<()> {
        let mut this = on_loop_thread(slf)?.borrow_mut();
        match &this.inner {
            Inner::Plain(handle) => handle.cancel(),
            Inner::Timer(timer) => timer.cancel(),
        }
        this.callback = None;
        Ok(())
    }

    /// True once cancelled.
    fn cancelled(slf: &Bound<'_, Handle>) -> PyResult<bool> {
        Ok(on_loop_thread(slf)?.borrow().is_cancelled())
    }
    // ANCHOR_END: handle

    fn __repr__(slf: &Bound<'_, Handle>) -> PyResult<String> {
        let this = on_loop_thread(slf)?.borrow();
        let mut text = match &this.inner {
            Inner::Plain(_) => "<Handle".to_owned(),
            Inner::Timer(timer) => format!("<TimerHandle when={}", timer.when()),
        };
        if this.is_cancelled() {
            text.push_str(" cancelled");
        } else if let Some(callback) = &this.callback {
            text.push(' ');
            text.push_str(&callback.bind(slf.py()).repr()?.to_string());
        }
        text.push('>');
        Ok(text)
    }
}

/// `slf`, if this is its loop's thread; else asyncio's complaint, as a `RuntimeError`.
fn on_loop_thread<'a, 'py>(slf: &'a Bound<'py, Handle>) -> PyResult<&'a Bound<'py, Handle>> {
    on_owner_thread(slf.as_super(), "a handle")?;
    Ok(slf)
}

/// Nothing if `owner` is of this thread; else asyncio's complaint about `what`, as a
/// `RuntimeError`.
pub fn on_owner_thread(owner: &Bound<'_, Owner>, what: &str) -> PyResult<()> {
    if owner.get().thread == thread::current().id() {
        Ok(())
    } else {
        Err(PyRuntimeError::new_err(format!(
            "Non-thread-safe operation invoked on {what} from another thread than its \
             loop's; use call_soon_threadsafe()"
        )))
    }
}

impl Owner {
    /// The first layer of an object bound to this thread's loop.
    pub fn here() -> Owner {
        Owner {
            thread: thread::current().id(),
        }
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
    fn when(slf: &Bound<'_, TimerHandle>) -> PyResult<f64> {
        on_loop_thread(slf.as_super())?;
        Ok(slf.borrow().when)
    }
}

impl Handle {
    /// The Python handle for stage 5's `handle` of `callback`, made on the loop's thread.
    pub fn plain(handle: stage5::Handle, callback: Py<PyAny>) -> PyClassInitializer<Handle> {
        Handle::new(Inner::Plain(handle), callback)
    }

    fn new(inner: Inner, callback: Py<PyAny>) -> PyClassInitializer<Handle> {
        let owner = Owner {
            thread: thread::current().id(),
        };
        PyClassInitializer::from(owner).add_subclass(Handle {
            inner,
            callback: Some(callback),
            source_traceback: None,
        })
    }

    fn is_cancelled(&self) -> bool {
        match &self.inner {
            Inner::Plain(handle) => handle.cancelled(),
            Inner::Timer(timer) => timer.cancelled(),
        }
    }
}

impl TimerHandle {
    /// The Python timer handle for stage 5's `timer` of `callback`.
    pub fn timer(timer: stage5::TimerHandle, callback: Py<PyAny>) -> PyClassInitializer<Self> {
        let when = timer.when();
        Handle::new(Inner::Timer(timer), callback).add_subclass(TimerHandle { when })
    }
}
