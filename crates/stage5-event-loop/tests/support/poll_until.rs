//! A test's way to run the real-clock loop until a condition holds (book chapter 8's
//! hostile-client tests; no public source: the project's own test helper). Used by
//! `tests/streams_resets.rs` and `tests/transports_hostile.rs`.

use stage5::EventLoop;

/// Check `done` once per iteration; stop the loop when it holds.
pub fn poll_until(lp: &EventLoop, done: impl Fn() -> bool + 'static) {
    if done() {
        lp.stop();
        return;
    }
    let l = lp.clone();
    lp.call_later(0.001, move |_| poll_until(&l, done)).unwrap();
}
