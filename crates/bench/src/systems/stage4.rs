//! Stage 4, select-based I/O on mio: stage 1's queues plus a selector.
//!
//! - W1 to W3: [`callbacks`], shared with stage 1. `run_once` selects only
//!   when the ready queue is empty and then drains it, so a W2 chain runs to its end without
//!   a single `select` (asyncio and stage 5 pay one zero-timeout select per step).
//! - W4: stage 3's `Task`s on stage 4's scheduler, through stage 2's `AsyncQueue`
//!   (the same generic code as stage 3's W4).

use ::stage4::{RealClock, Scheduler};

use super::{System, Workload, callbacks, tasks};

/// Stage 4's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage4",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage4",
            how: "call_soon",
            run: |p| callbacks::w1("stage4", &scheduler(), p, run),
        },
        Workload {
            id: "W2",
            system: "stage4",
            how: "call_soon chain (run_once drains the queue, no select)",
            run: |p| callbacks::w2("stage4", &scheduler(), p, run),
        },
        Workload {
            id: "W3",
            system: "stage4",
            how: "call_later; cancel = a flag (no handles)",
            run: |p| callbacks::w3("stage4", &scheduler(), p, run),
        },
        Workload {
            id: "W4",
            system: "stage4",
            how: "AsyncQueue, two stage 3 tasks",
            run: |p| tasks::w4_queue("stage4", &scheduler(), p, run),
        },
    ],
    serve: None,
    serve_apis: &[],
};

fn scheduler() -> Scheduler {
    Scheduler::new(RealClock::new()).expect("an epoll instance")
}

fn run(s: &Scheduler) {
    s.run().expect("no I/O error without sockets");
}
