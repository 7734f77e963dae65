//! The floor: the simplest hand-written Rust that does each workload's work, with nothing
//! a real event loop needs beyond it (no handles, no ids, no trace, no `Rc<Scheduler>`).
//! It is the near-physical limit every other system is divided by.
//!
//! - W1: a `VecDeque<Box<dyn FnOnce()>>`, filled, then drained.
//! - W2: the same queue, each callback pushing the next; and `floor+epoll`, which also
//!   calls `epoll_wait` with a zero timeout once per loop iteration (running the callbacks
//!   that were ready when the iteration began, as asyncio's `_run_once` does): the
//!   reference of stage 5's W2 target.
//! - W3: a `BinaryHeap` of `(deadline, sequence)` timers; cancelling marks a `Vec<bool>`,
//!   and a cancelled timer is skipped when it comes out of the heap. It waits for the
//!   next deadline in `epoll_wait`, as the event loops do.
//! - W4: a `VecDeque<u64>` between a producer callback and a consumer callback.
//! - W5, W6: a bare mio echo loop, one shared read buffer, no task per connection
//!   ([`echo`]).

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::rc::Rc;
use std::time::{Duration, Instant};

use mio::{Events, Poll};

use super::{System, Workload, check, sum_below};
use crate::measure::{Sample, measure};
use crate::params::Params;
use crate::prng;

pub mod echo;

/// The floor's workloads and echo server.
pub const SYSTEM: System = System {
    name: "floor",
    workloads: &[
        Workload {
            id: "W1",
            system: "floor",
            how: "VecDeque<Box<dyn FnOnce()>>",
            run: w1,
        },
        Workload {
            id: "W2",
            system: "floor",
            how: "VecDeque, each callback pushes the next",
            run: w2,
        },
        Workload {
            id: "W2",
            system: "floor+epoll",
            how: "the same + epoll_wait(0) per iteration",
            run: w2_epoll,
        },
        Workload {
            id: "W3",
            system: "floor",
            how: "BinaryHeap; cancel = Vec<bool>; waits in epoll",
            run: w3,
        },
        Workload {
            id: "W4",
            system: "floor",
            how: "VecDeque<u64> between two callbacks",
            run: w4,
        },
    ],
    serve: Some(echo::serve),
    serve_apis: &[],
};

fn bump(count: &Rc<Cell<u64>>) {
    count.set(count.get() + 1);
}

fn w1(p: &Params) -> Sample {
    let n = p.w1_callbacks;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let mut ready: VecDeque<Box<dyn FnOnce()>> = VecDeque::new();
        for _ in 0..n {
            let count = count.clone();
            ready.push_back(Box::new(move || bump(&count)));
        }
        while let Some(callback) = ready.pop_front() {
            callback();
        }
    });
    check("floor W1", count.get(), n);
    sample
}

/// A W2 callback: it may queue more.
type Step = Box<dyn FnOnce(&mut Ready)>;

/// W2's ready queue.
#[derive(Default)]
struct Ready(VecDeque<Step>);

/// One step of W2's chain: count, and queue the next step while any is left.
fn link(ready: &mut Ready, left: u64, count: Rc<Cell<u64>>) {
    bump(&count);
    if left > 1 {
        ready
            .0
            .push_back(Box::new(move |ready| link(ready, left - 1, count)));
    }
}

fn w2(p: &Params) -> Sample {
    let n = p.w2_steps;
    let count = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let mut ready = Ready::default();
        let first = count.clone();
        ready
            .0
            .push_back(Box::new(move |ready| link(ready, n, first)));
        while let Some(callback) = ready.0.pop_front() {
            callback(&mut ready);
        }
    });
    check("floor W2", count.get(), n);
    sample
}

fn w2_epoll(p: &Params) -> Sample {
    let n = p.w2_steps;
    let count = Rc::new(Cell::new(0));
    let mut poll = Poll::new().expect("an epoll instance");
    let mut events = Events::with_capacity(64);
    let sample = measure(n, || {
        let mut ready = Ready::default();
        let first = count.clone();
        ready
            .0
            .push_back(Box::new(move |ready| link(ready, n, first)));
        while !ready.0.is_empty() {
            poll.poll(&mut events, Some(Duration::ZERO))
                .expect("epoll_wait");
            // Only what was ready when the iteration began: the rest waits for the next.
            for _ in 0..ready.0.len() {
                let callback = ready.0.pop_front().expect("counted");
                callback(&mut ready);
            }
        }
    });
    check("floor+epoll W2", count.get(), n);
    sample
}

struct Timer {
    when: Instant,
    sequence: usize,
    callback: Box<dyn FnOnce()>,
}

impl Ord for Timer {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: `BinaryHeap` is a max-heap and the earliest timer must be on top.
        (other.when, other.sequence).cmp(&(self.when, self.sequence))
    }
}

impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Timer {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Timer {}

fn w3(p: &Params) -> Sample {
    let delays = prng::delays_us(p.w3_seed, p.w3_timers, p.w3_max_delay_ms);
    let live = delays.len().div_ceil(2) as u64;
    let count = Rc::new(Cell::new(0));
    let mut poll = Poll::new().expect("an epoll instance");
    let mut events = Events::with_capacity(64);
    let sample = measure(p.w3_timers, || {
        let mut heap = BinaryHeap::new();
        let mut cancelled = vec![false; delays.len()];
        for (sequence, &delay) in delays.iter().enumerate() {
            let count = count.clone();
            heap.push(Timer {
                when: Instant::now() + Duration::from_micros(delay),
                sequence,
                callback: Box::new(move || bump(&count)),
            });
            if sequence % 2 == 1 {
                cancelled[sequence] = true;
            }
        }
        while count.get() < live {
            let Some(first) = heap.peek() else { break };
            let now = Instant::now();
            if first.when > now {
                // Wait as every event loop here does: in epoll_wait, whose timeout is in
                // whole milliseconds (mio rounds up). A finer sleep would wake far more
                // often and spend more CPU than the systems it is the floor of.
                poll.poll(&mut events, Some(first.when - now))
                    .expect("epoll_wait");
                continue;
            }
            while heap.peek().is_some_and(|t| t.when <= now) {
                let timer = heap.pop().expect("peeked");
                if !cancelled[timer.sequence] {
                    (timer.callback)();
                }
            }
        }
    });
    check("floor W3", count.get(), live);
    sample
}

fn w4(p: &Params) -> Sample {
    let n = p.w4_items;
    let sum = Rc::new(Cell::new(0));
    let sample = measure(n, || {
        let queue = Rc::new(std::cell::RefCell::new(VecDeque::new()));
        let mut ready: VecDeque<Box<dyn FnOnce()>> = VecDeque::new();
        let producer_queue = queue.clone();
        ready.push_back(Box::new(move || {
            for i in 0..n {
                producer_queue.borrow_mut().push_back(i);
            }
        }));
        let consumer_sum = sum.clone();
        ready.push_back(Box::new(move || {
            while let Some(item) = queue.borrow_mut().pop_front() {
                consumer_sum.set(consumer_sum.get() + item);
            }
        }));
        while let Some(callback) = ready.pop_front() {
            callback();
        }
    });
    check("floor W4", sum.get(), sum_below(n));
    sample
}
