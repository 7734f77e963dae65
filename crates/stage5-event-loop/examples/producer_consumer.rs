//! # producer_consumer (stage 5): two tasks and an `asyncio.Queue`
//!
//! The producer puts 0 … 9 into a [`Queue`], one a second, then puts `None`, the sentinel
//! that tells the consumer to stop: asyncio's queue has no `close`, so programs end the
//! stream with a value. The consumer awaits `q.get()` in a loop and prints each item.
//! Output: `Producing 0`, `Consuming 0`, … `Producing 9`, `Consuming 9`, `Producer done`,
//! `Consumer done`, the same lines as stage 1.
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage5 --example producer_consumer                  # 10 s, real clock
//! cargo run -p stage5 --example producer_consumer -- --virtual-time --trace
//! ```
//!
//! Look for, in the trace: after `Consuming n`, `queue get: empty, t3 waits`: the
//! consumer's `get` left a getter future in the queue, and its step ends. A second later,
//! right after `Producing n+1`, `wake t3`: `put_nowait` completed that future, whose waker
//! schedules the consumer's step with `call_soon`; in the next iteration the consumer takes
//! the item. (`t1` is `main`, `t2` the producer.)

use stage5::{Error, EventLoop, Options, Queue, Task, gather, say, sleep};

// ANCHOR: producer
/// Put `0..count` into `q`, one a second, then the sentinel `None`.
async fn producer(lp: EventLoop, q: Queue<Option<u32>>, count: u32) -> Result<(), Error> {
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

// ANCHOR: consumer
/// Print every item of `q` until the sentinel.
async fn consumer(q: Queue<Option<u32>>) -> Result<(), Error> {
    while let Some(item) = q.get().await {
        say!("Consuming {item}");
    }
    say!("Consumer done");
    Ok(())
}
// ANCHOR_END: consumer

/// Start producer(q, `count`) and consumer(q) as tasks on one queue (the echo server runs
/// them beside itself with `--with-producer N`).
pub fn start(lp: &EventLoop, count: u32) -> Result<[Task<()>; 2], Error> {
    let q = Queue::new(lp, 0);
    let p = lp.create_task(producer(lp.clone(), q.clone(), count))?;
    let c = lp.create_task(consumer(q))?;
    Ok([p, c])
}

/// asyncio's `async def main()`: one queue, producer(q, 10) and consumer(q) as tasks.
pub async fn program(lp: EventLoop) -> Result<(), Error> {
    gather(&lp, start(&lp, 10)?).await?;
    Ok(())
}

fn main() {
    let options = Options::parse("producer(q, 10) and a consumer through an asyncio-style Queue");
    let clock = options.install();
    // asyncio.run(main())
    if let Err(error) = stage5::run(clock, |lp| program(lp.clone())) {
        scaffold::cli::exit_with_error(error);
    }
    options.finish(); // draws the --timeline picture, if one was asked for
}
