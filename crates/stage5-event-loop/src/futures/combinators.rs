//! `gather` and `wait_for` (book chapter 6, "Waiting for several things"; asyncio's
//! `tasks.gather` and `tasks.wait_for`). Beazley's talk waits for one thing at a
//! time.
//!
//! Both are written by hand on top of futures and done callbacks, as asyncio writes them,
//! rather than taken from a `futures` crate: the point of the book is that nothing here is
//! magic.
//!
//! - `gather` returns an outer future and adds a done callback to each child. Each callback
//!   stores its child's result in the child's slot; the last one sets the outer result, in
//!   argument order whatever the finishing order. The first child that fails (or is
//!   cancelled) fails the outer future at once. Cancelling the outer future cancels the
//!   children.
//! - `wait_for` waits on a `waiter` future that either a timer or the awaited future's done
//!   callback releases. If the timer wins, the future is cancelled, and `wait_for` waits
//!   until it has really finished before it reports [`Error::Timeout`], so that no task
//!   keeps running behind the caller's back.
//!
//! What changed since stage 4: stage 4 had no way to wait for more than one thing.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::errors::Error;
use crate::event_loop::EventLoop;
use crate::futures::future::{Canceller, Future};

// ANCHOR: gather
/// A future of all the children's results, in argument order (asyncio's `gather` with
/// `return_exceptions=False`). Children are futures or tasks (`task.into()`, or pass the
/// tasks themselves) of `lp`; a child of another loop fails it with
/// [`Error::DifferentLoop`].
pub fn gather<T, I>(lp: &EventLoop, children: I) -> Future<Vec<T>>
where
    T: Clone + 'static,
    I: IntoIterator,
    I::Item: Into<Future<T>>,
{
    let children: Vec<Future<T>> = children.into_iter().map(Into::into).collect();
    let outer = lp.create_future::<Vec<T>>();
    if children.is_empty() {
        outer.set_result_unless_done(Vec::new());
        return outer;
    }
    // Another loop's child would complete on that loop: asyncio's `ensure_future` refuses.
    if !children.iter().all(|child| child.belongs_to(lp)) {
        // Pending, just made: the exception is set.
        let _ = outer.set_exception(Error::DifferentLoop);
        return outer;
    }
    let results = Rc::new(RefCell::new(vec![None; children.len()]));
    let remaining = Rc::new(Cell::new(children.len()));
    for (index, child) in children.iter().enumerate() {
        let (outer, results, remaining) = (outer.clone(), results.clone(), remaining.clone());
        child.add_done_callback(move |_, child| {
            if outer.done() {
                let _ = child.exception(); // retrieved: nobody else will look at it
                return;
            }
            match child.result() {
                Err(error) => {
                    // Pending: `outer.done()` was checked above.
                    let _ = outer.set_exception(error);
                }
                Ok(value) => {
                    results.borrow_mut()[index] = Some(value);
                    remaining.set(remaining.get() - 1);
                    if remaining.get() == 0 {
                        let values = results.take().into_iter().map(Option::unwrap).collect();
                        outer.set_result_unless_done(values);
                    }
                }
            }
        });
    }
    let weak: Vec<_> = children.iter().map(Future::downgrade).collect();
    outer.set_canceller(Canceller::Call(Box::new(move || {
        let mut cancelled = false;
        for child in weak.iter().filter_map(|w| w.upgrade()) {
            cancelled |= child.cancel();
        }
        cancelled
    })));
    outer
}
// ANCHOR_END: gather

// ANCHOR: wait_for
/// Wait for `future` for at most `timeout` seconds: its result, or [`Error::Timeout`]
/// after cancelling it and waiting for it to end. A timeout of zero or less does not wait:
/// the result if the future is done already, else a timeout. A future of another loop is
/// refused ([`Error::DifferentLoop`]). Written as asyncio 3.11
/// writes it: a `waiter` future released either by a timer or by the future's done
/// callback, whichever comes first. For a Rust future that is no [`Future`], one that
/// borrows such as `sock_recv(...)`, see [`timeout`](crate::timeout).
pub async fn wait_for<T, F>(lp: &EventLoop, future: F, timeout: f64) -> Result<T, Error>
where
    T: Clone + 'static,
    F: Into<Future<T>>,
{
    let future: Future<T> = future.into();
    if !future.belongs_to(lp) {
        return Err(Error::DifferentLoop); // its end would release nothing on this loop
    }
    if timeout.is_nan() {
        return Err(Error::NanTime);
    }
    if timeout <= 0.0 {
        if future.done() {
            return future.result();
        }
        cancel_and_wait(lp, &future).await;
        return timed_out(&future);
    }
    let waiter = lp.create_future::<()>();
    let release = waiter.clone();
    let timeout_handle = lp.call_later(timeout, move |_| release_waiter(&release))?;
    let release = waiter.clone();
    let callback = future.add_done_callback(move |_, _| release_waiter(&release));
    // asyncio's `finally`, and its `except CancelledError` for a caller that goes away
    // (its task cancelled, this future dropped): cancel the timer, and the future too.
    let unfinished = future.clone();
    let _cleanup = Defer(move || {
        timeout_handle.cancel();
        if !unfinished.done() {
            unfinished.cancel();
        }
    });
    // The waiter ends with a result, or cancelled with us: either way the state of
    // `future` decides what follows. Unless `lp` is not the caller's loop: then nothing
    // here can ever wake the caller (the caller's task is told so).
    if let Err(error @ Error::ForeignFuture) = waiter.await {
        return Err(error);
    }
    if future.done() {
        return future.result();
    }
    future.remove_done_callback(callback);
    cancel_and_wait(lp, &future).await;
    timed_out(&future)
}

// ANCHOR_END: wait_for
/// asyncio's `_release_waiter`.
fn release_waiter(waiter: &Future<()>) {
    waiter.set_result_unless_done(());
}

/// asyncio's `_cancel_and_wait`: cancel `future` and wait until it is really done.
async fn cancel_and_wait<T: 'static>(lp: &EventLoop, future: &Future<T>) {
    let waiter = lp.create_future::<()>();
    let release = waiter.clone();
    let callback = future.add_done_callback(move |_, _| release_waiter(&release));
    future.cancel();
    // Released by the future's end; if we are cancelled meanwhile, there is nothing left
    // to wait for either.
    let _ = waiter.await;
    future.remove_done_callback(callback);
}

/// After a cancel: the result if the future finished anyway, else a timeout.
fn timed_out<T: Clone + 'static>(future: &Future<T>) -> Result<T, Error> {
    match future.result() {
        Err(Error::Cancelled) => Err(Error::Timeout),
        other => other,
    }
}

/// Run a closure when dropped: on every way out of an `async fn`, including its future
/// being dropped (its task cancelled).
struct Defer<F: FnMut()>(F);

impl<F: FnMut()> Drop for Defer<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sleep;
    use scaffold::VirtualClock;

    fn vloop() -> EventLoop {
        EventLoop::with_clock(VirtualClock::new())
    }

    fn sleeper(lp: &EventLoop, secs: f64) -> crate::Task<f64> {
        let l = lp.clone();
        lp.create_task(async move {
            sleep(&l, secs).await?;
            Ok(secs)
        })
        .unwrap()
    }

    #[test]
    fn gather_keeps_argument_order_and_ends_with_the_slowest() {
        let lp = vloop();
        let all = gather(&lp, [3.0, 1.0, 2.0].map(|s| sleeper(&lp, s)));
        assert_eq!(lp.run_until_complete(&all).unwrap(), [3.0, 1.0, 2.0]);
        assert_eq!(lp.time(), 3.0);
        let none: Future<Vec<u8>> = gather(&lp, Vec::<Future<u8>>::new());
        assert!(none.done());
    }

    #[test]
    fn gather_fails_with_the_first_failure_and_cancel_reaches_the_children() {
        let lp = vloop();
        let slow = sleeper(&lp, 5.0);
        let bad: Future<f64> = lp.create_future();
        let l = lp.clone();
        let b = bad.clone();
        lp.call_later(1.0, move |_| drop(b.set_exception(Error::msg("bad"))))
            .unwrap();
        let all = gather(&lp, [slow.clone().into(), bad]);
        assert_eq!(lp.run_until_complete(&all).unwrap_err().to_string(), "bad");
        assert_eq!(l.time(), 1.0);
        let slow2 = sleeper(&lp, 5.0);
        let all2 = gather(&lp, [slow2.clone()]);
        lp.run_once().unwrap();
        assert!(all2.cancel());
        assert!(matches!(
            lp.run_until_complete(&all2),
            Err(Error::Cancelled)
        ));
        assert!(slow2.cancelled());
    }

    #[test]
    fn wait_for_times_out_and_cancels() {
        let lp = vloop();
        let l = lp.clone();
        let slow = sleeper(&lp, 10.0);
        let s = slow.clone();
        let outcome = lp
            .create_task(async move { wait_for(&l, s, 2.0).await })
            .unwrap();
        assert!(matches!(
            lp.run_until_complete(&outcome),
            Err(Error::Timeout)
        ));
        assert!(slow.cancelled());
        assert_eq!(lp.time(), 2.0);

        let l = lp.clone();
        let quick = sleeper(&lp, 1.0);
        let fine = lp
            .create_task(async move { wait_for(&l, quick, 2.0).await })
            .unwrap();
        assert_eq!(lp.run_until_complete(&fine).unwrap(), 1.0);
        assert_eq!(lp.time(), 3.0);
    }

    #[test]
    fn a_dropped_wait_for_cancels_its_future_and_timer() {
        let lp = vloop();
        let l = lp.clone();
        let slow = sleeper(&lp, 10.0);
        let s = slow.clone();
        let waiting = lp
            .create_task(async move { wait_for(&l, s, 5.0).await })
            .unwrap();
        lp.run_once().unwrap(); // both start: the sleep's timer and wait_for's timer
        assert_eq!(lp.scheduled_len(), 2);
        waiting.cancel();
        lp.run_until_complete(&slow).unwrap_err();
        assert!(waiting.cancelled() && slow.cancelled());
        // Both timers were cancelled: popped off the heap, and the clock never jumped.
        assert_eq!(lp.scheduled_len(), 0);
        assert_eq!(lp.time(), 0.0);
    }

    #[test]
    fn wait_for_on_another_loop_than_the_callers_is_an_error_not_a_timeout() {
        let (lp, other) = (vloop(), vloop());
        let theirs: Future<u8> = other.create_future();
        let (o, t) = (other.clone(), theirs.clone());
        let task = lp
            .create_task(async move { wait_for(&o, t, 5.0).await })
            .unwrap();
        assert!(matches!(
            lp.run_until_complete(&task),
            Err(Error::ForeignFuture)
        ));
        assert!(
            theirs.cancelled(),
            "the caller went away: its future is cancelled"
        );
        assert_eq!(lp.time(), 0.0, "no waiting for the timeout");
    }

    #[test]
    fn wait_for_with_no_time_left() {
        let lp = vloop();
        let l = lp.clone();
        let done: Future<u8> = lp.create_future();
        done.set_result(1).unwrap();
        let pending: Future<u8> = lp.create_future();
        let p = pending.clone();
        let t = lp
            .create_task(
                async move { Ok((wait_for(&l, done, 0.0).await, wait_for(&l, p, -1.0).await)) },
            )
            .unwrap();
        let (a, b) = lp.run_until_complete(&t).unwrap();
        assert_eq!(a.unwrap(), 1);
        assert!(matches!(b, Err(Error::Timeout)));
        assert!(pending.cancelled());
    }
}
