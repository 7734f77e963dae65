//! # The benchmark harness
//!
//! Not a stage: this crate measures the stages against each other, against tokio's
//! `current_thread` runtime and against a *floor*, the simplest hand-written Rust that does
//! the same work. CPython's asyncio and uvloop run the same workloads from the Python
//! scripts in `bench/python/`, and `bench/run.sh` runs everything and writes the book's
//! [Benchmarks](../../../docs/book/benchmarks.html) page (`docs/src/benchmarks.md`).
//!
//! | module | what |
//! | --- | --- |
//! | [`params`] | `bench/params.env`, the one file of workload sizes every system reads |
//! | [`measure`] | wall and CPU time of one run, and the JSON line that reports it |
//! | [`prng`] | the seeded generator of W3's timer delays (the Python scripts have its twin) |
//! | [`cli`] | the command line every `bench-SYSTEM` binary shares |
//! | [`systems`] | the workloads, one module per system |
//!
//! The in-process workloads (W1 to W4) run through two doors: the `bench-SYSTEM`
//! binaries, one process per system so that every system starts from the same clean
//! process, and the criterion benchmarks (`cargo bench -p bench`). Both call the same
//! functions. The echo workloads (W5, W6) use the `serve` subcommand of `bench-floor` and
//! `bench-tokio`, each stage's `echo_server` example, and the `loadgen` client.
//! `bench-tokio-mt serve` is tokio's multi-thread runtime's echo server, which
//! `bench/loops.sh` runs beside stage 5's `--loops N` for the book's "Beyond one core"
//! page; it is not part of the W1-W6 tables.

pub mod cli;
pub mod measure;
pub mod params;
pub mod prng;
pub mod systems;

pub use measure::Sample;
pub use params::Params;
