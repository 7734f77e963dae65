//! `Handle` and `TimerHandle`: a scheduled callback you can cancel (book chapter 5,
//! "Handles"; asyncio's `events.py`, `Handle` and `TimerHandle`).
//!
//! asyncio never queues a bare function. `call_soon` wraps it in a `Handle`, an object with
//! `cancel()` and `cancelled()`, and returns that handle to the caller; the loop's ready
//! queue holds handles, and running one catches the callback's exception and hands it to
//! the loop's exception handler. `call_later`/`call_at` return a `TimerHandle`, which adds
//! `when()` and, when cancelled while it is still in the heap, tells the loop, which counts
//! cancelled timers to decide when to clean its heap (`run_once`, step 1).
//!
//! What changed since stage 4: stage 4's `call_soon` queued a boxed closure and gave back a
//! number; nothing could take a callback back. A handle is shared between the caller and
//! the queue (an `Rc`), so the caller can cancel it, and the loop skips it when its turn
//! comes.
//!
//! Two kinds of handle have a file of their own, as children of this one, which read the
//! header's private fields: `repeating.rs`, the handles of readers, writers and signal
//! handlers (chapter 7), whose callback runs again every time; and `reused.rs`, the handles
//! of a task's steps, used again and again, for speed, not for asyncio ("Going further").
//!
//! A handle is generic over the loop `L` its callback receives, as stage 1's `Callback<S>`
//! is generic over its scheduler: this file is the bottom of the loop and knows nothing of
//! the loop above it. The loop names its own handles `Handle` (`Handle<EventLoop>`).
//!
//! One allocation per handle: the header (id, flags, `when`) and the closure live in one
//! `Rc`. The header is generic over its last field, the closure's slot, and
//! `Rc<HandleInner<Cell<Option<F>>>>` coerces to `Rc<HandleInner<dyn Slot>>`, so the queue
//! stores one pointer per callback whatever the closure's type (a fat one: the address and
//! the slot's vtable, two words).

use std::cell::Cell;
use std::fmt;
use std::rc::{Rc, Weak};

mod repeating;
pub(crate) mod reused;

pub(crate) use reused::{Call, Reused};

// ANCHOR: handle
/// A callback scheduled with `call_soon` (or a timer's callback once it is due), which the
/// caller can cancel. `L` is the loop the callback is handed when it runs. Cloning gives
/// another reference to the same handle.
pub struct Handle<L> {
    inner: Rc<HandleInner<dyn Slot<L>>>,
}

struct HandleInner<S: ?Sized> {
    id: Cell<u64>, // the number the trace shows: `c7`, `<Handle c7>` (`Reused`: renumbered)
    when: Option<f64>, // `Some` for a timer: when it is due, on the loop's clock
    cancelled: Cell<bool>,
    scheduled: Cell<bool>, // a timer still in the loop's heap (asyncio's `_scheduled`)
    slot: S,               // the callback, until it runs or is cancelled
}

/// Where a handle keeps its callback: taken out to run it, or dropped on `cancel`.
trait Slot<L> {
    fn run(&self, lp: &L);
    fn clear(&self);
}

impl<L, F: FnOnce(&L)> Slot<L> for Cell<Option<F>> {
    fn run(&self, lp: &L) {
        if let Some(callback) = self.take() {
            callback(lp);
        }
    }

    fn clear(&self) {
        drop(self.take());
    }
}
// ANCHOR_END: handle

impl<S> HandleInner<S> {
    /// A header numbered `id`, due at `when` if it is a timer, around `slot`: not
    /// cancelled, not in the heap.
    fn new(id: u64, when: Option<f64>, slot: S) -> HandleInner<S> {
        HandleInner {
            id: Cell::new(id),
            when,
            cancelled: Cell::new(false),
            scheduled: Cell::new(false),
            slot,
        }
    }
}

impl<L> Clone for Handle<L> {
    fn clone(&self) -> Self {
        Handle {
            inner: self.inner.clone(),
        }
    }
}

impl<L: 'static> Handle<L> {
    /// A handle for `callback`, numbered `id`; `when` is a timer's due time.
    pub(crate) fn new(
        id: u64,
        when: Option<f64>,
        callback: impl FnOnce(&L) + 'static,
    ) -> Handle<L> {
        Handle {
            inner: Rc::new(HandleInner::new(id, when, Cell::new(Some(callback)))),
        }
    }
}

impl<L> Handle<L> {
    /// Cancel the callback: it will not run. Cancelling twice, or after it ran, does
    /// nothing. Like asyncio, the callback (and everything it captured) is dropped now.
    pub fn cancel(&self) {
        if !self.inner.cancelled.replace(true) {
            self.inner.slot.clear();
        }
    }

    /// Drop the callback without cancelling: the loop that held the handle has closed, and
    /// what the callback captured must not live on in a handle its caller keeps.
    pub(crate) fn drop_callback(&self) {
        self.inner.slot.clear();
    }

    /// True once `cancel` was called.
    #[inline]
    pub fn cancelled(&self) -> bool {
        self.inner.cancelled.get()
    }

    /// The number the trace knows this handle by.
    pub fn id(&self) -> u64 {
        self.inner.id.get()
    }

    /// The handle in the trace's id scheme: `c7`.
    pub fn trace_id(&self) -> scaffold::Id {
        scaffold::Id::Callback(self.inner.id.get())
    }

    /// Run the callback (once, unless the handle repeats: later calls do nothing). The loop
    /// wraps this in its panic catcher.
    pub(crate) fn run(&self, lp: &L) {
        self.inner.slot.run(lp);
    }

    /// A timer's due time on the loop's clock; `None` for a plain handle.
    pub fn when(&self) -> Option<f64> {
        self.inner.when
    }

    /// Mark the timer as in the loop's heap (true) or out of it (false).
    pub(crate) fn set_scheduled(&self, scheduled: bool) {
        self.inner.scheduled.set(scheduled);
    }

    /// True while the timer is in the loop's heap.
    pub(crate) fn is_scheduled(&self) -> bool {
        self.inner.scheduled.get()
    }
}

impl<L> fmt::Display for Handle<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner.when {
            None => write!(f, "<Handle c{}", self.id())?,
            Some(when) => write!(f, "<TimerHandle c{} when={when:.3}", self.id())?,
        }
        if self.cancelled() {
            f.write_str(" cancelled")?;
        }
        f.write_str(">")
    }
}

impl<L> fmt::Debug for Handle<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

// ANCHOR: timer_handle
/// A callback scheduled for a time (`call_later`, `call_at`), as its caller holds it. The
/// loop's heap holds the [`Handle`] inside, ordered by `(when, sequence)`; this adds the
/// heap's count of cancelled timers, which `cancel` must update.
pub struct TimerHandle<L> {
    handle: Handle<L>,
    // The heap's count of cancelled timers. Weak: a callback may capture its own timer
    // handle (to cancel it), and must not keep the loop's heap alive through it.
    cancelled_count: Weak<Cell<usize>>,
}

impl<L> TimerHandle<L> {
    /// `handle`, in a heap whose cancelled timers are counted in `cancelled_count`.
    pub(crate) fn new(handle: Handle<L>, cancelled_count: Weak<Cell<usize>>) -> TimerHandle<L> {
        TimerHandle {
            handle,
            cancelled_count,
        }
    }

    /// Cancel the timer. If it is still in the loop's heap, the heap counts it: when more
    /// than half of a large heap is cancelled, the next iteration rebuilds the heap
    /// without them (asyncio's `TimerHandle.cancel` and `_timer_handle_cancelled`).
    pub fn cancel(&self) {
        if !self.handle.cancelled() {
            if self.handle.is_scheduled()
                && let Some(count) = self.cancelled_count.upgrade()
            {
                count.set(count.get() + 1);
            }
            self.handle.cancel();
        }
    }
    // ANCHOR_END: timer_handle

    /// True once `cancel` was called.
    pub fn cancelled(&self) -> bool {
        self.handle.cancelled()
    }

    /// When the callback is due, in seconds on the loop's clock (`loop.time()`).
    pub fn when(&self) -> f64 {
        self.handle.when().unwrap_or(f64::NAN)
    }

    /// The number the trace knows this handle by.
    pub fn id(&self) -> u64 {
        self.handle.id()
    }
}

impl<L> Clone for TimerHandle<L> {
    fn clone(&self) -> Self {
        TimerHandle {
            handle: self.handle.clone(),
            cancelled_count: self.cancelled_count.clone(),
        }
    }
}

impl<L> fmt::Display for TimerHandle<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.handle, f)
    }
}

impl<L> fmt::Debug for TimerHandle<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.handle, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn a_handle_is_one_pointer_and_runs_once() {
        assert_eq!(
            std::mem::size_of::<Handle<()>>(),
            2 * std::mem::size_of::<usize>()
        );
        let count = Rc::new(RefCell::new(0));
        let c = count.clone();
        let handle = Handle::new(1, None, move |_: &()| *c.borrow_mut() += 1);
        handle.run(&());
        handle.run(&());
        assert_eq!(*count.borrow(), 1);
        assert_eq!(handle.to_string(), "<Handle c1>");
    }

    #[test]
    fn cancel_drops_the_callback_at_once() {
        let witness = Rc::new(());
        let w = witness.clone();
        let handle = Handle::new(2, Some(1.5), move |_: &()| drop(w));
        assert_eq!(Rc::strong_count(&witness), 2);
        handle.cancel();
        handle.cancel();
        assert!(handle.cancelled());
        assert_eq!(Rc::strong_count(&witness), 1);
        assert_eq!(handle.to_string(), "<TimerHandle c2 when=1.500 cancelled>");
    }

    #[test]
    fn a_timer_counts_its_cancel_only_while_in_the_heap() {
        let count = Rc::new(Cell::new(0));
        let timer = TimerHandle::new(
            Handle::new(4, Some(1.0), |_: &()| {}),
            Rc::downgrade(&count),
        );
        timer.handle.set_scheduled(true);
        timer.cancel();
        timer.cancel();
        assert_eq!(count.get(), 1, "counted once");
        let out = TimerHandle::new(
            Handle::new(5, Some(1.0), |_: &()| {}),
            Rc::downgrade(&count),
        );
        out.cancel();
        assert_eq!(count.get(), 1, "not in the heap: not counted");
    }
}
