//! `echo_server --api streams`: the echo server on asyncio's streams (book chapter 8,
//! "Three echo servers"; asyncio's `start_server`, and the "TCP echo server using
//! streams" of asyncio's documentation, `asyncio-stream.rst`).
//!
//! A task per connection again, as with `sock_recv`, but it reads from a `StreamReader`
//! the transport fills, and writes to a `StreamWriter` whose `drain` waits while the
//! transport's buffer is over its high-water mark: a client that never reads holds its
//! handler in `drain`, and the reader, full past its limit, pauses the transport's reading.
//!
//! What changed from chapter 7's server: `read` and `write` plus `drain` instead of
//! `sock_recv` and `sock_sendall`; the socket is the transport's.

use scaffold::net::Reply;
use stage5::{Error, First, StreamReader, StreamWriter, first_of};

use super::{Bytes, CHUNK};

// ANCHOR: handler
/// Answer every chunk until the client leaves, or until `stop` asks us to.
pub async fn echo(
    reader: &StreamReader,
    writer: &StreamWriter,
    reply: Reply,
    stop: &stage5::Future<()>,
    bytes: &Bytes,
) -> Result<(), Error> {
    let mut out = Vec::new();
    loop {
        // Data, or the request to stop: a `read` only waiting has taken nothing yet.
        let data = match first_of(stop.clone(), reader.read(Some(CHUNK))).await {
            First::A(_stop) => return close_gracefully(reader, writer).await,
            First::B(data) => data?,
        };
        if data.is_empty() {
            break; // the client closed its side
        }
        bytes.read.set(bytes.read.get() + data.len() as u64);
        out.clear();
        reply.write(&data, &mut out);
        writer.write(&out)?;
        writer.drain().await?; // the client reads what we wrote before we read more
        bytes.echoed.set(bytes.echoed.get() + data.len() as u64);
    }
    writer.close();
    writer.wait_closed().await
}
// ANCHOR_END: handler

/// The server is shutting down: half-close, drop what the client still sends until its end
/// of stream, then close (see `shutdown.rs`'s `close_gracefully`, its `sock_*` twin).
async fn close_gracefully(reader: &StreamReader, writer: &StreamWriter) -> Result<(), Error> {
    writer.write_eof()?;
    while !reader.read(Some(CHUNK)).await?.is_empty() {}
    writer.close();
    writer.wait_closed().await
}
