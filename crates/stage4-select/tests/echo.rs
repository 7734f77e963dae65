//! The stage 4 echo server with real clients on 127.0.0.1: 200 concurrent clients with
//! several messages each, a 4 MiB message that forces partial writes, a client that resets
//! mid-stream and one that half-closes; after each, the server goes on serving.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::net::SocketAddr;

use loadgen::client;
use loadgen::scenario::{self};
use stage4::net::Reply;
use stage4::{RealClock, Scheduler, Transcript};

/// Serve with `reply` while `clients` runs; the server's output and the connection count.
fn with_server(reply: Reply, clients: impl FnOnce(SocketAddr) -> usize) -> (String, usize) {
    scenario::with_server(
        move |listener, stop| {
            let clock = RealClock::new();
            let transcript = Transcript::capture(clock.clone(), false);
            let s = Scheduler::new(clock).unwrap();
            echo_server::serve(&s, listener, reply, stop);
            s.run().unwrap();
            transcript.text()
        },
        clients,
    )
}

#[test]
fn two_hundred_clients_a_reset_and_a_half_close() {
    scenario::assert_all_closed(with_server(Reply::Got, |addr| {
        scenario::several_clients_reset_and_half_close(addr, b"Got:", 200).unwrap()
    }));
}

#[test]
fn a_4_mib_message_comes_back_intact() {
    scenario::assert_all_closed(with_server(Reply::Plain, |addr| {
        scenario::big_message(addr, 4 << 20).unwrap();
        // And the server still serves the next client.
        let mut stream = client::connect(addr).unwrap();
        client::round_trip(&mut stream, b"", b"after the big one").unwrap();
        2
    }));
}

#[test]
fn a_client_that_resets_mid_stream_does_not_stop_the_server() {
    scenario::assert_all_closed(with_server(Reply::Plain, |addr| {
        scenario::reset_mid_stream(addr).unwrap();
        let mut stream = client::connect(addr).unwrap();
        for n in 0..3 {
            client::round_trip(&mut stream, b"", &client::message(0, n, 100)).unwrap();
        }
        2
    }));
}
