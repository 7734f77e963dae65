//! `sleep`: a future resolved by `call_later` (book chapter 6, "Sleep"; asyncio's
//! `tasks.sleep`).
//!
//! asyncio's `sleep(delay)` creates a future, asks the loop to `call_later(delay, ...)` a
//! callback that sets the future's result (unless it was cancelled meanwhile), and awaits
//! the future; if the sleeper is cancelled, the timer is cancelled too. `sleep(0)` is
//! special: a bare `yield`, which puts the task at the back of the ready queue for one
//! iteration, and no timer at all. Ours does both, in a hand-written future.
//!
//! Like a coroutine, the future does nothing until it is first polled: the timer starts
//! when the task first awaits it. Dropping a sleep that has not fired cancels its timer,
//! which is how a cancelled task (whose future is dropped) leaves no timer behind.
//!
//! What changed since stage 4: stage 4's sleep put the task itself in the timer heap
//! through the scheduler's `current` slot. Here the heap holds an ordinary timer handle
//! whose callback completes an ordinary future; the task waits for that future like for any
//! other.

use std::pin::Pin;
use std::task::{Context, Poll};

use crate::errors::Error;
use crate::event_loop::{EventLoop, TimerHandle};
use crate::futures::future::Future;

/// Sleep `delay` seconds on `lp`'s clock (asyncio's `asyncio.sleep(delay)`, with the loop
/// passed explicitly as asyncio's old `loop=` argument did). A delay of zero or less yields
/// once; a NaN delay fails with [`Error::NanTime`].
pub fn sleep(lp: &EventLoop, delay: f64) -> Sleep {
    Sleep {
        lp: lp.clone(),
        delay,
        state: State::Start,
    }
}

/// The future [`sleep`] returns.
pub struct Sleep {
    lp: EventLoop,
    delay: f64,
    state: State,
}

enum State {
    Start,
    Yielded,
    Waiting(Future<()>, TimerHandle),
    Done,
}

// ANCHOR: poll
impl std::future::Future for Sleep {
    type Output = Result<(), Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match &mut this.state {
            State::Start if this.delay.is_nan() => Poll::Ready(Err(Error::NanTime)),
            State::Start if this.delay <= 0.0 => {
                // asyncio's `__sleep0`: a bare yield. Wake ourselves, so the task's next
                // step goes to the back of the ready queue, and wait for it.
                this.state = State::Yielded;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            State::Start => {
                let future = this.lp.create_future();
                let done = future.clone();
                let timer = this.lp.call_later(this.delay, move |_| {
                    done.set_result_unless_done(());
                })?;
                this.state = State::Waiting(future, timer);
                self.poll(cx) // registers the task's waker with the future
            }
            State::Yielded => {
                this.state = State::Done;
                Poll::Ready(Ok(()))
            }
            State::Waiting(future, _) => match Pin::new(future).poll(cx) {
                Poll::Ready(result) => {
                    this.state = State::Done;
                    Poll::Ready(result)
                }
                Poll::Pending => Poll::Pending,
            },
            State::Done => Poll::Ready(Ok(())),
        }
    }
}

impl Drop for Sleep {
    /// A sleep dropped while waiting (its task was cancelled) cancels its timer.
    fn drop(&mut self) {
        if let State::Waiting(_, timer) = &self.state {
            timer.cancel();
        }
    }
}
// ANCHOR_END: poll

#[cfg(test)]
mod tests {
    use super::*;
    use scaffold::VirtualClock;

    #[test]
    fn sleep_ends_at_its_time_and_a_dropped_sleep_cancels_its_timer() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let l = lp.clone();
        let task = lp
            .create_task(async move {
                sleep(&l, 2.5).await?;
                Ok(l.time())
            })
            .unwrap();
        assert_eq!(lp.run_until_complete(&task).unwrap(), 2.5);

        let l = lp.clone();
        let long = lp
            .create_task(async move { sleep(&l, 100.0).await })
            .unwrap();
        lp.run_once().unwrap();
        assert_eq!(lp.scheduled_len(), 1);
        assert!(long.cancel());
        lp.run_once().unwrap(); // the step that ends the task drops the sleep
        assert!(long.cancelled());
        assert_eq!(lp.timer_cancelled_count(), 1);
        // Step 1 pops the cancelled timer off the head; then nothing is left to wait for.
        assert!(matches!(lp.run_once(), Err(Error::NothingToWaitFor)));
        assert_eq!(lp.scheduled_len(), 0);
        assert_eq!(lp.time(), 2.5, "no jump to the cancelled timer");
    }

    #[test]
    fn a_nan_sleep_is_an_error() {
        let lp = EventLoop::with_clock(VirtualClock::new());
        let l = lp.clone();
        let task = lp
            .create_task(async move { sleep(&l, f64::NAN).await })
            .unwrap();
        assert!(matches!(lp.run_until_complete(&task), Err(Error::NanTime)));
    }
}
