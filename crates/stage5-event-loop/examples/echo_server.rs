//! # echo_server (stage 5): asyncio's socket operations on the event loop
//!
//! The talk's echo server once more, written as asyncio writes it with the loop's socket
//! operations: [`EventLoop::start_serving`] accepts connections (up to a backlog's worth
//! per readiness event), and each connection is a task that awaits `sock_recv` and
//! `sock_sendall`. Replies `Got:` + data (`--plain`: the bytes unchanged); prints
//! `Connection closed` when a client leaves. A client that never reads stops its own echo
//! (the task waits in `sock_sendall` and reads nothing meanwhile), so it cannot make the
//! server's memory grow.
//!
//! Ctrl-C (SIGINT), SIGTERM and SIGHUP (the terminal went away) are handled on the loop
//! with `add_signal_handler`, and shut the server down gracefully: stop accepting, stop
//! reading, send back what was already read, then half-close each connection and read what
//! the client still sends until it closes its side, so that no client gets a reset; all
//! within `--grace SECS` (default 5), after which what is still open is closed as it is.
//! Then it prints how many clients were served and exits with 0.
//!
//! `--api protocol` serves the same echo with chapter 8's `create_server` and a `Protocol`
//! (`echo_server/protocol.rs`), `--api streams` with `start_server` and a handler looping
//! `read`, `write`, `drain` (`echo_server/streams.rs`); `--api sock`, the default, is the
//! task per connection above. Every option works with each.
//!
//! A second SIGINT or SIGTERM during the grace period closes what is still open at once,
//! says how many connections it cut, and exits with 1. The signals stay handled until the
//! process exits: one more, after the loop has closed, is ignored, never the end of it.
//!
//! `--loops N` runs N event loops on N threads, each accepting on the same port
//! (`SO_REUSEPORT`): `echo_server/loops.rs`, and the book's "Beyond one core".
//! `--with-producer N` runs the talk's producer and consumer beside the server.
//!
//! ```text
//! cargo run -p stage5 --example echo_server -- --timestamps
//! nc 127.0.0.1 30000                       # in another terminal; type lines, then Ctrl-C the server
//! ```
//!
//! Look for: with `--trace`, `select: fd N ready to read, cN ready` when the listener's
//! reader is due, and `select: no timer, block until a socket is ready` while every
//! connection is idle: the loop sleeps.

#[allow(dead_code)]
#[path = "producer_consumer.rs"]
pub mod producer_consumer;

#[path = "echo_server/connections.rs"]
mod connections;
#[allow(dead_code)]
#[path = "echo_server/loops.rs"]
pub mod loops;
#[path = "echo_server/protocol.rs"]
pub mod protocol;
#[allow(dead_code)]
#[path = "echo_server/settings.rs"]
mod settings;
#[path = "echo_server/shutdown.rs"]
mod shutdown;
#[path = "echo_server/streams.rs"]
pub mod streams;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use connections::Connection;
use scaffold::net::{EchoSetup, Reply, is_disconnect};
pub use settings::{Api, Flags, Settings};
use stage5::{Error, EventLoop, First, Server, TimerHandle, first_of, say};

/// How many bytes one `sock_recv` asks for.
const CHUNK: usize = 64 * 1024;

/// How many connections the listening socket queues (`listen(2)`'s backlog), and how many
/// the server accepts per readiness event.
const BACKLOG: usize = 1024;

// ANCHOR: handler
/// Answer every chunk until the client leaves, or until `stop` asks us to.
async fn echo(
    lp: &EventLoop,
    sock: &TcpStream,
    reply: Reply,
    stop: &stage5::Future<()>,
    bytes: &Bytes,
) -> io::Result<()> {
    let mut out = Vec::new();
    loop {
        // Data, or the request to stop: whichever comes first. The request is looked at
        // first, so that once it is made no new data is read; a `sock_recv` that is only
        // waiting has read nothing, so dropping it loses nothing.
        let data = match first_of(stop.clone(), lp.sock_recv(sock, CHUNK)).await {
            First::A(_stop) => return shutdown::close_gracefully(lp, sock).await,
            First::B(data) => data?,
        };
        if data.is_empty() {
            return Ok(()); // the client closed its side
        }
        bytes.read.set(bytes.read.get() + data.len() as u64);
        let answer = match reply {
            Reply::Plain => &data,
            Reply::Got => {
                out.clear();
                reply.write(&data, &mut out);
                &out
            }
        };
        // Until the answer is out we do not read more: a client that never reads cannot
        // make the server buffer without bound. Nor do we stop: a shutdown waits for the
        // answer, since dropping `sock_sendall` half-way would lose the rest of it.
        lp.sock_sendall(sock, answer).await?;
        bytes.echoed.set(bytes.echoed.get() + data.len() as u64);
    }
}
// ANCHOR_END: handler

/// Says `Connection closed` when the connection's task ends, however it ends: the client
/// left, an error, or the server closed it (the task was cancelled, its future dropped).
struct Closed;

impl Drop for Closed {
    fn drop(&mut self) {
        say!("Connection closed");
    }
}

fn echo_handler(
    lp: EventLoop,
    sock: TcpStream,
    reply: Reply,
    stop: stage5::Future<()>,
    bytes: Rc<Bytes>,
) -> impl Future<Output = Result<(), Error>> {
    let closed = Closed; // moved into the future now: dropped even if it never runs
    async move {
        let _closed = closed;
        if let Err(error) = echo(&lp, &sock, reply, &stop, &bytes).await
            && !is_disconnect(&error)
        {
            scaffold::trace!("connection error: {error}");
        }
        Ok(())
    }
}

/// What one loop's connections read, and sent back, in bytes.
#[derive(Debug, Default)]
pub struct Bytes {
    read: Cell<u64>,
    echoed: Cell<u64>,
}

/// What a server did: connections accepted, bytes read and bytes sent back, and how many
/// connections a second signal cut.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Connections accepted.
    pub served: usize,
    /// Bytes read from the clients.
    pub read: u64,
    /// Bytes of those sent back (the `Got:` prefixes not counted).
    pub echoed: u64,
    /// Connections closed at once by a second signal.
    pub cut: usize,
}

// ANCHOR: server
/// The running echo server: the listener and the connections' tasks.
pub struct EchoServer {
    server: RefCell<Option<Server>>, // `None` until it serves
    connections: RefCell<HashMap<u64, Connection>>,
    served: Cell<usize>,
    bytes: Rc<Bytes>,
    settings: Settings,
    stopping: Cell<bool>,
    deadline: RefCell<Option<TimerHandle>>, // the end of the grace period
    cut: Cell<usize>,                       // connections a second signal closed
    me: std::rc::Weak<EchoServer>,          // for the callbacks that serve
}
// ANCHOR_END: server

/// Serve on `listener` with `reply`. If `stop` is given, the server shuts down after the
/// first connection it accepts once `stop` is set (a test sets it, then connects once).
pub fn serve(
    lp: &EventLoop,
    listener: TcpListener,
    reply: Reply,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Rc<EchoServer>, Error> {
    serve_with(
        lp,
        listener,
        Settings {
            stop,
            ..Settings::new(reply)
        },
    )
}

// ANCHOR: serve_with
/// Serve on `listener` as `settings` say.
pub fn serve_with(
    lp: &EventLoop,
    listener: TcpListener,
    settings: Settings,
) -> Result<Rc<EchoServer>, Error> {
    // Let the kernel queue as many connections as we accept per event (std says 128).
    socket2::SockRef::from(&listener).listen(BACKLOG as i32)?;
    // Each API's callbacks need the server, and the server holds the `Server` they serve
    // with: the server is made first, with the listener only, then given its `Server`.
    Rc::new_cyclic(|me| EchoServer {
        server: RefCell::new(None),
        connections: RefCell::new(HashMap::new()),
        served: Cell::new(0),
        bytes: Rc::default(),
        settings,
        stopping: Cell::new(false),
        deadline: RefCell::new(None),
        cut: Cell::new(0),
        me: me.clone(),
    })
    .start(lp, listener)
}
// ANCHOR_END: serve_with

impl EchoServer {
    /// True once [`EchoServer::shutdown`] has been called.
    pub fn stopping(&self) -> bool {
        self.stopping.get()
    }

    /// How many connections were accepted so far.
    pub fn served(&self) -> usize {
        self.served.get()
    }

    /// Connections accepted, bytes read and sent back, so far.
    pub fn summary(&self) -> Summary {
        Summary {
            served: self.served.get(),
            read: self.bytes.read.get(),
            echoed: self.bytes.echoed.get(),
            cut: self.cut.get(),
        }
    }
}

// ANCHOR: main
fn main() {
    let flags = Flags::default();
    let setup = EchoSetup::from_args_with(
        "a TCP echo server: a task per connection on the event loop (Ctrl-C to stop)",
        true,
        settings::USAGE,
        |flag, args| flags.take(flag, args),
        |options| flags.refused(options),
        |addr| flags.listen(addr),
    );
    let config = loops::Config {
        settings: Settings {
            grace: flags.grace.get(),
            api: flags.api.get(),
            ..Settings::new(setup.reply)
        },
        loops: flags.loops.get(),
        with_producer: setup.with_producer,
    };
    let outcome = loops::run(setup.clock, setup.options.clone(), setup.listener, &config);
    // `--timeline` (loop 0's) and `--record` (every loop's), written however the server stopped.
    setup.options.finish();
    if let Err(error) = outcome {
        scaffold::cli::exit_with_error(error);
    }
}
// ANCHOR_END: main
