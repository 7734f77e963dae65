//! The echo server stopped by signals (book chapter 10, "The echo server on the
//! proactor"; asyncio's `Server.close` and the runner's Ctrl-C): one SIGINT stops the
//! accept in flight and every read, half-closes each connection and waits for the clients
//! to close theirs, then exits with 0; a second SIGINT cuts what is still open and exits
//! with 1. Each server is this test binary run again as a child (see `loadgen::child`),
//! so the signals reach only it; each runs with `--api sock` and `--api protocol`.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::io::Read;
use std::net::SocketAddr;
use std::time::Duration;

use echo_server::{Api, Settings};
use loadgen::child::{ChildTest, Running, Signal};
use loadgen::client;
use scaffold::Options;
use scaffold::net::Reply;

const CHILD: &str = "STAGE6_SHUTDOWN_CHILD";

/// How long a child may run before it is killed; how long a client waits for the
/// server's half-close. Far more than either takes: nothing is timed.
const LIMIT: Duration = Duration::from_secs(120);

/// The child's part: serve with `api` on a free port until the signals stop it; exit
/// with the server's status.
fn serve(api: Api) {
    let clock = Options::default().install();
    let listener = scaffold::net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    eprintln!("listening on {}", listener.local_addr().unwrap());
    let ring = stage6::ring_or_exit("child");
    let lp = stage6::ProactorLoop::new(ring, clock).unwrap();
    let settings = Settings {
        api,
        grace: 90.0, // long: only the clients' closes or a second signal end it
        ..Settings::new(Reply::Plain)
    };
    let status = echo_server::run(&lp, listener, settings).unwrap();
    drop(lp);
    scaffold::console::flush();
    std::process::exit(status);
}

/// Start the child of `test`, and wait until it listens.
fn start(test: &str) -> (Running, SocketAddr) {
    let mut child = ChildTest::new(test, CHILD, LIMIT).spawn().unwrap();
    let line = child
        .stderr_line(|l| l.starts_with("listening on "))
        .unwrap();
    (child, line["listening on ".len()..].trim().parse().unwrap())
}

/// `n` clients, each served once, then waiting.
fn idle_clients(addr: SocketAddr, n: usize) -> Vec<std::net::TcpStream> {
    let mut idle: Vec<_> = (0..n).map(|_| client::connect(addr).unwrap()).collect();
    for stream in &mut idle {
        client::round_trip(stream, b"", b"served").unwrap();
    }
    idle
}

/// Each client reads the server's half-close: the shutdown has begun.
fn read_half_close(idle: &mut [std::net::TcpStream]) {
    for stream in idle {
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "{rest:?}");
    }
}

fn one_sigint_waits_for_the_clients_then_exits_0(test: &str) {
    let (child, addr) = start(test);
    let mut idle = idle_clients(addr, 20);
    child.signal(Signal::Int).unwrap();
    read_half_close(&mut idle);
    drop(idle); // our ends: the server's last connections close
    let finished = child.finish().unwrap();
    let code = finished.status.and_then(|s| s.code());
    assert_eq!(code, Some(0), "{:?}:\n{}", finished.status, finished.stderr);
    assert!(
        finished.stdout.contains("clients served: 20\n"),
        "{}",
        finished.stdout
    );
    let closed = finished.stdout.matches("Connection closed").count();
    assert_eq!(closed, 20, "{}", finished.stdout);
}

// ANCHOR: second_signal
fn a_second_sigint_cuts_the_idle_clients_and_exits_1(test: &str) {
    let (child, addr) = start(test);
    let mut idle = idle_clients(addr, 20);
    child.signal(Signal::Int).unwrap();
    read_half_close(&mut idle); // the clients never close: the grace period would be 90 s
    child.signal(Signal::Int).unwrap();
    let finished = child.finish().unwrap();
    let code = finished.status.and_then(|s| s.code());
    assert_eq!(code, Some(1), "{:?}:\n{}", finished.status, finished.stderr);
    assert!(
        finished.stdout.contains("cut 20 connections\n"),
        "{}",
        finished.stdout
    );
    drop(idle);
}
// ANCHOR_END: second_signal

#[test]
fn one_sigint_waits_for_the_clients_then_exits_0_sock() {
    if std::env::var_os(CHILD).is_some() {
        return serve(Api::Sock);
    }
    if stage6::setup::ring().is_ok() {
        one_sigint_waits_for_the_clients_then_exits_0(
            "one_sigint_waits_for_the_clients_then_exits_0_sock",
        );
    }
}

#[test]
fn one_sigint_waits_for_the_clients_then_exits_0_protocol() {
    if std::env::var_os(CHILD).is_some() {
        return serve(Api::Protocol);
    }
    if stage6::setup::ring().is_ok() {
        one_sigint_waits_for_the_clients_then_exits_0(
            "one_sigint_waits_for_the_clients_then_exits_0_protocol",
        );
    }
}

#[test]
fn a_second_sigint_cuts_the_idle_clients_and_exits_1_sock() {
    if std::env::var_os(CHILD).is_some() {
        return serve(Api::Sock);
    }
    if stage6::setup::ring().is_ok() {
        a_second_sigint_cuts_the_idle_clients_and_exits_1(
            "a_second_sigint_cuts_the_idle_clients_and_exits_1_sock",
        );
    }
}

#[test]
fn a_second_sigint_cuts_the_idle_clients_and_exits_1_protocol() {
    if std::env::var_os(CHILD).is_some() {
        return serve(Api::Protocol);
    }
    if stage6::setup::ring().is_ok() {
        a_second_sigint_cuts_the_idle_clients_and_exits_1(
            "a_second_sigint_cuts_the_idle_clients_and_exits_1_protocol",
        );
    }
}
