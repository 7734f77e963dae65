//! # echo_server (stage 4): a real concurrent echo server
//!
//! Beazley's talk, the whole program. A task per connection awaits `recv`; when no
//! socket is ready the scheduler sleeps in `select`, so an idle server costs nothing and a
//! reply leaves as soon as the data arrives. Replies `Got:` + data (`--plain`: the bytes
//! unchanged, for standard echo clients and benchmarks); prints `Connection closed` on end
//! of stream or a reset.
//!
//! `--with-producer N` runs the talk's complete program: producer(q, N) and its consumer
//! alongside the server, printing as they go, to show that both make progress on one
//! thread.
//!
//! ```text
//! cargo run -p stage4 --example echo_server -- --with-producer 100 --timestamps
//! nc 127.0.0.1 30000                       # in another terminal; type lines
//! ```
//!
//! Out of file descriptors (`ulimit -n 64` and 200 clients), `accept` fails, and fails
//! again at once for as long as the connection waits: the server says so once and stops
//! accepting for [`net::ACCEPT_RETRY_DELAY`], serving its connections meanwhile.
//!
//! Look for: with `--trace`, each `select` line shows its timeout (the time to the
//! producer's next item, or "block" when only sockets are waited on) and what became ready.

#[allow(dead_code)]
#[path = "producer_consumer.rs"]
pub mod producer_consumer;

use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use stage4::net::{self, EchoSetup, Reply};
use stage4::{NewTask, Scheduler, WaitIo, cli, say, sleep, trace};

// ANCHOR: server
/// Accept connections, starting an `echo_handler` task for each. Checks `stop` after each
/// accepted connection (a test stops the server by setting it and connecting once more).
pub async fn tcp_server<S: WaitIo>(
    s: S,
    listener: TcpListener,
    reply: Reply,
    stop: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::Relaxed) {
        match s.accept(&listener).await {
            Ok((client, peer)) => {
                trace!("accept {peer}");
                s.new_task(echo_handler(s.clone(), client, reply));
            }
            Err(error) if net::out_of_resources(&error) => back_off(error).await,
            // The client reset before we accepted it, say: that one client's loss.
            Err(error) => scaffold::warn!("accept failed: {error}"),
        }
    }
}

/// Answer every chunk until the client leaves.
async fn echo_handler<S: WaitIo>(s: S, mut sock: TcpStream, reply: Reply) {
    if let Err(error) = echo(&s, &mut sock, reply).await {
        trace!("connection error: {error}");
    }
    say!("Connection closed");
}

async fn echo<S: WaitIo>(s: &S, sock: &mut TcpStream, reply: Reply) -> io::Result<()> {
    let mut buf = vec![0; 64 * 1024];
    let mut out = Vec::new();
    loop {
        let n = s.recv(sock, &mut buf).await?;
        if n == 0 {
            return Ok(()); // the client closed its side
        }
        out.clear();
        reply.write(&buf[..n], &mut out);
        // Until the reply is out we do not read more: a client that never reads cannot
        // make the server buffer without bound.
        s.sendall(sock, &out).await?;
    }
}
// ANCHOR_END: server

// ANCHOR: back_off
/// Out of file descriptors (or memory): the connection stays queued, the listener stays
/// readable, and accepting again at once would fail again at once, as fast as the CPU
/// allows, with a line each time. Say it once and sleep: only this task waits; the
/// connections already open are served meanwhile, and may close and free descriptors.
async fn back_off(error: io::Error) {
    scaffold::warn!(
        "accept failed: {error}; accepting again in {} s",
        net::ACCEPT_RETRY_DELAY.as_secs()
    );
    sleep(net::ACCEPT_RETRY_DELAY).await;
}
// ANCHOR_END: back_off

/// Serve on `listener` on scheduler `s` until `stop` is set. Written against stage 4's
/// `WaitIo` trait, not its `Scheduler`: stage 5's event loop runs it too.
pub fn serve<S: WaitIo>(s: &S, listener: TcpListener, reply: Reply, stop: Arc<AtomicBool>) {
    s.new_task(tcp_server(s.clone(), listener, reply, stop));
}

fn main() {
    let setup = EchoSetup::from_args(
        "a TCP echo server: a task per connection, waiting in select",
        true,
    );
    let s = Scheduler::new(setup.clock).unwrap_or_else(|error| cli::exit_with_error(error));
    if let Some(count) = setup.with_producer {
        producer_consumer::start(&s, count);
    }
    let stop = Arc::new(AtomicBool::new(false));
    serve(&s, setup.listener, setup.reply, stop);
    s.run().unwrap_or_else(|error| cli::exit_with_error(error));
}
