//! # echo_server (stage 6): the echo server on the proactor
//!
//! Stage 5's echo server with completions instead of readiness (book chapter 10, "The echo
//! server on the proactor"; asyncio's `BaseProactorEventLoop`: `_start_serving` keeps one
//! `accept` submitted, each connection's coroutine awaits `sock_recv_into` and
//! `sock_sendall`). An accept is always in flight; each connection is a task whose one
//! buffer goes to the kernel and back (`echo_server/sock.rs`). Replies `Got:` + data
//! (`--plain`: the bytes unchanged); prints `Connection closed` when a client leaves.
//!
//! Ctrl-C (SIGINT), SIGTERM and SIGHUP shut it down gracefully: stop accepting (the accept
//! in flight is cancelled), stop reading, half-close each connection and read until the
//! client closes, within `--grace SECS` (default 5); then `clients served: N`, exit 0. A
//! second signal cuts what is still open, says how many, and exits with 1.
//!
//! ```text
//! cargo run -p stage6 --example echo_server -- --timestamps
//! nc 127.0.0.1 30000
//! ```
//!
//! `--api protocol` serves the same echo with a `Protocol` on the proactor's transport
//! (`echo_server/protocol.rs`): one receive always submitted, writes queued, flow control.
//!
//! Look for, with `--trace`: `submit: op N, recv on fd F` when a task awaits, then
//! `completed: op N, recv: BYTES` after the loop's wait, then the task's `wake`; on Ctrl-C,
//! `cancel: op N` and its completion, `Operation canceled`.
//!
//! Where io_uring is refused, it says so in one line and exits with 2.

#[path = "echo_server/protocol.rs"]
mod protocol;
#[path = "echo_server/settings.rs"]
mod settings;
#[path = "echo_server/sock.rs"]
mod sock;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::net::TcpListener;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use scaffold::net::{ACCEPT_RETRY_DELAY, EchoSetup, out_of_resources};
pub use settings::{Api, Settings};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use stage6::{Error, First, Future, ProactorLoop, Task, first_of, say, sleep};

/// A connection: a task (`--api sock`) or a protocol on a transport (`--api protocol`).
enum Connection {
    Task(Task<()>),
    Protocol(Rc<protocol::EchoProtocol>),
}

/// Says `Connection closed` when the connection's task ends, however it ends.
struct Closed;

impl Drop for Closed {
    fn drop(&mut self) {
        say!("Connection closed");
    }
}

// ANCHOR: server
/// The running server: its connections' tasks, and how it stops.
pub struct EchoServer {
    lp: ProactorLoop,
    settings: Settings,
    served: Cell<usize>,
    connections: RefCell<HashMap<usize, Connection>>,
    stop: Future<()>, // set when the shutdown begins: the accept and every read end
    accepting: Cell<bool>,
    cut: Cell<usize>,
}
// ANCHOR_END: server

/// Serve on `listener` as `settings` say, from the loop's next iteration on.
pub fn serve_with(
    lp: &ProactorLoop,
    listener: TcpListener,
    settings: Settings,
) -> Result<Rc<EchoServer>, Error> {
    socket2::SockRef::from(&listener).listen(scaffold::net::BACKLOG)?;
    let server = Rc::new(EchoServer {
        lp: lp.clone(),
        settings,
        served: Cell::new(0),
        connections: RefCell::new(HashMap::new()),
        stop: lp.create_future(),
        accepting: Cell::new(true),
        cut: Cell::new(0),
    });
    lp.create_task(accept_loop(server.clone(), Rc::new(listener)))?;
    Ok(server)
}

// ANCHOR: accept_loop
/// One accept always in flight (asyncio's `_start_serving` loop on the proactor), until
/// the shutdown: then the pending accept is dropped, which cancels it.
async fn accept_loop(server: Rc<EchoServer>, listener: Rc<TcpListener>) -> Result<(), Error> {
    let lp = server.lp.clone();
    loop {
        let accepted = match first_of(server.stop.clone(), lp.sock_accept(&listener)).await {
            First::A(_stop) => break,
            First::B(accepted) => accepted,
        };
        match accepted {
            Ok((conn, _peer)) => {
                server.start(Rc::new(conn))?;
                if server
                    .settings
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed))
                {
                    server.shutdown(); // a test's stop flag, seen after its knock
                }
            }
            // Out of descriptors or memory: say so, and wait before the next try (asyncio
            // pauses accepting for a second).
            Err(Error::Io(e)) if out_of_resources(&e) => {
                scaffold::warn!("accept failed: out of system resource: {e}");
                sleep(&lp, ACCEPT_RETRY_DELAY.as_secs_f64()).await?;
            }
            // A connection reset before it was accepted, or the like: the next one.
            Err(error) => scaffold::trace!("accept failed: {error}"),
        }
    }
    server.accepting.set(false);
    server.maybe_done();
    Ok(())
}
// ANCHOR_END: accept_loop

impl EchoServer {
    /// Serve the new connection `conn` as `--api` says.
    fn start(self: &Rc<EchoServer>, conn: Rc<std::net::TcpStream>) -> Result<(), Error> {
        let id = self.served.get();
        self.served.set(id + 1);
        let me = Rc::downgrade(self);
        let ended = move || {
            if let Some(server) = me.upgrade() {
                let ended = server.connections.borrow_mut().remove(&id);
                drop(ended); // outside the borrow
                server.maybe_done();
            }
        };
        let connection = match self.settings.api {
            Api::Sock => Connection::Task(self.start_task(conn, ended)?),
            Api::Protocol => {
                let Ok(conn) = Rc::try_unwrap(conn) else {
                    return Ok(()); // (the only reference: just accepted)
                };
                let echo = Rc::new(protocol::EchoProtocol::new(self.settings.reply, ended));
                if self.stop.done() {
                    echo.stop();
                }
                self.lp.make_socket_transport(conn, echo.clone());
                Connection::Protocol(echo)
            }
        };
        self.connections.borrow_mut().insert(id, connection);
        Ok(())
    }

    /// A task for the connection `conn`; `ended` runs when it ends.
    fn start_task(
        &self,
        conn: Rc<std::net::TcpStream>,
        ended: impl FnOnce() + 'static,
    ) -> Result<Task<()>, Error> {
        let (lp, reply, stop) = (self.lp.clone(), self.settings.reply, self.stop.clone());
        let closed = Closed; // dropped with the future, even if it never runs
        let task = self.lp.create_task(async move {
            let _closed = closed;
            if let Err(error) = sock::echo(&lp, &conn, reply, &stop).await {
                scaffold::trace!("connection error: {error}");
            }
            Ok(())
        })?;
        task.add_done_callback(move |_, _| ended());
        Ok(task)
    }

    // ANCHOR: shutdown
    /// Begin the shutdown: no more accepts, no more reads; after the grace period, cut
    /// what is still open. A second call cuts at once.
    pub fn shutdown(self: &Rc<EchoServer>) {
        if self.stop.done() {
            return self.cut_all();
        }
        let _ = self.stop.set_result(()); // (not done: checked above)
        let protocols: Vec<_> = (self.connections.borrow().values())
            .filter_map(|c| match c {
                Connection::Protocol(echo) => Some(echo.clone()),
                Connection::Task(_) => None, // a task sees `stop` itself
            })
            .collect();
        for echo in protocols {
            echo.stop();
        }
        let me = Rc::downgrade(self);
        let cut = move |_: &stage6::EventLoop| {
            if let Some(server) = me.upgrade() {
                server.cut_all();
            }
        };
        if let Err(error) = self.lp.call_later(self.settings.grace, cut) {
            scaffold::trace!("no grace period: {error}");
        }
    }
    // ANCHOR_END: shutdown

    /// Cancel every connection still open.
    fn cut_all(&self) {
        let open: Vec<_> = (self.connections.borrow().values())
            .map(|c| match c {
                Connection::Task(task) => Connection::Task(task.clone()),
                Connection::Protocol(echo) => Connection::Protocol(echo.clone()),
            })
            .collect();
        self.cut.set(self.cut.get() + open.len());
        for connection in open {
            match connection {
                Connection::Task(task) => {
                    task.cancel();
                }
                Connection::Protocol(echo) => echo.abort(),
            }
        }
    }

    /// Stop the loop once nothing is accepted and every connection has ended.
    fn maybe_done(&self) {
        if self.stop.done() && !self.accepting.get() && self.connections.borrow().is_empty() {
            self.lp.stop();
        }
    }

    /// Connections accepted so far.
    pub fn served(&self) -> usize {
        self.served.get()
    }

    /// Connections a second signal or the grace period cut.
    pub fn cut(&self) -> usize {
        self.cut.get()
    }
}

/// Serve until a signal's shutdown ends, as `main` does; the process's exit status (1 if
/// a second signal cut connections).
pub fn run(lp: &ProactorLoop, listener: TcpListener, settings: Settings) -> Result<i32, Error> {
    let server = serve_with(lp, listener, settings)?;
    let signals = Rc::new(Cell::new(0));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let (server, signals) = (server.clone(), signals.clone());
        lp.add_signal_handler(sig, move |_| {
            signals.set(signals.get() + 1);
            server.shutdown();
        })?;
    }
    lp.run_forever()?;
    say!("clients served: {}", server.served());
    if signals.get() > 1 {
        say!("cut {} connections", server.cut());
        return Ok(1);
    }
    Ok(0)
}

// ANCHOR: main
fn main() {
    let flags = settings::Flags::default();
    let mut ring = None; // taken once the flags are read: `--help` answers without io_uring
    let setup = EchoSetup::from_args_with(
        "a TCP echo server on the proactor loop: io_uring (Ctrl-C to stop)",
        false,
        settings::USAGE,
        |flag, args| flags.take(flag, args),
        // One loop: every flag goes with every other (None). Before a file is created or
        // anything listens: where io_uring is refused, one line and exit 2.
        |_| ring.replace(stage6::ring_or_exit("echo_server")).and(None),
        scaffold::net::listen,
    );
    let ring = ring.unwrap_or_else(|| stage6::ring_or_exit("echo_server"));
    let settings = Settings {
        grace: flags.grace.get(),
        api: flags.api.get(),
        ..Settings::new(setup.reply)
    };
    let outcome = ProactorLoop::new(ring, setup.clock.clone())
        .and_then(|lp| run(&lp, setup.listener, settings));
    setup.options.finish();
    match outcome {
        Ok(status) => std::process::exit(status),
        Err(error) => scaffold::cli::exit_with_error(error),
    }
}
// ANCHOR_END: main
