//! `test_accept_connection_exception`: a server whose process runs out of file descriptors
//! (book chapter 7, "Out of file descriptors"). CPython's test makes a mock `accept` raise
//! EMFILE; ours runs out for real, in a child process whose `RLIMIT_NOFILE` is 64: the
//! test runs again through `sh -c 'ulimit -n 64; exec ...'` (see `loadgen::child`), with
//! an environment variable that makes the child run the scenario.
//!
//! The scenario steps the loop on the virtual clock, one iteration at a time, and counts
//! iterations instead of timing anything. Right after it connects or sends, it waits for
//! real (bounded) until the server's side is readable, so that a late delivery by the
//! kernel cannot let the virtual clock jump past the moment it checks.

#![allow(non_snake_case)]

use std::cell::RefCell;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::time::Duration;

use loadgen::child::ChildTest;
use loadgen::ready::wait_readable;
use stage5::{ACCEPT_RETRY_DELAY, EventLoop, VirtualClock};

const CHILD: &str = "STAGE5_EMFILE_CHILD";

/// The most loop iterations any step of the scenario may take. Each idle iteration moves
/// the virtual clock 10 ms, so the one-second pause takes about a hundred.
const MAX_ITERATIONS: usize = 1_000;

/// How long the scenario waits, for real, for the kernel to deliver what it sent.
const DELIVERY: Duration = Duration::from_secs(10);

#[test]
fn test_accept_connection_exception() {
    if std::env::var_os(CHILD).is_some() {
        return out_of_descriptors();
    }
    let finished = ChildTest::new(
        "test_accept_connection_exception",
        CHILD,
        Duration::from_secs(120),
    )
    .nofile(64)
    .run()
    .unwrap();
    finished.assert_success();
    let (stdout, stderr) = (&finished.stdout, &finished.stderr);
    assert!(stdout.contains("1 passed"), "{stdout}\n{stderr}");
    assert!(stderr.contains("child: scenario complete"), "{stderr}");
}

/// Run loop iterations until `done`, at most [`MAX_ITERATIONS`]. A timer 10 ms ahead
/// makes every iteration finish: with no event ready, the virtual clock moves 10 ms
/// instead of waiting in select for ever.
fn step_until(lp: &EventLoop, what: &str, mut done: impl FnMut(&EventLoop) -> bool) {
    for _ in 0..MAX_ITERATIONS {
        if done(lp) {
            return;
        }
        lp.call_later(0.01, |_| {}).unwrap();
        lp.run_once().unwrap();
    }
    panic!(
        "{what}: not within {MAX_ITERATIONS} loop iterations (virtual time {:.3} s)",
        lp.time()
    );
}

/// Wait, for real, until the kernel has delivered to `fd` what the test just did.
fn delivered(fd: &impl std::os::fd::AsFd, what: &str) {
    assert!(
        wait_readable(fd, DELIVERY).unwrap(),
        "{what}: not delivered"
    );
}

/// The child, with at most 64 descriptors: connection A is served; the table is filled
/// up; connection B's accept fails with EMFILE. The loop reports it, removes the
/// listener's reader, and tries again 1 s later; meanwhile A still gets its echo.
/// Descriptors are freed at 0.5 s, and at 1.000 B is accepted and served.
fn out_of_descriptors() {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let reports = Rc::new(RefCell::new(Vec::new()));
    let r = reports.clone();
    lp.set_exception_handler(Some(Rc::new(move |lp, context| {
        let errno = match &context.exception {
            Some(stage5::Error::Io(e)) => e.raw_os_error(),
            _ => None,
        };
        r.borrow_mut()
            .push((lp.time(), context.message.clone(), errno));
    })));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let listener_fd = listener.as_raw_fd();
    // The same listening socket, for the test to see a connection arrive.
    let listening = listener.try_clone().unwrap();
    let accepted = Rc::new(RefCell::new(Vec::new()));
    // A's socket on the server's side, for the test to see A's message arrive. Only A's:
    // B's accept takes the last descriptor but one, which the next accept needs.
    let server_side_a = Rc::new(RefCell::new(None));
    let (a, side) = (accepted.clone(), server_side_a.clone());
    let _server = lp
        .start_serving(listener, 100, move |lp, sock, _| {
            a.borrow_mut().push(lp.time());
            if side.borrow().is_none() {
                *side.borrow_mut() = Some(sock.try_clone().unwrap());
            }
            let l = lp.clone();
            lp.create_task(async move {
                while let Ok(data) = l.sock_recv(&sock, 100).await {
                    if data.is_empty() || l.sock_sendall(&sock, &data).await.is_err() {
                        break;
                    }
                }
                Ok(())
            })
            .unwrap();
        })
        .unwrap();

    let mut client_a = TcpStream::connect(addr).unwrap();
    delivered(&listening, "A's connection");
    step_until(&lp, "A accepted", |_| !accepted.borrow().is_empty());
    // ANCHOR: fill_the_table
    // Fill the descriptor table, keeping one for B's client socket.
    let mut filler = Vec::new();
    while let Ok(file) = File::open("/dev/null") {
        filler.push(file);
    }
    filler.pop();
    let mut client_b = TcpStream::connect(addr).unwrap();
    delivered(&listening, "B's connection");
    client_a.write_all(b"still here").unwrap();
    delivered(server_side_a.borrow().as_ref().unwrap(), "A's message");
    // Free two descriptors at 0.5 s, during the pause: one for B, and one because
    // Linux's `accept` takes a descriptor before it looks for a connection (the accept
    // after B's would fail with EMFILE again instead of EAGAIN, and pause again).
    let spare = RefCell::new(filler.split_off(filler.len() - 2));
    lp.call_later(0.5, move |_| drop(spare.take())).unwrap();
    step_until(&lp, "B's accept fails", |_| !reports.borrow().is_empty());
    assert_eq!(
        *reports.borrow(),
        [(
            0.0,
            "socket.accept() out of system resource".to_string(),
            Some(libc::EMFILE)
        )]
    );
    assert!(!lp.has_reader(listener_fd), "accepting stopped");
    // ANCHOR_END: fill_the_table
    // Existing connections go on during the pause.
    step_until(&lp, "accepting again", |lp| {
        if lp.time() < ACCEPT_RETRY_DELAY {
            assert!(!lp.has_reader(listener_fd));
        }
        lp.has_reader(listener_fd)
    });
    let mut echo = [0u8; 10];
    client_a.set_read_timeout(Some(DELIVERY)).unwrap();
    client_a.read_exact(&mut echo).unwrap();
    assert_eq!(&echo, b"still here");
    assert_eq!(lp.time(), ACCEPT_RETRY_DELAY, "accepting resumes after 1 s");
    step_until(&lp, "B accepted", |_| accepted.borrow().len() >= 2);
    assert_eq!(*accepted.borrow(), [0.0, 1.0]);
    client_b.write_all(b"hi").unwrap();
    client_b.set_nonblocking(true).unwrap();
    let mut hi = [0u8; 2];
    // No clock is checked from here on: each iteration gives the kernel up to 10 ms, for
    // real, to deliver B's message and its echo.
    step_until(&lp, "B's echo", |_| match client_b.read(&mut hi) {
        Ok(_) => true,
        // Not yet: wait a little for it, then another iteration.
        Err(e) if e.kind() == ErrorKind::WouldBlock => {
            wait_readable(&client_b, Duration::from_millis(10)).unwrap();
            false
        }
        Err(e) => panic!("B's read failed: {e}"),
    });
    assert_eq!(&hi, b"hi");
    assert_eq!(reports.borrow().len(), 1, "{:?}", reports.borrow());
    eprintln!("child: scenario complete");
}
