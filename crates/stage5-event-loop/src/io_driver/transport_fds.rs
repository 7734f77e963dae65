//! Which descriptors belong to a transport (book chapter 8, "A transport owns its
//! descriptor"; asyncio's `selector_events.py`: `BaseSelectorEventLoop._transports`,
//! `_ensure_fd_no_transport`).
//!
//! A transport's reader and writer are its own: a program that put its own reader on the
//! transport's socket would replace the transport's, and the transport would never read
//! again. asyncio keeps a weak map from descriptor to transport and makes `add_reader`,
//! `add_writer`, `remove_reader` and `remove_writer` refuse a descriptor whose transport is
//! not closing. Ours is the same map, a field of the loop's as `_transports` is of
//! asyncio's: the public `add_reader` asks it, the transport goes around it. It knows
//! nothing of the loop, so it sits with the loop's other parts, below the `io` faces that
//! ask it and the transports that fill it (through the loop's methods).
//!
//! What changed from chapter 7: nothing stopped a program from putting two readers on a
//! socket; the last one won.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::os::fd::RawFd;
use std::rc::Weak;

use crate::errors::Error;

/// Descriptor → its transport's `closing` flag, weakly (asyncio's `WeakValueDictionary` of
/// transports): all the check needs, and nothing above.
#[derive(Default)]
pub(crate) struct TransportFds(HashMap<RawFd, Weak<Cell<bool>>>);

impl TransportFds {
    /// Note that `fd` belongs to a transport, whose `closing` flag this is.
    pub(crate) fn attach(&mut self, fd: RawFd, closing: Weak<Cell<bool>>) {
        drop(self.0.insert(fd, closing)); // a closed transport's entry, replaced
    }

    /// `fd` is no longer the transport's (its socket is being closed).
    pub(crate) fn detach(&mut self, fd: RawFd) {
        drop(self.0.remove(&fd)); // an entry or none: either way it is gone
    }
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
impl TransportFds {
    /// asyncio's `_ensure_fd_no_transport`: refuse `fd` if a transport that is not closing
    /// owns it.
    pub(crate) fn ensure_fd_no_transport(&self, fd: RawFd) -> Result<(), Error> {
        match self.0.get(&fd).and_then(Weak::upgrade) {
            Some(closing) if !closing.get() => Err(Error::custom(FdUsedByTransport { fd })),
            _ => Ok(()),
        }
    }
}
// ANCHOR_END: ensure_fd_no_transport

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::TransportFds;

    #[test]
    fn a_transports_descriptor_is_refused_until_it_closes_or_goes() {
        let mut fds = TransportFds::default();
        let closing = Rc::new(Cell::new(false));
        fds.attach(7, Rc::downgrade(&closing));
        let refused = fds.ensure_fd_no_transport(7).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "File descriptor 7 is used by transport"
        );
        assert!(fds.ensure_fd_no_transport(8).is_ok(), "another descriptor");
        closing.set(true);
        assert!(fds.ensure_fd_no_transport(7).is_ok(), "closing: free");
        closing.set(false);
        drop(closing);
        assert!(
            fds.ensure_fd_no_transport(7).is_ok(),
            "the transport is gone"
        );
        fds.detach(7);
        assert!(fds.0.is_empty());
    }
}
