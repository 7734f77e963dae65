//! A Python protocol behind stage 5's `Protocol` trait (book chapter 9, "Native
//! transports"; asyncio's `selector_events.py`: `_SelectorSocketTransport._read_ready`,
//! `_read_ready__get_buffer`, `_read_ready__data_received`, `_read_ready__on_eof`,
//! `_call_connection_lost`, and `transports.py`: `_maybe_pause_protocol`).
//!
//! Stage 5's transport calls its protocol through a trait object; [`PyProtocol`] is one,
//! whose methods call the Python protocol's. So the bytes go from the socket to
//! `protocol.data_received` with no Python in between: one call into Python per event,
//! as uvloop's transports make it.
//!
//! A `BufferedProtocol` (`get_buffer`/`buffer_updated`) is read for straight into its
//! buffer, by a reader of this crate's (`protocol/reading.rs`), stage 5's paused.
//!
//! Failures go where asyncio sends them: a protocol that raised in `data_received`,
//! `eof_received`, `get_buffer` or `buffer_updated` is a fatal error of its transport
//! (the Python transport's `_fatal_error`: the exception handler, then `connection_lost`
//! with that exception); one that raised in `pause_writing`/`resume_writing` is reported
//! and the connection goes on; `connection_made` and `connection_lost` run as asyncio's
//! `call_soon` handles do, so their failures are "Exception in callback".
//! `SystemExit` and `KeyboardInterrupt` stop the loop, as from any callback.
//!
//! What changed from stage 5: its protocols were Rust; this one is Python's.

use std::cell::{Cell, RefCell};

use pyo3::PyTraverseError;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PySystemExit};
use pyo3::gc::PyVisit;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyMemoryView, PySlice};
use stage5::{EventLoop, Transport};

use crate::callback::Kept;
use crate::errors::to_py;

mod reading;

/// `asyncio.BufferedProtocol`, looked up once.
static BUFFERED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The Python protocol a stage 5 transport calls, and the Python transport it is given.
pub struct PyProtocol {
    lp: EventLoop,
    kept: Kept, // the loop's slot for a `SystemExit`/`KeyboardInterrupt`
    protocol: RefCell<Py<PyAny>>,
    buffered: Cell<bool>, // a `BufferedProtocol`: `get_buffer`/`buffer_updated`
    transport: RefCell<Option<Py<PyAny>>>, // the Python transport; `None` once lost
    stage5: RefCell<Option<Transport>>, // stage 5's transport, for a fatal error's abort
    lost_with: RefCell<Option<PyErr>>, // the exception `connection_lost` will be given
    paused: Cell<bool>,   // `pause_writing` called, `resume_writing` not yet (`_protocol_paused`)
    sock: RefCell<Option<Py<PyAny>>>, // asyncio's socket: a buffered protocol's `recv_into`
    reading: reading::Reading, // which reader runs, and the user's pause
}

impl PyProtocol {
    /// An adapter for `protocol`, on `lp`; [`PyProtocol::bind`] gives it its transports.
    pub fn new(lp: EventLoop, kept: Kept, protocol: &Bound<'_, PyAny>) -> PyResult<PyProtocol> {
        let this = PyProtocol {
            lp,
            kept,
            protocol: RefCell::new(protocol.clone().unbind()),
            buffered: Cell::new(false),
            transport: RefCell::new(None),
            stage5: RefCell::new(None),
            lost_with: RefCell::new(None),
            paused: Cell::new(false),
            sock: RefCell::new(None),
            reading: reading::Reading::default(),
        };
        this.set_protocol(protocol)?;
        Ok(this)
    }

    /// The Python transport (`connection_made`'s argument) and stage 5's.
    pub fn bind(&self, transport: Py<PyAny>, stage5: Transport) {
        *self.transport.borrow_mut() = Some(transport);
        *self.stage5.borrow_mut() = Some(stage5);
    }

    /// asyncio's `set_protocol`: from now on, `protocol` is called.
    pub fn set_protocol(&self, protocol: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = protocol.py();
        let buffered = BUFFERED.get_or_try_init(py, || {
            PyResult::Ok(py.import("asyncio")?.getattr("BufferedProtocol")?.unbind())
        })?;
        self.buffered.set(protocol.is_instance(buffered.bind(py))?);
        *self.protocol.borrow_mut() = protocol.clone().unbind();
        Ok(())
    }

    /// True between `pause_writing` and `resume_writing` (asyncio's `_protocol_paused`).
    pub fn is_paused(&self) -> bool {
        self.paused.get()
    }

    /// The loop it runs on.
    pub fn event_loop(&self) -> EventLoop {
        self.lp.clone()
    }

    /// The protocol now called.
    pub fn protocol(&self, py: Python<'_>) -> Py<PyAny> {
        self.protocol.borrow().clone_ref(py)
    }

    /// Close the connection at once, `connection_lost` to be given `exc` (asyncio's
    /// `_force_close(exc)`; stage 5's `abort` gives `None`, the adapter gives `exc`).
    pub fn force_close(&self, exc: PyErr) {
        let transport = self.stage5.borrow().clone();
        if let Some(transport) = transport {
            // The first failure is the one `connection_lost` hears of, as in asyncio, where
            // a second `_force_close` is nothing.
            self.lost_with.borrow_mut().get_or_insert(exc);
            self.stop_reading();
            transport.abort();
        }
    }

    /// The loop closed with the connection open: let go of the Python transport and of
    /// stage 5's, which the closed loop no longer drives (asyncio leaves such a transport
    /// to the collector; so do we, with nothing of Rust's holding it).
    pub fn release(&self) {
        self.stop_reading();
        drop(self.sock.borrow_mut().take());
        drop(self.transport.borrow_mut().take());
        drop(self.stage5.borrow_mut().take());
    }

    /// Show the collector the Python objects held here (for a `__traverse__`).
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        // A cell borrowed now is being changed by running code: nothing to show this time.
        if let Ok(protocol) = self.protocol.try_borrow() {
            visit.call(&*protocol)?;
        }
        if let Ok(transport) = self.transport.try_borrow() {
            visit.call(transport.as_ref())?;
        }
        if let Ok(sock) = self.sock.try_borrow() {
            visit.call(sock.as_ref())?;
        }
        Ok(())
    }

    /// Drop the Python objects held here (for a `__clear__`: the collector breaks a cycle).
    pub fn clear(&self, py: Python<'_>) {
        drop(self.sock.borrow_mut().take());
        drop(self.transport.borrow_mut().take());
        drop(self.protocol.replace(py.None()));
    }

    /// The Python transport, unless the connection is lost.
    fn transport(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.transport.borrow().as_ref().map(|t| t.clone_ref(py))
    }

    /// A call into Python failed with `error`, in what `kind` of call:
    /// `SystemExit`/`KeyboardInterrupt` stop the loop; the rest goes to the transport's
    /// `_scratch_failed`, which does what asyncio does for that kind.
    fn failed(&self, py: Python<'_>, kind: &str, error: PyErr) {
        if let Some(transport) = self.transport(py) {
            report(self, transport.bind(py), kind, error);
        }
    }

    /// Call `protocol.<name>(*args)`; a failure goes to [`PyProtocol::failed`].
    fn call<'py, A>(&self, py: Python<'py>, name: &Bound<'py, pyo3::types::PyString>, args: A)
    where
        A: pyo3::call::PyCallArgs<'py>,
    {
        let protocol = self.protocol(py);
        if let Err(error) = protocol.bind(py).call_method1(name, args) {
            self.failed(py, &name.to_string(), error);
        }
    }

    /// Bytes stage 5 read for a `BufferedProtocol` (its reader runs only for a plain
    /// one; this is for bytes read just before `set_protocol` swapped one in):
    /// `get_buffer(-1)`, the bytes copied in, then `buffer_updated(n)`, until all are in.
    fn buffer_data(&self, py: Python<'_>, mut data: &[u8]) -> PyResult<()> {
        while !data.is_empty() {
            let protocol = self.protocol(py);
            let protocol = protocol.bind(py);
            let buf = protocol
                .call_method1(intern!(py, "get_buffer"), (-1,))
                .map_err(|e| tagged(py, "get_buffer", e))?;
            let view = PyMemoryView::from(&buf).map_err(|e| tagged(py, "get_buffer", e))?;
            let room = view.len().map_err(|e| tagged(py, "get_buffer", e))?;
            if room == 0 {
                let empty = PyRuntimeError::new_err("get_buffer() returned an empty buffer");
                return Err(tagged(py, "get_buffer", empty));
            }
            let n = room.min(data.len());
            let part = view.get_item(PySlice::new(py, 0, n as isize, 1))?;
            let copied = PyBuffer::<u8>::get(&part).and_then(|b| b.copy_from_slice(py, &data[..n]));
            copied.map_err(|e| tagged(py, "get_buffer", e))?;
            protocol
                .call_method1(intern!(py, "buffer_updated"), (n,))
                .map_err(|e| tagged(py, "buffer_updated", e))?;
            data = &data[n..];
        }
        Ok(())
    }
}

/// `SystemExit`/`KeyboardInterrupt` stop the loop; any other `error` goes to
/// `transport._scratch_failed(kind, exc)`.
fn report(this: &PyProtocol, transport: &Bound<'_, PyAny>, kind: &str, error: PyErr) {
    let py = transport.py();
    if error.is_instance_of::<PySystemExit>(py) || error.is_instance_of::<PyKeyboardInterrupt>(py) {
        this.kept.keep_and_stop(&this.lp, error);
        return;
    }
    let exc = error.into_value(py);
    if let Err(broken) = transport.call_method1(intern!(py, "_scratch_failed"), (kind, exc)) {
        broken.write_unraisable(py, Some(transport)); // the report itself failed
    }
}

/// `error` with the name of the protocol method it came from, for `_scratch_failed`.
fn tagged(py: Python<'_>, method: &str, error: PyErr) -> PyErr {
    // An attribute on the exception, read and removed by the Python side.
    if let Err(broken) = error.value(py).setattr("_scratch_method", method) {
        broken.write_unraisable(py, None); // an exception without attributes: rare
    }
    error
}

// ANCHOR: protocol
impl stage5::Protocol for PyProtocol {
    fn connection_made(&self, _transport: &Transport) {
        Python::attach(|py| {
            if let Some(transport) = self.transport(py) {
                self.call(py, intern!(py, "connection_made"), (transport,));
            }
        });
    }

    fn data_received(&self, data: &[u8]) {
        Python::attach(|py| {
            if self.buffered.get() {
                if let Err(error) = self.buffer_data(py, data) {
                    self.failed(py, "buffered", error);
                }
            } else {
                self.call(py, intern!(py, "data_received"), (PyBytes::new(py, data),));
            }
        });
    }

    fn eof_received(&self) -> bool {
        Python::attach(|py| {
            let protocol = self.protocol(py);
            let answer = protocol.bind(py).call_method0(intern!(py, "eof_received"));
            match answer.and_then(|keep| keep.is_truthy()) {
                Ok(keep_open) => keep_open,
                Err(error) => {
                    self.failed(py, "eof_received", error);
                    false // closed, with the exception the failure gave it
                }
            }
        })
    }

    fn pause_writing(&self) {
        self.paused.set(true);
        Python::attach(|py| self.call(py, intern!(py, "pause_writing"), ()));
    }

    fn resume_writing(&self) {
        self.paused.set(false);
        Python::attach(|py| self.call(py, intern!(py, "resume_writing"), ()));
    }

    fn connection_lost(&self, exc: Option<stage5::Error>) {
        Python::attach(|py| {
            let kept = self.lost_with.borrow_mut().take();
            let exc = kept.or_else(|| exc.map(to_py)).map(|e| e.into_value(py));
            let Some(transport) = self.transport.borrow_mut().take() else {
                return; // told already
            };
            self.stop_reading();
            drop(self.sock.borrow_mut().take());
            // The Python side tells the protocol, closes its socket, detaches the server.
            let lost = transport.call_method1(py, intern!(py, "_call_connection_lost"), (exc,));
            if let Err(error) = lost {
                report(self, transport.bind(py), "connection_lost", error);
            }
            drop(self.stage5.borrow_mut().take()); // the cycle through stage 5's transport
        });
    }
}
// ANCHOR_END: protocol
