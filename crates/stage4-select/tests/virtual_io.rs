//! A scripted scenario on the virtual clock with real sockets: a client connects while
//! timers are pending, and the order of everything printed is snapshotted.
//!
//! The server and the seed's producer/consumer run as in `echo_server --with-producer 3`.
//! The client is a task on the same scheduler: at 1.5 s it connects (on loopback the
//! handshake completes inside `connect`), sends, and awaits the echo. The socket work
//! happens at once, so each exchange is served before the virtual clock jumps to the next
//! timer: its lines fall between the producer's. Only program output is snapshotted: the
//! trace would show file descriptor numbers, which differ from run to run.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;
#[path = "support/scripted_client.rs"]
mod scripted_client;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use stage4::net::{self, Reply};
use stage4::{NewTask, Scheduler, transcript};

#[test]
fn a_client_connects_while_timers_are_pending() {
    let text = transcript(false, |clock| {
        let s = Scheduler::new(clock).unwrap();
        let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        echo_server::producer_consumer::start(&s, 3);
        echo_server::serve(&s, listener, Reply::Got, stop.clone());
        s.new_task(scripted_client::client(s.clone(), addr, stop));
        s.run().unwrap();
    });
    insta::assert_snapshot!(text);
}
