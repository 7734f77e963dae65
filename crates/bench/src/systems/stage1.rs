//! Stage 1, the callback scheduler, on its real clock.
//!
//! - W1 to W3: [`callbacks`], shared with stage 4. Stage 1's `run` has no
//!   selector at all.
//! - W4: stage 1's callback `AsyncQueue`: the consumer's `get` callback asks for the next
//!   item, and each delivered item is one `call_soon`.

use std::cell::Cell;
use std::rc::Rc;

use ::scaffold::RealClock;
use ::stage1::{AsyncQueue, Scheduler};

use super::{System, Workload, callbacks, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;

/// Stage 1's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage1",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage1",
            how: "call_soon",
            run: |p| callbacks::w1("stage1", &scheduler(), p, Scheduler::run),
        },
        Workload {
            id: "W2",
            system: "stage1",
            how: "call_soon chain (run drains the queue, no select)",
            run: |p| callbacks::w2("stage1", &scheduler(), p, Scheduler::run),
        },
        Workload {
            id: "W3",
            system: "stage1",
            how: "call_later; cancel = a flag (no handles)",
            run: |p| callbacks::w3("stage1", &scheduler(), p, Scheduler::run),
        },
        Workload {
            id: "W4",
            system: "stage1",
            how: "callback AsyncQueue (get takes a callback)",
            run: w4,
        },
    ],
    serve: None,
    serve_apis: &[],
};

fn scheduler() -> Scheduler {
    Scheduler::new(RealClock::new())
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
