//! Chapter 1's exercises, solved (book chapter 1; Beazley's talk, its callback scheduler
//! and queue). Compare with `src/ch1.rs`, the stubs.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use stage1::{CallbackId, Scheduler};

/// What the exercises' callbacks write, in order.
pub type Log = Rc<RefCell<Vec<String>>>;

/// Exercise 1.1, let the timers in: do `n` chunks of work, one callback each, each logging
/// `chunk i`. The first chunk runs as soon as possible; after each chunk, timers that are
/// due must get their turn before the next chunk.
pub fn chunked(s: &Scheduler, log: Log, n: u32) {
    fn chunk(s: &Scheduler, log: Log, i: u32, n: u32) {
        if i < n {
            log.borrow_mut().push(format!("chunk {i}"));
            // A zero-delay timer, not `call_soon`: it goes on the heap behind the timers
            // already due, and stage 1's loop looks at the heap only when nothing is ready.
            s.call_later(Duration::ZERO, move |s| chunk(s, log, i + 1, n));
        }
    }
    s.call_soon(move |s| chunk(s, log, 0, n));
}

/// Exercise 1.2: run `callback` at the absolute time `when` on the scheduler's clock (at
/// once, if `when` has passed). Stage 1 only has `call_later`, a delay.
pub fn call_at(
    s: &Scheduler,
    when: Duration,
    callback: impl FnOnce(&Scheduler) + 'static,
) -> CallbackId {
    // `saturating_sub`: a time in the past is a delay of zero, not a panic.
    s.call_later(when.saturating_sub(s.time()), callback)
}

/// Exercise 1.3: the talk's callback queue, whose `get` must pop the item when it is
/// promised, not later.
pub struct CallbackQueue<T> {
    items: Rc<RefCell<VecDeque<T>>>,
    waiting: Rc<RefCell<VecDeque<Waiter<T>>>>,
}

/// A consumer waiting for an item.
type Waiter<T> = Box<dyn FnOnce(&Scheduler, T)>;

impl<T: 'static> Default for CallbackQueue<T> {
    fn default() -> Self {
        CallbackQueue {
            items: Rc::default(),
            waiting: Rc::default(),
        }
    }
}

impl<T: 'static> CallbackQueue<T> {
    /// Add `item`, or hand it to the first waiting consumer.
    pub fn put(&self, s: &Scheduler, item: T) {
        match self.waiting.borrow_mut().pop_front() {
            Some(waiter) => {
                s.call_soon(move |s| waiter(s, item));
            }
            None => self.items.borrow_mut().push_back(item),
        }
    }

    /// Call `callback` with the next item, now if there is one, or when one is put.
    pub fn get(&self, s: &Scheduler, callback: impl FnOnce(&Scheduler, T) + 'static) {
        // Taken out now: nobody else can be promised the same item.
        let item = self.items.borrow_mut().pop_front();
        match item {
            Some(item) => {
                s.call_soon(move |s| callback(s, item));
            }
            None => self.waiting.borrow_mut().push_back(Box::new(callback)),
        }
    }
}
