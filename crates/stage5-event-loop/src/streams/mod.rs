//! Chapter 8, second half: streams on top of transports (book chapter 8, "Streams";
//! asyncio's `streams.py`: `start_server`, `open_connection`).
//!
//! Protocols are callbacks; most programs would rather write a task that reads a line,
//! answers, and reads the next. asyncio's streams are that, built from the parts of this
//! chapter: a protocol (`StreamReaderProtocol`) that feeds a buffer (`StreamReader`) which
//! tasks await, and a writer (`StreamWriter`) whose `drain` waits while the transport's
//! buffer is over its high-water mark.
//!
//! | module | concept | asyncio |
//! | --- | --- | --- |
//! | [`reader`] | the buffer tasks read from, its limit | `StreamReader`, `feed_data` |
//! | `reads` | `read`, `readexactly`, `readline`, `readuntil` | `StreamReader.read*` |
//! | [`protocol`] | feeding it, starting the server's handler | `StreamReaderProtocol` |
//! | [`drain`] | what `drain` and `wait_closed` wait on | `FlowControlMixin` |
//! | [`writer`] | `write`, `drain`, `close`, `wait_closed` | `StreamWriter` |
//! | [`errors`] | `IncompleteReadError`, `LimitOverrunError` | `exceptions.py` |
//!
//! What changed from chapter 7: a task no longer calls `sock_recv`; it awaits a buffer
//! the transport fills.

pub mod drain;
pub mod errors;
pub mod protocol;
pub mod reader;
pub mod writer;

use std::net::{SocketAddr, TcpListener};
use std::rc::Rc;

pub use errors::{IncompleteReadError, LimitOverrunError};
pub use reader::{DEFAULT_LIMIT, StreamReader};
pub use writer::StreamWriter;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::event_loop::io::server::Server;
use protocol::{ClientConnected, ClientTask, StreamReaderProtocol};

// ANCHOR: start_server
/// Serve `addr`: each connection runs `client_connected(reader, writer)` as a task
/// (asyncio's `start_server`). Readers get `limit` (asyncio's default: [`DEFAULT_LIMIT`]).
pub async fn start_server<F, Fut>(
    lp: &EventLoop,
    client_connected: F,
    addr: SocketAddr,
    limit: usize,
) -> Result<Server, Error>
where
    F: Fn(StreamReader, StreamWriter) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<(), Error>> + 'static,
{
    let listener = crate::event_loop::connect::bind(addr)?;
    start_server_on(lp, client_connected, listener, limit).await
}
// ANCHOR_END: start_server

/// [`start_server`] on a socket already listening (asyncio's `start_server(sock=...)`).
pub async fn start_server_on<F, Fut>(
    lp: &EventLoop,
    client_connected: F,
    listener: TcpListener,
    limit: usize,
) -> Result<Server, Error>
where
    F: Fn(StreamReader, StreamWriter) -> Fut + 'static,
    Fut: std::future::Future<Output = Result<(), Error>> + 'static,
{
    let callback: ClientConnected =
        Rc::new(move |reader, writer| -> ClientTask { Box::pin(client_connected(reader, writer)) });
    let factory_lp = lp.clone();
    let factory = move || {
        let reader = StreamReader::with_limit(&factory_lp, limit);
        StreamReaderProtocol::new(&factory_lp, reader, Some(callback.clone()))
    };
    lp.create_server_on(factory, listener).await
}

/// Connect to `addr` (asyncio's `open_connection`): a reader with `limit` and a writer.
pub async fn open_connection(
    lp: &EventLoop,
    addr: SocketAddr,
    limit: usize,
) -> Result<(StreamReader, StreamWriter), Error> {
    let reader = StreamReader::with_limit(lp, limit);
    let protocol = StreamReaderProtocol::new(lp, reader.clone(), None);
    let (transport, protocol) = lp.create_connection(move || protocol, addr).await?;
    let writer = StreamWriter::new(transport, protocol.drain(), Some(reader.clone()));
    Ok((reader, writer))
}

/// [`open_connection`] on an already connected socket (a Unix socket pair in tests):
/// asyncio's `open_connection(sock=...)`.
pub async fn open_connection_on(
    lp: &EventLoop,
    sock: impl Into<socket2::Socket>,
    limit: usize,
) -> Result<(StreamReader, StreamWriter), Error> {
    let reader = StreamReader::with_limit(lp, limit);
    let protocol = StreamReaderProtocol::new(lp, reader.clone(), None);
    let (transport, protocol) = lp.connect_accepted_socket(move || protocol, sock).await?;
    let writer = StreamWriter::new(transport, protocol.drain(), Some(reader.clone()));
    Ok((reader, writer))
}
