//! The stage 1 echo server with real clients on 127.0.0.1: several at once, a reset and a
//! half-close (the scenario every stage runs, from `loadgen::scenario`). The server runs
//! the example's own `serve` on its own thread, on the real clock (its 10 ms polls are the
//! thing under test).

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::net::SocketAddr;

use loadgen::scenario::{self};
use stage1::net::Reply;
use stage1::{RealClock, Scheduler, Transcript};

/// Serve with `reply` while `clients` runs; the server's output and the connection count.
fn with_server(reply: Reply, clients: impl FnOnce(SocketAddr) -> usize) -> (String, usize) {
    scenario::with_server(
        move |listener, stop| {
            let clock = RealClock::new();
            let transcript = Transcript::capture(clock.clone(), false);
            let s = Scheduler::new(clock);
            s.call_soon(move |s| echo_server::serve(s, listener, reply, stop));
            s.run();
            transcript.text()
        },
        clients,
    )
}

#[test]
fn serves_several_clients_at_once_and_survives_a_reset() {
    scenario::assert_all_closed(with_server(Reply::Got, |addr| {
        scenario::several_clients_reset_and_half_close(addr, b"Got:", 8).unwrap()
    }));
}

#[test]
fn plain_mode_echoes_bytes_unchanged() {
    scenario::assert_all_closed(with_server(Reply::Plain, scenario::one_plain_round_trip));
}
