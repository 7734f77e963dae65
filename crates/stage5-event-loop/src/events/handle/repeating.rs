//! Repeating handles: the handles of readers, writers and signal handlers (book chapter 7,
//! "Readers and writers on a selector" and "Signals";
//! asyncio's `_add_reader`, which makes one `Handle` and runs it every time its
//! descriptor is ready).
//!
//! asyncio's reader is a plain `Handle` that the loop runs again and again: Python's
//! callback is any callable, which a run does not use up. A Rust callback a handle runs
//! once is an `FnOnce`, taken out of its slot to run. A repeating handle keeps an `FnMut`
//! instead, and puts it back after each run, even one that panicked (asyncio keeps a reader
//! whose callback raised), unless the handle was cancelled meanwhile (a reader that removes
//! itself). It shares the one-shot handle's header, `HandleInner`, with another slot.
//!
//! What changed since stage 4: stage 4's `read_wait` filed a one-shot callback in a map by
//! descriptor and direction; here a reader is a handle like any callback, run again every
//! time its descriptor is ready.

use std::cell::Cell;
use std::rc::Rc;

use super::{Handle, HandleInner, Slot};

// ANCHOR: repeating
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
// ANCHOR_END: repeating

impl<L: 'static> Handle<L> {
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

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::Handle;

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
}
