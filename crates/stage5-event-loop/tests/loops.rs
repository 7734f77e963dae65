//! `echo_server --loops N` (the book's "Beyond one core"): N event loops on N threads,
//! each accepting on the same port with `SO_REUSEPORT`. With two loops, 200 connections
//! reach both (the kernel hashes each connection's addresses and ports: all 200 landing on
//! one loop has a chance of 2 in 2^200); and a shutdown while 100 clients are in the middle
//! of a transfer loses nothing on either loop. Each server runs in a child process (see
//! `child_server`), so the signals reach only it.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

#[allow(dead_code)]
mod child_server;

use loadgen::child::{Signal, complete_lines};
use loadgen::client;

const CHILD: &str = "STAGE5_LOOPS_CHILD";

// ANCHOR: both_loops
#[test]
fn two_loops_each_serve_some_of_200_connections() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(2, 5.0);
    }
    let (child, addr) = child_server::start("two_loops_each_serve_some_of_200_connections", CHILD);
    for n in 0..200 {
        let mut stream = client::connect(addr).unwrap();
        client::round_trip(&mut stream, b"", &client::message(n, 0, 32)).unwrap();
    }
    child.signal(Signal::Int).unwrap();
    let finished = child.finish().unwrap();
    child_server::assert_exited_well(&finished, 200);
    let (summary, per_loop) = child_server::report(&finished);
    assert_eq!(summary.served, 200);
    assert_eq!(per_loop.len(), 2);
    assert_eq!(per_loop.iter().sum::<usize>(), 200);
    assert!(per_loop.iter().all(|&n| n > 0), "{per_loop:?}");
    // Each loop says what it served, on its own console.
    for (i, n) in per_loop.iter().enumerate() {
        let line = format!("loop {i}: clients served: {n}");
        assert_eq!(complete_lines(&finished.stdout, &line), 1, "{line}");
    }
}
// ANCHOR_END: both_loops

#[test]
fn sigterm_mid_transfer_with_two_loops_loses_nothing() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(2, 20.0);
    }
    let finished = child_server::stop_mid_transfer(
        "sigterm_mid_transfer_with_two_loops_loses_nothing",
        CHILD,
        100,
        Signal::Term,
    );
    let (_, per_loop) = child_server::report(&finished);
    assert_eq!(per_loop.len(), 2);
}
