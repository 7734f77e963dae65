//! # Build it: one chapter's core, written by the learner
//!
//! The "Try it" exercises ([`crate`]) patch a line or a function. The "Build it" exercises,
//! one per chapter (chapter 9 has none) and the last of its boxes, ask for the chapter's core itself: a small
//! skeleton is given (the state, the scheduling calls, the clock), and the learner writes
//! the function that makes it run. The test then runs the same program on the learner's
//! code and on the stage's own, on the virtual clock, and compares the two runs line by
//! line: what ran, in what order, at what time. Each retraces its chapter's public source,
//! as its file says: Beazley's talk for chapters 1 to 4, CPython's asyncio
//! (`base_events.py`, `futures.py`, `tasks.py`, `selector_events.py`) for chapters 5 to 7,
//! asyncio's own transports for chapter 8, and its proactor (`windows_events.py`) for
//! chapter 10, whose test compares with stage 6.
//!
//! They are exercises like the others, rows of the [`catalog`](crate::catalog) (which names
//! each one's file, item and test), run by the runner in the book's order: a stub in
//! `src/build/chN.rs` compiles and does too little, its test in `tests/build_chN.rs` is
//! `#[ignore = "exercise N.M: ..."]`d and fails until the work is done, and a reference
//! solution is in `src/solutions/build/chN.rs`, compiled instead with the `solutions`
//! feature:
//!
//! ```text
//! cargo run -p exercises -- run 1.4
//! cargo test -p exercises --test build_ch1 -- --ignored      # the same test, as cargo runs it
//! ```
//!
//! The stubs are documented here but compiled into their tests alone (`tests/build_ch1.rs`
//! holds `src/build/ch1.rs`), as the "Try it" ones are.
//!
//! When a run differs from the stage's, [`assert_same_run`] says where: the first line that
//! differs and what the stage printed there, not the whole answer.

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch1.rs")]
pub mod ch1;
#[cfg(all(doc, not(doctest), target_os = "linux"))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch10.rs")]
pub mod ch10;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch2.rs")]
pub mod ch2;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch3.rs")]
pub mod ch3;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch4.rs")]
pub mod ch4;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch5.rs")]
pub mod ch5;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch6.rs")]
pub mod ch6;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch7.rs")]
pub mod ch7;
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "../solutions/build/ch8.rs")]
pub mod ch8;

use std::cell::RefCell;
use std::rc::Rc;

/// What a build-it program's callbacks write, one line each, in the order they ran.
pub type Log = Rc<RefCell<Vec<String>>>;

/// Where two runs part: `None` if `got` is `expected` line for line, otherwise one
/// sentence naming the first line that differs (or is missing, or is one too many) and
/// what `stage` wrote there.
pub fn first_difference(stage: &str, expected: &[String], got: &[String]) -> Option<String> {
    let line = expected
        .iter()
        .zip(got)
        .position(|(e, g)| e != g)
        .unwrap_or(expected.len().min(got.len()));
    // The two labels right-aligned, so that the two lines below them line up.
    let width = stage.len().max("yours".len());
    let theirs = |e: &String| format!("  {stage:>width$}: {e}");
    let yours = |g: &String| format!("  {:>width$}: {g}", "yours");
    match (expected.get(line), got.get(line)) {
        (Some(e), Some(g)) => Some(format!(
            "line {} differs from {stage}'s run:\n{}\n{}",
            line + 1,
            theirs(e),
            yours(g)
        )),
        (Some(e), None) if line == 0 => Some(format!(
            "your run wrote nothing; {stage}'s first line is:\n{}",
            theirs(e)
        )),
        (Some(e), None) => Some(format!(
            "your run stopped after line {line}; {stage}'s line {} is:\n{}",
            line + 1,
            theirs(e)
        )),
        (None, Some(g)) => Some(format!(
            "your run goes on after {stage}'s last line ({line}); your line {} is:\n{}",
            line + 1,
            yours(g)
        )),
        (None, None) => None,
    }
}

/// Fail with [`first_difference`]'s sentence unless `got` is `expected` line for line.
#[track_caller]
pub fn assert_same_run(stage: &str, expected: &[String], got: &[String]) {
    if let Some(difference) = first_difference(stage, expected, got) {
        panic!("{difference}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn the_first_difference_is_named_with_the_stage_line() {
        let stage = lines(&["a", "b", "c"]);
        assert_eq!(first_difference("stage 1", &stage, &stage), None);
        let told = first_difference("stage 1", &stage, &lines(&["a", "x", "c"])).unwrap();
        assert!(told.contains("line 2") && told.contains("stage 1: b") && told.contains("x"));
        assert!(!told.contains("stage 1: c"), "not the whole answer: {told}");
        let short = first_difference("stage 1", &stage, &lines(&["a"])).unwrap();
        assert!(short.contains("after line 1") && short.contains("stage 1: b"));
        let none = first_difference("stage 1", &stage, &[]).unwrap();
        assert!(none.contains("wrote nothing") && none.contains("stage 1: a"));
        let long = first_difference("stage 1", &lines(&["a"]), &lines(&["a", "z"])).unwrap();
        assert!(long.contains("line 2") && long.contains("yours: z"));
    }
}
