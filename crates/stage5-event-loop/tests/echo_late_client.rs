//! A client that connects while the echo server shuts down (book chapter 7, "The echo
//! server"): the server has stopped accepting, so the connection must be refused at once,
//! as asyncio's `Server.close` refuses it by closing the listening socket. Left open, the
//! listener let the kernel complete the connection; the client waited unserved for the
//! whole grace period, then got a reset. The server runs in a child process (see
//! `child_server`), so the signal reaches only it.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

#[allow(dead_code)]
mod child_server;

use std::io::{ErrorKind, Read};

use loadgen::child::Signal;
use loadgen::client;

const CHILD: &str = "STAGE5_LATE_CLIENT_CHILD";

#[test]
fn a_client_that_connects_during_the_shutdown_is_refused_at_once() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(1, child_server::GRACE);
    }
    let (child, addr) = child_server::start(
        "a_client_that_connects_during_the_shutdown_is_refused_at_once",
        CHILD,
    );
    // A client that stays: served once, it keeps the server in its grace period.
    let mut stays = client::connect(addr).unwrap();
    client::round_trip(&mut stays, b"", b"served").unwrap();
    child.signal(Signal::Term).unwrap();
    // The server half-closes our connection once it has stopped accepting.
    let mut rest = Vec::new();
    stays.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "{rest:?}");
    let late = client::connect(addr).map(drop);
    let refused = late.as_ref().map_err(|e| e.kind());
    assert_eq!(refused, Err(ErrorKind::ConnectionRefused), "{late:?}");
    drop(stays); // our end of stream: the server's last connection closes
    let finished = child.finish().unwrap();
    child_server::assert_exited_well(&finished, 1);
}
