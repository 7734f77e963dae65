//! Stage 5, the asyncio-style event loop, measured the way asyncio is.
//!
//! - W1: `call_soon` returning a cancellable `Handle`; all of them run in the first
//!   iteration's batch, a last callback stops the loop.
//! - W2: each callback `call_soon`s the next, so every step is one `run_once` iteration
//!   with one zero-timeout `select` (epoll_wait), exactly as in asyncio.
//! - W3: `call_later` returning `TimerHandle`s; every second one really cancelled
//!   (`TimerHandle::cancel`, counted for the heap's clean-up), the loop stopped by the
//!   last live timer.
//! - W4: two tasks (`create_task`) and an unbounded `Queue` (`put_nowait`, `get().await`).
//! - W5, W6: an echo server written the plain way, as tokio's is: `start_serving`, a task
//!   per connection awaiting `sock_recv` of up to 1 KiB and `sock_sendall`. (The stage's
//!   own `echo_server` example is the same loop, plus what its chapter shows: a table of
//!   connections for its graceful shutdown, and a line per closed connection.)
//! - W5, W6 again with chapter 8's APIs (`serve --api protocol`, `serve --api streams`): a
//!   `Protocol` whose `data_received` writes back, as asyncio's and uvloop's rows are; and
//!   a `start_server` handler looping `read` of up to 1 KiB, `write` and `drain`.

use std::cell::{Cell, RefCell};
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::rc::Rc;
use std::time::Duration;

use ::stage5::{
    Error, EventLoop, Protocol, Queue, RealClock, StreamReader, StreamWriter, Transport,
    start_server_on,
};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// Stage 5's workloads and echo server.
pub const SYSTEM: System = System {
    name: "stage5",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage5",
            how: "call_soon -> Handle, one run_once batch",
            run: w1,
        },
        Workload {
            id: "W2",
            system: "stage5",
            how: "call_soon chain: one run_once and one select(0) per step",
            run: w2,
        },
        Workload {
            id: "W3",
            system: "stage5",
            how: "call_later -> TimerHandle, cancel() every second one",
            run: w3,
        },
        Workload {
            id: "W4",
            system: "stage5",
            how: "Queue, two create_task tasks",
            run: w4,
        },
    ],
    serve: Some(serve),
    serve_apis: &[("protocol", serve_protocol), ("streams", serve_streams)],
};

fn bump(count: &Rc<Cell<u64>>) {
    count.set(count.get() + 1);
}

fn w1(p: &Params) -> Sample {
    let n = p.w1_callbacks;
    let lp = EventLoop::new();
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        for _ in 0..n {
            let count = count.clone();
            lp.call_soon(move |_| bump(&count)).expect("an open loop");
        }
        lp.call_soon(|lp| lp.stop()).expect("an open loop");
        lp.run_forever().expect("the loop runs");
    });
    check("stage5 W1", count.get(), n);
    sample
}

/// One step of W2's chain: count it, then `call_soon` the next, or stop after the last.
pub(super) fn link(lp: &EventLoop, left: u64, count: Rc<Cell<u64>>) {
    bump(&count);
    if left > 1 {
        lp.call_soon(move |lp| link(lp, left - 1, count))
            .expect("an open loop");
    } else {
        lp.stop();
    }
}

fn w2(p: &Params) -> Sample {
    let n = p.w2_steps;
    let lp = EventLoop::new();
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let first = count.clone();
        lp.call_soon(move |lp| link(lp, n, first))
            .expect("an open loop");
        lp.run_forever().expect("the loop runs");
    });
    check("stage5 W2", count.get(), n);
    sample
}

fn w3(p: &Params) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
    let lp = EventLoop::new();
    let count = Rc::new(Cell::new(0));
    let sample = measure(p.w3_timers, || {
        for (i, &delay) in delays.iter().enumerate() {
            let count = count.clone();
            let timer = lp
                .call_later(delay as f64 / 1e6, move |lp| {
                    bump(&count);
                    if count.get() == live {
                        lp.stop();
                    }
                })
                .expect("an open loop");
            if i % 2 == 1 {
                timer.cancel();
            }
        }
        lp.run_forever().expect("the loop runs");
    });
    check("stage5 W3", count.get(), live);
    sample
}

fn w4(p: &Params) -> Sample {
    let n = p.w4_items;
    let lp = EventLoop::new();
    let sum = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let queue = Queue::new(&lp, 0);
        let (consumer_queue, consumer_sum) = (queue.clone(), sum.clone());
        let consumer = lp
            .create_task(async move {
                for _ in 0..n {
                    let item = consumer_queue.get().await;
                    consumer_sum.set(consumer_sum.get() + item);
                }
                Ok(())
            })
            .expect("an open loop");
        lp.create_task(async move {
            for i in 0..n {
                queue
                    .put_nowait(i)
                    .expect("an unbounded queue is never full");
            }
            Ok(())
        })
        .expect("an open loop");
        lp.run_until_complete(&consumer)
            .expect("the consumer finishes");
    });
    check("stage5 W4", sum.get(), sum_below(n));
    sample
}

/// How many connections the server accepts per readiness event: as many as the listening
/// socket queues (`scaffold::net::BACKLOG`, 1024, as tokio's and mio's listeners).
const BACKLOG: usize = ::scaffold::net::BACKLOG as usize;

/// Echo one connection until the client leaves, reading at most 1 KiB at a time (tokio's
/// echo reads into a 1 KiB buffer).
async fn echo(lp: EventLoop, sock: TcpStream) -> Result<(), ::stage5::Error> {
    loop {
        match lp.sock_recv(&sock, 1024).await {
            // The client closed its side, or reset: the connection is over.
            Ok(data) if data.is_empty() => return Ok(()),
            Err(_) => return Ok(()),
            Ok(data) => {
                if lp.sock_sendall(&sock, &data).await.is_err() {
                    return Ok(()); // the client went away while we answered
                }
            }
        }
    }
}

/// A loop, and a listener on `addr` (said on standard error).
fn setup(addr: SocketAddr) -> io::Result<(EventLoop, std::net::TcpListener)> {
    // Out of file descriptors, say: the operating system's reason, not a panic.
    let lp = EventLoop::try_with_clock(RealClock::new())
        .map_err(|e| io::Error::other(format!("cannot create the event loop: {e}")))?;
    // A port in use, an address not this machine's: said with the address and a hint.
    let listener = ::scaffold::net::listen(addr).map_err(io::Error::other)?;
    eprintln!("listening on {}", listener.local_addr()?);
    Ok((lp, listener))
}

fn serve(addr: SocketAddr, max: Duration) -> io::Result<()> {
    let (lp, listener) = setup(addr)?;
    let server = lp
        .start_serving(listener, BACKLOG, |lp, sock, _peer| {
            // Refused only by a closed loop, which serves nobody any more.
            drop(lp.create_task(echo(lp.clone(), sock)));
        })
        .map_err(|e| io::Error::other(e.to_string()))?;
    run_for(&lp, server, max)
}

/// Chapter 8's echo protocol: what arrives is written back.
#[derive(Default)]
struct Echo(RefCell<Option<Transport>>);

impl Protocol for Echo {
    fn connection_made(&self, transport: &Transport) {
        *self.0.borrow_mut() = Some(transport.clone());
    }
    fn data_received(&self, data: &[u8]) {
        if let Some(transport) = self.0.borrow().as_ref() {
            drop(transport.write(data)); // refused only after write_eof, never called here
        }
    }
    fn connection_lost(&self, _exc: Option<Error>) {
        self.0.borrow_mut().take(); // the transport holds us: break the cycle
    }
}

fn serve_protocol(addr: SocketAddr, max: Duration) -> io::Result<()> {
    let (lp, listener) = setup(addr)?;
    let l = lp.clone();
    let serving = lp
        .create_task(async move {
            l.create_server_on(|| Rc::new(Echo::default()), listener)
                .await
        })
        .map_err(|e| io::Error::other(e.to_string()))?;
    let server = lp
        .run_until_complete(&serving)
        .map_err(|e| io::Error::other(e.to_string()))?;
    run_for(&lp, server, max)
}

/// Chapter 8's streams handler: read up to 1 KiB, write it back, drain.
async fn echo_stream(reader: StreamReader, writer: StreamWriter) -> Result<(), Error> {
    loop {
        let data = reader.read(Some(1024)).await?;
        if data.is_empty() {
            writer.close(); // the client closed its side
            return Ok(());
        }
        writer.write(&data)?;
        writer.drain().await?;
    }
}

fn serve_streams(addr: SocketAddr, max: Duration) -> io::Result<()> {
    let (lp, listener) = setup(addr)?;
    let l = lp.clone();
    let limit = ::stage5::streams::DEFAULT_LIMIT;
    let serving = lp
        .create_task(async move { start_server_on(&l, echo_stream, listener, limit).await })
        .map_err(|e| io::Error::other(e.to_string()))?;
    let server = lp
        .run_until_complete(&serving)
        .map_err(|e| io::Error::other(e.to_string()))?;
    run_for(&lp, server, max)
}

/// Serve until `max` has passed, then close `server`.
fn run_for(lp: &EventLoop, server: ::stage5::Server, max: Duration) -> io::Result<()> {
    // Bounded: the server ends by itself after `max`.
    lp.call_later(max.as_secs_f64(), EventLoop::stop)
        .map_err(|e| io::Error::other(e.to_string()))?;
    lp.run_forever()
        .map_err(|e| io::Error::other(e.to_string()))?;
    server.close(lp);
    Ok(())
}
