//! The kernel's words, read in one place (book chapter 7, "Readers and writers on a
//! selector"; asyncio's `selector_events.py`, whose `sock_connect` catches the
//! `BlockingIOError` of `EINPROGRESS`, and `selectors.py`, whose `EpollSelector.unregister`
//! ignores the `OSError` of a descriptor closed since).
//!
//! Only the selector seam reads an errno: the I/O table learns that a registration was
//! "forgotten", never whether that was `ENOENT` or `EBADF`; a socket operation learns that
//! a connection is "under way", never that it was `EINPROGRESS`.

use std::io;

/// The kernel does not know this descriptor (any more): epoll's `ENOENT` for a number
/// that was never added or was dropped on close, `EBADF` for one that is not open.
pub(super) fn forgotten(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::NotFound || error.raw_os_error() == Some(libc::EBADF)
}

/// A non-blocking `connect` has started and not finished: `EINPROGRESS` (or `WouldBlock`);
/// the socket turns writable when it ends.
pub(crate) fn connect_under_way(error: &io::Error) -> bool {
    error.raw_os_error() == Some(libc::EINPROGRESS) || error.kind() == io::ErrorKind::WouldBlock
}
