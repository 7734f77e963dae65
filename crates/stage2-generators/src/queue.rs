//! An awaitable queue (book chapter 2, "The queue"; Beazley's talk).
//!
//! Stage 1's consumer handed `get` a callback. Here `get` is an `async fn`: a consumer
//! writes `let item = q.get().await?` in an ordinary loop. When the queue is empty the
//! consumer takes itself out of the scheduler's `current` slot, leaves the handle in the
//! queue's waiting list, and switches away; `put` makes the first waiter ready again.
//!
//! Like the talk's, `get` loops: a woken consumer checks for an item again, because another
//! task may have taken it in between. That makes the queue safe with many consumers:
//! nobody ever pops an empty deque.
//!
//! The talk's `close` has a bug: it wakes only the *first* waiting consumer. A second
//! consumer waiting on the same queue is never resumed: it silently disappears, and the
//! program ends without it ever hearing `QueueClosed`. Here `close` wakes every waiter.
//!
//! The queue works with any scheduler that implements [`Runtime`](crate::Runtime): stage
//! 3 reuses it as it is.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use scaffold::{Event, event};
pub use stage1::QueueClosed;

use crate::runtime::{self, Suspended};
use crate::switch::switch;

/// A FIFO queue that tasks await. Cloning gives another handle to the same queue.
pub struct AsyncQueue<T> {
    state: Rc<RefCell<State<T>>>,
}

struct State<T> {
    items: VecDeque<T>,
    waiting: VecDeque<Suspended>, // consumers that found the queue empty
    closed: bool,
}

impl<T> Clone for AsyncQueue<T> {
    fn clone(&self) -> Self {
        AsyncQueue {
            state: self.state.clone(),
        }
    }
}

impl<T> Default for AsyncQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> AsyncQueue<T> {
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
    /// Add `item` and make the first waiting consumer ready. Fails once closed. (The talk
    /// makes `put` a coroutine only for symmetry; it never pauses, so here it is a plain
    /// function.)
    pub fn put(&self, item: T) -> Result<(), QueueClosed> {
        let mut state = self.state.borrow_mut();
        if state.closed {
            return Err(QueueClosed);
        }
        state.items.push_back(item);
        if let Some(waiter) = state.waiting.pop_front() {
            drop(state); // resuming may re-enter the queue's owner; release the borrow first
            waiter.resume();
        }
        Ok(())
    }
    // ANCHOR_END: put

    // ANCHOR: get
    /// Wait for the next item; `Err(QueueClosed)` once the queue is closed and empty. If
    /// nothing is ever put and the queue is never closed, the task waits for ever: `run`
    /// ends without it (stage 2's notes how many tasks it left waiting).
    pub async fn get(&self) -> Result<T, QueueClosed> {
        loop {
            {
                let mut state = self.state.borrow_mut();
                if let Some(item) = state.items.pop_front() {
                    return Ok(item);
                }
                if state.closed {
                    return Err(QueueClosed);
                }
                event!(Event::QueueWait {
                    who: None, // the task says so itself, in `suspend`
                    waiting: state.waiting.len() + 1
                });
                // The talk's `waiting.append(sched.current); sched.current = None`.
                state.waiting.push_back(runtime::suspend());
            } // the borrow ends before we switch away
            switch().await;
        }
    }
    // ANCHOR_END: get

    // ANCHOR: close
    /// Close the queue: items already in it are still delivered, then every consumer
    /// gets `QueueClosed`. The talk wakes one waiter here; we wake them all.
    pub fn close(&self) {
        let waiters: Vec<Suspended> = {
            let mut state = self.state.borrow_mut();
            state.closed = true;
            state.waiting.drain(..).collect()
        };
        let waiting = waiters.len();
        event!(Event::note(format!(
            "queue close: wake every waiting task ({waiting})"
        )));
        for waiter in waiters {
            waiter.resume();
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scheduler, sleep};
    use scaffold::VirtualClock;
    use std::time::Duration;

    type Log = Rc<RefCell<Vec<String>>>;

    async fn consumer(q: AsyncQueue<u32>, name: &'static str, log: Log) {
        loop {
            match q.get().await {
                Ok(item) => log.borrow_mut().push(format!("{name} got {item}")),
                Err(QueueClosed) => {
                    log.borrow_mut().push(format!("{name} done"));
                    return;
                }
            }
        }
    }

    #[test]
    fn close_wakes_every_waiter() {
        let s = Scheduler::new(VirtualClock::new());
        let q = AsyncQueue::new();
        let log: Log = Rc::default();
        for name in ["A", "B", "C"] {
            s.new_task(consumer(q.clone(), name, log.clone()));
        }
        let q2 = q.clone();
        s.new_task(async move {
            sleep(Duration::from_secs(1)).await;
            q2.put(1).unwrap();
            q2.close();
        });
        s.run();
        assert_eq!(*log.borrow(), ["A got 1", "A done", "B done", "C done"]);
        assert_eq!(s.tasks(), 0, "no consumer may be left waiting");
    }

    #[test]
    fn items_still_queued_are_delivered_before_queue_closed() {
        let s = Scheduler::new(VirtualClock::new());
        let q = AsyncQueue::new();
        let log: Log = Rc::default();
        q.put(1).unwrap();
        q.put(2).unwrap();
        q.close();
        assert_eq!(q.put(3), Err(QueueClosed));
        s.new_task(consumer(q.clone(), "A", log.clone()));
        s.run();
        assert_eq!(*log.borrow(), ["A got 1", "A got 2", "A done"]);
        assert!(q.is_empty());
    }

    #[test]
    fn two_consumers_never_lose_or_duplicate_an_item() {
        let s = Scheduler::new(VirtualClock::new());
        let q = AsyncQueue::new();
        let log: Log = Rc::default();
        s.new_task(consumer(q.clone(), "A", log.clone()));
        s.new_task(consumer(q.clone(), "B", log.clone()));
        let q2 = q.clone();
        s.new_task(async move {
            for n in 0..4 {
                q2.put(n).unwrap();
                sleep(Duration::from_secs(1)).await;
            }
            q2.close();
        });
        s.run();
        let log = log.borrow();
        let mut got: Vec<_> = log.iter().filter_map(|l| l.split(" got ").nth(1)).collect();
        got.sort();
        assert_eq!(got, ["0", "1", "2", "3"]);
        assert!(log.contains(&"A done".to_owned()) && log.contains(&"B done".to_owned()));
    }
}
