//! Stage 6, asyncio's proactor on io_uring, measured the way stage 5 is (book chapter 10).
//!
//! - W2: each callback `call_soon`s the next, so every step is one `run_once` iteration
//!   whose wait is a zero-timeout `io_uring_enter` instead of stage 5's `epoll_wait`.
//! - W5, W6: the plain echo server, as stage 5's and tokio's: one `sock_accept` always
//!   submitted, a task per connection whose 1 KiB buffer goes to the kernel in
//!   `sock_recv_into` and comes back, then goes again in `sock_sendall` (asyncio's
//!   `BaseProactorEventLoop`).
//!
//! W1, W3 and W4 are stage 5's own code (the ready queue, the heap and the tasks are the
//! same), so they are not repeated here.

use std::cell::Cell;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::rc::Rc;
use std::time::Duration;

use ::stage6::{EventLoop, ProactorLoop, RealClock};

use super::stage5::link; // W2's chain: stage 6's loop is stage 5's, with a proactor
use super::{System, Workload, check};
use crate::measure::{Sample, measure};
use crate::params::Params;

/// Stage 6's workloads and echo server.
pub const SYSTEM: System = System {
    name: "stage6",
    workloads: &[Workload {
        id: "W2",
        system: "stage6",
        how: "call_soon chain: one run_once and one io_uring_enter(0) per step",
        run: w2,
    }],
    serve: Some(serve),
    serve_apis: &[],
};

/// A loop waiting on a fresh ring, or why the kernel refused one.
fn proactor() -> io::Result<ProactorLoop> {
    let ring = ::stage6::setup::ring().map_err(|e| io::Error::other(e.to_string()))?;
    ProactorLoop::new(ring, RealClock::new())
        .map_err(|e| io::Error::other(format!("cannot create the event loop: {e}")))
}

fn w2(p: &Params) -> Sample {
    let n = p.w2_steps;
    let lp = proactor().expect("io_uring refused: stage 6 cannot run");
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let first = count.clone();
        lp.call_soon(move |lp| link(lp, n, first))
            .expect("an open loop");
        lp.run_forever().expect("the loop runs");
    });
    check("stage6 W2", count.get(), n);
    sample
}

/// How many bytes one receive asks for (tokio's and stage 5's echo read 1 KiB).
const CHUNK: usize = 1024;

/// Echo one connection until the client leaves: one buffer, to the kernel and back.
async fn echo(lp: ProactorLoop, sock: Rc<TcpStream>) -> Result<(), ::stage6::Error> {
    let mut buf = vec![0; CHUNK];
    loop {
        match lp.sock_recv_into(&sock, buf).await {
            // The client closed its side, or reset: the connection is over.
            Ok((0, _)) | Err(_) => return Ok(()),
            Ok((n, mut got)) => {
                got.truncate(n);
                buf = match lp.sock_sendall(&sock, got).await {
                    // Sent: the same buffer back, grown again for the next receive.
                    Ok(mut sent) => {
                        sent.resize(CHUNK, 0);
                        sent
                    }
                    Err(_) => return Ok(()), // the client went away while we answered
                };
            }
        }
    }
}

/// Accept for ever: one `sock_accept` always submitted, a task per connection.
async fn accept(lp: ProactorLoop, listener: Rc<TcpListener>) {
    loop {
        match lp.sock_accept(&listener).await {
            Ok((sock, _peer)) => {
                // Refused only by a closed loop, which serves nobody any more.
                drop(lp.create_task(echo(lp.clone(), Rc::new(sock))));
            }
            // Out of descriptors, or a client that reset before it was accepted: the
            // harness's load never does either; stop serving rather than spin.
            Err(_) => return,
        }
    }
}

fn serve(addr: SocketAddr, max: Duration) -> io::Result<()> {
    let lp = proactor()?;
    // A port in use, an address not this machine's: said with the address and a hint.
    let listener = ::scaffold::net::listen(addr).map_err(io::Error::other)?;
    eprintln!("listening on {}", listener.local_addr()?);
    let listener = Rc::new(listener);
    let server = lp
        .create_task({
            let lp = lp.clone();
            async move {
                accept(lp, listener).await;
                Ok(())
            }
        })
        .map_err(|e| io::Error::other(e.to_string()))?;
    // Bounded: the server ends by itself after `max`.
    lp.call_later(max.as_secs_f64(), EventLoop::stop)
        .map_err(|e| io::Error::other(e.to_string()))?;
    lp.run_forever()
        .map_err(|e| io::Error::other(e.to_string()))?;
    // The accept in flight: the loop's close, as `lp` drops, waits for the kernel's answer.
    drop(server);
    Ok(())
}
