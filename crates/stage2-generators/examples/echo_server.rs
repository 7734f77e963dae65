//! # echo_server (stage 2): one task per connection, still polling
//!
//! The `tcp_server` and `echo_handler` of Beazley's talk, written as they are
//! there, a task per connection in a plain loop, but with stage 2's tools: `accept`,
//! `recv` and `sendall` from `stage2::io` try the non-blocking socket and, when it would
//! block, `sleep` 10 ms and try again.
//!
//! Replies `Got:` + data (`--plain`: the data alone); prints `Connection closed` when a
//! client leaves, politely or with a reset.
//!
//! ```text
//! cargo run -p stage2 --example echo_server            # listens on 127.0.0.1:30000
//! nc 127.0.0.1 30000
//! ```
//!
//! Out of file descriptors, `accept` fails at every try while a connection waits: the
//! server says so and sleeps [`net::ACCEPT_RETRY_DELAY`] before it tries again
//! (asyncio's pause; chapter 4, "Out of file descriptors").
//!
//! Look for: the handler reads like blocking code, but the cost is stage 1's: every idle
//! connection and the listener wake up 100 times a second, and a reply waits for the next
//! attempt. Stage 4 replaces the polling.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use stage2::io::{POLL, accept, recv, sendall};
use stage2::net::{self, EchoSetup, Reply};
use stage2::{Scheduler, say, sleep, trace};

/// Accept connections, starting an `echo_handler` task for each. Checks `stop` after each
/// accepted connection (a test stops the server by setting it and connecting once more).
pub async fn tcp_server(s: Scheduler, listener: TcpListener, reply: Reply, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        match accept(&listener).await {
            Ok((client, peer)) => {
                trace!("accept {peer}");
                s.new_task(echo_handler(client, reply));
            }
            // Out of file descriptors: stop accepting for a second.
            Err(error) if net::out_of_resources(&error) => back_off(error).await,
            // The client gave up before we accepted it, say: report it, go on serving.
            Err(error) => {
                scaffold::warn!("accept failed: {error}");
                sleep(POLL).await;
            }
        }
    }
}

/// Out of file descriptors (or memory): the connection stays queued, and accepting again
/// at the next poll would fail again, with a line each time, 100 a second. Say it once and
/// sleep: only this task waits; the open connections are served meanwhile.
async fn back_off(error: io::Error) {
    let secs = net::ACCEPT_RETRY_DELAY.as_secs();
    scaffold::warn!("accept failed: {error}; accepting again in {secs} s");
    sleep(net::ACCEPT_RETRY_DELAY).await;
}

/// Answer every chunk until the client leaves.
async fn echo_handler(mut sock: TcpStream, reply: Reply) {
    if let Err(error) = echo(&mut sock, reply).await {
        trace!("connection error: {error}");
    }
    say!("Connection closed");
}

// ANCHOR: handler
async fn echo(sock: &mut TcpStream, reply: Reply) -> io::Result<()> {
    let mut buf = vec![0; 16 * 1024];
    let mut out = Vec::new();
    loop {
        let n = recv(sock, &mut buf).await?;
        if n == 0 {
            return Ok(()); // the client closed its side
        }
        out.clear();
        reply.write(&buf[..n], &mut out);
        sendall(sock, &out).await?;
    }
}
// ANCHOR_END: handler

/// Serve on `listener` on scheduler `s` until `stop` is set.
pub fn serve(s: &Scheduler, listener: TcpListener, reply: Reply, stop: Arc<AtomicBool>) {
    s.new_task(tcp_server(s.clone(), listener, reply, stop));
}

fn main() {
    let setup = EchoSetup::from_args_polling(
        "a TCP echo server, a task per connection, polling its sockets",
    );
    let s = Scheduler::new(setup.clock);
    serve(
        &s,
        setup.listener,
        setup.reply,
        Arc::new(AtomicBool::new(false)),
    );
    s.run();
}
