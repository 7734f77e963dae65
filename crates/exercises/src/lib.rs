//! # The book's exercises
//!
//! Each chapter's "Try it" and "Build it" boxes point here (book [introduction,
//! "Exercises"](../../../docs/book/introduction.html)). An exercise is a function or type
//! in `src/chN.rs` that is not finished yet (a *stub*: it compiles, and does the wrong
//! thing, often the chapter's warning made real) and a test in `tests/chN.rs` that fails
//! until it is finished. The last of each of chapters 1 to 8 and 10, its "Build it" box,
//! is bigger: the chapter's core, written from a skeleton in `src/build/chN.rs`, whose test in
//! `tests/build_chN.rs` compares its run with the stage's own ([`build`]). The runner runs
//! them all in the book's order:
//!
//! ```text
//! cargo run -p exercises                  # the first exercise not done yet, and how far you are
//! cargo run -p exercises -- run 1.1       # one exercise, by its number in the book
//! cargo run -p exercises -- hint 1.1      # a nudge
//! cargo run -p exercises -- watch         # re-run the current exercise each time you save it
//! cargo run -p exercises -- watch 2.1     # the same, from exercise 2.1 on
//! cargo run -p exercises -- list          # every exercise, done or not
//! ```
//!
//! Edit the file it names until it says the exercise is done. Each test binary compiles its
//! chapter's stub into itself, and is built only when it is named: the runner (built
//! without any stub) and `cargo test --workspace` stay whole whatever state your code is
//! in, and a stub that does not compile is told as its exercise's outcome, the others still
//! run. The tests are `#[ignore]`d too, and the runner runs them for you: `cargo test -p
//! exercises --test ch1 -- --ignored ex1_1` is still the same test, with the harness's own
//! output. [`catalog`] lists every exercise, in reading order; [`assert_yours!`] is what
//! their tests compare with.
//!
//! A reference solution of every exercise is in `src/solutions/`, compiled instead of the
//! stubs with the `solutions` feature:
//!
//! ```text
//! cargo run -p exercises --features solutions -- check
//! cargo test -p exercises --features solutions -- --ignored
//! ```
//!
//! CI checks both ways round: every exercise test fails on the stubs as shipped, and passes
//! on the solutions (`scripts/check-exercises.sh`).
//!
//! Chapters 5 to 9 share one crate, stage 5's event loop, and their exercises use only its
//! public API (chapter 9's need no Python: a Rust closure plays a Python callback).
//! Chapter 10's run on stage 6, which waits on io_uring: they are Linux's alone, and where
//! io_uring is refused their tests say why and do not run. Adding
//! an exercise: a stub in `src/chN.rs`, its solution in `src/solutions/chN.rs` (the same
//! items, finished), a test in `tests/chN.rs` named `exN_M_what_it_checks` and marked
//! `#[ignore = "exercise N.M: ..."]`, bounded in time by counts (never by a clock), a "Try
//! it" box in chapter N, and its row in [`catalog`] (CONTRIBUTING.md, "Adding an
//! exercise"); a "Build it" exercise is the same in `src/build/` and `tests/build_chN.rs`,
//! with a "Build it" box.

pub mod build;
pub mod catalog;
pub mod expect;

// The chapters' stubs (or with `solutions`, their reference solutions): documented here, but
// compiled only into their tests (`tests/ch1.rs` holds `src/ch1.rs`), never into the library
// or its doctests, so that the learner's code stops neither the runner nor this crate's own
// tests.
#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch1.rs")]
pub mod ch1;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch2.rs")]
pub mod ch2;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch3.rs")]
pub mod ch3;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch4.rs")]
pub mod ch4;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch5.rs")]
pub mod ch5;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch6.rs")]
pub mod ch6;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch7.rs")]
pub mod ch7;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch8.rs")]
pub mod ch8;

#[cfg(all(doc, not(doctest)))]
#[cfg_attr(feature = "solutions", path = "solutions/ch9.rs")]
pub mod ch9;

#[cfg(all(doc, not(doctest), target_os = "linux"))]
#[cfg_attr(feature = "solutions", path = "solutions/ch10.rs")]
pub mod ch10;
