//! # producer_consumer (stage 1): a queue whose consumer leaves a callback
//!
//! From Beazley's talk. The producer puts 0 … 9 into an [`AsyncQueue`], one a second,
//! then closes it; the consumer asks the queue for each item with a callback and prints it.
//! Output: `Producing 0`, `Consuming 0`, … `Producing 9`, `Consuming 9`, `Producer done`,
//! `Consumer done`.
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage1 --example producer_consumer                  # 10 s, real clock
//! cargo run -p stage1 --example producer_consumer -- --virtual-time --trace
//! ```
//!
//! Look for, in the trace: after `Consuming n` the consumer asks again and finds the queue
//! empty, so nothing is scheduled for it; at the next second `put` hands the new item
//! straight to it with a `call_soon`. At 10.000, `close` does the same with `QueueClosed`.

use std::time::Duration;

use scaffold::{Options, say};
use stage1::{AsyncQueue, QueueClosed, Scheduler};

/// Put `0..count` into `q`, one a second, then close it.
fn producer(s: &Scheduler, q: AsyncQueue<u32>, count: u32) {
    fn step(s: &Scheduler, q: AsyncQueue<u32>, n: u32, count: u32) {
        if n < count {
            say!("Producing {n}");
            q.put(s, n).expect("only the producer closes the queue");
            s.call_later(Duration::from_secs(1), move |s| step(s, q, n + 1, count));
        } else {
            say!("Producer done");
            q.close(s);
        }
    }
    step(s, q, 0, count);
}

// ANCHOR: consumer
/// Ask `q` for an item; print it and ask again, until the queue is closed.
fn consumer(s: &Scheduler, q: AsyncQueue<u32>) {
    let again = q.clone();
    q.get(s, move |s, result| match result {
        Ok(item) => {
            say!("Consuming {item}");
            s.call_soon(move |s| consumer(s, again));
        }
        Err(QueueClosed) => say!("Consumer done"),
    });
}
// ANCHOR_END: consumer

/// The talk's program: one queue, producer(q, 10) and consumer(q).
pub fn program(s: &Scheduler) {
    let q = AsyncQueue::new();
    let q2 = q.clone();
    s.call_soon(move |s| producer(s, q, 10));
    s.call_soon(move |s| consumer(s, q2));
}

fn main() {
    let options = Options::parse("producer(q, 10) and a consumer through a callback queue");
    let clock = options.install();
    let s = Scheduler::new(clock);
    program(&s);
    s.run();
    options.finish();
}
