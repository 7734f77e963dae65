//! Stage 1, the callback scheduler, on its real clock.
//!
//! - W1: `call_soon`; W2: each callback `call_soon`s the next. Stage 1's `run` drains the
//!   whole ready queue, callbacks added meanwhile included, and has no selector at all:
//!   its W2 pays nothing per step for I/O, unlike asyncio's one `select` per iteration.
//! - W3: `call_later`. Stage 1 has no timer handles, so a cancelled timer is one whose
//!   shared flag is set: it still comes out of the heap at its deadline, and does nothing.
//! - W4: stage 1's callback `AsyncQueue`: the consumer's `get` callback asks for the next
//!   item, and each delivered item is one `call_soon`.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use ::stage1::{AsyncQueue, RealClock, Scheduler};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// Stage 1's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage1",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage1",
            how: "call_soon",
            run: w1,
        },
        Workload {
            id: "W2",
            system: "stage1",
            how: "call_soon chain (run drains the queue, no select)",
            run: w2,
        },
        Workload {
            id: "W3",
            system: "stage1",
            how: "call_later; cancel = a flag (no handles)",
            run: w3,
        },
        Workload {
            id: "W4",
            system: "stage1",
            how: "callback AsyncQueue (get takes a callback)",
            run: w4,
        },
    ],
    serve: None,
};

fn scheduler() -> Scheduler {
    Scheduler::new(RealClock::new())
}

fn bump(count: &Rc<Cell<u64>>) {
    count.set(count.get() + 1);
}

fn w1(p: &Params) -> Sample {
    let n = p.w1_callbacks;
    let s = scheduler();
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        for _ in 0..n {
            let count = count.clone();
            s.call_soon(move |_| bump(&count));
        }
        s.run();
    });
    check("stage1 W1", count.get(), n);
    sample
}

fn link(s: &Scheduler, left: u64, count: Rc<Cell<u64>>) {
    bump(&count);
    if left > 1 {
        s.call_soon(move |s| link(s, left - 1, count));
    }
}

fn w2(p: &Params) -> Sample {
    let n = p.w2_steps;
    let s = scheduler();
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let first = count.clone();
        s.call_soon(move |s| link(s, n, first));
        s.run();
    });
    check("stage1 W2", count.get(), n);
    sample
}

fn w3(p: &Params) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
    let s = scheduler();
    let count = Rc::new(Cell::new(0));
    let sample = measure(p.w3_timers, || {
        for (i, &delay) in delays.iter().enumerate() {
            let cancelled = Rc::new(Cell::new(false));
            let (count, flag) = (count.clone(), cancelled.clone());
            s.call_later(Duration::from_micros(delay), move |_| {
                if !flag.get() {
                    bump(&count);
                }
            });
            if i % 2 == 1 {
                cancelled.set(true);
            }
        }
        s.run();
    });
    check("stage1 W3", count.get(), live);
    sample
}

/// Ask for the next item; `left` items are still to come.
fn consume(s: &Scheduler, queue: AsyncQueue<u64>, left: u64, sum: Rc<Cell<u64>>) {
    let next = queue.clone();
    queue.get(s, move |s, item| {
        sum.set(sum.get() + item.expect("the queue stays open"));
        if left > 1 {
            consume(s, next, left - 1, sum);
        }
    });
}

fn w4(p: &Params) -> Sample {
    let n = p.w4_items;
    let s = scheduler();
    let sum = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let queue = AsyncQueue::new();
        let (consumer_queue, consumer_sum) = (queue.clone(), sum.clone());
        s.call_soon(move |s| consume(s, consumer_queue, n, consumer_sum));
        s.call_soon(move |s| {
            for i in 0..n {
                queue.put(s, i).expect("the queue stays open");
            }
        });
        s.run();
    });
    check("stage1 W4", sum.get(), sum_below(n));
    sample
}
