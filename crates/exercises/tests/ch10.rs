//! Chapter 10's exercises: each test fails on the stub in `src/ch10.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 10.1`
//! (or `cargo test -p exercises --test ch10 -- --ignored ex10_1`). They run on stage 6's
//! loop, on the virtual clock, with a Unix socket pair inside the process: io_uring does
//! the I/O. Where io_uring is refused (an old kernel, `io_uring_disabled`, a seccomp
//! filter, `STAGE6_IO_URING=refuse`), each says why and does not run. Every loop here is
//! bounded by a count of iterations, never by a clock.
//!
//! io_uring is Linux's: elsewhere this file compiles to nothing.
#![cfg(target_os = "linux")]

// Your code, compiled into this test alone (`src/ch10.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch10.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch10.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch10;

use std::cell::RefCell;
use std::io::{ErrorKind, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use exercises::assert_yours;
use stage6::{ProactorLoop, VirtualClock};

/// A proactor loop on the virtual clock, or `None` with the reason printed: where io_uring
/// is refused the exercise cannot run, and says so.
fn proactor_loop() -> Option<ProactorLoop> {
    match stage6::setup::ring() {
        Ok(ring) => Some(ProactorLoop::new(ring, VirtualClock::new()).expect("a loop")),
        Err(refused) => {
            eprintln!("not run: {refused}");
            None
        }
    }
}

/// Everything the peer has been sent so far (it never blocks).
fn read_all(peer: &mut UnixStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0; 256];
    loop {
        match peer.read(&mut buf) {
            Ok(0) => return got, // the end of the stream
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(error) if error.kind() == ErrorKind::WouldBlock => return got, // all there is
            Err(error) => panic!("the peer reads: {error}"),
        }
    }
}

#[test]
#[ignore = "exercise 10.1: the buffer handed back"]
fn ex10_1_only_what_came_is_sent_back_and_the_same_buffer_comes_back_whole() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = UnixStream::pair().unwrap();
    peer.set_nonblocking(true).unwrap();
    let ours = Rc::new(ours);
    // The buffer, between rounds: a task's result would be a clone of it.
    let kept = Rc::new(RefCell::new(Some(vec![0; 16])));
    let at = kept.borrow().as_ref().map(|buf| buf.as_ptr() as usize);
    for line in [&b"hello"[..], b"hi", b""] {
        if line.is_empty() {
            peer.shutdown(Shutdown::Write).unwrap();
        } else {
            peer.write_all(line).unwrap();
        }
        let (l, sock, kept) = (lp.clone(), ours.clone(), kept.clone());
        let task = lp
            .create_task(async move {
                let buf = kept.borrow_mut().take().unwrap_or_default();
                let (n, back) = ch10::echo_once(&l, &sock, buf).await?;
                let seen = (n, back.len(), back.as_ptr() as usize);
                *kept.borrow_mut() = Some(back);
                Ok(seen)
            })
            .unwrap();
        let (n, len, back_at) = lp.run_until_complete(&task).unwrap();
        let said = String::from_utf8_lossy(line);
        assert_yours!(n, line.len(), "the count after the peer sent {said:?}");
        assert_yours!(
            read_all(&mut peer),
            line.to_vec(),
            "what the peer got back after it sent {said:?}"
        );
        assert_yours!(len, 16, "the length of the buffer handed back");
        assert_yours!(
            Some(back_at) == at,
            true,
            "the buffer handed back is the one passed in (no copy, no new one)"
        );
    }
}

#[test]
#[ignore = "exercise 10.2: free only when the kernel says"]
fn ex10_2_a_cancelled_receive_is_free_only_after_the_kernels_answer() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = UnixStream::pair().unwrap();
    let ours = Rc::new(ours);
    let op = lp.sock_recv_into(&ours, vec![0; 16]);
    // One iteration that does not wait: the receive goes to the kernel, and waits there.
    lp.call_soon(|_| {}).unwrap();
    lp.run_once().unwrap();
    assert_yours!(
        lp.in_flight(),
        1,
        "receives the kernel holds before the cancel"
    );

    let iterations = ch10::call_off(&lp, &op, 10);
    assert_yours!(op.done(), true, "the operation's future is done");
    assert_yours!(
        lp.in_flight(),
        0,
        "receives the kernel still holds when call_off returns (its buffer with it)"
    );
    assert_yours!(
        iterations.as_ref().is_ok_and(|&n| n > 0),
        true,
        "call_off ran the loop until the kernel answered: {iterations:?} iterations"
    );
    // The cancelled receive took nothing: what the peer sends now is there for the next.
    peer.write_all(b"after").unwrap();
    let task = lp
        .create_task(async move { Ok::<_, stage6::Error>(op.await.is_err()) })
        .unwrap();
    assert_yours!(
        lp.run_until_complete(&task).unwrap(),
        true,
        "the cancelled receive ends in an error"
    );
    let (l, sock) = (lp.clone(), ours.clone());
    let task = lp
        .create_task(async move { l.sock_recv(&sock, 16).await })
        .unwrap();
    assert_yours!(
        lp.run_until_complete(&task).unwrap(),
        b"after".to_vec(),
        "what the next receive got"
    );
}
