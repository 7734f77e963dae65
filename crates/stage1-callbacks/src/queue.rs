//! A queue for callbacks (book chapter 1, "The queue and its bug"; Beazley's talk).
//!
//! A consumer cannot block in `get` (that would block the whole scheduler), so it hands
//! `get` a callback instead: "call me with the next item". The talk wraps the item or the
//! `QueueClosed` exception in a `Result` class; that class is Rust's own
//! [`Result<T, QueueClosed>`].
//!
//! The talk's queue has a bug that two consumers expose. Its `get` checks that an item is
//! there, then schedules `callback(Result(self.items.popleft()))`: the item is popped
//! *later*, when that lambda runs. Two consumers calling `get` while one item waits both
//! see it, both schedule a pop, and the second pops an empty deque (`IndexError`).
//!
//! The fix is what ownership asks for anyway: take the item out of the queue *at the
//! moment it is promised*, and move it into the scheduled callback. A woken waiter is
//! handed the item directly by `put`, so no other consumer can take it in between, and
//! `close` wakes *every* waiter, not one.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

use scaffold::event;
use scaffold::event::{Event, Id};

use crate::scheduler::Scheduler;

/// The queue was closed: no item will ever come (from `get`), or no more may be put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueClosed;

impl fmt::Display for QueueClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("queue closed")
    }
}

impl std::error::Error for QueueClosed {}

/// What a consumer hands to [`AsyncQueue::get`]: called once, with the next item or
/// with `QueueClosed`.
type Waiter<T> = Box<dyn FnOnce(&Scheduler, Result<T, QueueClosed>)>;

/// A waiting consumer: its callback, and the callback that asked (for the trace).
struct Waiting<T> {
    asked_by: Option<Id>,
    waiter: Waiter<T>,
}

/// A FIFO queue whose consumers wait by leaving a callback. Cloning gives another handle
/// to the same queue.
pub struct AsyncQueue<T> {
    state: Rc<RefCell<State<T>>>,
}

struct State<T> {
    items: VecDeque<T>,
    waiting: VecDeque<Waiting<T>>, // never non-empty while `items` is non-empty
    closed: bool,
}

impl<T> Clone for AsyncQueue<T> {
    fn clone(&self) -> Self {
        AsyncQueue {
            state: self.state.clone(),
        }
    }
}

impl<T: 'static> Default for AsyncQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: 'static> AsyncQueue<T> {
    /// An empty, open queue.
    pub fn new() -> Self {
        AsyncQueue {
            state: Rc::new(RefCell::new(State {
                items: VecDeque::new(),
                waiting: VecDeque::new(),
                closed: false,
            })),
        }
    }

    // ANCHOR: put
    /// Add `item`. If a consumer is waiting, it gets the item (scheduled with `call_soon`);
    /// otherwise the item waits in the queue. Fails once the queue is closed.
    pub fn put(&self, s: &Scheduler, item: T) -> Result<(), QueueClosed> {
        let mut state = self.state.borrow_mut();
        if state.closed {
            return Err(QueueClosed);
        }
        match state.waiting.pop_front() {
            // Hand the item straight to the waiter: nobody else can take it in between.
            Some(Waiting { asked_by, waiter }) => {
                wake(asked_by, "queue put");
                s.call_soon(move |s| waiter(s, Ok(item)));
            }
            None => {
                state.items.push_back(item);
                let queued = state.items.len();
                event!(Event::note(format!(
                    "queue put: no consumer waiting, {queued} queued"
                )));
            }
        }
        Ok(())
    }
    // ANCHOR_END: put

    // ANCHOR: get
    /// Ask for the next item: `callback` is scheduled with it, or with `QueueClosed` once
    /// the queue is closed and empty. With nothing queued, the callback waits its turn; if
    /// nothing is ever put and the queue is never closed, it is never called, and `run`
    /// ends without it (the scheduler does not know it waits).
    pub fn get(
        &self,
        s: &Scheduler,
        callback: impl FnOnce(&Scheduler, Result<T, QueueClosed>) + 'static,
    ) {
        let mut state = self.state.borrow_mut();
        if let Some(item) = state.items.pop_front() {
            // Popped now, not when the callback runs: the talk's bug is popping later.
            event!(Event::note("queue get: an item is there"));
            s.call_soon(move |s| callback(s, Ok(item)));
        } else if state.closed {
            event!(Event::note("queue get: closed and empty"));
            s.call_soon(move |s| callback(s, Err(QueueClosed)));
        } else {
            let asked_by = s.running().map(Id::from);
            state.waiting.push_back(Waiting {
                asked_by,
                waiter: Box::new(callback),
            });
            event!(Event::QueueWait {
                who: asked_by,
                waiting: state.waiting.len()
            });
        }
    }
    // ANCHOR_END: get

    // ANCHOR: close
    /// Close the queue: items already in it are still delivered, every waiting consumer
    /// is told `QueueClosed`, and `put` fails from now on.
    pub fn close(&self, s: &Scheduler) {
        let mut state = self.state.borrow_mut();
        state.closed = true;
        let waiting = state.waiting.len();
        event!(Event::note(format!(
            "queue close: tell each waiting consumer ({waiting}) QueueClosed"
        )));
        for Waiting { asked_by, waiter } in state.waiting.drain(..) {
            wake(asked_by, "queue close");
            s.call_soon(move |s| waiter(s, Err(QueueClosed)));
        }
    }
    // ANCHOR_END: close

    /// How many items wait to be taken.
    pub fn len(&self) -> usize {
        self.state.borrow().items.len()
    }

    /// True when no item waits to be taken.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many consumers wait for an item.
    pub fn waiters(&self) -> usize {
        self.state.borrow().waiting.len()
    }
}

/// Report that the consumer `asked_by` is woken (its callback is scheduled next).
fn wake(asked_by: Option<Id>, by: &'static str) {
    if let Some(to) = asked_by {
        event!(Event::Wake { to, by });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::clock::VirtualClock;

    type Log = Rc<RefCell<Vec<String>>>;

    /// A consumer that logs what it gets under `name` and asks again until closed.
    fn consume(s: &Scheduler, q: &AsyncQueue<u32>, name: &'static str, log: &Log) {
        let (q2, log2) = (q.clone(), log.clone());
        q.get(s, move |s, result| match result {
            Ok(item) => {
                log2.borrow_mut().push(format!("{name} got {item}"));
                consume(s, &q2, name, &log2);
            }
            Err(QueueClosed) => log2.borrow_mut().push(format!("{name} done")),
        });
    }

    #[test]
    fn two_consumers_share_items_and_both_hear_close() {
        let s = Scheduler::new(VirtualClock::new());
        let q = AsyncQueue::new();
        let log: Log = Rc::default();
        // One item already queued when both consumers ask: the talk's IndexError case.
        q.put(&s, 0).unwrap();
        consume(&s, &q, "A", &log);
        consume(&s, &q, "B", &log);
        let q2 = q.clone();
        s.call_later(std::time::Duration::from_secs(1), move |s| {
            q2.put(s, 1).unwrap();
            q2.put(s, 2).unwrap();
            q2.close(s);
        });
        s.run();
        assert_eq!(
            *log.borrow(),
            ["A got 0", "B got 1", "A got 2", "B done", "A done"]
        );
    }

    #[test]
    fn a_get_that_nothing_answers_ends_the_run_without_being_called() {
        let s = Scheduler::new(VirtualClock::new());
        let q: AsyncQueue<u32> = AsyncQueue::new();
        let log: Log = Rc::default();
        consume(&s, &q, "A", &log);
        s.run(); // returns: nothing is ready or sleeping, whatever waits on the queue
        assert!(log.borrow().is_empty());
        assert_eq!(q.waiters(), 1);
    }

    #[test]
    fn close_wakes_every_waiter() {
        let s = Scheduler::new(VirtualClock::new());
        let q: AsyncQueue<u32> = AsyncQueue::new();
        let log: Log = Rc::default();
        for name in ["A", "B", "C"] {
            consume(&s, &q, name, &log);
        }
        assert_eq!(q.waiters(), 3);
        q.close(&s);
        s.run();
        assert_eq!(*log.borrow(), ["A done", "B done", "C done"]);
        assert_eq!(q.waiters(), 0);
    }

    #[test]
    fn items_queued_before_close_are_still_delivered() {
        let s = Scheduler::new(VirtualClock::new());
        let q = AsyncQueue::new();
        let log: Log = Rc::default();
        q.put(&s, 7).unwrap();
        q.put(&s, 8).unwrap();
        q.close(&s);
        assert_eq!(q.put(&s, 9), Err(QueueClosed));
        assert_eq!(q.len(), 2);
        consume(&s, &q, "A", &log);
        s.run();
        assert_eq!(*log.borrow(), ["A got 7", "A got 8", "A done"]);
        assert!(q.is_empty());
    }
}
