//! # countdown (stage 6): two tasks on the proactor loop
//!
//! Stage 5's countdown, unchanged but for its loop: `countdown(5)` prints `Down 5` …
//! `Down 1`, sleeping 4 s between lines, and `countup(20)` prints `Up 0` … `Up 19`,
//! sleeping 1 s, on stage 5's loop with io_uring in its selector's place (book chapter 10,
//! "What stays the same"; asyncio's `ProactorEventLoop` runs the same coroutines as its
//! selector loop).
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage6 --example countdown                          # 20 s, real clock
//! cargo run -p stage6 --example countdown -- --virtual-time --trace
//! ```
//!
//! Look for: the same 25 lines as stages 1 and 5, in the same order; in the trace, the same
//! iterations as stage 5's. Timers never touch the ring: step 3 waits in `io_uring_enter`
//! with step 2's timeout as epoll's wait had it. Where io_uring is refused, it says so in
//! one line and exits with 2.

use stage6::{Error, Options, ProactorLoop, gather, say, sleep};

// ANCHOR: countdown
/// Print `Down n` … `Down 1`, one every 4 s.
async fn countdown(lp: ProactorLoop, mut n: u32) -> Result<(), Error> {
    while n > 0 {
        say!("Down {n}");
        sleep(&lp, 4.0).await?;
        n -= 1;
    }
    Ok(())
}

/// Print `Up 0` … `Up stop-1`, one a second.
async fn countup(lp: ProactorLoop, stop: u32) -> Result<(), Error> {
    let mut x = 0;
    while x < stop {
        say!("Up {x}");
        sleep(&lp, 1.0).await?;
        x += 1;
    }
    Ok(())
}
// ANCHOR_END: countdown

/// asyncio's `async def main()`: both as tasks, until both are done.
pub async fn program(lp: ProactorLoop) -> Result<(), Error> {
    let down = lp.create_task(countdown(lp.clone(), 5))?;
    let up = lp.create_task(countup(lp.clone(), 20))?;
    gather(&lp, [down, up]).await?;
    Ok(())
}

fn main() {
    let options = Options::parse("countdown(5) and countup(20) as tasks on the proactor loop");
    let ring = stage6::ring_or_exit("countdown");
    let clock = options.install();
    // asyncio.run(main()), on a ProactorEventLoop
    if let Err(error) = stage6::run(ring, clock, |lp| program(lp.clone())) {
        scaffold::cli::exit_with_error(error);
    }
    options.finish(); // draws the --timeline picture, if one was asked for
}
