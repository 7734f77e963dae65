//! Chapter 7's exercises: each test fails on the stub in `src/ch7.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 7.1`
//! (or `cargo test -p exercises --test ch7 -- --ignored ex7_1`). The
//! sockets are Unix socket pairs, inside the process; the loop runs on the virtual clock,
//! and every test is bounded by counts.

// Your code, compiled into this test alone (`src/ch7.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch7.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch7.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch7;

use std::cell::{Cell, RefCell};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::thread;

use ch7::{oneshot, predicted_calls, sendall};
use stage5::{Error, EventLoop, VirtualClock};

fn vloop() -> EventLoop {
    EventLoop::with_clock(VirtualClock::new())
}

/// A connected pair of non-blocking Unix sockets.
fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

/// How many times a reader that reads at most `per_call` bytes per call is called in
/// `iterations` iterations, with `sent` bytes waiting and nothing more coming.
fn observed_calls(sent: usize, per_call: usize, iterations: usize) -> usize {
    let lp = vloop();
    let (a, b) = pair();
    (&b).write_all(&vec![b'x'; sent]).unwrap();
    let calls = Rc::new(Cell::new(0));
    let c = calls.clone();
    lp.add_reader(a.as_raw_fd(), move |_| {
        c.set(c.get() + 1);
        let mut buf = vec![0u8; per_call];
        match (&a).read(&mut buf) {
            Ok(_) => {} // some bytes, or none when `per_call` is 0
            Err(error) => panic!("reading: {error}"),
        }
    })
    .unwrap();
    // One timer per iteration, so that an iteration with nothing to read ends (the
    // virtual clock jumps to the timer) instead of waiting for the socket for ever.
    for i in 1..=iterations {
        lp.call_later(100.0 * i as f64, |_| {}).unwrap();
    }
    for _ in 0..iterations {
        lp.run_once().unwrap();
    }
    drop(b); // the peer stays open until here: a closed peer is readable for ever
    calls.get()
}

#[test]
#[ignore = "exercise 7.1: level-triggered"]
fn ex7_1_the_predicted_calls_are_the_loops() {
    let cases = [
        (10, 1, 12),
        (10, 1, 5),
        (10, 3, 12),
        (10, 0, 6),
        (10, 10, 5),
        (10, 64, 5),
        (0, 1, 5),
    ];
    let wrong: Vec<String> = cases
        .into_iter()
        .filter_map(|(sent, per_call, iterations)| {
            let predicted = predicted_calls(sent, per_call, iterations);
            let observed = observed_calls(sent, per_call, iterations);
            (predicted != observed).then(|| {
                format!(
                    "{sent} bytes, {per_call} per call, {iterations} iterations: \
                     predicted {predicted}, the loop called it {observed} times"
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
#[ignore = "exercise 7.2: a one-shot channel from another thread"]
fn ex7_2_a_value_from_another_thread_wakes_the_waiting_task() {
    let lp = vloop();
    let (tx, rx) = oneshot();
    let task = lp.create_task(async move { Ok(rx.await) }).unwrap();
    lp.run_once().unwrap(); // the task's first step: nothing sent yet, so it waits
    assert!(!task.done());
    // The value is sent (and the task woken) on another thread, while the loop is not
    // running; joined before the loop runs again, so the order is always the same.
    thread::spawn(move || tx.send(thread::current().id()))
        .join()
        .unwrap();
    let got = lp.run_until_complete(&task);
    assert!(
        matches!(got, Ok(Some(id)) if id != thread::current().id()),
        "the worker's thread id: {got:?}"
    );

    // A sender dropped without sending: the receiver gets `None`, it does not wait for ever.
    let (tx, rx) = oneshot::<u32>();
    let task = lp.create_task(async move { Ok(rx.await) }).unwrap();
    lp.run_once().unwrap();
    thread::spawn(move || drop(tx)).join().unwrap();
    let got = lp.run_until_complete(&task);
    assert!(matches!(got, Ok(None)), "{got:?}");
}

#[test]
#[ignore = "exercise 7.3: a writer that waits for room"]
fn ex7_3_sendall_waits_for_room_and_removes_its_writer() {
    let lp = vloop();
    let (a, b) = pair();
    let fd = a.as_raw_fd();
    let a = Rc::new(a);
    // Far more than a socket's buffer holds.
    let data: Vec<u8> = (0..4 << 20).map(|i: u32| (i % 251) as u8).collect();
    let received = Rc::new(RefCell::new(Vec::new()));
    let r = received.clone();
    lp.add_reader(b.as_raw_fd(), move |_| {
        let mut buf = [0u8; 64 << 10];
        match (&b).read(&mut buf) {
            Ok(n) => r.borrow_mut().extend_from_slice(&buf[..n]),
            // Woken, but someone else read first: nothing to do until the next time.
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            Err(error) => panic!("reading the other end: {error}"),
        }
    })
    .unwrap();
    let done = sendall(&lp, a.clone(), data.clone());
    let sent = lp.run_until_complete(&done);
    assert!(sent.is_ok(), "every byte is sent: {sent:?}");
    assert!(!lp.has_writer(fd), "the writer is gone once it is done");
    // The reader takes what is still in the buffer: a few iterations, bounded.
    for _ in 0..1000 {
        if received.borrow().len() == data.len() {
            break;
        }
        lp.run_once().unwrap();
    }
    assert!(*received.borrow() == data, "the bytes arrive, in order");

    // A small message fits at once: no writer at all.
    let done = sendall(&lp, a.clone(), b"hello".to_vec());
    assert!(done.done() && !lp.has_writer(fd));
    // A peer that is gone: the error, and no writer left behind.
    let (a, b) = pair();
    drop(b);
    let done = sendall(&lp, Rc::new(a), vec![1; 10]);
    let failed = lp.run_until_complete(&done).unwrap_err();
    assert!(
        matches!(&failed, Error::Io(error) if error.kind() == ErrorKind::BrokenPipe),
        "{failed:?}"
    );
}
