//! An echo server whose standard output nobody reads (`echo_server --plain | sleep 600`)
//! goes on serving (book chapter 1, "When nobody reads the output").
//!
//! Every closed connection prints `Connection closed`; a pipe holds 64 KiB, about 3,600 of
//! those lines, and then blocks every write to it. The test runs the server in a child
//! process (this test again, see `loadgen::child`) whose standard output is such a pipe,
//! makes 5,000 connect/echo/close cycles, and checks that every client got its echo and
//! that every line either reached the pipe or was counted as dropped.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::time::Duration;

use loadgen::child::ChildTest;
use loadgen::scenario;
use stage4::net::Reply;
use stage4::{Options, Scheduler};

const CHILD: &str = "STAGE4_UNREAD_STDOUT_CHILD";
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
    assert!(
        finished
            .stderr
            .contains(&format!("child: {} connections served", CYCLES + 1)),
        "{}",
        finished.stderr
    );
    // One line per connection, the stop knock included.
    finished.assert_said_lines_written_or_dropped(&["Connection closed"], CYCLES + 1);
}

/// The child: the server prints as the example does with no flags, to the unread pipe.
fn serve_with_stdout_unread() {
    let (_, opened) = scenario::with_server(
        |listener, stop| {
            let clock = Options::default().install();
            let s = Scheduler::new(clock).unwrap();
            echo_server::serve(&s, listener, Reply::Plain, stop);
            s.run().unwrap();
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
