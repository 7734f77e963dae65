//! # producer_consumer (stage 2): a queue you can await
//!
//! From Beazley's talk. The producer puts 0 … 9 into an `AsyncQueue`, sleeping a second
//! between items, then closes it; the consumer is an ordinary loop around `q.get().await`.
//! Same lines as stage 1's: `Producing n`, `Consuming n`, `Producer done`, `Consumer done`.
//!
//! ```text
//! cargo run -p stage2 --example producer_consumer -- --virtual-time --trace
//! ```
//!
//! Look for, in the trace: the consumer finds the queue empty and waits (`#2 waits`); `put`
//! makes it ready (`#2 made ready`) and it runs right after the producer goes to sleep.

use std::time::Duration;

use stage2::{AsyncQueue, Options, Scheduler, say, sleep};

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

/// The talk's program: one queue, producer(q, 10) and consumer(q) as tasks.
pub fn program(s: &Scheduler) {
    let q = AsyncQueue::new();
    s.new_task(producer(q.clone(), 10));
    s.new_task(consumer(q));
}

fn main() {
    let options = Options::parse("producer(q, 10) and a consumer through an awaitable queue");
    let clock = options.install();
    let s = Scheduler::new(clock);
    program(&s);
    s.run();
    options.finish();
}
