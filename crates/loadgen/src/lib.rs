//! Echo clients: the other end of every stage's `echo_server`.
//!
//! Not a stage and not retracing any seed section: this crate is the test and benchmark
//! harness. Its [`client`] module holds the small blocking clients the echo tests of every
//! stage share (connect, round trip, reset, half-close), so that each stage's test reads
//! as the scenario it checks rather than as socket plumbing.

pub mod client;
