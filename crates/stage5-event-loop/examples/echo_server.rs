//! # echo_server (stage 5): asyncio's socket operations on the event loop
//!
//! Seed 003's echo server once more, written as asyncio writes it with the loop's socket
//! operations: [`EventLoop::start_serving`] accepts connections (up to a backlog's worth
//! per readiness event), and each connection is a task that awaits `sock_recv` and
//! `sock_sendall`. Replies `Got:` + data (`--plain`: the bytes unchanged); prints
//! `Connection closed` when a client leaves. A client that never reads stops its own echo
//! (the task waits in `sock_sendall` and reads nothing meanwhile), so it cannot make the
//! server's memory grow.
//!
//! Ctrl-C (SIGINT) and SIGTERM are handled on the loop with `add_signal_handler`: stop
//! accepting, close every connection, print how many clients were served, exit 0.
//! `--with-producer N` runs the seed's producer and consumer beside the server.
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

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io;
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use stage1::net::{EchoSetup, Reply, is_disconnect};
use stage5::{Error, EventLoop, Server, Task, gather, say};

/// How many bytes one `sock_recv` asks for.
const CHUNK: usize = 64 * 1024;

/// How many connections the listening socket queues (`listen(2)`'s backlog), and how many
/// the server accepts per readiness event.
const BACKLOG: usize = 1024;

// ANCHOR: handler
/// Answer every chunk until the client leaves.
async fn echo(lp: &EventLoop, sock: &TcpStream, reply: Reply) -> io::Result<()> {
    let mut out = Vec::new();
    loop {
        let data = lp.sock_recv(sock, CHUNK).await?;
        if data.is_empty() {
            return Ok(()); // the client closed its side
        }
        let answer = match reply {
            Reply::Plain => &data,
            Reply::Got => {
                out.clear();
                reply.write(&data, &mut out);
                &out
            }
        };
        // Until the answer is out we do not read more: a client that never reads cannot
        // make the server buffer without bound.
        lp.sock_sendall(sock, answer).await?;
    }
}

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
) -> impl Future<Output = Result<(), Error>> {
    let closed = Closed; // moved into the future now: dropped even if it never runs
    async move {
        let _closed = closed;
        if let Err(error) = echo(&lp, &sock, reply).await
            && !is_disconnect(&error)
        {
            stage1::trace!("connection error: {error}");
        }
        Ok(())
    }
}
// ANCHOR_END: handler

// ANCHOR: server
/// The running echo server: the listener and the connections' tasks.
pub struct EchoServer {
    server: Server,
    connections: RefCell<HashMap<u64, Task<()>>>,
    served: Cell<usize>,
    stopping: Cell<bool>,
}

/// Serve on `listener` with `reply`. If `stop` is given, the server shuts down after the
/// first connection it accepts once `stop` is set (a test sets it, then connects once).
pub fn serve(
    lp: &EventLoop,
    listener: std::net::TcpListener,
    reply: Reply,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Rc<EchoServer>, Error> {
    // Let the kernel queue as many connections as we accept per event (std says 128).
    socket2::SockRef::from(&listener).listen(BACKLOG as i32)?;
    let me = Rc::new_cyclic(|weak: &std::rc::Weak<EchoServer>| {
        let weak = weak.clone();
        let server = lp.start_serving(listener, BACKLOG, move |lp, sock, peer| {
            stage1::trace!("accept {peer}");
            let Some(me) = weak.upgrade() else { return };
            me.served.set(me.served.get() + 1);
            if let Ok(task) = lp.create_task(echo_handler(lp.clone(), sock, reply)) {
                let id = task.id();
                let w = weak.clone();
                task.add_done_callback(move |_, _| {
                    if let Some(me) = w.upgrade() {
                        me.connections.borrow_mut().remove(&id);
                    }
                });
                me.connections.borrow_mut().insert(id, task);
            }
            if stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                me.shutdown(lp);
            }
        });
        EchoServer {
            server: server.expect("a listening socket the loop can watch"),
            connections: RefCell::new(HashMap::new()),
            served: Cell::new(0),
            stopping: Cell::new(false),
        }
    });
    Ok(me)
}

impl EchoServer {
    /// Stop accepting, close every connection (cancel its task), and once they are all
    /// closed print how many clients were served and stop the loop.
    pub fn shutdown(&self, lp: &EventLoop) {
        if self.stopping.replace(true) {
            return;
        }
        stage1::trace!(
            "shutdown: close the listener (fd {})",
            self.server.listener().as_raw_fd()
        );
        self.server.close(lp);
        let tasks: Vec<Task<()>> = self
            .connections
            .borrow_mut()
            .drain()
            .map(|(_, t)| t)
            .collect();
        for task in &tasks {
            task.cancel();
        }
        let served = self.served.get();
        gather(lp, tasks).add_done_callback(move |lp, _| {
            say!("clients served: {served}");
            lp.stop();
        });
    }

    /// How many connections were accepted so far.
    pub fn served(&self) -> usize {
        self.served.get()
    }
}
// ANCHOR_END: server

// ANCHOR: main
fn main() {
    let setup = EchoSetup::from_args(
        "a TCP echo server: a task per connection on the event loop (Ctrl-C to stop)",
        true,
    );
    let lp = EventLoop::with_clock(setup.clock);
    let server = serve(&lp, setup.listener, setup.reply, None)
        .unwrap_or_else(|error| stage1::cli::exit_with_error(error));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let server = server.clone();
        lp.add_signal_handler(sig, move |lp| server.shutdown(lp))
            .unwrap_or_else(|error| stage1::cli::exit_with_error(error));
    }
    if let Some(count) = setup.with_producer {
        producer_consumer::start(&lp, count)
            .unwrap_or_else(|error| stage1::cli::exit_with_error(error));
    }
    let outcome = lp.run_forever();
    drop(lp); // the owner's drop closes the loop
    if let Err(error) = outcome {
        stage1::cli::exit_with_error(error);
    }
}
// ANCHOR_END: main
