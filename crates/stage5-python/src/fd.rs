//! A Python socket's descriptor, duplicated for stage 5 (book chapter 9, "Native
//! transports"; CPython's `socketmodule.c`: `socket.dup`).
//!
//! asyncio made the socket (it bound, listened, accepted or connected it) and keeps it:
//! `get_extra_info("socket")` shows it, and it is closed when the connection is lost.
//! Stage 5's transport owns a socket of its own, so it is given a duplicate: a second
//! descriptor for the same open socket, which stage 5 closes when it is done. Closing
//! either descriptor leaves the other working; the connection ends when both are closed.
//!
//! This is the crate's one `unsafe`, and the one place where Rust must trust a number
//! from Python: a descriptor is an `int` there. What makes it sound: the descriptor is
//! read from a socket object the caller holds, with the GIL held, so nothing can close it
//! while it is borrowed here, and it is only borrowed for the `dup`: what stage 5 gets is
//! a new descriptor it owns.
//!
//! What changed from stage 5: its sockets were its own from the start.

use std::os::fd::{BorrowedFd, OwnedFd, RawFd};

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use socket2::Socket;

// ANCHOR: duplicate
/// A socket that owns a duplicate of `sock.fileno()`.
pub fn duplicate(sock: &Bound<'_, PyAny>) -> PyResult<Socket> {
    let fd: RawFd = sock.call_method0(intern!(sock.py(), "fileno"))?.extract()?;
    if fd < 0 {
        return Err(PyValueError::new_err("the socket is closed"));
    }
    let owned: OwnedFd = borrow(fd).try_clone_to_owned()?;
    Ok(Socket::from(owned))
}

/// `fd`, borrowed for the time of a `dup`.
#[allow(unsafe_code)]
fn borrow<'a>(fd: RawFd) -> BorrowedFd<'a> {
    // SAFETY: `fd` is the descriptor of a Python socket object the caller holds, read a
    // moment ago with the GIL held (no other Python thread can close it meanwhile), and
    // the borrow ends with the `dup` in `duplicate`.
    unsafe { BorrowedFd::borrow_raw(fd) }
}
// ANCHOR_END: duplicate
