//! `Handle` and `TimerHandle`: a scheduled callback you can cancel (book chapter 5,
//! "Handles"; seed 000, "Handle" and seed 001, "Handler 类源码分析").
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
//! Chapter 7 adds the handles of readers and writers (`add_reader`, `add_writer`): asyncio
//! runs the same `Handle` every time its file descriptor is ready, so their callback is an
//! `FnMut` that stays in the handle until it is cancelled (a *repeating* handle).
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
//!
//! And no allocation at all for what the loop schedules most: a task's next step. asyncio
//! makes a new `Handle` for every `call_soon(self.__step)`; `Reused` keeps the handles
//! of steps, and gives one whose run is over (nobody else holds it) a new number and the
//! next task to step. That is for speed, not for asyncio: the trace is unchanged, and the
//! book tells why in "Going further", "Making the loop fast".
//!
//! The file is over 300 lines because the three kinds of handle (one-shot, repeating,
//! reused) share one header, whose fields stay private to this file.

use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::rc::{Rc, Weak};

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

/// The slot of a reader's or writer's handle: the callback runs every time, and goes back
/// into the slot after each run, even one that panicked (asyncio keeps a reader whose
/// callback raised), unless the handle was cancelled meanwhile (a reader that removes
/// itself).
struct Repeating<F> {
    callback: Cell<Option<F>>,
    cleared: Cell<bool>,
}

/// Puts the callback back when the run ends, by returning or by unwinding.
struct PutBack<'a, F> {
    slot: &'a Repeating<F>,
    callback: Option<F>,
}

impl<F> Drop for PutBack<'_, F> {
    fn drop(&mut self) {
        if !self.slot.cleared.get() {
            self.slot.callback.set(self.callback.take());
        }
    }
}

impl<L, F: FnMut(&L)> Slot<L> for Repeating<F> {
    fn run(&self, lp: &L) {
        let callback = self.callback.take();
        if callback.is_some() {
            let mut running = PutBack {
                slot: self,
                callback,
            };
            if let Some(callback) = running.callback.as_mut() {
                callback(lp);
            }
        }
    }

    fn clear(&self) {
        self.cleared.set(true);
        drop(self.callback.take());
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

    /// A handle whose callback runs each time the loop runs the handle, until it is
    /// cancelled: a reader's, a writer's or a signal handler's.
    pub(crate) fn new_repeating(id: u64, callback: impl FnMut(&L) + 'static) -> Handle<L> {
        let slot = Repeating {
            callback: Cell::new(Some(callback)),
            cleared: Cell::new(false),
        };
        Handle {
            inner: Rc::new(HandleInner::new(id, None, slot)),
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
    pub fn trace_id(&self) -> stage1::Id {
        stage1::Id::Callback(self.inner.id.get())
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
    spare: Vec<ReusedInner<C>>,
    lent: VecDeque<ReusedInner<C>>, // handed out, oldest first
    of: PhantomData<fn(&L)>,
}

impl<L, C: ?Sized> Default for Reused<L, C> {
    fn default() -> Self {
        Reused {
            spare: Vec::new(),
            lent: VecDeque::new(),
            of: PhantomData,
        }
    }
}

impl<L: 'static, C: ?Sized + Call<L> + 'static> Reused<L, C> {
    /// A handle numbered `id` that calls `callee`: a spare one, or a new one. Each call
    /// looks at the oldest handle handed out: spare again if nobody holds it any more
    /// (its run is over), else to the back of the line. So there are never many more
    /// handles than were queued at once.
    pub fn handle(&mut self, id: u64, callee: Rc<C>) -> Handle<L> {
        if let Some(oldest) = self.lent.pop_front() {
            match Rc::strong_count(&oldest) {
                1 => self.spare.push(oldest),
                _ => self.lent.push_back(oldest),
            }
        }
        let inner = match self.spare.pop() {
            Some(inner) => {
                inner.id.set(id);
                inner.cancelled.set(false);
                inner.slot.0.set(Some(callee));
                inner
            }
            None => Rc::new(HandleInner::new(
                id,
                None,
                CallSlot(Cell::new(Some(callee))),
            )),
        };
        self.lent.push_back(inner.clone());
        Handle { inner }
    }

    /// Forget every handle, and whom the queued ones would call (the loop closes).
    pub fn clear(&mut self) -> Vec<Rc<C>> {
        self.spare.clear();
        let callees = self.lent.iter().filter_map(|h| h.slot.0.take()).collect();
        self.lent.clear();
        callees
    }
}
// ANCHOR_END: reused

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
    /// without them (seed 000, `TimerHandle.cancel` and `_timer_handle_cancelled`).
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
    fn a_repeating_handle_survives_a_panic_but_not_a_cancel() {
        let lp = ();
        let count = Rc::new(RefCell::new(0));
        let c = count.clone();
        let handle = Handle::new_repeating(3, move |_: &()| {
            *c.borrow_mut() += 1;
            if *c.borrow() == 2 {
                panic!("second run");
            }
        });
        handle.run(&lp);
        assert!(crate::errors::catch(|| handle.run(&lp)).is_err());
        handle.run(&lp);
        assert_eq!(*count.borrow(), 3, "the panic did not lose the callback");
        handle.cancel();
        handle.run(&lp);
        assert_eq!(*count.borrow(), 3);
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
        assert_eq!(reused.spare.len() + reused.lent.len(), 2, "one used again");
        third.run(&());
        assert_eq!((third.id(), callee.0.get()), (9, 2));
        let queued = reused.handle(10, callee.clone());
        assert_eq!(reused.clear().len(), 1, "the queued one's callee");
        queued.run(&());
        assert_eq!(callee.0.get(), 2, "cleared: it calls nobody");
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
