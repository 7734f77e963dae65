//! An operation's future (book chapter 10, "Cancel is a request"; asyncio's
//! `_OverlappedFuture` in `windows_events.py`).
//!
//! Each socket operation returns an [`Op`]: a stage 5 future, which a task awaits as any
//! other (and which its cancel cancels), whose result is moved out when it is taken, not
//! cloned: the buffer the kernel handed back goes to the awaiting task, whole. Cancelling
//! the future, or dropping an `Op` before it is done, asks the kernel to cancel the
//! operation (asyncio's `_OverlappedFuture.cancel` calls `_cancel_overlapped`); the
//! buffer stays the kernel's until it answers (`proactor.rs`, `ring.rs`).

use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use stage5::{Error, EventLoop, Future};

use crate::proactor::Uring;

/// A result the future hands over once: clones of it share one slot, the operation's
/// record (`record.rs`, one allocation for everything an operation keeps).
pub struct Slot<T>(pub(crate) Rc<Record<T>>);

impl<T> Slot<T> {
    /// The result, moved out; `None` if it was taken already.
    pub fn take(&self) -> Option<T> {
        self.0.value.take()
    }
}

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        Slot(self.0.clone())
    }
}

mod record; // what one operation keeps, in one allocation ("What it costs")
pub(crate) use record::{Continue, Record};

/// The future of one operation in flight.
pub struct Op<T: 'static> {
    future: Future<Slot<T>>,
}

impl<T: 'static> Op<T> {
    /// A pending operation's future on `lp`, and its record, which `then` continues with
    /// the completion of whatever is submitted under it.
    pub(crate) fn new(
        lp: &EventLoop,
        uring: &Rc<Uring>,
        socket: Rc<dyn AsRawFd>,
        then: Continue<T>,
    ) -> (Op<T>, Rc<Record<T>>) {
        let future = lp.create_future::<Slot<T>>();
        let record = Record::new(future.clone(), socket, then);
        let (weak, current) = (Rc::downgrade(uring), Rc::downgrade(&record));
        let id = future.add_done_callback(move |_, future| on_done(future, &weak, &current));
        record.callback.set(Some(id));
        (Op { future }, record)
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
fn on_done<T: 'static>(future: &Future<Slot<T>>, uring: &Weak<Uring>, op: &Weak<Record<T>>) {
    let (Some(uring), Some(key)) = (uring.upgrade(), op.upgrade().and_then(|op| op.key.get()))
    else {
        return; // the loop is gone, or the kernel has answered already
    };
    if future.cancelled()
        && let Err(error) = uring.cancel(key)
    {
        scaffold::warn!("proactor: cancel failed: {error}");
    }
}
// ANCHOR_END: cancel_overlapped

/// Finish `record`'s future with `outcome`, unless it is done already (cancelled: the
/// kernel's answer then only frees the memory, as asyncio's `_poll` skips a done future).
/// The done callback that would ask for a cancel goes first: nothing is left to cancel.
pub(crate) fn finish<T: 'static>(record: &Rc<Record<T>>, outcome: Result<T, Error>) {
    record.key.set(None); // the kernel holds nothing of it any more
    let Some(future) = record.future.borrow_mut().take() else {
        return; // finished already
    };
    if future.done() {
        return;
    }
    if let Some(id) = record.callback.take() {
        future.remove_done_callback(id); // (how many it removed: one, or none if it ran)
    }
    // Not done a line above, on the loop's only thread: setting it cannot fail.
    match outcome {
        Ok(value) => {
            record.value.set(Some(value));
            let _ = future.set_result(Slot(record.clone())); // (see above)
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
                slot.take()
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
