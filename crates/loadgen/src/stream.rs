//! Clients in the middle of a transfer: each streams bytes of its own to an echo server
//! (`--plain`) and reads the echo back at the same time, checking every byte, until the
//! server ends the echo. The graceful-shutdown tests of stage 5's echo server stop the
//! server while these clients are mid-transfer and check how each connection ended.
//!
//! A client's writer sends until it has sent its `limit` or the reader has seen the end
//! of the echo; then it half-closes (FIN), as a client that is done sending does. Its
//! reader counts what comes back. A graceful server stops reading, sends back everything
//! it read, half-closes, reads (and drops) whatever the client still sends, and closes
//! once the client has half-closed too: the client then sees the end of the stream, and
//! nothing else. A server that closes a socket with unread input makes the kernel send a
//! reset (RST) instead, which the client sees as `ConnectionReset` (or `BrokenPipe` when
//! writing): [`End::Reset`].

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::client;

/// How a client's connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The echo ended with the server's FIN, and nothing went wrong after it.
    Eof,
    /// The connection was reset: `what` was under way (`reading`, `writing`, `after the
    /// end`) when the kernel reported it.
    Reset {
        /// What the client was doing.
        what: &'static str,
    },
    /// Any other failure: a timeout, a wrong byte, an unexpected error.
    Failed(String),
}

/// What one client sent and got back, and how its connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    /// Bytes written to the socket.
    pub sent: u64,
    /// Bytes of echo read back, each checked against what was sent.
    pub received: u64,
    /// How the connection ended.
    pub end: End,
}

/// Clients streaming to a server: started by [`start`].
#[derive(Debug)]
pub struct Streams {
    received: Vec<Arc<AtomicU64>>,
    clients: Vec<thread::JoinHandle<Transfer>>,
}

/// The byte at `offset` of client `id`'s stream: different for every client, so an echo
/// routed to the wrong connection, or bytes lost in the middle, are caught.
pub fn stream_byte(id: usize, offset: u64) -> u8 {
    ((offset % PERIOD) as u8).wrapping_add(id as u8)
}

/// A stream repeats every `PERIOD` bytes (a prime, so it does not line up with chunks).
const PERIOD: u64 = 251;

/// How much a client writes or reads at once.
const CHUNK: usize = 16 * 1024;

/// Client `id`'s stream from offset 0 for `PERIOD + CHUNK` bytes: every chunk of its
/// stream is a slice of this, so writing and checking are a copy and a compare.
fn pattern(id: usize) -> Vec<u8> {
    (0..PERIOD + CHUNK as u64)
        .map(|i| stream_byte(id, i))
        .collect()
}

/// The next `len` bytes (at most `CHUNK`) of a stream whose `pattern` this is, from
/// `offset` on.
fn at(pattern: &[u8], offset: u64, len: usize) -> &[u8] {
    let start = (offset % PERIOD) as usize;
    &pattern[start..start + len]
}

/// Connect `clients` clients to `addr` and start streaming on each, at most `limit` bytes
/// per client. Returns once every client is connected.
pub fn start(addr: SocketAddr, clients: usize, limit: u64) -> io::Result<Streams> {
    let mut streams = Streams {
        received: Vec::with_capacity(clients),
        clients: Vec::with_capacity(clients),
    };
    for id in 0..clients {
        let stream = client::connect(addr)?;
        let received = Arc::new(AtomicU64::new(0));
        streams.received.push(received.clone());
        streams.clients.push(thread::spawn(move || {
            transfer(stream, id, limit, &received)
        }));
    }
    Ok(streams)
}

impl Streams {
    /// Wait until every client has had at least `bytes` of echo back (so each is in the
    /// middle of its transfer); an error after `timeout`.
    pub fn wait_until_each_received(&self, bytes: u64, timeout: Duration) -> io::Result<()> {
        let deadline = Instant::now() + timeout;
        while self
            .received
            .iter()
            .any(|r| r.load(Ordering::Relaxed) < bytes)
        {
            if Instant::now() >= deadline {
                let least = self
                    .received
                    .iter()
                    .map(|r| r.load(Ordering::Relaxed))
                    .min();
                return Err(io::Error::new(
                    ErrorKind::TimedOut,
                    format!("some client got only {least:?} bytes back, not {bytes}"),
                ));
            }
            thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    /// Wait for every client to end; what each sent and got back, in the order started.
    /// Each is bounded by [`client::IO_TIMEOUT`] per read or write.
    pub fn finish(self) -> Vec<Transfer> {
        self.clients
            .into_iter()
            .map(|client| {
                client.join().unwrap_or_else(|_| Transfer {
                    sent: 0,
                    received: 0,
                    end: End::Failed("the client thread panicked".into()),
                })
            })
            .collect()
    }
}

/// One client: a writer thread streams, this thread reads the echo back.
fn transfer(reader: TcpStream, id: usize, limit: u64, received: &AtomicU64) -> Transfer {
    let writer = match reader.try_clone() {
        Ok(writer) => writer,
        Err(error) => return failed(0, 0, error, "cloning the socket"),
    };
    let echo_over = Arc::new(AtomicBool::new(false));
    let over = echo_over.clone();
    let writing = thread::spawn(move || write_stream(writer, id, limit, &over));
    let (got, end) = read_echo(&reader, id, received);
    echo_over.store(true, Ordering::Relaxed);
    let (sent, write_error) = writing
        .join()
        .unwrap_or((0, Some(io::Error::other("the writer thread panicked"))));
    let end = match (end, write_error) {
        (End::Eof, Some(error)) => classify(error, "writing"),
        // The writer has half-closed too: the connection is over on both sides. One more
        // read shows whether a reset came after the end of the stream.
        (End::Eof, None) => match (&reader).read(&mut [0; 1]) {
            Ok(0) => End::Eof,
            Ok(_) => End::Failed("data after the end of the stream".into()),
            Err(error) => classify(error, "after the end"),
        },
        (end, _) => end,
    };
    Transfer {
        sent,
        received: got,
        end,
    }
}

/// The writer: send the stream until `limit` or until the echo is over, then half-close.
/// Returns how much it sent, and the error that stopped it, if any.
fn write_stream(
    mut writer: TcpStream,
    id: usize,
    limit: u64,
    echo_over: &AtomicBool,
) -> (u64, Option<io::Error>) {
    let pattern = pattern(id);
    let mut sent = 0u64;
    while sent < limit && !echo_over.load(Ordering::Relaxed) {
        let len = CHUNK.min((limit - sent) as usize);
        match writer.write(at(&pattern, sent, len)) {
            // The socket took nothing: it cannot take more.
            Ok(0) => return (sent, Some(ErrorKind::WriteZero.into())),
            // Some or all of the chunk went; the rest is rewritten from `sent` on.
            Ok(n) => sent += n as u64,
            // A signal interrupted the write: try again.
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // Reset, broken pipe, timeout: the transfer is over.
            Err(e) => return (sent, Some(e)),
        }
    }
    // Done sending: say so with a FIN, as a client that is finished does.
    (sent, writer.shutdown(Shutdown::Write).err())
}

/// The reader: read the echo until the end of the stream, checking every byte.
fn read_echo(mut reader: &TcpStream, id: usize, received: &AtomicU64) -> (u64, End) {
    let pattern = pattern(id);
    let mut buffer = vec![0u8; CHUNK];
    let mut got = 0u64;
    loop {
        match reader.read(&mut buffer) {
            // The server's FIN: the echo is over.
            Ok(0) => return (got, End::Eof),
            // More echo: it must be the next bytes of what we sent.
            Ok(n) => {
                if buffer[..n] != *at(&pattern, got, n) {
                    let wrong = (0..n).find(|&i| buffer[i] != stream_byte(id, got + i as u64));
                    let offset = got + wrong.unwrap_or(0) as u64;
                    return (got, End::Failed(format!("wrong byte at offset {offset}")));
                }
                got += n as u64;
                received.store(got, Ordering::Relaxed);
            }
            // A signal interrupted the read: try again.
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // Reset, timeout, anything else: the echo is over, badly.
            Err(e) => return (got, classify(e, "reading")),
        }
    }
}

/// A reset is [`End::Reset`], and so are its later symptoms: a broken pipe (a write after
/// a reset) and "not connected" (a `shutdown` after one). Any other error is
/// [`End::Failed`].
fn classify(error: io::Error, what: &'static str) -> End {
    match error.kind() {
        ErrorKind::ConnectionReset | ErrorKind::BrokenPipe | ErrorKind::NotConnected => {
            End::Reset { what }
        }
        _ => End::Failed(format!("{what}: {error}")),
    }
}

fn failed(sent: u64, received: u64, error: io::Error, what: &str) -> Transfer {
    Transfer {
        sent,
        received,
        end: End::Failed(format!("{what}: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_client_and_offset() {
        assert_ne!(stream_byte(0, 5), stream_byte(1, 5));
        assert_ne!(stream_byte(0, 5), stream_byte(0, 6));
        assert_eq!(stream_byte(3, 0), stream_byte(3, 251));
        let pattern = pattern(3);
        let slice = at(&pattern, 1000, CHUNK);
        assert!((0..CHUNK).all(|i| slice[i] == stream_byte(3, 1000 + i as u64)));
    }

    #[test]
    fn resets_are_told_apart_from_other_failures() {
        let reset = io::Error::from(ErrorKind::ConnectionReset);
        assert_eq!(classify(reset, "reading"), End::Reset { what: "reading" });
        let timeout = io::Error::from(ErrorKind::TimedOut);
        assert!(matches!(classify(timeout, "writing"), End::Failed(_)));
    }
}
