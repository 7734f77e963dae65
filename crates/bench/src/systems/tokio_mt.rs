//! tokio's multi-thread runtime, for the echo server only (the book's "Beyond one core";
//! not part of the W1-W6 tables): the same server as `tokio.rs`, a task per connection,
//! on a work-stealing pool of worker threads, one per core unless `TOKIO_WORKER_THREADS`
//! says otherwise (tokio reads it itself). It is tokio's answer to "more cores" beside
//! stage 5's, which is one event loop per thread, each with its own listening socket.
//!
//! The difference in shape: tokio has one listening socket and one accept loop, and any
//! worker may run any connection's task (an idle worker steals tasks from a busy one);
//! stage 5's loops share nothing, and a connection stays on the loop whose socket the
//! kernel gave it to.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use super::System;
use super::tokio::serve_on;

/// The multi-thread runtime's echo server; no in-process workloads.
pub const SYSTEM: System = System {
    name: "tokio-mt",
    workloads: &[],
    serve: Some(serve),
    serve_apis: &[],
};

// ANCHOR: multi_thread
fn serve(addr: SocketAddr, max: Duration) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    serve_on(rt, addr, max)
}
// ANCHOR_END: multi_thread
