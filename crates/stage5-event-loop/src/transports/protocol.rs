//! The protocol: what a transport calls when something happens on its connection (book
//! chapter 8, "Protocols"; asyncio's `protocols.py`: `BaseProtocol`, `Protocol`).
//!
//! asyncio's protocol is an object with six methods, which its transport calls, always from
//! the loop: `connection_made(transport)` once, first; `data_received(data)` for each
//! chunk read; `eof_received()` when the peer shut its side (its answer says whether the
//! transport stays open, to write); `connection_lost(exc)` once, last; and
//! `pause_writing()`/`resume_writing()` when the transport's write buffer crosses its high
//! and low water marks.
//!
//! Ours is a trait whose methods take `&self`: a transport calls `pause_writing` from inside
//! `Transport::write`, which the protocol itself calls from `data_received`, so a
//! `&mut self` would be borrowed twice. A protocol keeps its state in `Cell`s and
//! `RefCell`s, and the transport it is given in `connection_made` (the transport drops its
//! protocol after `connection_lost`, which breaks that cycle, as asyncio sets
//! `self._protocol = None`).
//!
//! What changed from chapter 7: chapter 7's code read and wrote a socket itself, in a
//! task or in a reader; here the transport reads and writes, and the program only reacts.

use crate::errors::Error;
use crate::transports::transport::Transport;

// ANCHOR: protocol
/// What a [`Transport`] calls (asyncio's `asyncio.Protocol`); every method has asyncio's
/// default, which does nothing (and `eof_received` answers `false`: close).
pub trait Protocol {
    /// The connection is up: keep `transport` to write to it. Called once, first, with
    /// `call_soon` from the transport's constructor.
    fn connection_made(&self, transport: &Transport) {
        let _ = transport; // the default keeps nothing
    }

    /// Bytes arrived (at most [`MAX_SIZE`](crate::transports::MAX_SIZE) at a time).
    fn data_received(&self, data: &[u8]) {
        let _ = data; // the default ignores them
    }

    /// The peer will send no more. `true` keeps the transport open (the protocol may still
    /// write, then close it); `false`, asyncio's default, closes it.
    fn eof_received(&self) -> bool {
        false
    }

    /// The connection is closed: `None` for a normal close (or the end of the stream),
    /// `Some(error)` if it was lost to an error. Called once, last.
    fn connection_lost(&self, exc: Option<Error>) {
        let _ = exc; // the default has nothing to clean up
    }

    /// The write buffer went over the high-water mark: stop writing until
    /// [`Protocol::resume_writing`].
    fn pause_writing(&self) {}

    /// The write buffer drained to the low-water mark: write again.
    fn resume_writing(&self) {}
}
// ANCHOR_END: protocol
