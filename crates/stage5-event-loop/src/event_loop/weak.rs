//! Finding the loop without owning it (book chapter 6, "Real wakers"; asyncio's
//! `tasks.py`, `Task.__wakeup`).
//!
//! A future or a task must reach its loop (to schedule a callback, to report an error), but
//! must not keep it alive: the loop owns them, and an `Rc` back would make a cycle that is
//! never freed. They hold a [`WeakLoop`]. A task's waker is `Send`, so it cannot even hold
//! that: it holds the loop's thread-safe part, its remote queue, and finds the loop in the
//! list of loops that live on the thread it is woken on, as the one that owns that queue.
//! A loop has one identity, its address ([`EventLoop::address`]); the queue is matched as
//! a pointer the waker keeps alive, so a loop made later at a freed loop's address is never
//! taken for it.
//!
//! What changed since stage 4: stage 4's tasks found their scheduler in stage 2's
//! thread-local `Runtime` slot, set while they ran; a waker is woken from anywhere, at any
//! time.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::Arc;

use crate::event_loop::{EventLoop, LoopInner};
use crate::io_driver::self_pipe::RemoteQueue;

thread_local! {
    /// The loops living on this thread.
    static LOOPS: RefCell<Vec<WeakLoop>> = const { RefCell::new(Vec::new()) };
}

/// A loop reference that does not keep the loop alive.
#[derive(Clone)]
pub(crate) struct WeakLoop(Weak<LoopInner>);

impl WeakLoop {
    /// The loop, if it still lives.
    pub(crate) fn upgrade(&self) -> Option<EventLoop> {
        self.0.upgrade().map(|inner| EventLoop {
            inner,
            owner: false,
        })
    }
}

impl WeakLoop {
    /// The loop's address: the same as [`EventLoop::address`] while the loop lives.
    pub(crate) fn address(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

impl EventLoop {
    /// The loop's address, which tells it from the other loops of this thread.
    pub(crate) fn address(&self) -> usize {
        Rc::as_ptr(&self.inner) as usize
    }

    /// A reference that does not keep the loop alive (futures and tasks keep one).
    pub(crate) fn downgrade(&self) -> WeakLoop {
        WeakLoop(Rc::downgrade(&self.inner))
    }

    /// True if `other` is this very loop (a clone of it, or its owner).
    pub(crate) fn is(&self, other: &EventLoop) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }

    /// The loop whose remote queue is `remote`, if it lives on this thread (how a waker,
    /// which holds only that queue, finds its loop).
    #[inline]
    pub(crate) fn on_this_thread(remote: &Arc<RemoteQueue<EventLoop>>) -> Option<EventLoop> {
        let found = LOOPS.try_with(|loops| {
            let loops = loops.borrow();
            let owns = |lp: &EventLoop| Arc::ptr_eq(lp.inner.io.remote(), remote);
            loops.iter().filter_map(WeakLoop::upgrade).find(owns)
        });
        // The list is gone only while the thread shuts down: no loop lives there then.
        found.ok().flatten()
    }

    /// Enter the new loop in this thread's list.
    pub(super) fn live_on_this_thread(&self) {
        let entry = self.downgrade();
        LOOPS.with(|loops| loops.borrow_mut().push(entry));
    }
}

impl LoopInner {
    /// Take the loop out of this thread's list (it is being dropped: it, and any other
    /// loop gone, no longer upgrades).
    pub(super) fn leave_this_thread(&self) {
        // `try_with` fails only for a loop dropped while its thread shuts down: the list
        // is gone then, and there is nothing left to leave.
        let _ = LOOPS.try_with(|loops| loops.borrow_mut().retain(|lp| lp.0.strong_count() > 0));
    }
}
