//! Stage 4, select-based I/O on mio: stage 1's queues plus a selector.
//!
//! - W1: `call_soon`; W2: each callback `call_soon`s the next. `run_once` selects only
//!   when the ready queue is empty and then drains it, callbacks added meanwhile included,
//!   so a chain runs to its end without a single `select`: no per-step I/O cost (asyncio
//!   and stage 5 pay one zero-timeout select per step).
//! - W3: `call_later`; no timer handles, so a cancelled timer is a flag (as in stage 1).
//! - W4: stage 3's `Task`s on stage 4's scheduler, through stage 2's `AsyncQueue`
//!   (the same generic code as stage 3's W4).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use ::stage4::{RealClock, Scheduler};

use super::{System, Workload, check};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// Stage 4's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage4",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage4",
            how: "call_soon",
            run: w1,
        },
        Workload {
            id: "W2",
            system: "stage4",
            how: "call_soon chain (run_once drains the queue, no select)",
            run: w2,
        },
        Workload {
            id: "W3",
            system: "stage4",
            how: "call_later; cancel = a flag (no handles)",
            run: w3,
        },
        Workload {
            id: "W4",
            system: "stage4",
            how: "AsyncQueue, two stage 3 tasks",
            run: |p| super::stage3::w4_queue("stage4", &scheduler(), p, run),
        },
    ],
    serve: None,
};

fn scheduler() -> Scheduler {
    Scheduler::new(RealClock::new()).expect("an epoll instance")
}

fn run(s: &Scheduler) {
    s.run().expect("no I/O error without sockets");
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
        run(&s);
    });
    check("stage4 W1", count.get(), n);
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
        run(&s);
    });
    check("stage4 W2", count.get(), n);
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
        run(&s);
    });
    check("stage4 W3", count.get(), live);
    sample
}
