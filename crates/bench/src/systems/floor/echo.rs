//! The floor's echo server (W5, W6): a bare mio loop, connections in a `Vec` indexed by
//! token, one shared read buffer, no task per connection: the least an echo server can do
//! per message, which every other system's echo server is compared with.

use std::io::{self, ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

/// One client connection of the echo loop, and what it still has to send back.
struct Conn {
    stream: TcpStream,
    outbox: Vec<u8>,
}

impl Conn {
    /// Send what is waiting; `Ok(true)` when all of it is out.
    fn flush(&mut self) -> io::Result<bool> {
        while !self.outbox.is_empty() {
            match self.stream.write(&self.outbox) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => drop(self.outbox.drain(..n)),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Read everything there is (mio is edge-triggered) and echo it; stop reading while
    /// a reply waits for the socket to drain. `Ok(false)` once the client has gone.
    fn echo(&mut self, buffer: &mut [u8]) -> io::Result<bool> {
        while self.flush()? {
            match self.stream.read(buffer) {
                Ok(0) => return Ok(false),
                Ok(n) => self.outbox.extend_from_slice(&buffer[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(true),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }
}

const LISTENER: Token = Token(usize::MAX);

/// The floor's echo server: one `mio::Poll`, connections in a `Vec` indexed by token.
pub fn serve(addr: SocketAddr, max: Duration) -> io::Result<()> {
    let stop_at = Instant::now() + max;
    let mut poll = Poll::new()?;
    let mut events = Events::with_capacity(1024);
    let mut listener = TcpListener::bind(addr)?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    eprintln!("listening on {}", listener.local_addr()?);
    let mut conns: Vec<Option<Conn>> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let now = Instant::now();
        if now >= stop_at {
            return Ok(());
        }
        match poll.poll(&mut events, Some(stop_at - now)) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            result => result?,
        }
        for event in &events {
            if event.token() == LISTENER {
                loop {
                    match listener.accept() {
                        Ok((mut stream, _)) => {
                            let slot = free.pop().unwrap_or_else(|| {
                                conns.push(None);
                                conns.len() - 1
                            });
                            poll.registry().register(
                                &mut stream,
                                Token(slot),
                                Interest::READABLE | Interest::WRITABLE,
                            )?;
                            conns[slot] = Some(Conn {
                                stream,
                                outbox: Vec::new(),
                            });
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(e) => {
                            eprintln!("accept failed: {e}");
                            break;
                        }
                    }
                }
                continue;
            }
            let slot = event.token().0;
            let Some(conn) = conns.get_mut(slot).and_then(Option::as_mut) else {
                continue;
            };
            // Readable or writable, the same step: flush, then read while replies go out.
            if !matches!(conn.echo(&mut buffer), Ok(true)) {
                if let Some(mut conn) = conns[slot].take() {
                    // The socket is closed just after: a failed deregistration leaves
                    // nothing behind (closing a descriptor removes it from epoll).
                    let _ = poll.registry().deregister(&mut conn.stream);
                }
                free.push(slot);
            }
        }
    }
}
