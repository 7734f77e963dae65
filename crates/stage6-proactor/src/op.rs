//! An operation's future (book chapter 10, "A future its completion resolves"; asyncio's
//! `_OverlappedFuture` in `windows_events.py`).
//!
//! Each socket operation returns an [`Op`]: a stage 5 future, which a task awaits as any
//! other (and which its cancel cancels), whose result is moved out when it is taken, not
//! cloned: the buffer the kernel handed back goes to the awaiting task, whole. Cancelling
//! the future, or dropping an `Op` before it is done, asks the kernel to cancel the
//! operation (asyncio's `_OverlappedFuture.cancel` calls `_cancel_overlapped`); the
//! buffer stays the kernel's until it answers (`proactor.rs`, `ring.rs`).

use std::cell::Cell;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use stage5::{Error, EventLoop, Future};

use crate::proactor::Uring;
use crate::ring::Key;

/// A result the future hands over once: clones of it share one slot.
pub struct Slot<T>(Rc<Cell<Option<T>>>);

impl<T> Slot<T> {
    /// The result, moved out; `None` if it was taken already.
    pub fn take(&self) -> Option<T> {
        self.0.take()
    }
}

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        Slot(self.0.clone())
    }
}

/// The future of one operation in flight.
pub struct Op<T: 'static> {
    future: Future<Slot<T>>,
}

/// The number the operation has now (a send submits its rest under a new one).
pub type CurrentKey = Rc<Cell<Option<Key>>>;

impl<T: 'static> Op<T> {
    /// A pending operation's future on `lp`, and the slot its current key goes in.
    pub(crate) fn new(lp: &EventLoop, uring: &Rc<Uring>) -> (Op<T>, CurrentKey) {
        let future = lp.create_future::<Slot<T>>();
        let key: CurrentKey = Rc::new(Cell::new(None));
        let (weak, current) = (Rc::downgrade(uring), key.clone());
        future.add_done_callback(move |_, future| on_done(future, &weak, &current));
        (Op { future }, key)
    }

    /// The stage 5 future under it, for `wait_for`, `gather`, or a done callback.
    pub fn future(&self) -> &Future<Slot<T>> {
        &self.future
    }

    /// Cancel it (the kernel is asked at the loop's next step); false if it is done.
    pub fn cancel(&self) -> bool {
        self.future.cancel()
    }

    /// True once it has a result, an error, or was cancelled.
    pub fn done(&self) -> bool {
        self.future.done()
    }
}

// ANCHOR: cancel_overlapped
/// A done callback: if the future was cancelled, ask the kernel to cancel its operation
/// (asyncio's `_cancel_overlapped`). A completed operation is no longer in flight, and
/// the request is refused quietly.
fn on_done<T: 'static>(future: &Future<Slot<T>>, uring: &Weak<Uring>, key: &CurrentKey) {
    let (Some(uring), Some(key)) = (uring.upgrade(), key.get()) else {
        return; // the loop is gone, or nothing was submitted
    };
    if future.cancelled()
        && let Err(error) = uring.cancel(key)
    {
        scaffold::warn!("proactor: cancel failed: {error}");
    }
}
// ANCHOR_END: cancel_overlapped

/// Finish `future` with `outcome`, unless it is done already (cancelled: the kernel's
/// answer then only frees the memory, as asyncio's `_poll` skips a done future).
pub(crate) fn finish<T: 'static>(future: &Future<Slot<T>>, outcome: Result<T, Error>) {
    if future.done() {
        return;
    }
    // Not done a line above, on the loop's only thread: setting it cannot fail.
    match outcome {
        Ok(value) => {
            let _ = future.set_result(Slot(Rc::new(Cell::new(Some(value))))); // (see above)
        }
        Err(Error::Cancelled) => {
            future.cancel();
        }
        Err(error) => {
            let _ = future.set_exception(error); // (see above)
        }
    }
}

impl<T: 'static> std::future::Future for Op<T> {
    type Output = Result<T, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.future).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(slot)) => Poll::Ready(
                slot.0
                    .take()
                    .ok_or(Error::InvalidState("the result was taken already")),
            ),
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
        }
    }
}

impl<T: 'static> Drop for Op<T> {
    /// Dropped before it is done (a `timeout`, a `first_of` that chose another): cancel,
    /// so that the kernel gives the buffer back.
    fn drop(&mut self) {
        if !self.future.done() {
            self.future.cancel();
        }
    }
}
