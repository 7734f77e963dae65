//! The echo server's graceful shutdown (book chapter 7, "The echo server"): stopped by
//! SIGTERM or SIGHUP while 100 clients are in the middle of a transfer, it sends back
//! everything it read, half-closes, drains, and exits with 0; no client sees a reset. A
//! client that never reads cannot hold the shutdown beyond the grace period. Each server
//! runs in a child process (see `child_server`), so the signals reach only it.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

#[allow(dead_code)]
mod child_server;

use std::io::Write;

use loadgen::child::Signal;
use loadgen::client;

const CHILD: &str = "STAGE5_GRACEFUL_CHILD";

#[test]
fn sigterm_mid_transfer_echoes_everything_read_then_eof() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(1, child_server::GRACE);
    }
    child_server::stop_mid_transfer(
        "sigterm_mid_transfer_echoes_everything_read_then_eof",
        CHILD,
        100,
        Signal::Term,
    );
}

#[test]
fn sighup_shuts_down_gracefully_too() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(1, child_server::GRACE);
    }
    child_server::stop_mid_transfer("sighup_shuts_down_gracefully_too", CHILD, 20, Signal::Hup);
}

#[test]
fn a_client_that_never_reads_is_closed_when_the_grace_period_ends() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(1, 0.5);
    }
    let (mut child, addr) = child_server::start(
        "a_client_that_never_reads_is_closed_when_the_grace_period_ends",
        CHILD,
    );
    // One round trip: the server has accepted us. Then send until every buffer between us
    // and the server is full: the server then waits in `sock_sendall` for a reader that
    // never comes.
    let mut stream = client::connect(addr).unwrap();
    client::round_trip(&mut stream, b"", b"served").unwrap();
    stream.set_nonblocking(true).unwrap();
    let chunk = vec![b'x'; 64 << 10];
    let mut sent = 0usize;
    while sent < 256 << 20 {
        match stream.write(&chunk) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) => panic!("{e}"),
        }
    }
    // Whether the server is stuck sending to us or, not having read yet, draining what we
    // sent and waiting for our end of stream, only the grace period ends it.
    child.signal(Signal::Term).unwrap();
    child
        .stderr_line(|l| l.contains("still open after"))
        .unwrap();
    let finished = child.finish().unwrap();
    drop(stream);
    child_server::assert_exited_well(&finished, 1);
    assert!(
        finished
            .stderr
            .contains("shutdown: 1 connection still open after 0.5 s: closed"),
        "{}",
        finished.stderr
    );
}
