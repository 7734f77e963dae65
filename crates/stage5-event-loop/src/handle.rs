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
//! `FnMut` that stays in the handle until it is cancelled ([`Handle::new_repeating`]).
//!
//! One allocation per handle: the header (id, flags, `when`) and the closure live in one
//! `Rc`. The header is generic over its last field, the closure's slot, and
//! `Rc<HandleInner<Cell<Option<F>>>>` coerces to `Rc<HandleInner<dyn Slot>>`, so the queue
//! stores one thin-header pointer per callback whatever the closure's type.

use std::cell::Cell;
use std::fmt;
use std::rc::{Rc, Weak};
use std::time::Duration;

use crate::event_loop::{EventLoop, LoopInner};

// ANCHOR: handle
/// A callback scheduled with `call_soon` (or a timer's callback once it is due), which the
/// caller can cancel. Cloning gives another reference to the same handle.
#[derive(Clone)]
pub struct Handle {
    inner: Rc<HandleInner<dyn Slot>>,
}

struct HandleInner<S: ?Sized> {
    id: u64,                // the number the trace shows: `<Handle #7>`
    when: Option<Duration>, // `Some` for a timer: when it is due
    cancelled: Cell<bool>,
    scheduled: Cell<bool>, // a timer still in the loop's heap (asyncio's `_scheduled`)
    slot: S,               // the callback, until it runs or is cancelled
}

/// Where a handle keeps its callback: taken out to run it, or dropped on `cancel`.
trait Slot {
    fn run(&self, lp: &EventLoop);
    fn clear(&self);
}

impl<F: FnOnce(&EventLoop)> Slot for Cell<Option<F>> {
    fn run(&self, lp: &EventLoop) {
        if let Some(callback) = self.take() {
            callback(lp);
        }
    }

    fn clear(&self) {
        drop(self.take());
    }
}
// ANCHOR_END: handle

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

impl<F: FnMut(&EventLoop)> Slot for Repeating<F> {
    fn run(&self, lp: &EventLoop) {
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

impl Handle {
    pub(crate) fn new(
        id: u64,
        when: Option<Duration>,
        callback: impl FnOnce(&EventLoop) + 'static,
    ) -> Handle {
        Handle {
            inner: Rc::new(HandleInner {
                id,
                when,
                cancelled: Cell::new(false),
                scheduled: Cell::new(false),
                slot: Cell::new(Some(callback)),
            }),
        }
    }

    /// A handle whose callback runs each time the loop runs the handle, until it is
    /// cancelled: a reader's or a writer's.
    pub(crate) fn new_repeating(id: u64, callback: impl FnMut(&EventLoop) + 'static) -> Handle {
        Handle {
            inner: Rc::new(HandleInner {
                id,
                when: None,
                cancelled: Cell::new(false),
                scheduled: Cell::new(false),
                slot: Repeating {
                    callback: Cell::new(Some(callback)),
                    cleared: Cell::new(false),
                },
            }),
        }
    }

    /// Cancel the callback: it will not run. Cancelling twice, or after it ran, does
    /// nothing. Like asyncio, the callback (and everything it captured) is dropped now.
    pub fn cancel(&self) {
        if !self.inner.cancelled.replace(true) {
            self.inner.slot.clear();
        }
    }

    /// True once `cancel` was called.
    pub fn cancelled(&self) -> bool {
        self.inner.cancelled.get()
    }

    /// The number the trace knows this handle by.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// Run the callback (once: later calls do nothing). The loop wraps this in its panic
    /// catcher; see `EventLoop::run_handle`.
    pub(crate) fn run(&self, lp: &EventLoop) {
        self.inner.slot.run(lp);
    }

    pub(crate) fn when_duration(&self) -> Option<Duration> {
        self.inner.when
    }

    pub(crate) fn set_scheduled(&self, scheduled: bool) {
        self.inner.scheduled.set(scheduled);
    }

    pub(crate) fn is_scheduled(&self) -> bool {
        self.inner.scheduled.get()
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner.when {
            None => write!(f, "<Handle #{}", self.inner.id)?,
            Some(when) => write!(
                f,
                "<TimerHandle #{} when={:.3}",
                self.inner.id,
                when.as_secs_f64()
            )?,
        }
        if self.cancelled() {
            f.write_str(" cancelled")?;
        }
        f.write_str(">")
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

// ANCHOR: timer_handle
/// A callback scheduled for a time (`call_later`, `call_at`). Ordered in the loop's heap by
/// `(when, sequence)`.
#[derive(Clone)]
pub struct TimerHandle {
    handle: Handle,
    // Weak: a callback may capture its own timer handle (to cancel it), and a strong
    // reference would make a cycle loop -> heap -> handle -> closure -> loop.
    lp: Weak<LoopInner>,
}

impl TimerHandle {
    pub(crate) fn new(handle: Handle, lp: Weak<LoopInner>) -> TimerHandle {
        TimerHandle { handle, lp }
    }

    /// Cancel the timer. If it is still in the loop's heap, the loop counts it: when more
    /// than half of a large heap is cancelled, the next iteration rebuilds the heap
    /// without them (seed 000, `TimerHandle.cancel` and `_timer_handle_cancelled`).
    pub fn cancel(&self) {
        if !self.handle.cancelled() {
            if self.handle.is_scheduled()
                && let Some(lp) = self.lp.upgrade()
            {
                lp.timer_handle_cancelled();
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
        self.handle
            .when_duration()
            .expect("a timer handle has a time")
            .as_secs_f64()
    }

    /// The number the trace knows this handle by.
    pub fn id(&self) -> u64 {
        self.handle.id()
    }
}

impl fmt::Display for TimerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.handle, f)
    }
}

impl fmt::Debug for TimerHandle {
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
            std::mem::size_of::<Handle>(),
            2 * std::mem::size_of::<usize>()
        );
        let lp = EventLoop::with_clock(stage1::VirtualClock::new());
        let count = Rc::new(RefCell::new(0));
        let c = count.clone();
        let handle = Handle::new(1, None, move |_| *c.borrow_mut() += 1);
        handle.run(&lp);
        handle.run(&lp);
        assert_eq!(*count.borrow(), 1);
        assert_eq!(handle.to_string(), "<Handle #1>");
    }

    #[test]
    fn a_repeating_handle_survives_a_panic_but_not_a_cancel() {
        let lp = EventLoop::with_clock(stage1::VirtualClock::new());
        let count = Rc::new(RefCell::new(0));
        let c = count.clone();
        let handle = Handle::new_repeating(3, move |_| {
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
        let handle = Handle::new(2, Some(Duration::from_millis(1500)), move |_| drop(w));
        assert_eq!(Rc::strong_count(&witness), 2);
        handle.cancel();
        handle.cancel();
        assert!(handle.cancelled());
        assert_eq!(Rc::strong_count(&witness), 1);
        assert_eq!(handle.to_string(), "<TimerHandle #2 when=1.500 cancelled>");
    }
}
