//! # producer_consumer (stage 3): coroutines as tasks on the callback scheduler
//!
//! Beazley's talk, first half. Stage 2's producer and consumer coroutines, unchanged,
//! each wrapped in a `Task` by `new_task` and run by stage 1's callback scheduler. The
//! queue and `sleep` are stage 2's, reused: on this scheduler `sleep` becomes
//! `call_later(delay, task)`. Same lines as stages 1 and 2.
//!
//! ```text
//! cargo run -p stage3 --example producer_consumer -- --virtual-time --trace
//! ```
//!
//! Look for, in the trace: each task step is an ordinary `call_soon` or `call_later`
//! callback (`run #n` then `step t1`); a sleeping task is a timer in stage 1's heap.

use std::time::Duration;

use stage3::{AsyncQueue, NewTask, Options, Scheduler, say, sleep};

// ANCHOR: producer_consumer
async fn producer(q: AsyncQueue<u32>, count: u32) {
    for n in 0..count {
        say!("Producing {n}");
        q.put(n).expect("only the producer closes the queue");
        sleep(Duration::from_secs(1)).await;
    }
    say!("Producer done");
    q.close();
}

async fn consumer(q: AsyncQueue<u32>) {
    // `get` answers `Err(QueueClosed)` once the queue is closed and empty.
    while let Ok(item) = q.get().await {
        say!("Consuming {item}");
    }
    say!("Consumer done");
}
// ANCHOR_END: producer_consumer

/// The talk's program: producer(q, 10) and consumer(q) as tasks; the caller runs the
/// scheduler.
pub fn program(s: &Scheduler) {
    let q = AsyncQueue::new();
    s.new_task(producer(q.clone(), 10));
    s.new_task(consumer(q));
}

fn main() {
    let options =
        Options::parse("producer(q, 10) and a consumer as tasks on the callback scheduler");
    let clock = options.install();
    let s = Scheduler::new(clock);
    program(&s);
    s.run();
    options.finish();
}
