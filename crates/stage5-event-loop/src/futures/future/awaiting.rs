//! Awaiting a future from Rust, the one thing asyncio's `Future` does not need (book
//! chapter 6, "Futures" and "Cancellation"; asyncio's
//! `Future.__await__` and `Task.__wakeup`).
//!
//! A Python coroutine awaits a future by yielding it to its task, which adds its own
//! `__wakeup` as a done callback and keeps the future as `_fut_waiter`. A Rust `async`
//! block awaits by polling: `poll` adds the task's waker to the same list of done callbacks,
//! in its turn, and notes the future as the one the task awaits, which the task's `cancel`
//! cancels first.
//!
//! What changed since stage 4: stage 4's awaitables (its sleep, its queue) put the waiting
//! task back on the scheduler's queues themselves; here a waker among the done callbacks
//! does it, for any future.

use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use super::{Callback, CallbackId, Future, FutureInner, Outcome};
use crate::errors::Error;
use crate::parts::current::{self, Cancel, Verdict};

// ANCHOR: poll
/// Awaiting a future: ready with its result if it is done; otherwise the awaiting task's
/// waker joins the done callbacks (once, however often the task polls), and the task
/// sleeps until the future completes and the waker schedules its next step. The task also
/// notes the future it waits on: cancelling the task cancels it (`current.rs`).
impl<T: Clone + 'static> std::future::Future for Future<T> {
    type Output = Result<T, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.inner.state.borrow_mut();
        if let Outcome::Pending = state.outcome {
            // The task's `_fut_waiter`, what its `cancel` cancels first; unless the
            // future is another loop's or the task's own, which would never wake it.
            let verdict = current::awaiting(self.address(), self.inner.lp.address(), || {
                Rc::downgrade(&self.inner) as Weak<dyn Cancel>
            });
            match verdict {
                Verdict::Wait => {}
                Verdict::WakeToFail => {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Verdict::Fail(error) => return Poll::Ready(Err(error)),
            }
            let known = state.callbacks.iter().any(
                |(_, callback)| matches!(callback, Callback::Wake(w) if w.will_wake(cx.waker())),
            );
            if !known {
                state.next_callback += 1;
                let id = CallbackId(state.next_callback);
                state
                    .callbacks
                    .push((id, Callback::Wake(cx.waker().clone())));
            }
            return Poll::Pending;
        }
        drop(state);
        Poll::Ready(self.result())
    }
}
// ANCHOR_END: poll

/// A task's `cancel` cancels the future the task awaits (asyncio's `_fut_waiter.cancel()`).
impl<T: 'static> Cancel for FutureInner<T> {
    fn cancel_awaited(self: Rc<Self>) -> bool {
        Future { inner: self }.cancel()
    }
}
