//! The loop's face to Python: stage 5's `EventLoop` behind the methods asyncio's layers
//! call (book chapter 9, "What asyncio asks of a loop"; asyncio's `base_events.py`:
//! `call_soon`, `call_at`, `run_forever`, `stop`, `close`, and `selector_events.py`:
//! `_add_reader`, `_remove_reader`, `_add_writer`, `_remove_writer`, and
//! `unix_events.py`: `add_signal_handler`).
//!
//! Each method wraps the Python callback in a [`PyCallback`] and hands a closure that
//! runs it to stage 5, which schedules it exactly as it schedules its own: the ready
//! queue, the timer heap and its clean-up, `run_once`'s five steps, the I/O table and
//! the signal table are stage 5's code, not a copy of it. The Python class in
//! `python/scratchloop/_loop.py` calls these; asyncio's own checks (`_check_closed`,
//! debug mode) stay there.
//!
//! Stage 5's loop is an `Rc`, bound to its thread: the class is `unsendable`, and other
//! threads go through [`Remote`].
//!
//! What changed from stage 5: nothing of the loop; this is its face to Python.

use std::os::fd::RawFd;

use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyWeakrefReference};
use stage5::EventLoop;

use std::rc::Rc;

use crate::callback::{Home, Kept, PyCallback};
use crate::clock::MonotonicClock;
use crate::errors::to_py;
use crate::handle::{Handle, TimerHandle};
use crate::log::log_to_asyncio;
use crate::remote::Remote;
use crate::wait::release_gil;

/// Stage 5's loop, as the Python loop class holds it.
#[pyclass(unsendable, module = "scratchloop._core")]
pub struct Core {
    lp: EventLoop,
    home: Rc<Home>, // the Python loop (its exception handler) and `kept`, for callbacks
    kept: Kept,     // this loop's `SystemExit`/`KeyboardInterrupt`, for `run_forever`
}

#[pymethods]
impl Core {
    /// The core of the Python loop `owner`, on a clock that starts at `monotonic`
    /// (`time.monotonic()` now).
    #[new]
    fn new(owner: &Bound<'_, PyAny>, monotonic: f64) -> PyResult<Core> {
        let clock = std::rc::Rc::new(MonotonicClock::new(monotonic));
        let lp = EventLoop::try_with_clock(clock).map_err(to_py)?;
        let kept = Kept::default();
        lp.set_wait_around(Some(release_gil(kept.clone())));
        lp.set_logger(log_to_asyncio);
        let owner = PyWeakrefReference::new(owner)?.unbind();
        let home = Home::new(owner, kept.clone());
        Ok(Core { lp, home, kept })
    }

    /// The loop's time (asyncio's `loop.time()`).
    pub(crate) fn time(&self) -> f64 {
        self.lp.time()
    }

    // ANCHOR: call_soon
    /// asyncio's `call_soon`: stage 5's `call_soon` of a closure that runs the callback.
    #[pyo3(signature = (callback, *args, context = None))]
    pub(crate) fn call_soon(
        &self,
        py: Python<'_>,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Handle>> {
        let call = PyCallback::new(callback, args, context, None, &self.home)?;
        // asyncio appends a `call_soon_threadsafe` to `_ready` at once: those made before
        // this call go first (stage 5 would move them in step 3, after this one).
        self.lp.take_remote_calls();
        let handle = self.lp.call_soon(move |lp| call.run(lp)).map_err(to_py)?;
        Py::new(py, Handle::plain(handle, callback.clone().unbind()))
    }
    // ANCHOR_END: call_soon

    /// asyncio's `call_at`: a timer on stage 5's heap.
    #[pyo3(signature = (when, callback, *args, context = None))]
    pub(crate) fn call_at(
        &self,
        py: Python<'_>,
        when: f64,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        context: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<TimerHandle>> {
        let call = PyCallback::new(callback, args, context, Some(when), &self.home)?;
        let timer = self
            .lp
            .call_at(when, move |lp| call.run(lp))
            .map_err(to_py)?;
        Py::new(py, TimerHandle::timer(timer, callback.clone().unbind()))
    }

    // ANCHOR: run_forever
    /// Stage 5's `run_forever`, until `stop()`; then the `SystemExit` or
    /// `KeyboardInterrupt` a callback raised meanwhile, or what a Python signal handler
    /// raised, if one did.
    fn run_forever(&self) -> PyResult<()> {
        let ran = self.lp.run_forever();
        if let Some(raised) = self.kept.take() {
            return Err(raised);
        }
        ran.map_err(to_py)
    }
    // ANCHOR_END: run_forever

    /// Stop after the current batch (stage 5's `stop`: before `run_forever`, one
    /// iteration).
    fn stop(&self) {
        self.lp.stop();
    }

    /// Close stage 5's loop: drop what is pending, stop watching descriptors and signals.
    fn close(&self) -> PyResult<()> {
        self.lp.close().map_err(to_py)
    }

    /// Debug mode: stage 5 times every callback and logs the slow ones.
    fn set_debug(&self, debug: bool) {
        self.lp.set_debug(debug);
    }

    /// In debug mode, log callbacks that run this long or longer (seconds).
    fn set_slow_callback_duration(&self, seconds: f64) {
        self.lp.set_slow_callback_duration(seconds);
    }

    /// True once closed.
    fn is_closed(&self) -> bool {
        self.lp.is_closed()
    }

    /// asyncio's `_add_reader`: stage 5's reader, called while `fd` is readable.
    #[pyo3(signature = (fd, callback, *args))]
    fn add_reader(
        &self,
        py: Python<'_>,
        fd: RawFd,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<Handle>> {
        self.file(py, callback, args, |lp, run| lp.add_reader(fd, run))
    }

    /// asyncio's `_remove_reader`: true if there was one.
    fn remove_reader(&self, fd: RawFd) -> bool {
        self.lp.remove_reader(fd)
    }

    /// asyncio's `_add_writer`: stage 5's writer, called while `fd` is writable.
    #[pyo3(signature = (fd, callback, *args))]
    fn add_writer(
        &self,
        py: Python<'_>,
        fd: RawFd,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<Handle>> {
        self.file(py, callback, args, |lp, run| lp.add_writer(fd, run))
    }

    /// asyncio's `_remove_writer`: true if there was one.
    fn remove_writer(&self, fd: RawFd) -> bool {
        self.lp.remove_writer(fd)
    }

    /// True if `fd` has a reader.
    fn has_reader(&self, fd: RawFd) -> bool {
        self.lp.has_reader(fd)
    }

    /// True if `fd` has a writer.
    fn has_writer(&self, fd: RawFd) -> bool {
        self.lp.has_writer(fd)
    }

    /// asyncio's `add_signal_handler`, on stage 5's signal table.
    #[pyo3(signature = (sig, callback, *args))]
    fn add_signal_handler(
        &self,
        py: Python<'_>,
        sig: i32,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<Handle>> {
        self.file(py, callback, args, |lp, run| {
            lp.add_signal_handler(sig, run)
        })
    }

    /// asyncio's `remove_signal_handler`: true if there was one.
    fn remove_signal_handler(&self, sig: i32) -> PyResult<bool> {
        self.lp.remove_signal_handler(sig).map_err(to_py)
    }

    /// What other threads may hold: `call_soon_threadsafe` and the self-pipe.
    fn remote(&self) -> Remote {
        Remote::new(self.lp.threadsafe(), self.kept.clone())
    }

    /// How many handles wait in the ready queue (for tests and the book).
    fn ready_len(&self) -> usize {
        self.lp.ready_len()
    }

    /// How many timers are in the heap, cancelled ones included.
    fn scheduled_len(&self) -> usize {
        self.lp.scheduled_len()
    }

    /// How many timers in the heap are known to be cancelled.
    fn timer_cancelled_count(&self) -> usize {
        self.lp.timer_cancelled_count()
    }
}

impl Core {
    /// Stage 5's loop (a clone: the same loop), for the transports it makes.
    pub(crate) fn event_loop(&self) -> EventLoop {
        self.lp.clone()
    }

    /// The loop's slot for a `SystemExit`/`KeyboardInterrupt`, for its transports.
    pub(crate) fn kept(&self) -> Kept {
        self.kept.clone()
    }

    /// `callback(*args)` as a stage 5 callback, filed by `add` (stage 5's `add_reader`,
    /// `add_writer` or `add_signal_handler`), and the handle Python gets for it.
    fn file(
        &self,
        py: Python<'_>,
        callback: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        add: impl FnOnce(
            &EventLoop,
            Box<dyn FnMut(&EventLoop)>,
        ) -> Result<stage5::Handle, stage5::Error>,
    ) -> PyResult<Py<Handle>> {
        let call = PyCallback::new(callback, args, None, None, &self.home)?;
        let handle = add(&self.lp, Box::new(move |lp| call.run(lp))).map_err(to_py)?;
        Py::new(py, Handle::plain(handle, callback.clone().unbind()))
    }
}
