//! Build it 1.4: the callback scheduler's `run` (book chapter 1, "The ready queue", "The
//! heap and its tie-breaker" and "Running it"; Beazley's talk, the scheduler with `ready`,
//! `sleeping` and `sequence`). A build-it exercise: the skeleton below is given, and you
//! write [`Scheduler::run`]. `tests/build_ch1.rs` runs one program on your scheduler and on
//! stage 1's, both on the virtual clock, and compares what ran when.
//!
//! The skeleton holds what the talk's scheduler holds: a FIFO of callbacks to run now, a
//! heap of callbacks to run later, ordered by `(deadline, sequence)` so that the earliest
//! comes out first and equal deadlines come out in the order they were scheduled, and a
//! clock to read and to wait on. `call_soon` and `call_later` fill them; nothing runs until
//! `run` does.

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::rc::Rc;
use std::time::Duration;

use stage1::Clock;

/// A callback: runs once, handed the scheduler that runs it (to schedule more).
pub type Callback = Box<dyn FnOnce(&Scheduler)>;

/// A callback in the heap, due at `deadline`; `sequence` breaks ties.
pub struct Sleeper {
    /// When it is due, as time since the clock started.
    pub deadline: Duration,
    /// The order in which `call_later` was called: first scheduled, first out.
    pub sequence: u64,
    /// What runs then.
    pub callback: Callback,
}

// `BinaryHeap` pops its *greatest* element: comparing `other` with `self` puts the
// earliest `(deadline, sequence)` on top. The callback is never compared.
impl Ord for Sleeper {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.deadline, other.sequence).cmp(&(self.deadline, self.sequence))
    }
}

impl PartialOrd for Sleeper {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Sleeper {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Sleeper {}

/// The talk's callback scheduler: a ready queue, a sleeping heap, a clock.
///
/// The collections sit in `RefCell`s because a running callback schedules more through
/// the same `&Scheduler`: whatever `run` borrows, it must give back before it calls one.
pub struct Scheduler {
    clock: Rc<dyn Clock>,
    ready: RefCell<VecDeque<Callback>>,
    sleeping: RefCell<BinaryHeap<Sleeper>>,
    sequence: Cell<u64>,
}

impl Scheduler {
    /// An empty scheduler on `clock`.
    pub fn new(clock: Rc<dyn Clock>) -> Scheduler {
        Scheduler {
            clock,
            ready: RefCell::default(),
            sleeping: RefCell::default(),
            sequence: Cell::new(0),
        }
    }

    /// The time on the scheduler's clock.
    pub fn time(&self) -> Duration {
        self.clock.now()
    }

    /// Run `callback` as soon as the callbacks already ready have run.
    pub fn call_soon(&self, callback: impl FnOnce(&Scheduler) + 'static) {
        self.ready.borrow_mut().push_back(Box::new(callback));
    }

    /// Run `callback` once `delay` has passed.
    pub fn call_later(&self, delay: Duration, callback: impl FnOnce(&Scheduler) + 'static) {
        self.sequence.set(self.sequence.get() + 1);
        self.sleeping.borrow_mut().push(Sleeper {
            deadline: self.time() + delay,
            sequence: self.sequence.get(),
            callback: Box::new(callback),
        });
    }

    /// Build it 1.4: run callbacks until none is ready and none is sleeping.
    ///
    /// The talk's loop, in two parts, for as long as there is anything to do: when nothing
    /// is ready, take the earliest sleeper off the heap, wait on the clock until its
    /// deadline (`Clock::sleep_until`; the virtual clock jumps there) and make it ready;
    /// then run the ready queue until it is empty, including what the callbacks add to it
    /// while it runs. The heap is looked at again only once the queue is empty.
    ///
    /// As shipped, it returns at once: nothing runs.
    pub fn run(&self) {}
}
