//! `first_of`: wait for whichever of two futures finishes first (book chapter 7, "The echo
//! server, from stage 4 to stage 5", its graceful shutdown; asyncio's `tasks.wait(...,
//! return_when=FIRST_COMPLETED)`). Beazley's talk waits for one thing at a time.
//!
//! asyncio's answer to "read, unless we are asked to stop" is `asyncio.wait({read, stop},
//! return_when=FIRST_COMPLETED)`: both are tasks or futures, `wait` returns the done and
//! the pending ones, and the pending ones *go on running* until someone cancels them.
//! `first_of(a, b)` polls two Rust futures in the task that awaits it and finishes with
//! the output of the first that is ready; the other is *dropped*, which in Rust is how a
//! future is cancelled (chapter 6). No task is created, nothing is allocated, and no
//! callback is left on either future.
//!
//! That makes one thing the caller's business: dropping the loser must lose nothing. A
//! `sock_recv` that is waiting has read nothing yet (it reads and returns in the same
//! poll), so dropping it is safe; a `sock_sendall` dropped half-way would lose the rest of
//! its data. `a` is polled first, so when both are ready `a` wins: put the stop request
//! first and a server stops reading even when more input is waiting.
//!
//! What changed since stage 4: stage 4 could not wait for two things at once.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

use crate::parts::current::awaiting_several;

/// Which of [`first_of`]'s two futures finished first, with its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum First<A, B> {
    /// The first argument finished first (or both were ready: `a` is polled first).
    A(A),
    /// The second argument finished first.
    B(B),
}

// ANCHOR: first_of
/// Wait for `a` and `b` together; the output of the first to finish, `a` winning a tie.
/// The other is dropped unfinished: use it only with futures whose drop loses nothing.
pub async fn first_of<A: Future, B: Future>(a: A, b: B) -> First<A::Output, B::Output> {
    // Pinned on this future's own stack frame: no allocation, and no `unsafe`.
    let mut a = pin!(a);
    let mut b = pin!(b);
    poll_fn(move |cx| {
        if let Poll::Ready(out) = a.as_mut().poll(cx) {
            return Poll::Ready(First::A(out));
        }
        if let Poll::Ready(out) = b.as_mut().poll(cx) {
            return Poll::Ready(First::B(out));
        }
        // Both hold the task's waker: whichever is ready first wakes it. Cancelling the
        // task cancels neither (asyncio's `wait` does not): dropping them is enough.
        awaiting_several();
        Poll::Pending
    })
    .await
}
// ANCHOR_END: first_of

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_loop::EventLoop;
    use crate::futures::sleep::sleep;
    use scaffold::VirtualClock;
    use std::cell::Cell;
    use std::rc::Rc;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    #[test]
    fn the_first_to_finish_wins_and_the_other_is_dropped() {
        let lp = vloop();
        let l = lp.clone();
        let dropped = Rc::new(Cell::new(false));
        let d = dropped.clone();
        let task = lp
            .create_task(async move {
                let guard = Guard(d);
                let l2 = l.clone();
                let slow = async move {
                    let _guard = guard;
                    sleep(&l2, 5.0).await
                };
                Ok(first_of(slow, sleep(&l, 1.0)).await)
            })
            .unwrap();
        let outcome = lp.run_until_complete(&task).unwrap();
        assert!(matches!(outcome, First::B(Ok(()))));
        assert_eq!(lp.time(), 1.0);
        assert!(
            dropped.get(),
            "the loser was dropped when first_of finished"
        );
        assert_eq!(lp.scheduled_len(), 0, "and its timer went with it");
    }

    #[test]
    fn a_wins_a_tie() {
        let lp = vloop();
        let stop: crate::Future<()> = lp.create_future();
        stop.set_result(()).unwrap();
        let task = lp
            .create_task(async move { Ok(first_of(stop, async { 7 }).await) })
            .unwrap();
        assert!(matches!(
            lp.run_until_complete(&task).unwrap(),
            First::A(Ok(()))
        ));
    }

    #[test]
    fn a_future_completed_while_waiting_wakes_the_task() {
        let lp = vloop();
        let stop: crate::Future<()> = lp.create_future();
        let s = stop.clone();
        let l = lp.clone();
        let task = lp
            .create_task(async move { Ok(first_of(s, sleep(&l, 10.0)).await) })
            .unwrap();
        lp.call_later(2.0, move |_| {
            stop.set_result(()).unwrap();
        })
        .unwrap();
        assert!(matches!(
            lp.run_until_complete(&task).unwrap(),
            First::A(Ok(()))
        ));
        assert_eq!(lp.time(), 2.0);
    }

    #[test]
    fn cancelling_the_task_leaves_a_shared_future_alone() {
        // The echo server's connections all wait on one `stop` future: cancelling one
        // connection's task must not cancel it for the others.
        let lp = vloop();
        let stop: crate::Future<()> = lp.create_future();
        let s = stop.clone();
        let task = lp
            .create_task(async move { Ok(first_of(s, std::future::pending::<()>()).await) })
            .unwrap();
        lp.run_once().unwrap();
        assert!(task.cancel());
        assert!(matches!(
            lp.run_until_complete(&task),
            Err(crate::Error::Cancelled)
        ));
        assert!(!stop.done(), "the shared future is still pending");
    }

    struct Guard(Rc<Cell<bool>>);

    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
}
