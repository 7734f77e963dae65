//! Build it 5.4: one program on your `MiniLoop::run_once` (`src/build/ch5.rs`) and on stage
//! 5's `EventLoop`, both on the virtual clock; the two runs must match line for line, each
//! line saying in which iteration and at what time a callback ran. Run it with
//! `cargo run -p exercises -- run 5.4` (or
//! `cargo test -p exercises --test build_ch5 -- --ignored`).

// Your code, compiled into this test alone (`src/build/ch5.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch5.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch5.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch5;

use std::time::Duration;

use ch5::MiniLoop;
use exercises::build::{Log, assert_same_run};
use stage5::{EventLoop, VirtualClock};

/// What cancels the handle it was made from.
struct Cancel(Box<dyn Fn()>);

impl Cancel {
    fn cancel(&self) {
        (self.0)();
    }
}

/// What the program needs of a loop: stage 5's and yours both have it.
trait Loop: Sized + 'static {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) -> Cancel;
    fn later(&self, secs: f64, callback: impl FnOnce(&Self) + 'static) -> Cancel;
    fn now(&self) -> f64;
    fn iteration(&self) -> u64;
    fn stop(&self);
}

impl Loop for EventLoop {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) -> Cancel {
        let handle = self.call_soon(callback).unwrap();
        Cancel(Box::new(move || handle.cancel()))
    }
    fn later(&self, secs: f64, callback: impl FnOnce(&Self) + 'static) -> Cancel {
        let handle = self.call_later(secs, callback).unwrap();
        Cancel(Box::new(move || handle.cancel()))
    }
    fn now(&self) -> f64 {
        self.time()
    }
    fn iteration(&self) -> u64 {
        EventLoop::iteration(self)
    }
    fn stop(&self) {
        EventLoop::stop(self);
    }
}

impl Loop for MiniLoop {
    fn soon(&self, callback: impl FnOnce(&Self) + 'static) -> Cancel {
        let handle = self.call_soon(callback);
        Cancel(Box::new(move || handle.cancel()))
    }
    fn later(&self, secs: f64, callback: impl FnOnce(&Self) + 'static) -> Cancel {
        let handle = self.call_later(Duration::from_secs_f64(secs), callback);
        Cancel(Box::new(move || handle.cancel()))
    }
    fn now(&self) -> f64 {
        self.time().as_secs_f64()
    }
    fn iteration(&self) -> u64 {
        MiniLoop::iteration(self)
    }
    fn stop(&self) {
        MiniLoop::stop(self);
    }
}

/// A callback that writes `[iteration] time what` into `log`, then runs `then`.
fn say<L: Loop>(
    log: &Log,
    what: &'static str,
    then: impl FnOnce(&L) + 'static,
) -> impl FnOnce(&L) + 'static {
    let log = log.clone();
    move |lp| {
        let line = format!("[{}] {:.3} {what}", lp.iteration(), lp.now());
        log.borrow_mut().push(line);
        then(lp);
    }
}

fn nothing<L>(_: &L) {}

/// A callback that schedules `n` more, one after the other, with `call_soon`.
fn chain<L: Loop>(log: &Log, n: u32) -> impl FnOnce(&L) + 'static {
    let l = log.clone();
    say(log, "chain", move |lp: &L| {
        if n > 0 {
            lp.soon(chain(&l, n - 1));
        }
    })
}

/// Callbacks that schedule callbacks (the ntodo rule decides when those run), timers due at
/// once and at 2 s, a handle cancelled while ready, a timer cancelled while first in the
/// heap, and a stop at 4 s.
fn program<L: Loop>(lp: &L, log: &Log) {
    let l = log.clone();
    lp.soon(say(log, "A", move |lp: &L| {
        lp.soon(say(&l, "A's callback", nothing));
    }));
    lp.soon(say(log, "B", nothing));
    let cancelled = lp.soon(say(log, "cancelled while ready", nothing));
    cancelled.cancel();
    lp.later(0.0, say(log, "timer due at once", nothing));
    let cancelled = lp.later(1.0, say(log, "cancelled timer", nothing));
    cancelled.cancel();
    let l = log.clone();
    lp.later(
        2.0,
        say(log, "timer at 2", move |lp: &L| {
            lp.soon(chain(&l, 2));
            lp.later(0.0, say(&l, "timer at 2's timer", nothing));
        }),
    );
    lp.later(2.0, say(log, "second timer at 2", nothing));
    let l = log.clone();
    lp.later(
        2.5,
        say(log, "cancels the timer at 3", move |lp: &L| {
            let doomed = lp.later(0.5, say(&l, "never", nothing));
            doomed.cancel();
        }),
    );
    let l = log.clone();
    lp.later(
        4.0,
        say(log, "stop", move |lp: &L| {
            lp.stop();
            lp.soon(say(&l, "after the stop", nothing));
        }),
    );
}

#[test]
#[ignore = "exercise 5.4: run_once in five steps"]
fn ex5_4_run_once_matches_stage_5() {
    let expected = Log::default();
    let lp = EventLoop::with_clock(VirtualClock::new());
    program(&lp, &expected);
    lp.run_forever().unwrap();

    let got = Log::default();
    let yours = MiniLoop::new(VirtualClock::new());
    program(&yours, &got);
    let stopped = yours.run_forever(100);
    assert_same_run("stage 5", &expected.take(), &got.take());
    assert!(stopped, "your loop stopped when the program said stop");
}
