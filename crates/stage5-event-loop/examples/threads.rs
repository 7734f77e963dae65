//! # threads (stage 5): worker threads hand results back with `call_soon_threadsafe`
//!
//! Book chapter 7, "Threads". Four worker threads each compute something slow (here: count
//! the primes below a bound, by trial division) while the loop, on the main thread, has
//! nothing to do: it blocks in `select` with no timeout. When a worker is done it calls
//! `call_soon_threadsafe` on a [`ThreadsafeLoop`]; the byte it writes into the self-pipe wakes
//! the loop, which runs the callback on its own thread: it prints the result, and once all
//! four are in, stops.
//!
//! ```text
//! cargo run -p stage5 --example threads -- --timestamps --trace
//! ```
//!
//! Look for, in the trace: `select: no timer, block until a socket is ready` (the loop
//! sleeps), then the self-pipe's reader `c0` ready and the worker's callback run in the
//! same iteration. The results come in the order the workers finish, which depends on the
//! machine; each line names its worker. With `--virtual-time` the program is the same:
//! while a worker holds a `ThreadsafeLoop`, the loop blocks for real on the self-pipe; threads
//! run in real time, and the virtual clock does not move.

use std::sync::mpsc;

use stage5::{Error, EventLoop, Options, ThreadsafeLoop, say};

/// How many workers, and what each computes.
pub const BOUNDS: [u64; 4] = [20_000, 40_000, 60_000, 80_000];

// ANCHOR: worker
/// Count the primes below `bound`, the slow way: work for a thread.
pub fn primes_below(bound: u64) -> u64 {
    (2..bound)
        .filter(|&n| (2..).take_while(|d| d * d <= n).all(|d| n % d != 0))
        .count() as u64
}

/// A worker: compute, then hand the result to the loop's thread.
fn worker(remote: ThreadsafeLoop, id: usize, bound: u64) {
    let count = primes_below(bound);
    // Refused only by a closed loop, which no longer waits for this result.
    let _ = remote.call_soon_threadsafe(move |lp| report(lp, id, bound, count));
}
// ANCHOR_END: worker

thread_local! {
    static RESULTS: std::cell::RefCell<Vec<(usize, u64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs on the loop's thread: print one result; stop after the last.
fn report(lp: &EventLoop, id: usize, bound: u64, count: u64) {
    say!("worker {id}: {count} primes below {bound}");
    let all = RESULTS.with(|r| {
        let mut r = r.borrow_mut();
        r.push((id, count));
        r.len() == BOUNDS.len()
    });
    if all {
        lp.stop();
    }
}

/// Start the workers, run the loop until every result is in, and return the results in
/// the order they arrived.
pub fn program(lp: &EventLoop) -> Result<Vec<(usize, u64)>, Error> {
    RESULTS.with(|r| r.borrow_mut().clear());
    let (done_tx, done_rx) = mpsc::channel();
    for (id, &bound) in BOUNDS.iter().enumerate() {
        let remote = lp.threadsafe();
        let done = done_tx.clone();
        std::thread::spawn(move || {
            worker(remote, id, bound);
            // The receiver waits below until every worker has sent; it cannot be gone.
            let _ = done.send(());
        });
    }
    say!("{} workers started; the loop waits", BOUNDS.len());
    lp.run_forever()?; // blocks in select until a worker's byte arrives
    for _ in BOUNDS {
        // An error means a worker died without sending: nothing more to wait for.
        let _ = done_rx.recv();
    }
    say!("all results in");
    Ok(RESULTS.with(|r| r.borrow().clone()))
}

fn main() {
    let options = Options::parse("worker threads hand results back with call_soon_threadsafe");
    let clock = options.install();
    let lp = EventLoop::with_clock(clock);
    let outcome = program(&lp);
    drop(lp); // the owner's drop closes the loop
    if let Err(error) = outcome {
        scaffold::cli::exit_with_error(error);
    }
    options.finish(); // draws the --timeline picture, if one was asked for
}
