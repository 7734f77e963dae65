//! `switch()`: the one pause every coroutine is built from (book chapter 2, "async/await";
//! Beazley's talk).
//!
//! A Python coroutine can only pause by reaching a `yield` somewhere down its `await`
//! chain, so the talk writes the smallest awaitable there is: an `Awaitable` whose
//! `__await__` yields exactly once. Awaiting it gives control back to the scheduler, which
//! resumes the coroutine on its next turn.
//!
//! In Rust the scheduler *polls* a future: `Poll::Pending` is the `yield`, `Poll::Ready` is
//! the return. [`Switch`] is `Pending` exactly once, then `Ready`. It never registers a
//! waker: in this stage the scheduler itself decides when to poll again (see
//! [`crate::scheduler`]), which is exactly what the talk's scheduler does.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

// ANCHOR: switch
/// A future that pauses once: the talk's `Awaitable` with one `yield`.
#[derive(Debug, Default)]
pub struct Switch {
    paused: bool,
}

impl Future for Switch {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.paused {
            Poll::Ready(())
        } else {
            self.paused = true;
            Poll::Pending
        }
    }
}

/// Give the scheduler a turn: `await switch()`.
pub fn switch() -> Switch {
    Switch::default()
}
// ANCHOR_END: switch

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    #[test]
    fn switch_is_pending_exactly_once() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut s = std::pin::pin!(switch());
        assert_eq!(s.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(s.as_mut().poll(&mut cx), Poll::Ready(()));
    }
}
