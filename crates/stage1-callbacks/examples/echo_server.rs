//! # echo_server (stage 1): a TCP server out of callbacks and a stopwatch
//!
//! The `tcp_server` of Beazley's talk needs `select`, which stage 1 does not
//! have. With only `call_soon` and `call_later`, a server can still serve many clients on
//! one thread: make every socket non-blocking and *poll* it, asking "anything yet?" every
//! 10 ms and rescheduling itself with `call_later` when the answer is "would block".
//!
//! It answers each chunk it receives with `Got:` + the data (`--plain`: the data alone)
//! and prints `Connection closed` when a client leaves, whether politely or with a reset.
//!
//! Run it, then talk to it from another terminal:
//!
//! ```text
//! cargo run -p stage1 --example echo_server            # listens on 127.0.0.1:30000
//! nc 127.0.0.1 30000                                   # type a line, see Got:...
//! ```
//!
//! Out of file descriptors (`ulimit -n 64` and 200 clients), `accept` fails at every poll
//! for as long as a connection waits: the server says so and stops asking the listener
//! for [`net::ACCEPT_RETRY_DELAY`], as asyncio does (chapter 4, "Out of file
//! descriptors"), rather than write 100 lines a second.
//!
//! Look for: the cost. Even with no client at all the process wakes 100 times a second to
//! ask the listener, and every reply waits for the next poll (up to 10 ms). Chapter 1
//! measures both; stage 4 replaces the polling with `select`.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use scaffold::net::{self, EchoSetup, Reply};
use scaffold::{say, trace};
use stage1::Scheduler;

/// How often every socket is asked whether it has something for us.
pub const POLL: Duration = Duration::from_millis(10);

/// Stop reading from a client while this much of our reply is still unsent: a client
/// that sends but never reads must not make us buffer without bound. So a client costs
/// at most this plus one read (16 KiB): about what stages 4 and 5 hold (a 64 KiB chunk
/// and its answer). It was 1 MiB, which 1,000 clients that never read turned into 1 GiB.
const MAX_OUTBOX: usize = 64 << 10;

// ANCHOR: accept_poll
/// Poll `listener` for new clients every [`POLL`], starting a polling callback chain for
/// each. Checks `stop` after each accepted connection (a test stops the server by setting
/// it and connecting once more).
pub fn serve(s: &Scheduler, listener: TcpListener, reply: Reply, stop: Arc<AtomicBool>) {
    loop {
        match listener.accept() {
            Ok((stream, peer)) => {
                trace!("accept {peer}");
                match stream.set_nonblocking(true) {
                    Ok(()) => {
                        let connection = Connection::new(stream, reply);
                        s.call_soon(move |s| connection.poll(s));
                    }
                    Err(error) => scaffold::warn!("cannot serve {peer}: {error}"),
                }
                if stop.load(Ordering::Relaxed) {
                    return; // dropping the listener closes it
                }
            }
            Err(error) if error.kind() == ErrorKind::WouldBlock => break,
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            // ANCHOR_END: accept_poll
            // Out of file descriptors: the connection stays queued and the next poll would
            // fail again. Say it once and leave the listener alone for a while; the open
            // connections are polled meanwhile, and may close and free descriptors.
            Err(error) if net::out_of_resources(&error) => {
                let secs = net::ACCEPT_RETRY_DELAY.as_secs();
                scaffold::warn!("accept failed: {error}; accepting again in {secs} s");
                s.call_later(net::ACCEPT_RETRY_DELAY, move |s| {
                    serve(s, listener, reply, stop)
                });
                return;
            }
            // ANCHOR: accept_other
            // Anything else (the client gave up first, say): report it, try at the next poll.
            Err(error) => {
                scaffold::warn!("accept failed: {error}");
                break;
            }
        }
    }
    s.call_later(POLL, move |s| serve(s, listener, reply, stop));
}
// ANCHOR_END: accept_other

/// One client: its socket and the reply bytes we still owe it.
struct Connection {
    stream: TcpStream,
    outbox: Vec<u8>,
    reply: Reply,
}

impl Connection {
    fn new(stream: TcpStream, reply: Reply) -> Self {
        Connection {
            stream,
            outbox: Vec::new(),
            reply,
        }
    }

    // ANCHOR: poll
    /// Do what can be done without blocking, then come back in [`POLL`]. The callback
    /// owns the connection and moves it into the next callback: no shared state.
    fn poll(mut self, s: &Scheduler) {
        match self.step() {
            Ok(true) => {
                s.call_later(POLL, move |s| self.poll(s));
            }
            Ok(false) => say!("Connection closed"),
            Err(error) => {
                trace!("connection error: {error}");
                say!("Connection closed");
            }
        }
    }
    // ANCHOR_END: poll

    /// Flush what we owe, then read and answer whatever has arrived. `Ok(false)` when the
    /// client has closed its side and we owe it nothing more.
    fn step(&mut self) -> io::Result<bool> {
        let mut buffer = [0; 16 * 1024];
        loop {
            self.flush()?;
            if self.outbox.len() >= MAX_OUTBOX {
                return Ok(true); // the client is not reading: neither do we
            }
            match self.stream.read(&mut buffer) {
                Ok(0) => return Ok(!self.outbox.is_empty()),
                Ok(n) => self.reply.write(&buffer[..n], &mut self.outbox),
                Err(error) if error.kind() == ErrorKind::WouldBlock => return Ok(true),
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// Write as much of the outbox as the socket takes now.
    fn flush(&mut self) -> io::Result<()> {
        while !self.outbox.is_empty() {
            match self.stream.write(&self.outbox) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => drop(self.outbox.drain(..n)),
                Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }
}

fn main() {
    let setup =
        EchoSetup::from_args_polling("a TCP echo server that polls its sockets with call_later");
    let s = Scheduler::new(setup.clock);
    let stop = Arc::new(AtomicBool::new(false));
    s.call_soon(move |s| serve(s, setup.listener, setup.reply, stop));
    s.run();
}
