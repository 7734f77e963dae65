//! Chapter 4's exercises: each test fails on the stub in `src/ch4.rs` until the exercise
//! is done. Run one with `cargo run -p exercises -- run 4.1`
//! (or `cargo test -p exercises --test ch4 -- --ignored ex4_1`).

// Your code, compiled into this test alone (`src/ch4.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/ch4.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/ch4.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch4;

use std::io::{self, ErrorKind, Write};
use std::time::Duration;

use ch4::{run_timers, select_timeout, sendall};
use exercises::assert_yours;

#[test]
#[ignore = "exercise 4.1: the select timeout"]
fn ex4_1_how_long_select_may_block() {
    let s = Duration::from_secs;
    assert_yours!(
        select_timeout(None, s(3), false),
        None,
        "no timer: no limit"
    );
    assert_yours!(select_timeout(None, s(3), true), None);
    assert_yours!(select_timeout(Some(s(5)), s(3), false), Some(s(2)));
    assert_yours!(
        select_timeout(Some(s(5)), s(3), true),
        Some(Duration::ZERO),
        "the virtual clock polls and jumps, it never blocks while a timer is pending"
    );
    assert_yours!(
        select_timeout(Some(s(1)), s(3), false),
        Some(Duration::ZERO),
        "a deadline that has passed: do not block at all"
    );
}

#[test]
#[ignore = "exercise 4.2: due at the deadline"]
fn ex4_2_a_timer_due_exactly_now_runs_and_the_loop_does_not_spin() {
    let s = Duration::from_secs;
    // Bounded by turns, not by time: a loop that spins is stopped after 100 turns.
    let fired = run_timers(&[s(1), s(2), s(2)], 100);
    assert_yours!(fired, Ok(vec![s(1), s(2), s(2)]), "one turn per deadline");
}

/// A writer that takes at most three bytes per call, is interrupted once, and refuses to
/// be called more than 100 times (so that a wrong loop fails instead of hanging).
struct Trickle {
    taken: Vec<u8>,
    calls: usize,
    full: bool, // once full, it takes nothing: `Ok(0)`
}

impl Write for Trickle {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        assert!(self.calls <= 100, "write called {} times", self.calls);
        if self.calls == 2 {
            return Err(ErrorKind::Interrupted.into());
        }
        if self.full {
            return Ok(0);
        }
        let n = data.len().min(3);
        self.taken.extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
#[ignore = "exercise 4.3: sendall"]
fn ex4_3_sendall_writes_every_byte_or_says_why_not() {
    let mut out = Trickle {
        taken: Vec::new(),
        calls: 0,
        full: false,
    };
    sendall(&mut out, b"hello, world").unwrap();
    assert_yours!(out.taken, b"hello, world");
    let mut full = Trickle {
        taken: Vec::new(),
        calls: 0,
        full: true,
    };
    let error = sendall(&mut full, b"x").unwrap_err();
    assert_yours!(error.kind(), ErrorKind::WriteZero);
}
