//! Stage 2, the generator scheduler: everything is a task (an `async` block driven by
//! `poll` with a no-op waker), found again through the scheduler's task table.
//!
//! Its workloads are the task workloads of [`tasks`], shared with stages 3
//! and 4.

use ::stage2::{RealClock, Scheduler};

use super::{System, Workload, tasks};

/// Stage 2's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage2",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage2",
            how: "new_task per callback",
            run: |p| tasks::w1_tasks("stage2", &scheduler(), p, Scheduler::run),
        },
        Workload {
            id: "W2",
            system: "stage2",
            how: "one task, switch() per step",
            run: |p| tasks::w2_switch("stage2", &scheduler(), p, Scheduler::run),
        },
        Workload {
            id: "W3",
            system: "stage2",
            how: "task per timer: sleep; cancel = a flag",
            run: |p| tasks::w3_sleep("stage2", &scheduler(), p, Scheduler::run),
        },
        Workload {
            id: "W4",
            system: "stage2",
            how: "AsyncQueue, two tasks",
            run: |p| tasks::w4_queue("stage2", &scheduler(), p, Scheduler::run),
        },
    ],
    serve: None,
    serve_apis: &[],
};

fn scheduler() -> Scheduler {
    Scheduler::new(RealClock::new())
}
