//! monoio, a completion-based Rust runtime on io_uring, for W5 and W6 only (book chapter
//! 10's comparison: what stage 6 does, done by a runtime built for it).
//!
//! - W5, W6: `monoio::net::TcpListener` on the io_uring driver, a task per connection
//!   whose 1 KiB buffer is moved into `read` and handed back, then into `write_all`, the
//!   ownership-passing API stage 6 retells.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use monoio::buf::IoBuf;
use monoio::io::{AsyncReadRent, AsyncWriteRentExt};
use monoio::net::{TcpListener, TcpStream};

use super::System;

/// monoio's echo server; no in-process workloads.
pub const SYSTEM: System = System {
    name: "monoio",
    workloads: &[],
    serve: Some(serve),
    serve_apis: &[],
};

/// Echo one connection until the client leaves: one buffer, to the kernel and back.
async fn echo(mut sock: TcpStream) {
    let mut buf = vec![0; 1024];
    loop {
        let (read, got) = sock.read(buf).await;
        let n = match read {
            // The client closed its side, or reset: the connection is over.
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let (written, sent) = sock.write_all(got.slice(..n)).await;
        if written.is_err() {
            return; // the client went away while we answered
        }
        buf = sent.into_inner();
    }
}

/// Accept for ever, a task per connection.
async fn accept(listener: TcpListener) {
    // Out of descriptors, or a client that reset before it was accepted: the harness's
    // load never does either; stop serving rather than spin.
    while let Ok((sock, _peer)) = listener.accept().await {
        monoio::spawn(echo(sock));
    }
}

fn serve(addr: SocketAddr, max: Duration) -> io::Result<()> {
    // io_uring refused (an old kernel, a seccomp filter): the builder says why.
    let mut rt = monoio::RuntimeBuilder::<monoio::IoUringDriver>::new()
        .enable_timer()
        .build()?;
    rt.block_on(async move {
        let listener = TcpListener::bind(addr)?;
        eprintln!("listening on {}", listener.local_addr()?);
        // The accept loop is dropped with the runtime when the time is up.
        drop(monoio::spawn(accept(listener)));
        // Bounded: the server ends by itself after `max`.
        monoio::time::sleep(max).await;
        Ok(())
    })
}
