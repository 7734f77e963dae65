//! Stage 2, the generator scheduler: everything is a task (an `async` block driven by
//! `poll` with a no-op waker), found again through the scheduler's task table.
//!
//! - W1: a task per callback (`new_task`), as tokio's W1 spawns one;
//! - W2: one task awaiting `switch()` once per step, as tokio's awaits `yield_now()`;
//! - W3: a task per timer awaiting `sleep`; no cancellation exists, so a cancelled timer's
//!   task wakes, sees its flag and does nothing;
//! - W4: the awaitable `AsyncQueue` between a producer and a consumer task.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use ::stage2::{AsyncQueue, RealClock, Scheduler, sleep, switch};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// Stage 2's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage2",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage2",
            how: "new_task per callback",
            run: w1,
        },
        Workload {
            id: "W2",
            system: "stage2",
            how: "one task, switch() per step",
            run: w2,
        },
        Workload {
            id: "W3",
            system: "stage2",
            how: "task per timer: sleep; cancel = a flag",
            run: w3,
        },
        Workload {
            id: "W4",
            system: "stage2",
            how: "AsyncQueue, two tasks",
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
            s.new_task(async move { bump(&count) });
        }
        s.run();
    });
    check("stage2 W1", count.get(), n);
    sample
}

fn w2(p: &Params) -> Sample {
    let n = p.w2_steps;
    let s = scheduler();
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let count = count.clone();
        s.new_task(async move {
            for _ in 0..n {
                bump(&count);
                switch().await;
            }
        });
        s.run();
    });
    check("stage2 W2", count.get(), n);
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
            s.new_task(async move {
                sleep(Duration::from_micros(delay)).await;
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
    check("stage2 W3", count.get(), live);
    sample
}

fn w4(p: &Params) -> Sample {
    let n = p.w4_items;
    let s = scheduler();
    let sum = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let queue = AsyncQueue::new();
        let (consumer_queue, consumer_sum) = (queue.clone(), sum.clone());
        s.new_task(async move {
            for _ in 0..n {
                let item = consumer_queue.get().await.expect("the queue stays open");
                consumer_sum.set(consumer_sum.get() + item);
            }
        });
        s.new_task(async move {
            for i in 0..n {
                queue.put(i).expect("the queue stays open");
            }
        });
        s.run();
    });
    check("stage2 W4", sum.get(), sum_below(n));
    sample
}
