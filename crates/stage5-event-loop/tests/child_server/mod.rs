//! The echo server in a child process, stopped by a signal (book chapter 7, "The echo
//! server", and "Beyond one core"): shared by `tests/graceful_shutdown.rs` and
//! `tests/loops.rs`.
//!
//! The child is the test binary itself, run again with an environment variable set (see
//! `loadgen::child`): it serves as the example's `main` does, through the example's own
//! `loops::run`, with the signal handlers `main` installs, and says on standard error
//! where it listens and, once stopped, what it served. The parent drives clients against
//! it and sends it a signal, by its process id only.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use loadgen::child::{ChildTest, Finished, Running, Signal, complete_lines};
use loadgen::stream::{self, End};
use scaffold::Options;
use scaffold::net::Reply;

use crate::echo_server::loops::{self, Config};
use crate::echo_server::{Api, Settings, Summary};

/// The grace period of the servers stopped mid-transfer. A clean drain ends in
/// milliseconds; the period only bounds a drain that never ends, so it is long, lest a slow
/// machine's drain be cut short (and its clients reset) by a deadline.
pub const GRACE: f64 = 90.0;

/// How long a child may run before it is killed: far more than any scenario needs, the
/// clients' 60 s to get going and the grace period included.
const LIMIT: Duration = Duration::from_secs(240);

/// The child's part: serve on 127.0.0.1 (a free port) with `loops` loops and `--grace
/// grace` until a signal stops it, then report what it served.
pub fn serve(loops: usize, grace: f64) {
    serve_api(loops, grace, Api::Sock);
}

/// [`serve`] with `--api api`. Fails as the example's `main` does: `error: ...`, exit 1.
pub fn serve_api(loops: usize, grace: f64, api: Api) {
    // Plain lines on standard output, as with no flags.
    serve_with(Options::default(), loops, grace, api);
}

/// [`serve_api`] with `options` (`--record`, say), finished as the example's `main`
/// finishes them once the loops have stopped.
pub fn serve_with(options: Options, loops: usize, grace: f64, api: Api) {
    serve_then(options, loops, grace, api, || {});
}

/// [`serve_with`], with `then` run as soon as `loops::run` has returned (loop 0 closed),
/// before anything else: a signal raised there, say.
pub fn serve_then(options: Options, loops: usize, grace: f64, api: Api, then: impl FnOnce()) {
    let clock = options.install();
    let any_port: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let listener: TcpListener = Settings::listen(any_port, loops).unwrap();
    eprintln!("listening on {}", listener.local_addr().unwrap());
    let config = Config {
        settings: Settings {
            grace,
            api,
            ..Settings::new(Reply::Plain)
        },
        loops,
        with_producer: None,
    };
    let outcome = loops::run(clock, options.clone(), listener, &config);
    then();
    options.finish();
    let summaries = outcome.unwrap_or_else(|error| scaffold::cli::exit_with_error(error));
    let total = summaries.iter().fold(Summary::default(), |t, s| Summary {
        served: t.served + s.served,
        read: t.read + s.read,
        echoed: t.echoed + s.echoed,
        cut: t.cut + s.cut,
    });
    let per_loop: Vec<usize> = summaries.iter().map(|s| s.served).collect();
    eprintln!(
        "child: served {} read {} echoed {} per loop {per_loop:?}",
        total.served, total.read, total.echoed
    );
}

/// Start this binary's test `test` as the server child, and wait until it listens.
pub fn start(test: &str, env: &str) -> (Running, SocketAddr) {
    let mut child = ChildTest::new(test, env, LIMIT).spawn().unwrap();
    let line = child
        .stderr_line(|l| l.starts_with("listening on "))
        .unwrap();
    let addr = line["listening on ".len()..].trim().parse().unwrap();
    (child, addr)
}

/// What the child reported once stopped: served, read, echoed, and served per loop.
pub fn report(finished: &Finished) -> (Summary, Vec<usize>) {
    let line = finished
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("child: served "))
        .unwrap_or_else(|| panic!("no report from the child:\n{}", finished.stderr));
    let words: Vec<&str> = line.split(' ').collect();
    let summary = Summary {
        served: words[0].parse().unwrap(),
        read: words[2].parse().unwrap(),
        echoed: words[4].parse().unwrap(),
        cut: 0,
    };
    let list = line
        .split_once("per loop [")
        .unwrap()
        .1
        .trim_end_matches(']');
    let per_loop = list.split(", ").map(|n| n.parse().unwrap()).collect();
    (summary, per_loop)
}

/// Check that the child exited with 0 and printed `clients served: N` once.
pub fn assert_exited_well(finished: &Finished, served: usize) {
    assert!(
        finished.status.is_some_and(|s| s.success()),
        "the server failed or overran ({:?}):\n{}",
        finished.status,
        finished.stderr
    );
    let line = format!("clients served: {served}");
    assert_eq!(
        complete_lines(&finished.stdout, &line),
        1,
        "no `{line}` line:\n{}",
        finished.stdout
    );
}

// ANCHOR: mid_transfer
/// `clients` clients stream to the server child of test `test`; once each has had 64 KiB
/// back, the child gets `signal`. A graceful shutdown: every client gets back exactly the
/// bytes the server read from it, then the end of the stream, and no reset; the server
/// exits with 0. Returns what the child reported.
pub fn stop_mid_transfer(test: &str, env: &str, clients: usize, signal: Signal) -> Finished {
    let (child, addr) = start(test, env);
    let streams = stream::start(addr, clients, 256 << 20).unwrap();
    streams
        .wait_until_each_received(64 << 10, Duration::from_secs(60))
        .unwrap();
    child.signal(signal).unwrap();
    let transfers = streams.finish();
    let finished = child.finish().unwrap();
    let unclean: Vec<_> = transfers.iter().filter(|t| t.end != End::Eof).collect();
    assert!(
        unclean.is_empty(),
        "{} of {clients} clients did not end with a clean end of stream, e.g. {:?}",
        unclean.len(),
        unclean[0]
    );
    assert_exited_well(&finished, clients);
    let (server, _) = report(&finished);
    let sent: u64 = transfers.iter().map(|t| t.sent).sum();
    let received: u64 = transfers.iter().map(|t| t.received).sum();
    // Per connection the server echoes at most what it read, and a client gets at most
    // what was echoed to it: equal sums mean equal for every client.
    assert_eq!(server.served, clients);
    assert_eq!(server.read, server.echoed, "everything read was sent back");
    assert_eq!(received, server.echoed, "and everything sent back arrived");
    assert!(
        sent > received,
        "the clients were mid-transfer: {sent} sent"
    );
    finished
}
// ANCHOR_END: mid_transfer
