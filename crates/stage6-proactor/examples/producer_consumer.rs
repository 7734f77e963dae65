//! # producer_consumer (stage 6): two tasks and a queue on the proactor loop
//!
//! Stage 5's producer and consumer on stage 6's loop (book chapter 10, "What stays the
//! same"; asyncio's `asyncio.Queue` on a `ProactorEventLoop`): the producer puts 0 … 9,
//! one a second, then `None`; the consumer prints each. The queue, its futures and the
//! tasks' wakers are stage 5's; only step 3's wait is io_uring's.
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage6 --example producer_consumer -- --virtual-time --trace
//! ```
//!
//! Look for: the lines of stage 1, in the same order. Where io_uring is refused, one line
//! and exit status 2.

use stage6::{Error, Options, ProactorLoop, Queue, Task, gather, say, sleep};

// ANCHOR: producer
/// Put `0..count` into `q`, one a second, then the sentinel `None`.
async fn producer(lp: ProactorLoop, q: Queue<Option<u32>>, count: u32) -> Result<(), Error> {
    for n in 0..count {
        say!("Producing {n}");
        q.put(Some(n)).await;
        sleep(&lp, 1.0).await?;
    }
    say!("Producer done");
    q.put(None).await;
    Ok(())
}
// ANCHOR_END: producer

/// Print every item of `q` until the sentinel.
async fn consumer(q: Queue<Option<u32>>) -> Result<(), Error> {
    while let Some(item) = q.get().await {
        say!("Consuming {item}");
    }
    say!("Consumer done");
    Ok(())
}

/// Start producer(q, `count`) and consumer(q) as tasks on one queue.
pub fn start(lp: &ProactorLoop, count: u32) -> Result<[Task<()>; 2], Error> {
    let q = Queue::new(lp, 0);
    let p = lp.create_task(producer(lp.clone(), q.clone(), count))?;
    let c = lp.create_task(consumer(q))?;
    Ok([p, c])
}

/// asyncio's `async def main()`: one queue, producer(q, 10) and consumer(q) as tasks.
pub async fn program(lp: ProactorLoop) -> Result<(), Error> {
    gather(&lp, start(&lp, 10)?).await?;
    Ok(())
}

fn main() {
    let options = Options::parse("producer(q, 10) and a consumer on the proactor loop");
    let ring = stage6::ring_or_exit("producer_consumer");
    let clock = options.install();
    // asyncio.run(main()), on a ProactorEventLoop
    if let Err(error) = stage6::run(ring, clock, |lp| program(lp.clone())) {
        scaffold::cli::exit_with_error(error);
    }
    options.finish(); // draws the --timeline picture, if one was asked for
}
