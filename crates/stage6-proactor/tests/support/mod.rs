//! What the stage 6 tests share (book chapter 10; asyncio's proactor tests'
//! `setUp`): a loop, or the reason io_uring is refused here.

#![allow(dead_code)] // each test file uses some of it

use std::net::{TcpListener, TcpStream};
use std::rc::Rc;

use stage6::{ProactorLoop, VirtualClock};

/// A proactor loop on the virtual clock, or `None`, the reason printed: where io_uring is
/// refused, the tests that need it say so and do not run.
pub fn proactor_loop() -> Option<ProactorLoop> {
    match stage6::setup::ring() {
        Ok(ring) => Some(ProactorLoop::new(ring, VirtualClock::new()).unwrap()),
        Err(refused) => {
            eprintln!("skipped: {refused}");
            None
        }
    }
}

/// A connected pair on loopback: ours (shared with the kernel's operations) and the peer.
pub fn pair() -> (Rc<TcpStream>, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let peer = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (ours, _) = listener.accept().unwrap();
    (Rc::new(ours), peer)
}

/// Run `lp` one iteration at a time until `done` says so, at most `n` iterations, none
/// of which waits (something is always ready): a test whose kernel never answers fails
/// instead of hanging. The kernel answers a loopback socket's operations, and cancels, at
/// the `io_uring_enter` that submits them or the next one.
pub fn run_until(lp: &ProactorLoop, n: usize, mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..n {
        if done() {
            return true;
        }
        submit_now(lp);
    }
    done()
}

/// One iteration that does not wait: something is ready, so step 2's timeout is zero.
/// What was queued is submitted; nothing needs to have completed.
pub fn submit_now(lp: &ProactorLoop) {
    lp.call_soon(|_| {}).unwrap();
    lp.run_once().unwrap();
}
