//! Reused handles: a task's steps queued without an allocation (book, "Going further",
//! "Making the loop fast", after chapter 5's "Handles" and chapter 6's "Real wakers";
//! asyncio's `Task.__schedule_step`, which makes a new `Handle` for every
//! `call_soon(self.__step)`).
//!
//! What the loop schedules most is a task's next step. asyncio makes a new handle for each;
//! so did this loop, one allocation per wake-up, and with many wakes per select the
//! allocator's per-thread cache overflowed. `Reused` keeps the handles of steps, and gives
//! one whose run is over (nobody else holds it) a new number, as `call_soon` numbers, and
//! the next task to step. That is for speed, not for asyncio: the trace is unchanged.
//!
//! What changed since stage 4: stage 4's tasks were stage 1 callbacks, one boxed closure
//! per step.

use std::cell::Cell;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::rc::Rc;

use super::{Handle, HandleInner, Slot};

// ANCHOR: reused
/// What a reused handle calls (a task's step): it is handed itself, and the loop.
pub(crate) trait Call<L> {
    /// Run, giving up this reference.
    fn call(self: Rc<Self>, lp: &L);
}

/// The slot of a reused handle: whom to call, until the run.
struct CallSlot<C: ?Sized>(Cell<Option<Rc<C>>>);

impl<L, C: ?Sized + Call<L>> Slot<L> for CallSlot<C> {
    fn run(&self, lp: &L) {
        if let Some(callee) = self.0.take() {
            callee.call(lp);
        }
    }

    fn clear(&self) {
        drop(self.0.take());
    }
}

type ReusedInner<C> = Rc<HandleInner<CallSlot<C>>>;

/// The handles of one kind of call (a task's step), used again and again.
pub(crate) struct Reused<L, C: ?Sized> {
    lent: VecDeque<ReusedInner<C>>, // handed out, oldest first
    of: PhantomData<fn(&L)>,
}

impl<L, C: ?Sized> Default for Reused<L, C> {
    fn default() -> Self {
        Reused {
            lent: VecDeque::new(),
            of: PhantomData,
        }
    }
}

impl<L: 'static, C: ?Sized + Call<L> + 'static> Reused<L, C> {
    /// A handle numbered `id` that calls `callee`: the oldest one handed out if nobody
    /// holds it any more (its run is over: the ready queue runs oldest first), else a new
    /// one, and the oldest goes to the back of the line. So there are never many more
    /// handles than were queued at once.
    #[inline]
    pub fn handle(&mut self, id: u64, callee: Rc<C>) -> Handle<L> {
        let oldest = self.lent.pop_front();
        let inner = match oldest {
            Some(inner) if Rc::strong_count(&inner) == 1 => {
                inner.id.set(id);
                inner.cancelled.set(false);
                inner.slot.0.set(Some(callee));
                inner
            }
            held => {
                self.lent.extend(held);
                Rc::new(HandleInner::new(
                    id,
                    None,
                    CallSlot(Cell::new(Some(callee))),
                ))
            }
        };
        self.lent.push_back(inner.clone());
        Handle { inner }
    }

    /// Forget every handle, and whom the queued ones would call (the loop closes).
    pub fn clear(&mut self) -> Vec<Rc<C>> {
        let callees = self.lent.iter().filter_map(|h| h.slot.0.take()).collect();
        self.lent.clear();
        callees
    }
}
// ANCHOR_END: reused

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::{Call, Reused};

    struct Counted(Cell<u32>);

    impl Call<()> for Counted {
        fn call(self: Rc<Self>, _: &()) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn a_reused_handle_is_used_again_only_once_nobody_holds_it() {
        let mut reused: Reused<(), Counted> = Reused::default();
        let callee = Rc::new(Counted(Cell::new(0)));
        let first = reused.handle(7, callee.clone());
        assert_eq!(first.to_string(), "<Handle c7>");
        first.run(&());
        first.run(&());
        assert_eq!(callee.0.get(), 1, "one run per filling");
        let held = first.clone();
        drop(first);
        // The oldest is still held (an exception handler was given it): a new one.
        let second = reused.handle(8, callee.clone());
        assert_eq!((held.id(), second.id()), (7, 8));
        drop((held, second));
        let third = reused.handle(9, callee.clone());
        assert_eq!(reused.lent.len(), 2, "one used again");
        third.run(&());
        assert_eq!((third.id(), callee.0.get()), (9, 2));
        let queued = reused.handle(10, callee.clone());
        assert_eq!(reused.clear().len(), 1, "the queued one's callee");
        queued.run(&());
        assert_eq!(callee.0.get(), 2, "cleared: it calls nobody");
    }
}
