//! What `write` takes (book chapter 9, "Native transports"; asyncio's
//! `selector_events.py`: `_SelectorSocketTransport.write`'s type check and `bytes(data)`).
//!
//! asyncio's `write` takes `bytes`, `bytearray` and `memoryview` and refuses the rest with
//! a `TypeError` that names the type. `bytes` is written from where it lies; the others are
//! copied out of their buffer, as asyncio's `bytes(data)` copies them.
//!
//! What changed from stage 5: its `write` took a Rust slice.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};

/// `data`'s bytes, handed to `write` (a `bytes` without a copy), or asyncio's `TypeError`.
pub fn with_bytes<R>(data: &Bound<'_, PyAny>, write: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(write(bytes.as_bytes()));
    }
    if !data.is_instance_of::<PyByteArray>() && !data.is_instance_of::<PyMemoryView>() {
        let name = data.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "data argument must be a bytes-like object, not '{name}'"
        )));
    }
    let bytes: Vec<u8> = match PyBuffer::<u8>::get(data) {
        Ok(buffer) => buffer.to_vec(data.py())?,
        // Another format or layout: `bytes(data)`, as asyncio's `bytes(data)` would.
        Err(_) => data.py().get_type::<PyBytes>().call1((data,))?.extract()?,
    };
    Ok(write(&bytes))
}
