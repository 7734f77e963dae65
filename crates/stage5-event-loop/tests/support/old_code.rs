//! Stage 4's scripted I/O scenario, unchanged, on stage 5's event loop (book chapter 5, "The
//! old code still runs"; the echo of Beazley's talk, on the event loop). Used by `bridge.rs` (the
//! lines, snapshotted and compared with stage 4's) and by the root test `timelines.rs` (the
//! picture in chapter 7).
//!
//! Stage 4's echo server (`tcp_server`, written against stage 4's `WaitIo`), the talk's
//! producer and consumer (stage 3's tasks, stage 2's `sleep` and `AsyncQueue`) and the
//! scripted client are the very files stage 4's tests run: included here as they are. Only
//! the scheduler differs: `EventLoop` implements stage 1's `Schedule` and stage 4's
//! `WaitIo`.

#[allow(dead_code)]
#[path = "../../../stage4-select/examples/echo_server.rs"]
mod echo_server;
#[path = "../../../stage4-select/tests/support/scripted_client.rs"]
mod scripted_client;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use stage4::NewTask;
use stage4::net::{self, Reply};
use stage5::{Error, EventLoop};

/// Run the loop until nothing is left that could ever happen: stage 1 to 4's `run()`.
/// On the virtual clock the loop says so itself, with `NothingToWaitFor`.
pub fn run_until_idle(lp: &EventLoop) {
    loop {
        match lp.run_once() {
            Ok(()) => {}
            Err(Error::NothingToWaitFor) => return,
            Err(error) => panic!("the loop failed: {error}"),
        }
    }
}

// ANCHOR: old_code
/// Stage 4's scenario on stage 5's loop.
pub fn scenario(lp: &EventLoop) {
    let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    echo_server::producer_consumer::start(lp, 3);
    echo_server::serve(lp, listener, Reply::Got, stop.clone());
    lp.new_task(scripted_client::client(lp.clone(), addr, stop));
    run_until_idle(lp);
}
// ANCHOR_END: old_code

/// The talk's producer and consumer alone, `count` items, on `lp`.
pub fn producer_consumer(lp: &EventLoop, count: u32) {
    echo_server::producer_consumer::start(lp, count);
}
