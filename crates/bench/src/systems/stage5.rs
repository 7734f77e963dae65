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

use std::cell::Cell;
use std::rc::Rc;

use ::stage5::{EventLoop, Queue};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// Stage 5's workloads (its echo server is its `echo_server` example).
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
    serve: None,
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

fn link(lp: &EventLoop, left: u64, count: Rc<Cell<u64>>) {
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
