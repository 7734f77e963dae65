//! Cancelling an operation, and closing a loop with operations in flight (book chapter
//! 10, "Cancel is a request" and "Closing waits"; asyncio's `_OverlappedFuture.cancel`,
//! `IocpProactor._poll` and `close`).
//!
//! Each was seen failing on a deliberately wrong version: a ring whose `cancel` freed the
//! operation's memory at once, a cancelled future that asked the kernel nothing, and a
//! close that cancelled without waiting (chapter 10 tells how).

mod support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::rc::Rc;

use stage6::Error;
use support::{pair, proactor_loop, run_until, submit_now};

// ANCHOR: cancel
#[test]
fn a_cancelled_recv_is_the_kernels_until_it_answers_and_takes_no_bytes() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let op = lp.sock_recv(&ours, 16);
    submit_now(&lp); // submitted: the kernel has the buffer
    assert_eq!(lp.in_flight(), 1);
    assert!(op.cancel());
    assert!(op.done(), "the future is cancelled at once");
    // The next iteration asks the kernel to cancel (the future's done callback)...
    assert!(run_until(&lp, 5, || lp.ring_stats().cancels == 1));
    // ...and until the kernel answers, the buffer is still its own.
    assert_eq!(lp.in_flight(), 1, "freed before the kernel's answer");
    assert!(
        run_until(&lp, 5, || lp.in_flight() == 0),
        "the kernel never answered"
    );
    // The cancelled read took nothing: the next one gets what the peer sends.
    peer.write_all(b"x").unwrap();
    let next = lp.sock_recv(&ours, 16);
    assert!(
        run_until(&lp, 10, || next.done()),
        "the bytes went to the cancelled read"
    );
    let task = lp.create_task(next).unwrap();
    assert_eq!(lp.run_until_complete(&task).unwrap(), b"x");
}
// ANCHOR_END: cancel

#[test]
fn cancelling_the_task_cancels_the_operation_it_awaits() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, _peer) = pair();
    let l = lp.clone();
    let task = lp
        .create_task(async move { l.sock_recv(&ours, 16).await })
        .unwrap();
    assert!(run_until(&lp, 5, || lp.in_flight() == 1));
    task.clone().cancel();
    assert!(run_until(&lp, 10, || task.done() && lp.in_flight() == 0));
    assert!(matches!(task.result(), Err(Error::Cancelled)));
    assert_eq!(lp.ring_stats().cancels, 1);
}

#[test]
fn a_timeout_drops_the_operation_and_the_kernel_gives_the_buffer_back() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, _peer) = pair();
    let l = lp.clone();
    let task = lp
        .create_task(async move { stage6::timeout(&l, 2.0, l.sock_recv(&ours, 16)).await })
        .unwrap();
    // Bounded: on the virtual clock a loop with a timer never waits, it jumps.
    assert!(matches!(lp.run_until_complete(&task), Err(Error::Timeout)));
    assert!(
        run_until(&lp, 5, || lp.in_flight() == 0),
        "the kernel was never asked"
    );
    assert_eq!(lp.time(), 2.0, "the virtual clock jumped to the deadline");
}

// ANCHOR: close
#[test]
fn closing_the_loop_waits_for_every_operation_in_flight() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, mut peer) = pair();
    let listener = Rc::new(TcpListener::bind("127.0.0.1:0").unwrap());
    let (recv, accept) = (lp.sock_recv(&ours, 16), lp.sock_accept(&listener));
    submit_now(&lp); // both submitted, and the poll of the selector
    assert_eq!(lp.in_flight(), 2);
    let uring = lp.uring().clone();
    lp.close().unwrap();
    // Every operation answered before close returned: no buffer is the kernel's now.
    assert_eq!(uring.in_flight(), 0);
    let stats = uring.stats();
    assert_eq!(stats.completed, stats.submitted, "{stats:?}");
    assert!(recv.done() && accept.done());
    // And the cancelled recv took nothing.
    peer.write_all(b"after").unwrap();
    let mut got = [0; 5];
    (&*ours).read_exact(&mut got).unwrap();
    assert_eq!(&got, b"after");
}
// ANCHOR_END: close

#[test]
fn an_operation_on_a_closed_loop_fails_at_once() {
    let Some(lp) = proactor_loop() else { return };
    let (ours, _peer) = pair();
    lp.close().unwrap();
    let op = lp.sock_recv(&ours, 16);
    assert!(op.done());
    assert_eq!(lp.in_flight(), 0);
}
