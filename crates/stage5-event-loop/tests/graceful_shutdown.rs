//! The echo server's graceful shutdown (book chapter 7, "The echo server"): stopped by
//! SIGTERM or SIGHUP while 100 clients are in the middle of a transfer, it sends back
//! everything it read, half-closes, drains, and exits with 0; no client sees a reset. A
//! client that never reads cannot hold the shutdown beyond the grace period, and a client
//! that connects once the server has stopped accepting is refused at once, as asyncio's
//! `Server.close` refuses it by closing the listening socket. Each server runs in a child
//! process (see `child_server`), so the signals reach only it. A second SIGINT cuts what
//! is open at once; each of these runs with `--api protocol` and `--api streams` too. A
//! server asked to `--record` writes its run when the signal has stopped it.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

#[allow(dead_code)]
mod child_server;

use std::io::{ErrorKind, Read, Write};

use echo_server::Api;
use loadgen::child::Signal;
use loadgen::client;

const CHILD: &str = "STAGE5_GRACEFUL_CHILD";
const RECORDING_CHILD: &str = "STAGE5_RECORDING_CHILD";

/// Where the child of the test run by process `parent` writes its recording.
fn recording_of(parent: u32) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("echo-{parent}.json"))
}

#[test]
fn a_server_stopped_by_a_signal_writes_the_recording_asked_for() {
    if std::env::var_os(RECORDING_CHILD).is_some() {
        let options = scaffold::Options {
            record: Some(recording_of(std::os::unix::process::parent_id())),
            ..scaffold::Options::default()
        };
        return child_server::serve_with(options, 1, child_server::GRACE, Api::Sock);
    }
    let path = recording_of(std::process::id());
    let (child, addr) = child_server::start(
        "a_server_stopped_by_a_signal_writes_the_recording_asked_for",
        RECORDING_CHILD,
    );
    for _ in 0..3 {
        let mut stream = client::connect(addr).unwrap();
        client::round_trip(&mut stream, b"", b"hello\n").unwrap();
    }
    child.signal(Signal::Term).unwrap();
    let finished = child.finish().unwrap();
    child_server::assert_exited_well(&finished, 3);
    let text = std::fs::read_to_string(&path).expect("the recording is written");
    std::fs::remove_file(&path).expect("the test's own file");
    let trace: serde_json::Value = serde_json::from_str(&text).expect("the JSON parses");
    let events = trace["traceEvents"].as_array().expect("trace events");
    let named = |ph: &str, name: &str| {
        let same = |e: &&serde_json::Value| e["ph"] == ph && e["name"] == name;
        events.iter().filter(same).count()
    };
    // Each client's handler task ran (a track of its own), the loop waited in select, and
    // the scheduler's state was recorded on the way.
    assert!(named("X", "run") >= 3, "too few runs in {text}");
    assert!(named("X", "select") >= 1, "no select in {text}");
    assert!(named("i", "state") >= 3, "no state in {text}");
}

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

/// Left open, the listener let the kernel complete a late client's connection: it waited
/// unserved for the whole grace period, then got a reset.
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

// ANCHOR: second_signal
/// A second Ctrl-C during the grace period means "now": 50 idle clients hold the server
/// in its grace period (90 s), and a second SIGINT closes them at once, says how many on
/// standard error, and exits with 1. The child's watchdog is generous; nothing is timed:
/// had the second signal been ignored, the server would have waited out its grace period
/// and exited with 0, saying `still open after`.
fn a_second_sigint_cuts_the_idle_clients_at_once(test: &str, env: &str) {
    let (child, addr) = child_server::start(test, env);
    let mut idle: Vec<_> = (0..50).map(|_| client::connect(addr).unwrap()).collect();
    for stream in &mut idle {
        client::round_trip(stream, b"", b"served").unwrap(); // accepted and served
    }
    child.signal(Signal::Int).unwrap();
    // The shutdown has begun when each client reads the server's half-close; then the
    // server waits for the clients' ends of stream, which never come.
    for stream in &mut idle {
        stream.set_read_timeout(Some(WATCHDOG)).unwrap();
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "{rest:?}");
    }
    child.signal(Signal::Int).unwrap();
    let finished = child.finish().unwrap();
    let code = finished.status.and_then(|s| s.code());
    assert_eq!(code, Some(1), "{:?}:\n{}", finished.status, finished.stderr);
    let stderr = &finished.stderr;
    assert!(
        stderr.contains("shutdown: second signal: 50 connections cut\n"),
        "{stderr}"
    );
    let error = "error: stopped by a second signal: 50 connections cut\n";
    assert!(stderr.contains(error), "{stderr}");
    assert!(!stderr.contains("still open after"), "{stderr}");
    drop(idle);
}
// ANCHOR_END: second_signal

/// How long a client waits for the server's half-close: far more than it takes.
const WATCHDOG: std::time::Duration = std::time::Duration::from_secs(60);

#[test]
fn a_second_sigint_cuts_the_idle_clients_at_once_sock() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve_api(1, child_server::GRACE, Api::Sock);
    }
    let test = "a_second_sigint_cuts_the_idle_clients_at_once_sock";
    a_second_sigint_cuts_the_idle_clients_at_once(test, CHILD);
}

#[test]
fn a_second_sigint_cuts_the_idle_clients_at_once_protocol() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve_api(1, child_server::GRACE, Api::Protocol);
    }
    let test = "a_second_sigint_cuts_the_idle_clients_at_once_protocol";
    a_second_sigint_cuts_the_idle_clients_at_once(test, CHILD);
}

#[test]
fn a_second_sigint_cuts_the_idle_clients_at_once_streams() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve_api(1, child_server::GRACE, Api::Streams);
    }
    let test = "a_second_sigint_cuts_the_idle_clients_at_once_streams";
    a_second_sigint_cuts_the_idle_clients_at_once(test, CHILD);
}

#[test]
fn sigterm_mid_transfer_echoes_everything_read_then_eof_protocol() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve_api(1, child_server::GRACE, Api::Protocol);
    }
    let test = "sigterm_mid_transfer_echoes_everything_read_then_eof_protocol";
    child_server::stop_mid_transfer(test, CHILD, 20, Signal::Term);
}

#[test]
fn sigterm_mid_transfer_echoes_everything_read_then_eof_streams() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve_api(1, child_server::GRACE, Api::Streams);
    }
    let test = "sigterm_mid_transfer_echoes_everything_read_then_eof_streams";
    child_server::stop_mid_transfer(test, CHILD, 20, Signal::Term);
}

const RAISING_CHILD: &str = "STAGE5_RAISING_CHILD";

/// One more SIGINT once the loop has closed: the second signal has cut the idle clients
/// and the server is on its way out, to say so and exit with 1. The child raises it itself,
/// right after `loops::run` returns, so that it comes after `close` every time. The
/// loop's `close` puts SIGINT's default action back, and before the server held its
/// signals this one ended it by the signal (no exit code) on every API.
fn a_sigint_after_the_loop_closed_is_ignored(test: &str, api: Api) {
    if std::env::var_os(RAISING_CHILD).is_some() {
        let raise = || signal_hook::low_level::raise(signal_hook::consts::SIGINT).unwrap();
        let options = scaffold::Options::default();
        return child_server::serve_then(options, 1, child_server::GRACE, api, raise);
    }
    a_second_sigint_cuts_the_idle_clients_at_once(test, RAISING_CHILD);
}

#[test]
fn a_sigint_after_the_loop_closed_is_ignored_sock() {
    let test = "a_sigint_after_the_loop_closed_is_ignored_sock";
    a_sigint_after_the_loop_closed_is_ignored(test, Api::Sock);
}

#[test]
fn a_sigint_after_the_loop_closed_is_ignored_protocol() {
    let test = "a_sigint_after_the_loop_closed_is_ignored_protocol";
    a_sigint_after_the_loop_closed_is_ignored(test, Api::Protocol);
}

#[test]
fn a_sigint_after_the_loop_closed_is_ignored_streams() {
    let test = "a_sigint_after_the_loop_closed_is_ignored_streams";
    a_sigint_after_the_loop_closed_is_ignored(test, Api::Streams);
}

/// How many times each API gets its three signals.
const RUNS: usize = 5;

/// Three SIGINTs with no gap, `RUNS` times, with 10 idle clients: the server exits with 1
/// when the second cut the clients still there, or with 0 when the three came as one (the loop runs
/// a handler once for deliveries it has not read yet) and the clients then left; never
/// by the signal, whenever the third comes.
fn three_sigints_back_to_back(test: &str, api: Api) {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve_api(1, child_server::GRACE, api);
    }
    for run in 0..RUNS {
        let (child, addr) = child_server::start(test, CHILD);
        let mut idle: Vec<_> = (0..10).map(|_| client::connect(addr).unwrap()).collect();
        for stream in &mut idle {
            client::round_trip(stream, b"", b"served").unwrap();
        }
        for _ in 0..3 {
            child.signal(Signal::Int).unwrap();
        }
        for mut stream in idle {
            stream.set_read_timeout(Some(WATCHDOG)).unwrap();
            // The server's half-close (then our end of stream lets it finish), or its cut
            // (a reset): either is an end.
            drop(stream.read_to_end(&mut Vec::new()));
        }
        let finished = child.finish().unwrap();
        let (status, stderr) = (finished.status, &finished.stderr);
        match status.and_then(|s| s.code()) {
            // The clients read to the end as soon as the first signal half-closes them, so
            // some may have left before the second came: at most the 10 are cut.
            Some(1) => assert!(
                (0..=10).any(|n| stderr.contains(&format!("second signal: {n} connections cut"))),
                "{stderr}"
            ),
            Some(0) => child_server::assert_exited_well(&finished, 10),
            _ => panic!("run {run}: {status:?}, not an exit code:\n{stderr}"),
        }
    }
}

#[test]
fn three_sigints_back_to_back_sock() {
    three_sigints_back_to_back("three_sigints_back_to_back_sock", Api::Sock);
}

#[test]
fn three_sigints_back_to_back_protocol() {
    three_sigints_back_to_back("three_sigints_back_to_back_protocol", Api::Protocol);
}

#[test]
fn three_sigints_back_to_back_streams() {
    three_sigints_back_to_back("three_sigints_back_to_back_streams", Api::Streams);
}
