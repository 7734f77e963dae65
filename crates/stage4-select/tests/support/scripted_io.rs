//! A scripted scenario on the virtual clock with real sockets (book chapter 4, "The run
//! loop with I/O"): the seed's producer and consumer beside the echo server, and a client
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

use std::net::{SocketAddr, TcpStream};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use stage4::net::{self, Reply};
use stage4::{Clock, NewTask, Scheduler, say, sleep};

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

/// Run the whole scenario on `clock`, to the end.
pub fn run(clock: Rc<dyn Clock>) {
    let s = Scheduler::new(clock).unwrap();
    let listener = net::listen("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    echo_server::producer_consumer::start(&s, 3);
    echo_server::serve(&s, listener, Reply::Got, stop.clone());
    s.new_task(client(s.clone(), addr, stop));
    s.run().unwrap();
}
