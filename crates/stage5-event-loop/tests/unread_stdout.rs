//! The stage 5 echo server with a standard output nobody reads (`echo_server --plain |
//! sleep 600`) goes on serving (book chapter 1, "When nobody reads the output"). The same
//! scenario as stage 4's `tests/unread_stdout.rs`: a child process whose standard output
//! is a pipe that fills up after about 3,600 `Connection closed` lines, 5,000
//! connect/echo/close cycles, every client answered, every line written or counted.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::time::Duration;

use loadgen::child::ChildTest;
use loadgen::scenario;
use stage1::Options;
use stage1::net::Reply;
use stage5::EventLoop;

const CHILD: &str = "STAGE5_UNREAD_STDOUT_CHILD";
const CYCLES: usize = 5_000;

#[test]
fn a_server_whose_stdout_nobody_reads_serves_every_client() {
    if std::env::var_os(CHILD).is_some() {
        return serve_with_stdout_unread();
    }
    let finished = ChildTest::new(
        "a_server_whose_stdout_nobody_reads_serves_every_client",
        CHILD,
        Duration::from_secs(120),
    )
    .unread_stdout()
    .run()
    .unwrap();
    let served = CYCLES + 1; // the stop knock included
    assert!(
        finished
            .stderr
            .contains(&format!("child: {served} connections served")),
        "{}",
        finished.stderr
    );
    // One line per connection, and the count when the server stops.
    finished.assert_said_lines_written_or_dropped(
        &["Connection closed", &format!("clients served: {served}")],
        served + 1,
    );
}

/// The child: the server prints as the example does with no flags, to the unread pipe.
fn serve_with_stdout_unread() {
    let (_, opened) = scenario::with_server(
        |listener, stop| {
            let lp = EventLoop::with_clock(Options::default().install());
            let server = echo_server::serve(&lp, listener, Reply::Plain, Some(stop)).unwrap();
            lp.run_forever().unwrap();
            lp.close().unwrap();
            drop(server);
            String::new() // its lines went to standard output
        },
        |addr| {
            scenario::connect_close_cycles(addr, CYCLES).unwrap_or_else(|error| {
                // Exit at once: the test harness's own report would block on the full pipe.
                eprintln!("child: a client failed: {error}");
                std::process::exit(1)
            })
        },
    );
    eprintln!("child: {opened} connections served");
    // Not back to the harness, whose report would go to the full pipe.
    std::process::exit(0);
}
