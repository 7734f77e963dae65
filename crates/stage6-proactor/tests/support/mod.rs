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

/// Run `lp` one iteration at a time until `done` says so, at most `n` iterations.
pub fn run_until(lp: &ProactorLoop, n: usize, mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..n {
        if done() {
            return true;
        }
        lp.run_once().unwrap();
    }
    done()
}
