//! Stage 3, the hybrid: a `Task` is a callback that drives a coroutine, on stage 1's
//! scheduler. The task workloads are written once, generic over any stage 1 `Schedule`
//! that `NewTask` works on, so that stage 4 (whose scheduler is also a `Schedule`) runs
//! the very same code.
//!
//! - W1: `new_task` per callback (each task is scheduled with `call_soon`);
//! - W2: one task awaiting `switch()` per step (each step is one `call_soon` of the task);
//! - W3: a task per timer awaiting `sleep` (`call_later` of the task); cancel = a flag;
//! - W4: stage 2's awaitable `AsyncQueue` between two tasks.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use ::stage3::{AsyncQueue, NewTask, RealClock, Scheduler, sleep, switch};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// Stage 3's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage3",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage3",
            how: "new_task per callback",
            run: |p| w1_tasks("stage3", &scheduler(), p, |s| s.run()),
        },
        Workload {
            id: "W2",
            system: "stage3",
            how: "one task, switch() per step",
            run: |p| w2_switch("stage3", &scheduler(), p, |s| s.run()),
        },
        Workload {
            id: "W3",
            system: "stage3",
            how: "task per timer: sleep; cancel = a flag",
            run: |p| w3_sleep("stage3", &scheduler(), p, |s| s.run()),
        },
        Workload {
            id: "W4",
            system: "stage3",
            how: "AsyncQueue, two tasks",
            run: |p| w4_queue("stage3", &scheduler(), p, |s| s.run()),
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

/// W1 as tasks: `new_task` per callback on `s`, then `run`.
pub fn w1_tasks<S: NewTask>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w1_callbacks;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        for _ in 0..n {
            let count = count.clone();
            s.new_task(async move { bump(&count) });
        }
        run(s);
    });
    check(&format!("{system} W1"), count.get(), n);
    sample
}

/// W2 as one task that awaits `switch()` once per step.
pub fn w2_switch<S: NewTask>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w2_steps;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let count = count.clone();
        s.new_task(async move {
            for _ in 0..n {
                bump(&count);
                switch().await;
            }
        });
        run(s);
    });
    check(&format!("{system} W2"), count.get(), n);
    sample
}

/// W3 as a task per timer that awaits `sleep`; a cancelled one finds its flag set.
pub fn w3_sleep<S: NewTask>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
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
        run(s);
    });
    check(&format!("{system} W3"), count.get(), live);
    sample
}

/// W4 through stage 2's `AsyncQueue`, the consumer task created first.
pub fn w4_queue<S: NewTask>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w4_items;
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
        run(s);
    });
    check(&format!("{system} W4"), sum.get(), sum_below(n));
    sample
}
