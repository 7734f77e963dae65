//! The systems measured, one module each, every one offering the same workloads as
//! functions `fn(&Params) -> Sample` that set up, time only the work itself
//! ([`measure`](crate::measure::measure)), and check its result.
//!
//! To add a system (stage 5, say): write a module here whose `SYSTEM` lists its workloads,
//! add a three-line `src/bin/bench-NAME.rs` calling [`cli::main`](crate::cli::main), and
//! name it in `benches/workloads.rs`. `bench/run.sh` finds `bench-stageN` binaries by
//! itself.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use crate::measure::Sample;
use crate::params::Params;

pub mod callbacks;
pub mod floor;
pub mod monoio;
pub mod stage1;
pub mod stage2;
pub mod stage3;
pub mod stage4;
pub mod stage5;
pub mod stage6;
pub mod tasks;
pub mod tokio;
pub mod tokio_mt;

/// An echo server: serve on `addr` until `max` has passed.
pub type Serve = fn(SocketAddr, Duration) -> io::Result<()>;

/// One workload as one system does it.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// `W1` to `W4`.
    pub id: &'static str,
    /// The row it reports as: the system's name, or a variant (`floor+epoll`).
    pub system: &'static str,
    /// How this system does it, in a few words (the table's "how" column).
    pub how: &'static str,
    /// Set up, run and time it once; panics if the result is wrong.
    pub run: fn(&Params) -> Sample,
}

/// A system: its name, its in-process workloads and, if the harness has one for it, its
/// echo server (W5, W6). The stages' echo servers are their own `echo_server` examples.
#[derive(Debug, Clone, Copy)]
pub struct System {
    /// The name in the tables: `floor`, `tokio`, `stage1`, ...
    pub name: &'static str,
    /// W1 to W4 as this system does them (some are missing where they do not apply).
    pub workloads: &'static [Workload],
    /// Serve echo on `addr` until the time limit: prints `listening on ADDR` to stderr.
    pub serve: Option<Serve>,
    /// Other echo servers, by the name `serve --api NAME` gives them (stage 5's
    /// `protocol` and `streams`, beside its `sock_*` one).
    pub serve_apis: &'static [(&'static str, Serve)],
}

/// Every Rust system, in table order.
pub const ALL: &[&System] = &[
    &floor::SYSTEM,
    &tokio::SYSTEM,
    &stage1::SYSTEM,
    &stage2::SYSTEM,
    &stage3::SYSTEM,
    &stage4::SYSTEM,
    &stage5::SYSTEM,
];

/// Panic unless a workload's result is what it should be: a wrong count means the
/// measured time is not the time of the work.
pub fn check(what: &str, got: u64, expected: u64) {
    assert_eq!(got, expected, "{what}: the workload's result is wrong");
}

/// The sum of `0..n`: what W4's consumer must have received.
pub fn sum_below(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every workload of every system, at a thousandth of its size: quick, and checks
    /// that each counts right (each panics if not).
    #[test]
    fn every_workload_runs_small_and_checks_itself() {
        let params = Params {
            w1_callbacks: 1000,
            w2_steps: 1000,
            w3_timers: 200,
            w3_max_delay_ms: 5,
            w3_seed: 8,
            w4_items: 1000,
            repeat: 1,
        };
        for system in ALL {
            for w in system.workloads {
                let sample = (w.run)(&params);
                assert!(sample.n > 0, "{} {}", w.system, w.id);
            }
        }
    }

    #[test]
    fn sums() {
        assert_eq!(sum_below(4), 6);
        assert_eq!(sum_below(0), 0);
    }
}
