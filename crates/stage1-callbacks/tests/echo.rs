//! The stage 1 echo server with real clients on 127.0.0.1: several at once, replies
//! checked, one that resets abruptly and one that half-closes. The server runs the
//! example's own `serve` on its own thread, on the real clock (its 10 ms polls are the
//! thing under test).

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use loadgen::client;
use loadgen::scenario::{self, closed_count};
use stage1::net::{self, Reply};
use stage1::{RealClock, Scheduler, Transcript};

/// Start the example's server on a free port; returns its address, the stop flag, and the
/// thread that returns everything the server printed.
fn start(reply: Reply) -> (SocketAddr, Arc<AtomicBool>, thread::JoinHandle<String>) {
    let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let server = thread::spawn(move || {
        let clock = RealClock::new();
        let transcript = Transcript::capture(clock.clone(), false);
        let s = Scheduler::new(clock);
        s.call_soon(move |s| echo_server::serve(s, listener, reply, flag));
        s.run();
        transcript.text()
    });
    (addr, stop, server)
}

#[test]
fn serves_several_clients_at_once_and_survives_a_reset() {
    let (addr, stop, server) = start(Reply::Got);
    let opened = scenario::several_clients_reset_and_half_close(addr, b"Got:", 8).unwrap();
    stop.store(true, Ordering::Relaxed);
    let text = server.join().unwrap();
    assert_eq!(closed_count(&text), opened, "{text}");
}

#[test]
fn plain_mode_echoes_bytes_unchanged() {
    let (addr, stop, server) = start(Reply::Plain);
    let mut stream = client::connect(addr).unwrap();
    client::round_trip(&mut stream, b"", b"plain bytes").unwrap();
    drop(stream);
    stop.store(true, Ordering::Relaxed);
    assert_eq!(closed_count(&server.join().unwrap()), 1);
}
