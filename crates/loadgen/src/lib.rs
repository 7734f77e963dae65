//! Echo clients: the other end of every stage's `echo_server`.
//!
//! Not a stage and not retracing any public source: this crate is the test and benchmark
//! harness. [`client`] holds small blocking clients (connect, round trip, reset,
//! half-close) and [`scenario`] the scenarios every stage's echo test runs, so that each
//! stage's test reads as what it checks rather than as socket plumbing; [`stream`] holds
//! clients caught in the middle of a transfer (for the servers' graceful shutdown);
//! [`child`] runs a test again in a child process (an unread standard output, a low
//! `ulimit -n`, a server stopped by a signal), and [`ready`] waits for a socket event
//! before a test on the virtual clock steps its loop. The `loadgen` binary drives a
//! server for the benchmarks ([`load`]), and [`procstat`] is how it reads the server's
//! CPU time and memory.
//!
//! The book's [Benchmarks](../../../docs/book/benchmarks.html) page says how W5 and W6 use
//! it; chapters 1 and 4 use it to measure what an idle echo server costs.

pub mod child;
pub mod client;
pub mod load;
pub mod procstat;
#[cfg(unix)]
pub mod ready;
pub mod scenario;
pub mod stream;
