//! W1 to W4 as tasks, for the stages whose scheduler runs coroutines (stage 2's, and stage
//! 3's `Task`s on stage 1's or stage 4's scheduler), written once over [`Spawn`].
//!
//! - W1: a task per callback, as tokio's W1 spawns one;
//! - W2: one task awaiting `switch()` once per step, as tokio's awaits `yield_now()`;
//! - W3: a task per timer awaiting `sleep`; no stage before 5 can cancel one, so a
//!   cancelled timer's task wakes, sees its flag and does nothing;
//! - W4: stage 2's awaitable `AsyncQueue` between two tasks, the consumer created first.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use ::stage2::{AsyncQueue, sleep, switch};
use ::stage3::NewTask;

use super::{check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

/// What the task workloads need of a scheduler: start a coroutine as a task.
pub trait Spawn {
    /// Add `coroutine` as a new task, ready to run.
    fn spawn(&self, coroutine: impl Future<Output = ()> + 'static);
}

impl Spawn for ::stage2::Scheduler {
    fn spawn(&self, coroutine: impl Future<Output = ()> + 'static) {
        self.new_task(coroutine);
    }
}

impl Spawn for ::stage1::Scheduler {
    fn spawn(&self, coroutine: impl Future<Output = ()> + 'static) {
        NewTask::new_task(self, coroutine);
    }
}

impl Spawn for ::stage4::Scheduler {
    fn spawn(&self, coroutine: impl Future<Output = ()> + 'static) {
        NewTask::new_task(self, coroutine);
    }
}

fn bump(count: &Rc<Cell<u64>>) {
    count.set(count.get() + 1);
}

/// W1 as tasks: `new_task` per callback on `s`, then `run`.
pub fn w1_tasks<S: Spawn>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w1_callbacks;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        for _ in 0..n {
            let count = count.clone();
            s.spawn(async move { bump(&count) });
        }
        run(s);
    });
    check(&format!("{system} W1"), count.get(), n);
    sample
}

/// W2 as one task that awaits `switch()` once per step.
pub fn w2_switch<S: Spawn>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w2_steps;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let count = count.clone();
        s.spawn(async move {
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
pub fn w3_sleep<S: Spawn>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
    let count = Rc::new(Cell::new(0));
    let sample = measure(p.w3_timers, || {
        for (i, &delay) in delays.iter().enumerate() {
            let cancelled = Rc::new(Cell::new(false));
            let (count, flag) = (count.clone(), cancelled.clone());
            s.spawn(async move {
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
pub fn w4_queue<S: Spawn>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w4_items;
    let sum = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let queue = AsyncQueue::new();
        let (consumer_queue, consumer_sum) = (queue.clone(), sum.clone());
        s.spawn(async move {
            for _ in 0..n {
                let item = consumer_queue.get().await.expect("the queue stays open");
                consumer_sum.set(consumer_sum.get() + item);
            }
        });
        s.spawn(async move {
            for i in 0..n {
                queue.put(i).expect("the queue stays open");
            }
        });
        run(s);
    });
    check(&format!("{system} W4"), sum.get(), sum_below(n));
    sample
}
