//! The scripted client of stage 4's virtual-clock I/O scenario (book chapters 4 and 5): a
//! task that connects at 1.5 s, sends two words a second apart, prints each echo, then
//! stops the server. Written against stage 4's `WaitIo`, so stage 5's event loop runs the
//! same scenario (its `tests/bridge.rs` includes this file).

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use stage4::{WaitIo, say, sleep};

/// Connect at 1.5 s, echo two words, stop the server.
pub async fn client<S: WaitIo>(s: S, addr: SocketAddr, stop: Arc<AtomicBool>) {
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
