//! Chapter 5's exercises, solved (book chapter 5, the event loop; asyncio's
//! `base_events.py`: `_run_once`, and a callback that schedules itself). Compare with
//! `src/ch5.rs`, the stubs.

use std::cell::RefCell;
use std::rc::Rc;

use stage5::{Error, EventLoop, Future, TimerHandle, VirtualClock};

/// What ran, and in which iteration of the loop (`lp.iteration()`).
pub type Order = Vec<(u64, &'static str)>;

/// What the exercises' callbacks write, in order.
pub type Log = Rc<RefCell<Vec<String>>>;

/// Exercise 5.1, call it off: a timeout for a request, which calls `on_timeout` after
/// `delay` seconds unless it is disarmed first. Servers arm one per request and disarm
/// almost all of them; the loop's heap must not keep the disarmed ones.
///
/// Disarming cancels the timer handle. The heap still holds it, counted as cancelled, and
/// step 1 of the next iteration drops it: with the head, or all at once when more than 100
/// timers are scheduled and more than half of them are cancelled.
pub struct Timeout {
    timer: TimerHandle,
}

impl Timeout {
    /// Call `on_timeout` after `delay` seconds, unless disarmed.
    pub fn arm(
        lp: &EventLoop,
        delay: f64,
        on_timeout: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<Timeout, Error> {
        let timer = lp.call_later(delay, on_timeout)?;
        Ok(Timeout { timer })
    }

    /// The request finished in time: `on_timeout` must never run.
    pub fn disarm(self) {
        self.timer.cancel();
    }
}

/// Exercise 5.2, predict the order: which callback of [`observed_order`]'s program runs
/// when? Read the program, write down your prediction here, then run the test.
///
/// Iteration 2 runs what iteration 1 queued with `call_soon`, then the timers step 4 found
/// due (earliest first), which it appended to the *back* of the ready queue. What the
/// second `call_soon` schedules waits for iteration 3, its timer included.
pub fn predicted_order() -> Order {
    vec![
        (1, "start"),
        (2, "call_soon"),
        (2, "second call_soon"),
        (2, "call_at(1 s ago)"),
        (2, "call_later(0)"),
        (3, "its call_soon"),
        (3, "its call_later(0)"),
    ]
}

/// Not part of the exercise: the program whose order you predict, run on a new loop on the
/// virtual clock. Returns every label in the order it ran, with its iteration.
pub fn observed_order() -> Result<Order, Error> {
    let lp = EventLoop::with_clock(VirtualClock::new());
    let order: Rc<RefCell<Order>> = Rc::default();
    let note = {
        let order = order.clone();
        move |label: &'static str| {
            let order = order.clone();
            move |lp: &EventLoop| order.borrow_mut().push((lp.iteration(), label))
        }
    };
    lp.call_soon(move |lp| {
        note("start")(lp);
        // Three ways of saying "as soon as possible", and a callback that schedules more.
        must(lp.call_later(0.0, note("call_later(0)")));
        must(lp.call_soon(note("call_soon")));
        must(lp.call_at(lp.time() - 1.0, note("call_at(1 s ago)")));
        must(lp.call_soon(move |lp| {
            note("second call_soon")(lp);
            must(lp.call_later(0.0, note("its call_later(0)")));
            must(lp.call_soon(note("its call_soon")));
        }));
    })?;
    lp.call_later(1.0, |lp| lp.stop())?; // long after all of the above
    lp.run_forever()?;
    Ok(order.take())
}

/// Scheduling from inside a callback: the loop is running, so it is open, and every delay
/// above is a number; neither error can happen.
fn must<T>(scheduled: Result<T, Error>) {
    scheduled.expect("an open loop and a delay that is a number");
}

/// Exercise 5.3, one tick per turn: log `tick 0` .. `tick {n - 1}` (each as `[iteration]
/// tick i`), and complete the returned future after the last one. A timer that is due
/// while the ticks go on must get its turn after at most one tick.
///
/// One tick per callback, each scheduling the next with `call_soon`: the batch of an
/// iteration is fixed when it starts, so the next tick waits for the next iteration, after
/// step 4 has moved the due timers to the ready queue.
pub fn ticker(lp: &EventLoop, log: Log, n: u32) -> Result<Future<()>, Error> {
    fn tick(lp: &EventLoop, log: Log, i: u32, n: u32, done: Future<()>) {
        if i == n {
            done.set_result_unless_done(()); // false only if already done: it is not
            return;
        }
        log.borrow_mut()
            .push(format!("[{}] tick {i}", lp.iteration()));
        must(lp.call_soon(move |lp| tick(lp, log, i + 1, n, done)));
    }
    let done = lp.create_future();
    let finished = done.clone();
    lp.call_soon(move |lp| tick(lp, log, 0, n, finished))?;
    Ok(done)
}
