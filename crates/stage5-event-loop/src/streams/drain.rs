//! What `drain` waits on (book chapter 8, "drain"; asyncio's `streams.py`:
//! `FlowControlMixin`).
//!
//! The transport calls `pause_writing` and `resume_writing`; a task cannot wait for a
//! method call, so asyncio's `FlowControlMixin` turns them into state and futures:
//! `pause_writing` sets a flag, `drain_helper` returns at once unless it is set and
//! otherwise waits on a future, and `resume_writing` (or `connection_lost`) completes every
//! such future. The same state keeps the future `wait_closed` waits on.
//!
//! What changed from chapter 7: a task waited for its socket; here it waits for the
//! transport's buffer to come down.

use std::cell::{Cell, RefCell};

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::event_loop::weak::WeakLoop;
use crate::futures::future::Future;

/// asyncio's `FlowControlMixin`, without the protocol around it.
pub struct DrainState {
    lp: WeakLoop,
    paused: Cell<bool>,
    connection_lost: Cell<bool>,
    waiters: RefCell<Vec<Future<()>>>,
    closed: Future<()>, // done when the connection is lost: `wait_closed`
}

impl DrainState {
    /// Not paused, connected.
    pub fn new(lp: &EventLoop) -> DrainState {
        DrainState {
            lp: lp.downgrade(),
            paused: Cell::new(false),
            connection_lost: Cell::new(false),
            waiters: RefCell::new(Vec::new()),
            closed: lp.create_future(),
        }
    }

    /// The future done when the connection is lost.
    pub fn closed(&self) -> Future<()> {
        self.closed.clone()
    }

    // ANCHOR: drain_helper
    /// asyncio's `_drain_helper`: return at once unless writing is paused; otherwise wait
    /// for `resume_writing`. A lost connection is an error.
    pub async fn drain_helper(&self) -> Result<(), Error> {
        if self.connection_lost.get() {
            return Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset).into());
        }
        if !self.paused.get() {
            return Ok(());
        }
        let Some(lp) = self.lp.upgrade() else {
            return Err(Error::Closed);
        };
        let waiter = lp.create_future::<()>();
        self.waiters.borrow_mut().push(waiter.clone());
        let result = waiter.clone().await;
        self.waiters.borrow_mut().retain(|w| !w.ptr_eq(&waiter));
        result
    }
    // ANCHOR_END: drain_helper

    /// `pause_writing`.
    pub fn pause(&self) {
        self.paused.set(true);
    }

    /// `resume_writing`: every waiting `drain` returns.
    pub fn resume(&self) {
        self.paused.set(false);
        for waiter in self.waiters.borrow().iter() {
            waiter.set_result_unless_done(()); // false: cancelled meanwhile
        }
    }

    /// `connection_lost`: `wait_closed` returns, and so does every waiting `drain` (with
    /// `exc` if there is one).
    pub fn lost(&self, exc: Option<&Error>) {
        finish(&self.closed, exc);
        self.connection_lost.set(true);
        if self.paused.get() {
            for waiter in self.waiters.borrow().iter() {
                finish(waiter, exc);
            }
        }
    }
}

/// Complete `future` with `exc` or `()`, unless it is done (cancelled) already.
fn finish(future: &Future<()>, exc: Option<&Error>) {
    if future.done() {
        return;
    }
    let set = match exc {
        None => future.set_result(()),
        Some(error) => future.set_exception(error.clone()),
    };
    drop(set); // `Ok`: it was pending, as just checked
}
