//! W1 to W3 for the callback schedulers that share stage 1's `Schedule` trait (stage 1's
//! scheduler and stage 4's), written once: the same calls, only the scheduler differs.
//!
//! - W1: `call_soon`; W2: each callback `call_soon`s the next. Both schedulers drain their
//!   whole ready queue, callbacks added meanwhile included, so a chain runs to its end
//!   without a `select`: their W2 pays nothing per step for I/O, unlike asyncio's one
//!   `select` per iteration.
//! - W3: `call_later`. Neither has timer handles, so a cancelled timer is one whose shared
//!   flag is set: it still comes out of the heap at its deadline, and does nothing.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use ::stage1::Schedule;

use super::check;
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

fn bump(count: &Rc<Cell<u64>>) {
    count.set(count.get() + 1);
}

/// W1 on `s`, run to the end by `run`.
pub fn w1<S: Schedule>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w1_callbacks;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        for _ in 0..n {
            let count = count.clone();
            s.call_soon(move |_| bump(&count));
        }
        run(s);
    });
    check(&format!("{system} W1"), count.get(), n);
    sample
}

fn link<S: Schedule>(s: &S, left: u64, count: Rc<Cell<u64>>) {
    bump(&count);
    if left > 1 {
        s.call_soon(move |s| link(s, left - 1, count));
    }
}

/// W2 on `s`, run to the end by `run`.
pub fn w2<S: Schedule>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let n = p.w2_steps;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let first = count.clone();
        s.call_soon(move |s| link(s, n, first));
        run(s);
    });
    check(&format!("{system} W2"), count.get(), n);
    sample
}

/// W3 on `s`, run to the end by `run`.
pub fn w3<S: Schedule>(system: &str, s: &S, p: &Params, run: impl Fn(&S)) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
    let count = Rc::new(Cell::new(0));
    let sample = measure(p.w3_timers, || {
        for (i, &delay) in delays.iter().enumerate() {
            let cancelled = Rc::new(Cell::new(false));
            let (count, flag) = (count.clone(), cancelled.clone());
            s.call_later(Duration::from_micros(delay), move |_| {
                if !flag.get() {
                    bump(&count);
                }
            });
            if i % 2 == 1 {
                cancelled.set(true);
            }
        }
        run(s);
    });
    check(&format!("{system} W3"), count.get(), live);
    sample
}
