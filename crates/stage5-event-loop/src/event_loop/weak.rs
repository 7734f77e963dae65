//! Finding the loop without owning it (book chapter 6, "Real wakers"; seed 001, "Task
//! 对象的自我驱动机制").
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

use crate::event_loop::{EventLoop, LoopInner};

thread_local! {
    /// The loops living on this thread, by id (`EventLoop::id`).
    static LOOPS: RefCell<Vec<(usize, Weak<LoopInner>)>> = const { RefCell::new(Vec::new()) };
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

impl EventLoop {
    /// A reference that does not keep the loop alive (futures and tasks keep one).
    pub(crate) fn downgrade(&self) -> WeakLoop {
        WeakLoop(Rc::downgrade(&self.inner))
    }

    /// The loop with this id, if it lives on this thread.
    pub(crate) fn on_this_thread(id: usize) -> Option<EventLoop> {
        let found = LOOPS.try_with(|loops| {
            let loops = loops.borrow();
            let (_, weak) = loops.iter().find(|(other, _)| *other == id)?;
            weak.upgrade().map(|inner| EventLoop {
                inner,
                owner: false,
            })
        });
        // The list is gone only while the thread shuts down: no loop lives there then.
        found.ok().flatten()
    }

    /// Enter the new loop in this thread's list.
    pub(super) fn live_on_this_thread(&self) {
        let entry = (self.id(), Rc::downgrade(&self.inner));
        LOOPS.with(|loops| loops.borrow_mut().push(entry));
    }
}

impl LoopInner {
    /// Take the loop out of this thread's list (it is being dropped).
    pub(super) fn leave_this_thread(&self) {
        let id = std::sync::Arc::as_ptr(&self.remote) as usize;
        // `try_with` fails only for a loop dropped while its thread shuts down: the list
        // is gone then, and there is nothing left to leave.
        let _ = LOOPS.try_with(|loops| loops.borrow_mut().retain(|(other, _)| *other != id));
    }
}
