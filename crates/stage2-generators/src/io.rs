//! Socket operations by polling (book chapter 2, "A polling echo server, again"; Beazley's talk,
//! without `select`).
//!
//! The talk's `recv`, `send` and `accept` wait for the socket with `select`, which comes in
//! stage 4. Until then a coroutine can *try*: make the socket non-blocking, attempt the
//! operation, and on `WouldBlock` [`sleep`] for [`POLL`] and try again. To
//! the caller it already looks like the real thing, `let n = recv(&mut s, &mut buf).await?`;
//! only the cost differs: every waiting socket costs a wake-up every 10 ms, and every reply
//! waits for the next attempt. Stage 4 keeps these names and replaces the polling with
//! waits on the selector.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use crate::runtime::sleep;

// ANCHOR: retry
/// How long a coroutine waits before trying a socket again.
pub const POLL: Duration = Duration::from_millis(10);

/// Retry `op` every [`POLL`] until it does not answer `WouldBlock`.
async fn retry<T>(mut op: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match op() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => sleep(POLL).await,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            result => return result,
        }
    }
}
// ANCHOR_END: retry

// ANCHOR: recv
/// Receive into `buf` from a non-blocking socket; `Ok(0)` at end of stream.
pub async fn recv(sock: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    retry(|| sock.read(buf)).await
}
// ANCHOR_END: recv

/// Send as much of `data` as the socket takes now, waiting until it takes something.
pub async fn send(sock: &mut TcpStream, data: &[u8]) -> io::Result<usize> {
    retry(|| sock.write(data)).await
}

/// Send all of `data`, however many attempts it takes.
pub async fn sendall(sock: &mut TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match send(sock, data).await? {
            0 => return Err(ErrorKind::WriteZero.into()),
            n => data = &data[n..],
        }
    }
    Ok(())
}

/// Accept a connection on a non-blocking listener; the new socket is non-blocking too.
pub async fn accept(listener: &TcpListener) -> io::Result<(TcpStream, SocketAddr)> {
    let (stream, peer) = retry(|| listener.accept()).await?;
    stream.set_nonblocking(true)?;
    Ok((stream, peer))
}
