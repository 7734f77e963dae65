//! A scripted scenario on the virtual clock with real sockets (book chapter 4, "The run
//! loop with I/O"): the talk's producer and consumer beside the echo server, and a client
//! that connects while timers are pending.
//!
//! The server and the producer/consumer run as in `echo_server --with-producer 3`. The
//! client is a task on the same scheduler: at 1.5 s it connects (on loopback the handshake
//! completes inside `connect`), sends, and awaits the echo. The socket work happens at
//! once, so each exchange is served before the virtual clock jumps to the next timer: its
//! lines fall between the producer's. Used by `virtual_io.rs` (the lines, snapshotted) and
//! by the root test `timelines.rs` (the picture in chapter 4).

#[allow(dead_code)]
#[path = "../../examples/echo_server.rs"]
mod echo_server;
#[path = "scripted_client.rs"]
mod scripted_client;

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use stage4::net::{self, Reply};
use stage4::{Clock, NewTask, Scheduler};

/// Run the whole scenario on `clock`, to the end.
pub fn run(clock: Rc<dyn Clock>) {
    let s = Scheduler::new(clock).unwrap();
    let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    echo_server::producer_consumer::start(&s, 3);
    echo_server::serve(&s, listener, Reply::Got, stop.clone());
    s.new_task(scripted_client::client(s.clone(), addr, stop));
    s.run().unwrap();
}
