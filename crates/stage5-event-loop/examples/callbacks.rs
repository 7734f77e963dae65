//! # callbacks (stage 5): the event loop from a user's side
//!
//! A walk through asyncio's loop, one part after the other, on one clock:
//!
//! 1. `call_soon(print_now)`, `call_later(1, print_now)`, then
//!    `run_until_complete(sleep(5))`: two lines at 0 s and 1 s, and the loop runs until 5 s.
//! 2. A `trampoline` that prints and re-registers itself 1 s later, and `call_later(3, stop)`
//!    with `run_forever`: one callback registered, four calls. The trampoline's next call
//!    is still in the loop when it stops, which is why the walk takes a new loop next.
//! 3. On a new loop, three trampolines `First`, `Second`, `Third`: every second they run in
//!    the order they were registered (FIFO), until `stop` at 3 s.
//! 4. On a new loop in debug mode, a trampoline and a `hog` due at 3 s that blocks the loop
//!    for 10 s (it sleeps on the clock: really, on the real clock; a jump of the virtual
//!    clock with `--virtual-time`). The trampoline due at 3 s runs 10 s late, and debug mode
//!    reports the slow callback.
//!
//! Run it:
//!
//! ```text
//! cargo run -p stage5 --example callbacks                     # about 25 s, real clock
//! cargo run -p stage5 --example callbacks -- --virtual-time   # at once, stamped
//! ```
//!
//! Look for: in part 2 four lines, not the three one might expect. On the real clock each
//! trampoline runs a little after its due time, so its next due time drifts past the `stop`
//! timer's; on the virtual clock the times are exact, both are due at 8.000 in the same iteration,
//! and `stop()` lets that iteration finish: the trampoline prints once more. In part 4, the gap
//! between `13.000` and `24.000`, and the `WARNING` between them.

use std::rc::Rc;
use std::time::Duration;

use stage5::{Clock, Error, EventLoop, Options, say, sleep};

// ANCHOR: trampoline
/// Print the loop's time, after `name` if there is one (the walk's `print_now`).
fn print_now(lp: &EventLoop, name: &str) {
    if name.is_empty() {
        say!("{:.3}", lp.time());
    } else {
        say!("{name} {:.3}", lp.time());
    }
}

/// Print, and register yourself again for 1 s later.
fn trampoline(lp: &EventLoop, name: &'static str) {
    print_now(lp, name);
    lp.call_later(1.0, move |lp| trampoline(lp, name))
        .expect("a running loop is not closed");
}
// ANCHOR_END: trampoline

// ANCHOR: hog
/// A callback that keeps the loop busy for 10 s: while it runs, nothing else can.
fn hog(lp: &EventLoop) {
    let clock = lp.clock();
    clock.sleep_until(clock.now() + Duration::from_secs(10));
}
// ANCHOR_END: hog

// ANCHOR: program
/// The four parts of the walk; `lp` runs parts 1 and 2, parts 3 and 4 get loops of their
/// own on the same clock.
pub fn program(lp: &EventLoop) -> Result<(), Error> {
    one_loop(lp)?;
    first_in_first_out(lp.clock())?;
    a_hog(lp.clock())
}

/// Parts 1 and 2, on `lp`.
pub fn one_loop(lp: &EventLoop) -> Result<(), Error> {
    say!("-- 1. call_soon, call_later, run_until_complete(sleep(5))");
    lp.call_soon(|lp| print_now(lp, ""))?;
    lp.call_later(1.0, |lp| print_now(lp, ""))?;
    let nap = lp.create_task(sleep(lp, 5.0))?;
    lp.run_until_complete(&nap)?;

    say!("-- 2. a trampoline, stopped after 3 s");
    lp.call_soon(|lp| trampoline(lp, ""))?;
    lp.call_later(3.0, EventLoop::stop)?;
    lp.run_forever()?;
    say!(
        "(the stopped loop still holds {} timer)",
        lp.scheduled_len()
    );
    Ok(())
}

/// Part 3, on a new loop.
fn first_in_first_out(clock: &Rc<dyn Clock>) -> Result<(), Error> {
    say!("-- 3. three trampolines on a new loop: first in, first out");
    let fifo = EventLoop::with_clock(clock.clone());
    for name in ["First", "Second", "Third"] {
        fifo.call_soon(move |lp| trampoline(lp, name))?;
    }
    fifo.call_later(3.0, EventLoop::stop)?;
    fifo.run_forever()?;
    fifo.close()
}

/// Part 4, on a new loop in debug mode.
fn a_hog(clock: &Rc<dyn Clock>) -> Result<(), Error> {
    say!("-- 4. a hog blocks the loop (debug mode reports it)");
    let blocked = EventLoop::with_clock(clock.clone());
    blocked.set_debug(true);
    blocked.set_logger(|_, level, message| say!("{level}: {message}"));
    blocked.call_soon(|lp| trampoline(lp, ""))?;
    blocked.call_later(3.0, hog)?;
    blocked.call_later(5.0, EventLoop::stop)?;
    blocked.run_forever()?;
    blocked.close()
}
// ANCHOR_END: program

fn main() {
    let options =
        Options::parse("a walk through the loop: call_soon, call_later, trampolines, a hog");
    let clock = options.install();
    let lp = EventLoop::with_clock(clock);
    let outcome = program(&lp);
    drop(lp); // the owner's drop closes the loop
    if let Err(error) = outcome {
        scaffold::cli::exit_with_error(error);
    }
    options.finish(); // draws the --timeline picture, if one was asked for
}
