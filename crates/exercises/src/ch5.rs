//! Chapter 5's exercises (book chapter 5, the event loop; asyncio's `base_events.py`:
//! `_run_once`, and a callback that schedules itself). Each item below is a stub that
//! compiles and does the wrong thing; `tests/ch5.rs` says what the right thing is. They use
//! stage 5's public API only. Run one with `cargo run -p exercises -- run 5.1`.
//!
//! What changed since chapter 4's exercises: the scheduler is asyncio's loop, which runs a
//! fixed batch per iteration, so the questions are about iterations and handles.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use stage5::{Error, EventLoop, Future, VirtualClock};

/// What ran, and in which iteration of the loop (`lp.iteration()`).
pub type Order = Vec<(u64, &'static str)>;

/// What the exercises' callbacks write, in order.
pub type Log = Rc<RefCell<Vec<String>>>;

/// Exercise 5.1, call it off: a timeout for a request, which calls `on_timeout` after
/// `delay` seconds unless it is disarmed first. Servers arm one per request and disarm
/// almost all of them; the loop's heap must not keep the disarmed ones.
///
/// As shipped, disarming sets a flag that the timer's callback checks when it fires: the
/// callback does nothing, but the timer stays in the heap until its deadline. Keep what
/// `call_later` returns instead.
pub struct Timeout {
    disarmed: Rc<Cell<bool>>,
}

impl Timeout {
    /// Call `on_timeout` after `delay` seconds, unless disarmed.
    pub fn arm(
        lp: &EventLoop,
        delay: f64,
        on_timeout: impl FnOnce(&EventLoop) + 'static,
    ) -> Result<Timeout, Error> {
        let disarmed = Rc::new(Cell::new(false));
        let flag = disarmed.clone();
        // The timer handle is dropped: the flag is all this stub keeps (the exercise).
        lp.call_later(delay, move |lp| {
            if !flag.get() {
                on_timeout(lp);
            }
        })?;
        Ok(Timeout { disarmed })
    }

    /// The request finished in time: `on_timeout` must never run.
    pub fn disarm(self) {
        self.disarmed.set(true);
    }
}

/// Exercise 5.2, predict the order: which callback of [`observed_order`]'s program runs
/// when? Read the program, write down your prediction here, then run the test. If it is
/// wrong, the test names the first line that is, and what the loop ran there (not the
/// whole answer): correct that line, think again about the rest, run it again.
///
/// As shipped, the prediction is the intuitive one: a timer that is already due (a delay
/// of zero, or a time in the past) runs before what `call_soon` queued, in the same
/// iteration.
pub fn predicted_order() -> Order {
    vec![
        (1, "start"),
        (2, "call_at(1 s ago)"),
        (2, "call_later(0)"),
        (2, "call_soon"),
        (2, "second call_soon"),
        (2, "its call_later(0)"),
        (2, "its call_soon"),
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
/// As shipped, it does all its ticks in one callback, as a program without a loop would: a
/// timer due meanwhile waits for every tick (a hog, in small). On stage 1 (exercise 1.1)
/// the cure was `call_later(0)`, because `call_soon` starved the timers; try `call_soon`
/// on this loop.
pub fn ticker(lp: &EventLoop, log: Log, n: u32) -> Result<Future<()>, Error> {
    let done = lp.create_future();
    let finished = done.clone();
    lp.call_soon(move |lp| {
        for i in 0..n {
            log.borrow_mut()
                .push(format!("[{}] tick {i}", lp.iteration()));
        }
        finished.set_result_unless_done(()); // false only if already done: it is not
    })?;
    Ok(done)
}
