//! Blocking echo clients for tests: plain `std::net`, one thread each, with timeouts so a
//! broken server fails a test instead of hanging it.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

use socket2::SockRef;

/// How long a test client waits for any single read or write before failing.
pub const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// Connect to `addr` with [`IO_TIMEOUT`] on reads and writes.
pub fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
    let stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Send `message` and read back exactly `prefix` + `message`; an error if the reply
/// differs or the connection ends first.
pub fn round_trip(stream: &mut TcpStream, prefix: &[u8], message: &[u8]) -> io::Result<()> {
    stream.write_all(message)?;
    let mut reply = vec![0; prefix.len() + message.len()];
    stream.read_exact(&mut reply)?;
    if &reply[..prefix.len()] != prefix || &reply[prefix.len()..] != message {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "expected {:?}, got {:?}",
                String::from_utf8_lossy(&[prefix, message].concat()),
                String::from_utf8_lossy(&reply)
            ),
        ));
    }
    Ok(())
}

/// Close `stream` abruptly: with a zero linger time the kernel sends a reset (RST)
/// instead of the orderly FIN, as a crashed client would.
pub fn reset(stream: TcpStream) -> io::Result<()> {
    SockRef::from(&stream).set_linger(Some(Duration::ZERO))?;
    drop(stream);
    Ok(())
}

/// Send `message`, then half-close (shut down our writing side) and read until the server
/// closes: returns everything it sent back.
pub fn send_and_half_close(mut stream: TcpStream, message: &[u8]) -> io::Result<Vec<u8>> {
    stream.write_all(message)?;
    stream.shutdown(Shutdown::Write)?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply)?;
    Ok(reply)
}

/// Connect and close at once: wakes a server blocked in `accept`, so that it notices a
/// stop request (the servers of stages 2 to 4 check for one after each connection).
///
/// Only the connect counts: a server that saw the stop may close its listener with this
/// connection still queued, and the reset then arrives at once, so setting [`connect`]'s
/// options could fail on a server that did listen (seen under load in CI).
pub fn knock(addr: SocketAddr) -> io::Result<()> {
    TcpStream::connect_timeout(&addr, IO_TIMEOUT).map(drop)
}

/// A deterministic message of `len` bytes for client `client`, message `n`: cheap to make,
/// different for every client and message, so a reply routed to the wrong connection or
/// corrupted in the middle is caught.
pub fn message(client: usize, n: usize, len: usize) -> Vec<u8> {
    let tag = format!("c{client}m{n}:");
    tag.bytes()
        .chain((0..).map(|i: usize| b'a' + ((i * 7 + client + n) % 26) as u8))
        .take(len.max(tag.len()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_differ_by_client_and_number() {
        assert_ne!(message(1, 2, 32), message(2, 1, 32));
        assert_eq!(message(3, 4, 100).len(), 100);
        assert!(message(3, 4, 100).starts_with(b"c3m4:"));
    }
}
