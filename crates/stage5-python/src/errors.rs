//! Stage 5's errors as Python exceptions (book chapter 9, "How a Python callback becomes a
//! Rust handle"; asyncio's `base_events.py`: `_check_closed`, `_check_running`).
//!
//! Stage 5's `Error` already carries asyncio's messages; this gives each the exception
//! class asyncio raises with it, so Python code (and CPython's tests) see a
//! `RuntimeError('Event loop is closed')`, a `ValueError`, an `OSError` with its errno,
//! never a Rust panic.
//!
//! What changed from stage 5: its errors were Rust values; here each is a Python exception.

use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use stage5::Error;

/// The Python exception for `error`.
pub fn to_py(error: Error) -> PyErr {
    match &error {
        Error::NanTime | Error::InvalidSignal(_) | Error::DifferentLoop => {
            PyValueError::new_err(error.to_string())
        }
        // An `OSError` of the right subclass (`ConnectionResetError`...), with its errno.
        Error::Io(io) => match io.raw_os_error() {
            Some(code) => std::io::Error::from_raw_os_error(code).into(),
            None => PyOSError::new_err(io.to_string()),
        },
        _ => PyRuntimeError::new_err(error.to_string()),
    }
}
