//! The workspace root of async-from-scratch: no code of its own.
//!
//! Its `tests/` hold what spans the stages: the cross-stage snapshots (every stage's
//! `countdown` and `producer_consumer` side by side) and the tidy checks (module docs,
//! chapter references, book includes). The stages themselves live in `crates/`; the book
//! starts with its [introduction](../../../docs/book/introduction.html).
