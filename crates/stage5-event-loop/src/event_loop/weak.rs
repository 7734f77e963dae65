//! Finding the loop without owning it (book chapter 6, "Real wakers"; asyncio's
//! `tasks.py`, `Task.__wakeup`).
//!
//! A future or a task must reach its loop (to schedule a callback, to report an error), but
//! must not keep it alive: the loop owns them, and an `Rc` back would make a cycle that is
//! never freed. They hold a [`WeakLoop`]. A task's waker is `Send`, so it cannot even hold
//! that: it holds the loop's thread-safe part, whose address is the loop's id, and finds
//! the loop in the list of loops that live on the thread it is woken on.
//!
//! What changed since stage 4: stage 4's tasks found their scheduler in stage 2's
//! thread-local `Runtime` slot, set while they ran; a waker is woken from anywhere, at any
//! time.

use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::Arc;

use crate::event_loop::{EventLoop, LoopInner};
use crate::parts::self_pipe::RemoteQueue;

thread_local! {
    /// The loops living on this thread, by id (`id`).
    static LOOPS: RefCell<Vec<(usize, WeakLoop)>> = const { RefCell::new(Vec::new()) };
}

/// A loop's id: the address of its remote queue. The loop holds that `Arc` for as long as it
/// lives, and so does each of its wakers: no other loop can have the address while the
/// loop, or a waker that looks for it, is alive.
fn id(remote: &Arc<RemoteQueue<EventLoop>>) -> usize {
    Arc::as_ptr(remote) as usize
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
    pub(crate) fn on_this_thread(remote: &Arc<RemoteQueue<EventLoop>>) -> Option<EventLoop> {
        let id = id(remote);
        let found = LOOPS.try_with(|loops| {
            let loops = loops.borrow();
            let (_, weak) = loops.iter().find(|(other, _)| *other == id)?;
            weak.upgrade()
        });
        // The list is gone only while the thread shuts down: no loop lives there then.
        found.ok().flatten()
    }

    /// Enter the new loop in this thread's list.
    pub(super) fn live_on_this_thread(&self) {
        let entry = (id(&self.inner.remote), self.downgrade());
        LOOPS.with(|loops| loops.borrow_mut().push(entry));
    }
}

impl LoopInner {
    /// Take the loop out of this thread's list (it is being dropped).
    pub(super) fn leave_this_thread(&self) {
        let id = id(&self.remote);
        // `try_with` fails only for a loop dropped while its thread shuts down: the list
        // is gone then, and there is nothing left to leave.
        let _ = LOOPS.try_with(|loops| loops.borrow_mut().retain(|(other, _)| *other != id));
    }
}
