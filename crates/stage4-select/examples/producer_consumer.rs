//! # producer_consumer (stage 4): unchanged, on the I/O scheduler
//!
//! From Beazley's talk. Stage 2's producer and consumer coroutines as stage 3's
//! tasks, now on stage 4's scheduler: nothing in them changes. Same lines as every stage.
//!
//! ```text
//! cargo run -p stage4 --example producer_consumer -- --virtual-time --trace
//! ```
//!
//! Look for, in the trace: between items the loop waits in `select` with the time left to
//! the producer's next wake-up as its timeout. The `echo_server` example runs this same
//! pair beside the server with `--with-producer N`.

use std::time::Duration;

use stage4::{AsyncQueue, NewTask, Options, Scheduler, cli, say, sleep};

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

/// Start producer(q, `count`) and consumer(q) as tasks on `s`: any scheduler stage 3's
/// tasks run on (stage 5's event loop too).
pub fn start<S: NewTask>(s: &S, count: u32) {
    let q = AsyncQueue::new();
    s.new_task(producer(q.clone(), count));
    s.new_task(consumer(q));
}

/// The talk's program: producer(q, 10) and consumer(q); the caller runs the scheduler.
pub fn program(s: &Scheduler) {
    start(s, 10);
}

fn main() {
    let options = Options::parse("producer(q, 10) and a consumer on the I/O scheduler");
    let clock = options.install();
    let s = Scheduler::new(clock).unwrap_or_else(|error| cli::exit_with_error(error));
    program(&s);
    s.run().unwrap_or_else(|error| cli::exit_with_error(error));
    options.finish();
}
