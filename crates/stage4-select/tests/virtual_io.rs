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

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use stage4::net::{self, Reply};
use stage4::{NewTask, Scheduler, WaitIo, say, sleep, transcript};

async fn client(s: Scheduler, addr: SocketAddr, stop: Arc<AtomicBool>) {
    sleep(Duration::from_millis(1500)).await;
    let mut sock = TcpStream::connect(addr).unwrap();
    sock.set_nonblocking(true).unwrap();
    say!("client: connected");
    for word in ["hello", "again"] {
        s.sendall(&mut sock, word.as_bytes()).await.unwrap();
        let mut buf = [0; 64];
        let n = s.recv(&mut sock, &mut buf).await.unwrap();
        say!("client got: {}", String::from_utf8_lossy(&buf[..n]));
        sleep(Duration::from_secs(1)).await;
    }
    drop(sock);
    // Stop the server: it checks the flag after its next accept.
    stop.store(true, Ordering::Relaxed);
    drop(TcpStream::connect(addr).unwrap());
}

#[test]
fn a_client_connects_while_timers_are_pending() {
    let text = transcript(false, |clock| {
        let s = Scheduler::new(clock).unwrap();
        let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        echo_server::producer_consumer::start(&s, 3);
        echo_server::serve(&s, listener, Reply::Got, stop.clone());
        s.new_task(client(s.clone(), addr, stop));
        s.run().unwrap();
    });
    insta::assert_snapshot!(text);
}
