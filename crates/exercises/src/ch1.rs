//! Chapter 1's exercises (book chapter 1; Beazley's talk, its callback scheduler and
//! queue). Each item below is a stub that compiles and does the wrong thing; `tests/ch1.rs`
//! says what the right thing is. Run one with `cargo run -p exercises -- run 1.1`.

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
///
/// As shipped, each chunk re-schedules the next with `call_soon`, and a timer due now waits
/// until every chunk is done: the ready queue starves the heap. Change one line.
pub fn chunked(s: &Scheduler, log: Log, n: u32) {
    fn chunk(s: &Scheduler, log: Log, i: u32, n: u32) {
        if i < n {
            log.borrow_mut().push(format!("chunk {i}"));
            s.call_soon(move |s| chunk(s, log, i + 1, n));
        }
    }
    s.call_soon(move |s| chunk(s, log, 0, n));
}

/// Exercise 1.2: run `callback` at the absolute time `when` on the scheduler's clock (at
/// once, if `when` has passed). Stage 1 only has `call_later`, a delay.
///
/// As shipped, `when` is taken for a delay.
pub fn call_at(
    s: &Scheduler,
    when: Duration,
    callback: impl FnOnce(&Scheduler) + 'static,
) -> CallbackId {
    s.call_later(when, callback)
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
    ///
    /// As shipped, this is the talk's `get`: it sees an item and schedules a callback that
    /// pops it *later*. Two consumers asking while one item waits both schedule a pop, and
    /// the second finds the deque empty.
    pub fn get(&self, s: &Scheduler, callback: impl FnOnce(&Scheduler, T) + 'static) {
        if self.items.borrow().is_empty() {
            self.waiting.borrow_mut().push_back(Box::new(callback));
        } else {
            let items = self.items.clone();
            s.call_soon(move |s| {
                let item = items.borrow_mut().pop_front();
                callback(s, item.expect("IndexError: pop from an empty deque"));
            });
        }
    }
}
