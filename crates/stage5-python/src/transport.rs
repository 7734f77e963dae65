//! Stage 5's transport as Python's (book chapter 9, "Native transports"; asyncio's
//! `selector_events.py`: `_SelectorSocketTransport` and `_SelectorTransport`, and
//! `transports.py`: `WriteTransport`).
//!
//! asyncio's selector loop makes a `_SelectorSocketTransport` for each connection of
//! `create_server`, `create_connection`, `create_unix_server`, `create_unix_connection`,
//! `connect_accepted_socket` and the streams over them, all through one method,
//! `_make_socket_transport`. The Python loop's override makes an
//! `asyncio.Transport` (`scratchloop._transport.Transport`) around this class instead; it
//! keeps asyncio's bookkeeping (the extra info, the server's count of connections, the
//! loop's table of transports) and takes this class's hot methods as its own. What is
//! here is the hot path: stage 5's transport reads the socket and calls the protocol
//! ([`crate::protocol`]), and `write`, `close`, `pause_reading` and the water marks are
//! stage 5's methods, called straight from Python.
//!
//! Stage 5's transport owns its socket. The Python socket asyncio made stays Python's
//! (asyncio's `get_extra_info("socket")` shows it, and it is closed when the connection
//! is lost, as asyncio closes it); stage 5 is given a duplicate of its descriptor
//! ([`crate::fd`]).
//!
//! What changed from stage 5: its transport, unchanged, with a Python face.

use std::cell::OnceCell;
use std::rc::Rc;

use pyo3::PyTraverseError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::core::Core;
use crate::errors::to_py;
use crate::fd::duplicate;
use crate::handle::{Owner, on_owner_thread};
use crate::protocol::PyProtocol;

mod bytes_like;
use bytes_like::with_bytes;

/// asyncio's `_SelectorSocketTransport`, on stage 5's transport.
#[pyclass(unsendable, extends = Owner, module = "scratchloop._core")]
pub struct Transport {
    protocol: Rc<PyProtocol>,
    stage5: OnceCell<stage5::Transport>, // set by `_scratch_start`
}

#[pymethods]
impl Transport {
    /// A transport of `core`'s loop for `protocol`; `_scratch_start` gives it its socket.
    #[new]
    fn new(
        core: &Bound<'_, Core>,
        protocol: &Bound<'_, PyAny>,
    ) -> PyResult<PyClassInitializer<Transport>> {
        let (lp, kept) = (core.borrow().event_loop(), core.borrow().kept());
        let transport = Transport {
            protocol: Rc::new(PyProtocol::new(lp, kept, protocol)?),
            stage5: OnceCell::new(),
        };
        Ok(PyClassInitializer::from(Owner::here()).add_subclass(transport))
    }

    // ANCHOR: start
    /// Stage 5's transport over a duplicate of `sock`'s descriptor: `connection_made`
    /// (given `transport`, the Python object around this one), then the reader, are
    /// scheduled with `call_soon`, as asyncio's constructor does.
    fn _scratch_start(
        slf: &Bound<'_, Self>,
        sock: &Bound<'_, PyAny>,
        transport: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let this = here(slf)?;
        if this.stage5.get().is_some() {
            return Err(PyRuntimeError::new_err("the transport has started already"));
        }
        let lp = this.protocol.event_loop();
        let protocol: Rc<dyn stage5::Protocol> = this.protocol.clone();
        let stage5 = lp
            .make_socket_transport(duplicate(sock)?, protocol, None)
            .map_err(to_py)?;
        this.protocol
            .bind(transport.clone().unbind(), stage5.clone());
        // Unset a moment ago, and only this method sets it: the `Err` cannot happen.
        drop(this.stage5.set(stage5));
        // After stage 5's reader is added: the reader that fits the protocol, or none.
        let (protocol, sock) = (this.protocol.clone(), sock.clone().unbind());
        let fd = sock.call_method0(slf.py(), "fileno")?.extract(slf.py())?;
        lp.call_soon(move |_| protocol.start_reading(sock, fd))
            .map_err(to_py)?;
        Ok(())
    }
    // ANCHOR_END: start

    /// asyncio's `write`: bytes-like data only; sent now if the socket takes it, else
    /// buffered (and the protocol paused over the high-water mark).
    fn write(slf: &Bound<'_, Self>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let this = here(slf)?;
        let transport = this.started()?;
        with_bytes(data, |bytes| transport.write(bytes))?.map_err(to_py)
    }

    /// asyncio 3.11's `writelines`: the pieces joined, one `write`.
    fn writelines(slf: &Bound<'_, Self>, list_of_data: &Bound<'_, PyAny>) -> PyResult<()> {
        here(slf)?;
        let py = list_of_data.py();
        let joined = PyBytes::new(py, b"").call_method1("join", (list_of_data,))?;
        Transport::write(slf, &joined)
    }

    /// Shut the writing side once the buffer is sent.
    fn write_eof(slf: &Bound<'_, Self>) -> PyResult<()> {
        let this = here(slf)?;
        this.started()?.write_eof().map_err(to_py)
    }

    /// True: a socket can shut its writing side.
    fn can_write_eof(slf: &Bound<'_, Self>) -> PyResult<bool> {
        here(slf)?;
        Ok(true)
    }

    /// Close once the buffer is sent; `connection_lost(None)` then.
    fn close(slf: &Bound<'_, Self>) -> PyResult<()> {
        let this = here(slf)?;
        this.started()?.close();
        this.protocol.stop_reading();
        Ok(())
    }

    /// Close now, the buffer thrown away; `connection_lost(None)`.
    fn abort(slf: &Bound<'_, Self>) -> PyResult<()> {
        let this = here(slf)?;
        this.started()?.abort();
        this.protocol.stop_reading();
        Ok(())
    }

    /// asyncio's `_force_close(exc)`: close now, `connection_lost(exc)`.
    fn _force_close(slf: &Bound<'_, Self>, exc: Bound<'_, PyAny>) -> PyResult<()> {
        let this = here(slf)?;
        this.started()?;
        if exc.is_none() {
            return Transport::abort(slf);
        }
        this.protocol.force_close(PyErr::from_value(exc));
        Ok(())
    }

    /// True once `close`/`abort` was called or the peer closed.
    fn is_closing(slf: &Bound<'_, Self>) -> PyResult<bool> {
        let this = here(slf)?;
        if this.released() {
            return Ok(true); // nothing more can be sent or read
        }
        Ok(this.started()?.is_closing())
    }

    /// Stop reading until `resume_reading`.
    fn pause_reading(slf: &Bound<'_, Self>) -> PyResult<()> {
        let this = here(slf)?;
        this.started()?;
        this.protocol.set_reading_paused(true);
        Ok(())
    }

    /// Read again.
    fn resume_reading(slf: &Bound<'_, Self>) -> PyResult<()> {
        let this = here(slf)?;
        this.started()?;
        this.protocol.set_reading_paused(false);
        Ok(())
    }

    /// True unless paused or closing.
    fn is_reading(slf: &Bound<'_, Self>) -> PyResult<bool> {
        let this = here(slf)?;
        this.started()?;
        Ok(this.protocol.is_reading())
    }

    /// The water marks (asyncio's defaults and checks).
    #[pyo3(signature = (high = None, low = None))]
    fn set_write_buffer_limits(
        slf: &Bound<'_, Self>,
        high: Option<i64>,
        low: Option<i64>,
    ) -> PyResult<()> {
        let this = here(slf)?;
        let transport = this.started()?;
        let bad = || {
            PyValueError::new_err(format!(
                "high ({high:?}) must be >= low ({low:?}) must be >= 0"
            ))
        };
        let high = high.map(usize::try_from).transpose().map_err(|_| bad())?;
        let low = low.map(usize::try_from).transpose().map_err(|_| bad())?;
        transport
            .set_write_buffer_limits(high, low)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// `(low, high)`.
    fn get_write_buffer_limits(slf: &Bound<'_, Self>) -> PyResult<(usize, usize)> {
        let this = here(slf)?;
        Ok(this.started()?.get_write_buffer_limits())
    }

    /// How many bytes wait in the write buffer.
    fn get_write_buffer_size(slf: &Bound<'_, Self>) -> PyResult<usize> {
        let this = here(slf)?;
        if this.released() {
            return Ok(0); // dropped with stage 5's transport
        }
        Ok(this.started()?.get_write_buffer_size())
    }

    /// The protocol now called.
    fn get_protocol(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let this = here(slf)?;
        Ok(this.protocol.protocol(py))
    }

    /// Call `protocol` from now on.
    fn set_protocol(slf: &Bound<'_, Self>, protocol: &Bound<'_, PyAny>) -> PyResult<()> {
        let this = here(slf)?;
        this.protocol.set_protocol(protocol)?;
        this.protocol.apply_reading(); // a buffered protocol reads with the other reader
        Ok(())
    }

    /// True while the protocol is told to pause writing (asyncio's `_protocol_paused`,
    /// which `loop.sendfile`'s fallback reads).
    fn _scratch_protocol_paused(slf: &Bound<'_, Self>) -> PyResult<bool> {
        let this = here(slf)?;
        Ok(this.protocol.is_paused())
    }

    // ANCHOR: loop_closed
    /// The loop closed with this connection open: stage 5's transport, which the closed
    /// loop no longer drives, is dropped (its descriptor, the duplicate, closed), and the
    /// adapter lets go of the Python transport, which the collector then frees as it frees
    /// asyncio's (its `__del__` warns and closes the socket).
    fn _scratch_loop_closed(slf: &Bound<'_, Self>) -> PyResult<()> {
        on_owner_thread(slf.as_super(), "a transport")?;
        let mut this = slf.borrow_mut();
        this.protocol.release();
        drop(this.stage5.take());
        Ok(())
    }

    /// The collector's view of the Python protocol (and transport) the adapter holds,
    /// once this object is the adapter's only owner: the connection lost, or its loop
    /// closed. Before that stage 5's transport, driven by the loop, holds it too, and
    /// the protocol is the loop's to keep alive, not garbage.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if Rc::strong_count(&self.protocol) == 1 {
            self.protocol.traverse(&visit)?;
        }
        Ok(())
    }

    /// The collector breaks a cycle through the protocol (`protocol.transport`, the
    /// Python transport, this object, the protocol).
    fn __clear__(&self, py: Python<'_>) {
        if Rc::strong_count(&self.protocol) == 1 {
            self.protocol.clear(py);
        }
    }
    // ANCHOR_END: loop_closed

    /// Stage 5's descriptor: the duplicate (for tests and the book).
    fn _scratch_fd(slf: &Bound<'_, Self>) -> PyResult<i32> {
        let this = here(slf)?;
        Ok(this.started()?.fd())
    }
}

impl Transport {
    /// Stage 5's transport, once started.
    fn started(&self) -> PyResult<&stage5::Transport> {
        self.stage5.get().ok_or_else(|| match self.released() {
            true => PyRuntimeError::new_err("Event loop is closed"),
            false => PyRuntimeError::new_err("the transport has not started"),
        })
    }

    /// True once its loop closed with it open (stage 5's transport dropped).
    fn released(&self) -> bool {
        self.stage5.get().is_none() && self.protocol.event_loop().is_closed()
    }
}

/// The transport, borrowed, if this is its loop's thread; else a `RuntimeError` that says
/// so (a pyo3 panic otherwise: the transport is bound to its loop's thread).
fn here<'py>(slf: &Bound<'py, Transport>) -> PyResult<PyRef<'py, Transport>> {
    on_owner_thread(slf.as_super(), "a transport")?;
    Ok(slf.borrow())
}
