//! Build it 6.5: one program on stage 5's loop, with your `MiniFuture` (`src/build/ch6.rs`)
//! and with stage 5's `Future`, on the virtual clock; the two runs must match line for
//! line, each line saying in which iteration and at what time a callback ran. Run it with
//! `cargo run -p exercises -- run 6.5` (or
//! `cargo test -p exercises --test build_ch6 -- --ignored`).

// Your code, compiled into this test alone (`src/build/ch6.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch6.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch6.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch6;

use ch6::MiniFuture;
use exercises::build::{Log, assert_same_run};
use stage5::{EventLoop, Future, VirtualClock};

/// What the program needs of a future: stage 5's and yours both have it.
trait Fut: Clone + 'static {
    fn make(lp: &EventLoop) -> Self;
    /// Set the result; false if the future refused it.
    fn set(&self, lp: &EventLoop, value: u32) -> bool;
    fn on_done(&self, lp: &EventLoop, callback: impl FnOnce(&EventLoop, &Self) + 'static);
    fn value(&self) -> Option<u32>;
}

impl Fut for Future<u32> {
    fn make(lp: &EventLoop) -> Self {
        lp.create_future()
    }
    fn set(&self, _: &EventLoop, value: u32) -> bool {
        self.set_result(value).is_ok()
    }
    fn on_done(&self, _: &EventLoop, callback: impl FnOnce(&EventLoop, &Self) + 'static) {
        self.add_done_callback(callback);
    }
    fn value(&self) -> Option<u32> {
        self.result().ok()
    }
}

impl Fut for MiniFuture<u32> {
    fn make(_: &EventLoop) -> Self {
        MiniFuture::new()
    }
    fn set(&self, lp: &EventLoop, value: u32) -> bool {
        self.set_result(lp, value).is_ok()
    }
    fn on_done(&self, lp: &EventLoop, callback: impl FnOnce(&EventLoop, &Self) + 'static) {
        self.add_done_callback(lp, callback);
    }
    fn value(&self) -> Option<u32> {
        self.result().ok()
    }
}

/// Write `[iteration] time what` into `log`.
fn note(log: &Log, lp: &EventLoop, what: &str) {
    let line = format!("[{}] {:.3} {what}", lp.iteration(), lp.time());
    log.borrow_mut().push(line);
}

/// A done callback that notes the result it sees.
fn saw<F: Fut>(log: &Log, who: &'static str) -> impl FnOnce(&EventLoop, &F) + 'static {
    let log = log.clone();
    move |lp, f| note(&log, lp, &format!("{who} saw {:?}", f.value()))
}

/// Two callbacks on a future that a callback completes (then tries again), a callback
/// added by one of them, one added a second later, and a second future completed by a
/// timer, with a callback added on each side of its completion.
fn program<F: Fut>(lp: &EventLoop, log: &Log) {
    let f = F::make(lp);
    let l = log.clone();
    f.on_done(lp, move |lp, f: &F| {
        saw(&l, "A")(lp, f);
        f.on_done(lp, saw(&l, "A's late callback"));
    });
    f.on_done(lp, saw(log, "B"));
    let (l, f2) = (log.clone(), f.clone());
    lp.call_soon(move |lp| {
        note(&l, lp, "C sets 7");
        let set = f2.set(lp, 7);
        note(&l, lp, &format!("C: set {set}, value {:?}", f2.value()));
        let l2 = l.clone();
        lp.call_soon(move |lp| note(&l2, lp, "D, scheduled after the set"))
            .unwrap();
        let again = f2.set(lp, 8);
        note(
            &l,
            lp,
            &format!("C: set again {again}, value {:?}", f2.value()),
        );
    })
    .unwrap();
    let (l, f2) = (log.clone(), f.clone());
    lp.call_later(1.0, move |lp| {
        note(&l, lp, "E adds a callback to a done future");
        f2.on_done(lp, saw(&l, "E's callback"));
        let l2 = l.clone();
        lp.call_soon(move |lp| note(&l2, lp, "G, scheduled after it"))
            .unwrap();
    })
    .unwrap();

    let g = F::make(lp);
    g.on_done(lp, saw(log, "H"));
    let (l, g2) = (log.clone(), g.clone());
    lp.call_later(2.0, move |lp| {
        note(&l, lp, "the timer sets 9");
        g2.set(lp, 9);
        g2.on_done(lp, saw(&l, "I"));
    })
    .unwrap();
}

/// Run `program` with futures `F` on a fresh loop, until nothing is left (at most 50
/// iterations), and return its lines.
fn run<F: Fut>() -> Vec<String> {
    let log = Log::default();
    let lp = EventLoop::with_clock(VirtualClock::new());
    program::<F>(&lp, &log);
    for _ in 0..50 {
        if lp.ready_len() == 0 && lp.scheduled_len() == 0 {
            break;
        }
        lp.run_once().unwrap();
    }
    log.take()
}

#[test]
#[ignore = "exercise 6.5: a future and its done callbacks"]
fn ex6_5_done_callbacks_match_stage_5() {
    assert_same_run("stage 5", &run::<Future<u32>>(), &run::<MiniFuture<u32>>());
}
