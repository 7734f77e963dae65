//! tokio with a `current_thread` runtime (I/O and time drivers enabled, as a server has
//! them), doing each workload the way tokio code would:
//!
//! - W1: `tokio::spawn` a task per callback;
//! - W2: one task awaiting `tokio::task::yield_now()` once per step (a yielded task is
//!   woken after the runtime has polled its I/O driver, so, like asyncio, each step costs
//!   one zero-timeout `epoll_wait`);
//! - W3: a task per timer awaiting `tokio::time::sleep`, every second one cancelled with
//!   `JoinHandle::abort` (tokio's timers have a 1 ms resolution);
//! - W4: `mpsc::unbounded_channel` between a producer and a consumer task;
//! - W5, W6: `TcpListener`, a task per connection reading into a 1 KiB buffer and
//!   `write_all`-ing it back (as tokio's own echo example does).
//!
//! `tokio::spawn` needs `Send` futures, so the counters are atomics behind an `Arc`; on
//! one thread the atomic operations are uncontended.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio::sync::{Notify, mpsc};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// tokio's workloads and echo server.
pub const SYSTEM: System = System {
    name: "tokio",
    workloads: &[
        Workload {
            id: "W1",
            system: "tokio",
            how: "tokio::spawn per callback",
            run: w1,
        },
        Workload {
            id: "W2",
            system: "tokio",
            how: "one task, yield_now() per step",
            run: w2,
        },
        Workload {
            id: "W3",
            system: "tokio",
            how: "task per timer: sleep; abort() to cancel",
            run: w3,
        },
        Workload {
            id: "W4",
            system: "tokio",
            how: "mpsc::unbounded_channel, two tasks",
            run: w4,
        },
    ],
    serve: Some(serve),
    serve_apis: &[],
};

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A counter that wakes whoever waits once it reaches its target.
struct Countdown {
    count: AtomicU64,
    target: u64,
    done: Notify,
}

impl Countdown {
    fn new(target: u64) -> Arc<Countdown> {
        Arc::new(Countdown {
            count: AtomicU64::new(0),
            target,
            done: Notify::new(),
        })
    }

    fn bump(&self) {
        if self.count.fetch_add(1, Ordering::Relaxed) + 1 == self.target {
            // `notify_one` keeps a permit if nobody waits yet: no wake-up is lost.
            self.done.notify_one();
        }
    }

    fn get(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

fn w1(p: &Params) -> Sample {
    let n = p.w1_callbacks;
    let rt = runtime();
    let counter = Countdown::new(n);
    let sample = measure(n, || {
        rt.block_on(async {
            for _ in 0..n {
                let counter = counter.clone();
                tokio::spawn(async move { counter.bump() });
            }
            counter.done.notified().await;
        })
    });
    check("tokio W1", counter.get(), n);
    sample
}

fn w2(p: &Params) -> Sample {
    let n = p.w2_steps;
    let rt = runtime();
    let counter = Countdown::new(n);
    let sample = measure(n, || {
        rt.block_on(async {
            let counter = counter.clone();
            tokio::spawn(async move {
                for _ in 0..n {
                    counter.bump();
                    tokio::task::yield_now().await;
                }
            })
            .await
            .expect("the chain task finished");
        })
    });
    check("tokio W2", counter.get(), n);
    sample
}

fn w3(p: &Params) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
    let rt = runtime();
    let counter = Countdown::new(live);
    let sample = measure(p.w3_timers, || {
        rt.block_on(async {
            for (i, &delay) in delays.iter().enumerate() {
                let counter = counter.clone();
                let timer = tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_micros(delay)).await;
                    counter.bump();
                });
                if i % 2 == 1 {
                    timer.abort();
                }
            }
            counter.done.notified().await;
        })
    });
    check("tokio W3", counter.get(), live);
    sample
}

fn w4(p: &Params) -> Sample {
    let n = p.w4_items;
    let rt = runtime();
    let mut sum = 0;
    let sample = measure(n, || {
        sum = rt.block_on(async {
            let (tx, mut rx) = mpsc::unbounded_channel();
            let consumer = tokio::spawn(async move {
                let mut sum = 0;
                for _ in 0..n {
                    sum += rx.recv().await.expect("an item");
                }
                sum
            });
            tokio::spawn(async move {
                for i in 0..n {
                    tx.send(i).expect("the consumer is there");
                }
            });
            consumer.await.expect("the consumer finished")
        })
    });
    check("tokio W4", sum, sum_below(n));
    sample
}

/// Echo one connection until the client leaves.
pub async fn echo(mut sock: TcpStream) {
    let mut buf = vec![0; 1024];
    loop {
        match sock.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if sock.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn serve(addr: SocketAddr, max: Duration) -> io::Result<()> {
    serve_on(runtime(), addr, max)
}

/// The echo server of W5 and W6 on `rt`: a task per connection, until `max` has passed.
pub fn serve_on(rt: Runtime, addr: SocketAddr, max: Duration) -> io::Result<()> {
    rt.block_on(async {
        let listener = TcpListener::bind(addr).await?;
        eprintln!("listening on {}", listener.local_addr()?);
        let accepting = async {
            loop {
                match listener.accept().await {
                    Ok((sock, _)) => drop(tokio::spawn(echo(sock))),
                    Err(e) => {
                        eprintln!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            }
        };
        // Bounded: the server ends by itself after `max`.
        let _ = tokio::time::timeout(max, accepting).await;
        Ok(())
    })
}
