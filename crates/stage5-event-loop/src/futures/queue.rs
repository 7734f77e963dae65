//! `Queue`: asyncio's `asyncio.Queue` (book chapter 6, "The queue"; asyncio's
//! `queues.py`, the awaitable successor of the callback queue of Beazley's talk).
//!
//! A deque of items, plus two deques of *waiters*: futures that a blocked `get` (or, with
//! a `maxsize`, a blocked `put`) awaits. `put_nowait` appends an item and wakes the first
//! getter by setting its future's result; the getter's task then takes an item with
//! `get_nowait` in its next step. `get_nowait` does the same for the first putter. A
//! waiter that was woken but cancelled before taking its turn passes the turn on to the
//! next waiter, so no item is left waiting while someone waits for it.
//!
//! What changed since stage 4: stage 4's queue kept the *tasks* that waited (through the
//! `current` slot) and put them back on the ready queue itself. Here waiting is awaiting an
//! ordinary future, and the wake goes through the task's waker, like every other wait.
//! Unlike stage 1's queue, an item is not handed to the woken getter: asyncio's getter
//! takes it when it runs, and since every getter takes its item in the step right after its
//! wake-up, in the order they were woken, the talk's race (two consumers, one item) does
//! not occur: a getter that wakes and finds the queue empty just waits again.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::rc::Rc;

use crate::errors::{Error, QueueFull};
use crate::event_loop::EventLoop;
use scaffold::Event;

use crate::futures::future::Future;
use crate::parts::current::current_task;

/// A FIFO queue for tasks, bounded if `maxsize > 0`. Cloning gives another handle to the
/// same queue.
pub struct Queue<T> {
    inner: Rc<QueueInner<T>>,
}

struct QueueInner<T> {
    lp: EventLoop,
    maxsize: usize,
    state: RefCell<State<T>>,
}

struct State<T> {
    items: VecDeque<T>,
    getters: VecDeque<Future<()>>,
    putters: VecDeque<Future<()>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Getters,
    Putters,
}

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Queue {
            inner: self.inner.clone(),
        }
    }
}

impl<T: 'static> Queue<T> {
    /// A queue on `lp`; `maxsize` 0 means unbounded, as in asyncio.
    pub fn new(lp: &EventLoop, maxsize: usize) -> Queue<T> {
        Queue {
            inner: Rc::new(QueueInner {
                lp: lp.clone(),
                maxsize,
                state: RefCell::new(State {
                    items: VecDeque::new(),
                    getters: VecDeque::new(),
                    putters: VecDeque::new(),
                }),
            }),
        }
    }

    /// How many items are in the queue.
    pub fn qsize(&self) -> usize {
        self.inner.state.borrow().items.len()
    }

    /// The bound (0: none).
    pub fn maxsize(&self) -> usize {
        self.inner.maxsize
    }

    /// True if no item is in the queue.
    pub fn empty(&self) -> bool {
        self.inner.state.borrow().items.is_empty()
    }

    /// True if the queue holds `maxsize` items (never, for an unbounded queue).
    pub fn full(&self) -> bool {
        self.inner.maxsize > 0 && self.qsize() >= self.inner.maxsize
    }

    // A hint, measured ("Going further"): without it the producer's loop calls this out of
    // line, and W4 (the queue benchmark) costs 12% more per item.
    #[inline]
    // ANCHOR: nowait
    /// Put `item` without waiting; a full queue gives it back in [`QueueFull`].
    pub fn put_nowait(&self, item: T) -> Result<(), QueueFull<T>> {
        if self.full() {
            return Err(QueueFull(item));
        }
        self.inner.state.borrow_mut().items.push_back(item);
        self.wakeup_next(Side::Getters);
        Ok(())
    }

    /// Take an item without waiting; an empty queue is [`Error::QueueEmpty`].
    pub fn get_nowait(&self) -> Result<T, Error> {
        let item = self.inner.state.borrow_mut().items.pop_front();
        let item = item.ok_or(Error::QueueEmpty)?;
        self.wakeup_next(Side::Putters);
        Ok(item)
    }

    /// Wake the first waiter that is still waiting (asyncio's `_wakeup_next`).
    fn wakeup_next(&self, side: Side) {
        loop {
            let waiter = self.inner.state.borrow_mut().waiters(side).pop_front();
            match waiter {
                None => return,
                Some(waiter) if waiter.set_result_unless_done(()) => return,
                Some(_) => continue,
            }
        }
    }
    // ANCHOR_END: nowait

    // ANCHOR: get
    /// Take an item, waiting while the queue is empty.
    pub async fn get(&self) -> T {
        loop {
            // An empty queue's `get_nowait` returns before it looks at the putters.
            if let Ok(item) = self.get_nowait() {
                return item;
            }
            self.wait(Side::Getters).await;
        }
    }

    /// Put an item, waiting while the queue is full.
    pub async fn put(&self, item: T) {
        while self.full() {
            self.wait(Side::Putters).await;
        }
        if self.put_nowait(item).is_err() {
            unreachable!("the queue is not full");
        }
    }

    /// Wait for a turn on `side`: a future in the waiters' deque, resolved by
    /// `wakeup_next`. The guard undoes the wait if the waiting task is cancelled.
    async fn wait(&self, side: Side) {
        let waiter = self.inner.lp.create_future::<()>();
        let waiting = {
            let mut state = self.inner.state.borrow_mut();
            state.waiters(side).push_back(waiter.clone());
            state.waiters(side).len()
        };
        let who = current_task();
        match side {
            Side::Getters => loop_event!(&self.inner.lp, Event::QueueWait { who, waiting }),
            // The name is formatted only when the trace is on, inside the macro.
            Side::Putters => loop_trace!(
                &self.inner.lp,
                "queue put: full, {who} waits ({waiting} waiting)",
                who = who.map_or_else(|| "the caller".to_owned(), |id| id.to_string())
            ),
        }
        let mut guard = WaitGuard {
            queue: self,
            waiter: waiter.clone(),
            side,
            armed: true,
        };
        // Woken or cancelled, the caller loops around and checks the queue again. Unless
        // the waiter can never be woken: the queue is another loop's (asyncio's queue "is
        // bound to a different event loop"). `get` and `put` return no `Result`, so the
        // task fails with a panic instead of waiting again and again; the guard, still
        // armed, takes the waiter out as the panic unwinds.
        if let Err(error @ Error::ForeignFuture) = waiter.await {
            panic!("{error}: the queue belongs to another loop");
        }
        guard.armed = false;
    }
    // ANCHOR_END: get
}

// ANCHOR: guard
/// Dropped while still waiting (the task was cancelled): cancel the waiter, take it out of
/// the deque, and if it had already been woken, pass the wake-up on (asyncio's `except`
/// branch in `Queue.get`/`Queue.put`).
struct WaitGuard<'a, T: 'static> {
    queue: &'a Queue<T>,
    waiter: Future<()>,
    side: Side,
    armed: bool, // false once the wait ended normally: nothing to undo
}

impl<T: 'static> Drop for WaitGuard<'_, T> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.waiter.cancel();
        let queue = self.queue;
        queue
            .inner
            .state
            .borrow_mut()
            .waiters(self.side)
            .retain(|w| !w.ptr_eq(&self.waiter));
        let can_go_on = match self.side {
            Side::Getters => !queue.empty(),
            Side::Putters => !queue.full(),
        };
        if can_go_on && !self.waiter.cancelled() {
            queue.wakeup_next(self.side);
        }
    }
}
// ANCHOR_END: guard

impl<T> State<T> {
    fn waiters(&mut self, side: Side) -> &mut VecDeque<Future<()>> {
        match side {
            Side::Getters => &mut self.getters,
            Side::Putters => &mut self.putters,
        }
    }
}

impl<T> fmt::Debug for Queue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state.borrow();
        write!(
            f,
            "<Queue maxsize={} qsize={} getters={} putters={}>",
            self.inner.maxsize,
            state.items.len(),
            state.getters.len(),
            state.putters.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sleep;
    use scaffold::VirtualClock;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    #[test]
    fn nowait_errors() {
        let lp = vloop();
        let q = Queue::new(&lp, 1);
        assert!(matches!(q.get_nowait(), Err(Error::QueueEmpty)));
        q.put_nowait(1).unwrap();
        assert!(q.full());
        assert_eq!(q.put_nowait(2), Err(QueueFull(2)));
        assert_eq!(q.get_nowait().unwrap(), 1);
        assert!(q.empty());
        assert_eq!(
            format!("{q:?}"),
            "<Queue maxsize=1 qsize=0 getters=0 putters=0>"
        );
    }

    #[test]
    fn a_bounded_put_waits_for_a_get() {
        let lp = vloop();
        let q = Queue::new(&lp, 1);
        let log = Rc::new(RefCell::new(Vec::new()));
        let (q1, l1, lp1) = (q.clone(), log.clone(), lp.clone());
        let producer = lp
            .create_task(async move {
                for n in 0..3 {
                    q1.put(n).await;
                    l1.borrow_mut().push(format!("{:.0} put {n}", lp1.time()));
                }
                Ok(())
            })
            .unwrap();
        let (q2, l2, lp2) = (q.clone(), log.clone(), lp.clone());
        let consumer = lp
            .create_task(async move {
                for _ in 0..3 {
                    sleep(&lp2, 1.0).await?;
                    let n = q2.get().await;
                    l2.borrow_mut().push(format!("{:.0} got {n}", lp2.time()));
                }
                Ok(())
            })
            .unwrap();
        lp.run_until_complete(&producer).unwrap();
        lp.run_until_complete(&consumer).unwrap();
        assert_eq!(
            *log.borrow(),
            [
                "0 put 0", "1 got 0", "1 put 1", "2 got 1", "2 put 2", "3 got 2"
            ]
        );
    }

    #[test]
    fn a_queue_of_another_loop_fails_the_task_that_waits_on_it() {
        let lp = vloop();
        let other = vloop();
        let (empty, full) = (Queue::<u32>::new(&other, 1), Queue::new(&other, 1));
        full.put_nowait(1).unwrap();
        let (e, f) = (empty.clone(), full.clone());
        let getter = lp.create_task(async move { Ok(e.get().await) }).unwrap();
        let putter = lp
            .create_task(async move {
                f.put(2).await;
                Ok(())
            })
            .unwrap();
        // A bounded number of iterations: waiting again and again would never end.
        for _ in 0..10 {
            if lp.run_once().is_err() {
                break; // nothing left to wait for: both tasks are over
            }
        }
        for outcome in [getter.result().map(drop), putter.result()] {
            let error = outcome.unwrap_err().to_string();
            assert!(
                error.contains("the queue belongs to another loop"),
                "{error}"
            );
        }
        assert_eq!(
            format!("{empty:?} {full:?}"),
            "<Queue maxsize=1 qsize=0 getters=0 putters=0> <Queue maxsize=1 qsize=1 getters=0 putters=0>"
        );
    }

    #[test]
    fn a_cancelled_getter_that_was_woken_passes_the_item_on() {
        let lp = vloop();
        let q: Queue<u32> = Queue::new(&lp, 0);
        let (qa, qb) = (q.clone(), q.clone());
        let a = lp.create_task(async move { Ok(qa.get().await) }).unwrap();
        let b = lp.create_task(async move { Ok(qb.get().await) }).unwrap();
        lp.run_once().unwrap(); // both wait
        q.put_nowait(7).unwrap(); // wakes a
        a.cancel(); // ... but a is cancelled before it takes the item
        lp.run_until_complete(&b).unwrap();
        assert!(a.cancelled());
        assert_eq!(b.result().unwrap(), 7);
        assert!(q.empty());
    }
}
