//! `Future<T>`: a result that is not there yet (book chapter 6, "Futures"; asyncio's
//! `futures.py`).
//!
//! asyncio's `Future` is a box with three states (pending, cancelled, finished with a
//! result or an exception) and a list of done callbacks. Setting a result does not call
//! the callbacks: it *schedules* each of them with `call_soon`, so they run in the next
//! iteration, in the order they were added. Everything else in asyncio that waits (a task
//! waiting for a sleep, `gather` waiting for its children, `run_until_complete` waiting
//! for its argument) is a done callback on a future.
//!
//! Our `Future<T>` is that box, plus one thing Python does not need: it is also a Rust
//! [`std::future::Future`], so `async` code can `.await` it. Awaiting registers the
//! awaiting task's [`Waker`] in the same callback list, in its turn; when the future
//! completes, the waker schedules the task's next step with `call_soon`, exactly where
//! asyncio would have scheduled the task's `__wakeup` done callback.
//!
//! Every awaiter receives the same outcome, as in Python, so reading a result clones it:
//! `T: Clone`. (A task whose output is expensive or impossible to clone returns an `Rc`.)
//!
//! This file holds the state and asyncio's methods on it; three child modules, which read
//! the same private state, hold one concept each: `future/awaiting.rs` (how a task awaits
//! it, the Rust half), `future/canceller.rs` (who cancels it: a task's future asks its
//! task, `gather`'s its children) and `future/report.rs` (its repr, and the exception
//! nobody retrieved).
//!
//! What changed since stage 4: stage 4 had no futures; a task waited on a timer or a socket
//! by leaving itself in the scheduler's `current` slot. Here waiting for anything is waiting
//! for a future, and a task is itself a future (see `task.rs`).

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::task::Waker;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::event_loop::weak::WeakLoop;

mod awaiting;
mod canceller;
mod report;

pub(crate) use canceller::Canceller;

/// A future's outcome, once it has one. Cloning gives another handle to the same future.
pub struct Future<T> {
    inner: Rc<FutureInner<T>>,
}

/// The number `add_done_callback` returns, for `remove_done_callback`: Rust closures have
/// no identity to compare, as Python functions do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallbackId(u64);

// ANCHOR: state
struct FutureInner<T> {
    lp: WeakLoop,
    state: RefCell<State<T>>,
    log_unretrieved: Cell<bool>, // an exception nobody has looked at yet
}

struct State<T> {
    outcome: Outcome<T>,
    callbacks: Vec<(CallbackId, Callback<T>)>, // in the order they were added
    next_callback: u64,
    canceller: Option<Canceller>, // a task's or gather's own `cancel` (`canceller.rs`)
}

enum Outcome<T> {
    Pending,
    Cancelled,
    Finished(Result<T, Error>),
}

/// A done callback: a closure scheduled with `call_soon`, or the waker of a task that
/// awaits this future.
enum Callback<T> {
    Call(DoneCallback<T>),
    Wake(Waker),
}

type DoneCallback<T> = Box<dyn FnOnce(&EventLoop, &Future<T>)>;
// ANCHOR_END: state

impl<T> Clone for Future<T> {
    fn clone(&self) -> Self {
        Future {
            inner: self.inner.clone(),
        }
    }
}

impl<T: 'static> Future<T> {
    /// A pending future on `lp` (also `lp.create_future()`).
    pub fn new(lp: &EventLoop) -> Future<T> {
        Future {
            inner: Rc::new(FutureInner {
                lp: lp.downgrade(),
                state: RefCell::new(State {
                    outcome: Outcome::Pending,
                    callbacks: Vec::new(),
                    next_callback: 0,
                    canceller: None,
                }),
                log_unretrieved: Cell::new(false),
            }),
        }
    }

    /// True once the future has a result, an exception, or was cancelled.
    pub fn done(&self) -> bool {
        !matches!(self.inner.state.borrow().outcome, Outcome::Pending)
    }

    /// True if the future was cancelled.
    pub fn cancelled(&self) -> bool {
        matches!(self.inner.state.borrow().outcome, Outcome::Cancelled)
    }

    // ANCHOR: set_result
    /// Mark the future done with `value` and schedule its callbacks. Fails (asyncio's
    /// `InvalidStateError`) if it is already done.
    pub fn set_result(&self, value: T) -> Result<(), Error> {
        self.finish(Outcome::Finished(Ok(value)))
    }

    /// Set the result if the future is still pending (asyncio's
    /// `_set_result_unless_cancelled`, for futures a cancel may have ended first); true if
    /// it was set.
    pub fn set_result_unless_done(&self, value: T) -> bool {
        self.set_result(value).is_ok()
    }

    /// Mark the future done with `error` and schedule its callbacks.
    pub fn set_exception(&self, error: Error) -> Result<(), Error> {
        let cancelled = error.is_cancelled();
        self.finish(Outcome::Finished(Err(error)))?;
        self.inner.log_unretrieved.set(!cancelled);
        Ok(())
    }

    fn finish(&self, outcome: Outcome<T>) -> Result<(), Error> {
        {
            let mut state = self.inner.state.borrow_mut();
            if !matches!(state.outcome, Outcome::Pending) {
                return Err(Error::InvalidState("the future is already done"));
            }
            state.outcome = outcome;
        }
        self.schedule_callbacks();
        Ok(())
    }

    /// asyncio's `__schedule_callbacks`: every callback goes to the ready queue with
    /// `call_soon`, in the order it was added; a waiting task's waker does the same for
    /// the task's next step.
    fn schedule_callbacks(&self) {
        let callbacks = std::mem::take(&mut self.inner.state.borrow_mut().callbacks);
        let mut lp = None; // found at the first closure: the wakers of tasks need no loop
        for (_, callback) in callbacks {
            match callback {
                Callback::Wake(waker) => waker.wake(),
                Callback::Call(call) => {
                    if let Some(lp) = lp.get_or_insert_with(|| self.inner.lp.upgrade()) {
                        self.call_soon_done(lp, call);
                    }
                }
            }
        }
    }

    /// Schedule the done callback `call` with `call_soon`, handed this future when it runs.
    fn call_soon_done(&self, lp: &EventLoop, call: impl FnOnce(&EventLoop, &Future<T>) + 'static) {
        let me = self.clone();
        // A closed loop runs nothing more: the callback is dropped.
        let _ = lp.call_soon(move |lp| call(lp, &me));
    }
    // ANCHOR_END: set_result

    /// The loop this future belongs to, if it is still alive.
    pub(crate) fn event_loop(&self) -> Option<EventLoop> {
        self.inner.lp.upgrade()
    }

    /// True if this future belongs to `lp` (asyncio's `futures._get_loop(fut) is loop`).
    pub(crate) fn belongs_to(&self, lp: &EventLoop) -> bool {
        self.event_loop().is_some_and(|mine| mine.is(lp))
    }

    /// The exception, if the future finished with one; `None` if it has a result.
    /// A pending future is an error (`InvalidState`); a cancelled one, `Cancelled`.
    pub fn exception(&self) -> Result<Option<Error>, Error> {
        match &self.inner.state.borrow().outcome {
            Outcome::Pending => Err(Error::InvalidState("Exception is not set.")),
            Outcome::Cancelled => Err(Error::Cancelled),
            Outcome::Finished(result) => {
                self.inner.log_unretrieved.set(false);
                Ok(result.as_ref().err().cloned())
            }
        }
    }

    // ANCHOR: add_done_callback
    /// Call `callback` (through `call_soon`) once the future is done; if it already is,
    /// schedule it now. Returns an id for [`Future::remove_done_callback`].
    pub fn add_done_callback(
        &self,
        callback: impl FnOnce(&EventLoop, &Future<T>) + 'static,
    ) -> CallbackId {
        let mut state = self.inner.state.borrow_mut();
        state.next_callback += 1;
        let id = CallbackId(state.next_callback);
        if matches!(state.outcome, Outcome::Pending) {
            state
                .callbacks
                .push((id, Callback::Call(Box::new(callback))));
        } else {
            drop(state);
            if let Some(lp) = self.inner.lp.upgrade() {
                self.call_soon_done(&lp, callback);
            }
        }
        id
    }
    // ANCHOR_END: add_done_callback

    /// Remove a callback that has not been scheduled yet; returns how many were removed
    /// (0 or 1), as asyncio does.
    pub fn remove_done_callback(&self, id: CallbackId) -> usize {
        let mut state = self.inner.state.borrow_mut();
        let before = state.callbacks.len();
        state.callbacks.retain(|(other, _)| *other != id);
        before - state.callbacks.len()
    }

    /// The future's address, which tells it from every other live future.
    pub(crate) fn address(&self) -> usize {
        Rc::as_ptr(&self.inner).cast::<()>() as usize
    }

    /// True if both are the same future.
    pub fn ptr_eq(&self, other: &Future<T>) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }

    pub(crate) fn downgrade(&self) -> WeakFuture<T> {
        WeakFuture(Rc::downgrade(&self.inner))
    }
}

impl<T: Clone + 'static> Future<T> {
    /// The result: the value, the exception as an `Err`, [`Error::Cancelled`] if it was
    /// cancelled, or `InvalidState` if it is still pending.
    pub fn result(&self) -> Result<T, Error> {
        match &self.inner.state.borrow().outcome {
            Outcome::Pending => Err(Error::InvalidState("Result is not set.")),
            Outcome::Cancelled => Err(Error::Cancelled),
            Outcome::Finished(result) => {
                self.inner.log_unretrieved.set(false);
                result.clone()
            }
        }
    }
}

/// A future that does not keep its target alive (for `gather`'s cancel).
pub(crate) struct WeakFuture<T>(Weak<FutureInner<T>>);

impl<T> WeakFuture<T> {
    pub(crate) fn upgrade(&self) -> Option<Future<T>> {
        self.0.upgrade().map(|inner| Future { inner })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    #[test]
    fn states_and_results() {
        let lp = vloop();
        let f: Future<u32> = lp.create_future();
        assert!(!f.done() && !f.cancelled());
        assert!(matches!(f.result(), Err(Error::InvalidState(_))));
        assert!(matches!(f.exception(), Err(Error::InvalidState(_))));
        f.set_result(7).unwrap();
        assert!(f.done());
        assert_eq!(f.result().unwrap(), 7);
        assert!(f.exception().unwrap().is_none());
        assert!(matches!(f.set_result(8), Err(Error::InvalidState(_))));
        assert!(!f.cancel());
        assert_eq!(f.to_string(), "<Future finished>");

        let g: Future<u32> = lp.create_future();
        g.set_exception(Error::msg("bad")).unwrap();
        assert_eq!(g.result().unwrap_err().to_string(), "bad");
        assert_eq!(g.exception().unwrap().unwrap().to_string(), "bad");

        let h: Future<u32> = lp.create_future();
        assert!(h.cancel());
        assert!(h.cancelled() && h.done());
        assert!(matches!(h.result(), Err(Error::Cancelled)));
        assert!(matches!(h.exception(), Err(Error::Cancelled)));
    }

    #[test]
    fn done_callbacks_are_scheduled_in_order_and_removable() {
        let lp = vloop();
        let log = Rc::new(RefCell::new(Vec::new()));
        let f: Future<&'static str> = lp.create_future();
        for name in ["a", "b", "c"] {
            let log = log.clone();
            let id = f.add_done_callback(move |_, f| {
                log.borrow_mut()
                    .push(format!("{name}:{}", f.result().unwrap()))
            });
            if name == "b" {
                assert_eq!(f.remove_done_callback(id), 1);
                assert_eq!(f.remove_done_callback(id), 0);
            }
        }
        f.set_result("x").unwrap();
        assert!(
            log.borrow().is_empty(),
            "callbacks run later, not inside set_result"
        );
        assert_eq!(lp.ready_len(), 2);
        lp.run_once().unwrap();
        assert_eq!(*log.borrow(), ["a:x", "c:x"]);
        // On a done future, a new callback is scheduled at once.
        let l = log.clone();
        f.add_done_callback(move |_, _| l.borrow_mut().push("late".into()));
        assert_eq!(lp.ready_len(), 1);
    }

    #[test]
    fn a_closed_loops_future_completes_and_drops_its_callbacks() {
        // asyncio's `call_soon` would raise `RuntimeError` out of `set_result`; here the
        // result is set, and the callbacks, which nothing can run any more, are dropped.
        let lp = vloop();
        let ran = Rc::new(Cell::new(0));
        let f: Future<u32> = lp.create_future();
        let r = ran.clone();
        f.add_done_callback(move |_, _| r.set(r.get() + 1));
        lp.close().unwrap();
        assert!(f.set_result(1).is_ok());
        let r = ran.clone();
        f.add_done_callback(move |_, _| r.set(r.get() + 1));
        assert_eq!((f.result().unwrap(), lp.ready_len(), ran.get()), (1, 0, 0));
    }

    #[test]
    fn an_exception_never_retrieved_is_reported_when_dropped() {
        let lp = vloop();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        lp.set_exception_handler(Some(Rc::new(move |_, context| {
            s.borrow_mut().push(format!(
                "{}: {}",
                context.message,
                context.exception.as_ref().unwrap()
            ))
        })));
        let f: Future<u32> = lp.create_future();
        f.set_exception(Error::msg("lost")).unwrap();
        drop(f);
        let g: Future<u32> = lp.create_future();
        g.set_exception(Error::msg("seen")).unwrap();
        assert!(g.result().is_err());
        drop(g);
        assert_eq!(
            *seen.borrow(),
            ["Future exception was never retrieved: lost"]
        );
    }
}
