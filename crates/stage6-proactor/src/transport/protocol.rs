//! The protocol a transport calls (book chapter 10, "Transports on the proactor";
//! asyncio's `protocols.Protocol`, as chapter 8's, with the proactor's transport).

use stage5::Error;

use super::Transport;

/// What the transport calls (asyncio's `Protocol`). `&self`: the transport calls
/// `pause_writing` from inside `write`, which the protocol calls from `data_received`.
pub trait Protocol {
    /// The connection is made: the transport to write to.
    fn connection_made(&self, transport: &Transport) {
        let _ = transport; // (a protocol that never writes needs no transport)
    }
    /// Bytes came.
    fn data_received(&self, data: &[u8]);
    /// The peer closed its side; true keeps ours open (the default closes it).
    fn eof_received(&self) -> bool {
        false
    }
    /// The connection is gone: `None` if closed, the error otherwise.
    fn connection_lost(&self, error: Option<Error>) {
        let _ = error; // (nothing to clean up by default)
    }
    /// The write buffer went over the high-water mark.
    fn pause_writing(&self) {}
    /// It drained to the low-water mark.
    fn resume_writing(&self) {}
}
