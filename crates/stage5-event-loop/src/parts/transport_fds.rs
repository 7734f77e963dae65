//! Which descriptors belong to a transport (book chapter 8, "A transport owns its
//! descriptor"; asyncio's `selector_events.py`: `BaseSelectorEventLoop._transports`,
//! `_ensure_fd_no_transport`).
//!
//! A transport's reader and writer are its own: a program that put its own reader on the
//! transport's socket would replace the transport's, and the transport would never read
//! again. asyncio keeps a weak map from descriptor to transport and makes `add_reader`,
//! `add_writer`, `remove_reader` and `remove_writer` refuse a descriptor whose transport is
//! not closing. Ours is the same map, kept beside the loop (keyed by the loop's address):
//! the public `add_reader` asks it, the transport goes around it. It knows nothing of the
//! loop but its address, so it sits with the loop's other parts, below the `io` faces that
//! ask it and the transports that fill it.
//!
//! What changed from chapter 7: nothing stopped a program from putting two readers on a
//! socket; the last one won.

use std::cell::Cell;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::os::fd::RawFd;
use std::rc::Weak;

use crate::errors::Error;

/// (loop address, descriptor): a descriptor on one loop.
type Key = (usize, RawFd);

thread_local! {
    /// (loop address, descriptor) → its transport's `closing` flag, weakly (asyncio's
    /// `WeakValueDictionary` of transports): all the check needs, and nothing above.
    static TRANSPORTS: RefCell<HashMap<Key, Weak<Cell<bool>>>> =
        RefCell::new(HashMap::new());
}

/// Note that `fd` belongs to a transport on the loop at `lp_address`, whose `closing` flag
/// this is.
pub(crate) fn attach(lp_address: usize, fd: RawFd, closing: Weak<Cell<bool>>) {
    TRANSPORTS.with(|map| map.borrow_mut().insert((lp_address, fd), closing));
}

/// `fd` is no longer the transport's (its socket is being closed).
pub(crate) fn detach(lp_address: usize, fd: RawFd) {
    // `try_with`: a transport dropped while the thread ends finds the map gone; nothing to
    // forget then.
    let removed = TRANSPORTS.try_with(|map| map.borrow_mut().remove(&(lp_address, fd)));
    drop(removed); // an entry or none: either way it is gone
}

/// The error of a reader or writer added to a transport's descriptor (asyncio's
/// `RuntimeError`).
#[derive(Debug)]
pub struct FdUsedByTransport {
    /// The descriptor.
    pub fd: RawFd,
}

impl fmt::Display for FdUsedByTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "File descriptor {} is used by transport", self.fd)
    }
}

impl std::error::Error for FdUsedByTransport {}

// ANCHOR: ensure_fd_no_transport
/// asyncio's `_ensure_fd_no_transport`: refuse `fd` if a transport that is not closing
/// owns it on the loop at `lp_address`.
pub(crate) fn ensure_fd_no_transport(lp_address: usize, fd: RawFd) -> Result<(), Error> {
    let owner = TRANSPORTS.with(|map| {
        let map = map.borrow();
        map.get(&(lp_address, fd)).and_then(Weak::upgrade)
    });
    match owner {
        Some(closing) if !closing.get() => Err(Error::custom(FdUsedByTransport { fd })),
        _ => Ok(()),
    }
}
// ANCHOR_END: ensure_fd_no_transport
