//! # countdown (stage 5): two tasks on asyncio's event loop
//!
//! The two loops of Beazley's talk once more, now written as asyncio writes them: `countdown(5)`
//! prints `Down 5` … `Down 1`, sleeping 4 s between lines, and `countup(20)` prints `Up 0` …
//! `Up 19`, sleeping 1 s. Each is an `async fn` with an ordinary loop in it; the program's
//! `main` wraps each in a task and `gather`s them, and `run` (asyncio's `asyncio.run`)
//! makes the loop, runs `main` to the end, and closes the loop.
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage5 --example countdown                          # 20 s, real clock
//! cargo run -p stage5 --example countdown -- --virtual-time        # at once, stamped
//! cargo run -p stage5 --example countdown -- --virtual-time --trace
//! ```
//!
//! Look for: the same 25 lines as stage 1, `Down 4` before `Up 4` at 4.000. In the trace,
//! each line starts with the loop's iteration, `[n]`. At 4.000 both sleeps' timers are due
//! in the same iteration (`timer due 4.000`); step 4 moves them to the ready queue in
//! `(when, sequence)` order, countdown's first because it was registered first; their callbacks complete the two sleep
//! futures, whose wakers schedule the two tasks' steps, in that order, for the next
//! iteration.

use stage5::{Error, EventLoop, Options, gather, say, sleep};

// ANCHOR: countdown
/// Print `Down n` … `Down 1`, one every 4 s.
async fn countdown(lp: EventLoop, mut n: u32) -> Result<(), Error> {
    while n > 0 {
        say!("Down {n}");
        sleep(&lp, 4.0).await?;
        n -= 1;
    }
    Ok(())
}

/// Print `Up 0` … `Up stop-1`, one a second.
async fn countup(lp: EventLoop, stop: u32) -> Result<(), Error> {
    let mut x = 0;
    while x < stop {
        say!("Up {x}");
        sleep(&lp, 1.0).await?;
        x += 1;
    }
    Ok(())
}
// ANCHOR_END: countdown

// ANCHOR: program
/// asyncio's `async def main()`: both as tasks, until both are done.
pub async fn program(lp: EventLoop) -> Result<(), Error> {
    let down = lp.create_task(countdown(lp.clone(), 5))?;
    let up = lp.create_task(countup(lp.clone(), 20))?;
    gather(&lp, [down, up]).await?;
    Ok(())
}
// ANCHOR_END: program

fn main() {
    let options = Options::parse("countdown(5) and countup(20) as tasks on the event loop");
    let clock = options.install();
    // asyncio.run(main())
    if let Err(error) = stage5::run(clock, |lp| program(lp.clone())) {
        scaffold::cli::exit_with_error(error);
    }
    options.finish(); // draws the --timeline picture, if one was asked for
}
