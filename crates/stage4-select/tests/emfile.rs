//! The stage 4 echo server out of file descriptors (book chapter 4, "Out of file
//! descriptors"): `accept` fails with EMFILE; the server says so once, stops accepting for
//! [`ACCEPT_RETRY_DELAY`], serves its open connections meanwhile, and accepts again once
//! descriptors are free.
//!
//! The scenario runs in a child process whose `RLIMIT_NOFILE` is 64 (this test again,
//! through `sh -c 'ulimit -n 64; exec ...'`, see `loadgen::child`), on the virtual clock,
//! one loop iteration at a time, so that it counts iterations instead of timing anything:
//! a server that retried at once would never let the virtual clock move, and would print
//! a line per iteration.
//!
//! On the virtual clock an iteration with nothing ready moves time on, so a connection or
//! a message the kernel delivers late (a busy machine) could be seen "later". After B
//! connects, the test waits for real (bounded) until the listener is readable; the echoes
//! it awaits give the kernel up to 10 ms of real time per iteration (the server's side of
//! A, where `a2` arrives, is inside the server, out of the test's reach).
//!
//! [`ACCEPT_RETRY_DELAY`]: stage4::net::ACCEPT_RETRY_DELAY

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use loadgen::child::ChildTest;
use loadgen::ready::wait_readable;
use stage4::net::{self, Reply};
use stage4::{Scheduler, Transcript, VirtualClock};

use stage4::net::ACCEPT_RETRY_DELAY;

const CHILD: &str = "STAGE4_EMFILE_CHILD";

/// The most loop iterations any step of the scenario may take. Each idle iteration moves
/// the virtual clock 10 ms, so the one-second pause takes about a hundred.
const MAX_ITERATIONS: usize = 1_000;

#[test]
fn out_of_descriptors_the_server_backs_off_and_recovers() {
    if std::env::var_os(CHILD).is_some() {
        return out_of_descriptors();
    }
    let finished = ChildTest::new(
        "out_of_descriptors_the_server_backs_off_and_recovers",
        CHILD,
        Duration::from_secs(120),
    )
    .nofile(64)
    .run()
    .unwrap();
    finished.assert_success();
    let stderr = &finished.stderr;
    assert!(stderr.contains("child: scenario complete"), "{stderr}");
    // One pause, one line: not one per failed `accept`.
    let failures: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("accept failed"))
        .collect();
    assert_eq!(failures.len(), 1, "{stderr}");
    assert!(
        failures[0].contains("accepting again in 1 s"),
        "{}",
        failures[0]
    );
}

/// The server on the virtual clock, stepped by the test.
struct Stepper {
    s: Scheduler,
    iterations: usize,
}

impl Stepper {
    /// Run loop iterations until `done`, at most [`MAX_ITERATIONS`]. A timer 10 ms ahead
    /// makes every iteration finish: with no socket ready, the virtual clock jumps to it.
    fn until(&mut self, what: &str, mut done: impl FnMut(&Scheduler) -> bool) {
        for _ in 0..MAX_ITERATIONS {
            if done(&self.s) {
                return;
            }
            self.s.call_later(Duration::from_millis(10), |_| {});
            self.s.run_once().unwrap();
            self.iterations += 1;
        }
        panic!(
            "{what}: not within {MAX_ITERATIONS} loop iterations (virtual time {:.3} s)",
            self.s.time().as_secs_f64()
        );
    }
}

/// Send `message` on `client` (non-blocking) and step until it comes back.
fn echo(stepper: &mut Stepper, client: &mut TcpStream, message: &[u8]) {
    client.write_all(message).unwrap();
    echoed(stepper, client, message);
}

/// Step until `message`, sent earlier, has come back on `client`.
fn echoed(stepper: &mut Stepper, client: &mut TcpStream, message: &[u8]) {
    let mut got = Vec::new();
    let mut buf = [0; 64];
    stepper.until("an echo", |_| {
        match client.read(&mut buf) {
            Ok(n) => got.extend_from_slice(&buf[..n]),
            // Nothing yet: give the kernel up to 10 ms, for real, then another iteration.
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                wait_readable(&*client, Duration::from_millis(10)).unwrap();
            }
            Err(e) => panic!("the client's read failed: {e}"),
        }
        got.len() >= message.len()
    });
    assert_eq!(got, message);
}

fn connect(addr: SocketAddr) -> TcpStream {
    let client = TcpStream::connect(addr).unwrap();
    client.set_nonblocking(true).unwrap();
    client
}

/// The child, with at most 64 descriptors: A is served; the descriptor table is filled;
/// B's connection cannot be accepted. The server says so and sleeps for a second, while A
/// is still served; descriptors are freed at 0.5 s; at 1 s B is accepted and served, and
/// so is C after it.
fn out_of_descriptors() {
    let clock = VirtualClock::new();
    let transcript = Transcript::capture(clock.clone(), false);
    let s = Scheduler::new(clock).unwrap();
    let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    // The same listening socket, for the test to see a connection arrive.
    let listening = listener.try_clone().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    echo_server::serve(&s, listener, Reply::Plain, stop.clone());
    let mut stepper = Stepper { s, iterations: 0 };

    let mut a = connect(addr);
    echo(&mut stepper, &mut a, b"a1");
    // Fill the descriptor table, keeping one for B's client socket.
    let mut filler = Vec::new();
    while let Ok(file) = File::open("/dev/null") {
        filler.push(file);
    }
    filler.pop();
    let mut b = connect(addr);
    // B must be waiting to be accepted before the virtual clock moves: descriptors are
    // freed at 0.5 s.
    assert!(
        wait_readable(&listening, Duration::from_secs(10)).unwrap(),
        "B's connection not delivered"
    );
    b.write_all(b"b1").unwrap();
    stepper
        .s
        .call_later(Duration::from_millis(500), move |_| drop(filler));
    // The server is out of descriptors; A's connection is served all the same.
    echo(&mut stepper, &mut a, b"a2");
    assert!(
        stepper.s.time() < ACCEPT_RETRY_DELAY,
        "A waited for the pause"
    );
    // B is accepted when the pause is over, and served.
    echoed(&mut stepper, &mut b, b"b1");
    assert!(
        stepper.s.time() >= ACCEPT_RETRY_DELAY,
        "B was accepted at once"
    );
    let mut c = connect(addr);
    echo(&mut stepper, &mut c, b"c1");

    drop((a, b, c));
    stop.store(true, Ordering::Relaxed);
    drop(TcpStream::connect(addr).unwrap()); // the knock: the server checks `stop`
    stepper.s.run().unwrap();
    let closed = loadgen::scenario::closed_count(&transcript.text());
    assert_eq!(closed, 4, "A, B, C and the knock:\n{}", transcript.text());
    eprintln!(
        "child: scenario complete in {} loop iterations, {:.3} s virtual",
        stepper.iterations,
        stepper.s.time().as_secs_f64()
    );
}
