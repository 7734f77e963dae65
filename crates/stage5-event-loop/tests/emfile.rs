//! `test_accept_connection_exception`: a server whose process runs out of file descriptors
//! (book chapter 7, "Out of file descriptors"). CPython's test makes a mock `accept` raise
//! EMFILE; ours runs out for real, in a child process whose `RLIMIT_NOFILE` is lowered:
//! the test re-executes its own binary through `sh -c 'ulimit -n 64; exec ...'` with an
//! environment variable that makes the child run the scenario.

#![allow(non_snake_case)]

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::rc::Rc;

use stage5::{ACCEPT_RETRY_DELAY, EventLoop, VirtualClock};

const CHILD: &str = "STAGE5_EMFILE_CHILD";

#[test]
fn test_accept_connection_exception() {
    if std::env::var_os(CHILD).is_some() {
        return out_of_descriptors();
    }
    let exe = std::env::current_exe().unwrap();
    // (A child that misbehaved would be bounded by its own read timeouts.)
    let output = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -n 64 && exec "$0" "$@""#)
        .arg(exe)
        .args(["--exact", "test_accept_connection_exception", "--nocapture"])
        .arg("--test-threads=1")
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the child failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("1 passed"), "{stdout}\n{stderr}");
    assert!(stderr.contains("child: scenario complete"), "{stderr}");
}

// ANCHOR: scenario
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
    let accepted = Rc::new(RefCell::new(Vec::new()));
    let a = accepted.clone();
    let _server = lp
        .start_serving(listener, 100, move |lp, sock, _| {
            a.borrow_mut().push(lp.time());
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
    // One iteration that can never block: with a timer 10 ms ahead, an iteration with no
    // event moves the virtual clock 10 ms instead of waiting in select for ever.
    let step = |lp: &EventLoop| {
        lp.call_later(0.01, |_| {}).unwrap();
        lp.run_once().unwrap();
    };

    let mut client_a = TcpStream::connect(addr).unwrap();
    while accepted.borrow().is_empty() {
        step(&lp);
    }
    // Fill the descriptor table, keeping one for B's client socket.
    let mut filler = Vec::new();
    while let Ok(file) = File::open("/dev/null") {
        filler.push(file);
    }
    filler.pop();
    let mut client_b = TcpStream::connect(addr).unwrap();
    client_a.write_all(b"still here").unwrap();
    // Free two descriptors at 0.5 s, during the pause: one for B, and one because
    // Linux's `accept` takes a descriptor before it looks for a connection (the accept
    // after B's would fail with EMFILE again instead of EAGAIN, and pause again).
    let spare = RefCell::new(filler.split_off(filler.len() - 2));
    lp.call_later(0.5, move |_| drop(spare.take())).unwrap();
    while reports.borrow().is_empty() {
        step(&lp);
    }
    assert_eq!(
        *reports.borrow(),
        [(
            0.0,
            "socket.accept() out of system resource".to_string(),
            Some(libc::EMFILE)
        )]
    );
    assert!(!lp.has_reader(listener_fd), "accepting stopped");
    // Existing connections go on during the pause.
    let mut echo = [0u8; 10];
    while !lp.has_reader(listener_fd) {
        step(&lp);
        if lp.time() < ACCEPT_RETRY_DELAY {
            assert!(!lp.has_reader(listener_fd));
        }
    }
    client_a
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    client_a.read_exact(&mut echo).unwrap();
    assert_eq!(&echo, b"still here");
    assert_eq!(lp.time(), ACCEPT_RETRY_DELAY, "accepting resumes after 1 s");
    while accepted.borrow().len() < 2 {
        step(&lp);
    }
    assert_eq!(*accepted.borrow(), [0.0, 1.0]);
    client_b.write_all(b"hi").unwrap();
    client_b.set_nonblocking(true).unwrap();
    let mut hi = [0u8; 2];
    for _ in 0..100_000 {
        step(&lp);
        if client_b.read(&mut hi).is_ok() {
            break;
        }
    }
    assert_eq!(&hi, b"hi");
    assert_eq!(reports.borrow().len(), 1, "{:?}", reports.borrow());
    eprintln!("child: scenario complete");
}
// ANCHOR_END: scenario
