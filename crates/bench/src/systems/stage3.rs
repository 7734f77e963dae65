//! Stage 3, the hybrid: a `Task` is a callback that drives a coroutine, on stage 1's
//! scheduler. Its workloads are the task workloads of [`tasks`]: a task
//! step is a `call_soon` of the task, a `sleep` a `call_later` of it.

use ::stage3::{RealClock, Scheduler};

use super::{System, Workload, tasks};

/// Stage 3's workloads (its echo server is its `echo_server` example).
pub const SYSTEM: System = System {
    name: "stage3",
    workloads: &[
        Workload {
            id: "W1",
            system: "stage3",
            how: "new_task per callback",
            run: |p| tasks::w1_tasks("stage3", &scheduler(), p, |s| s.run()),
        },
        Workload {
            id: "W2",
            system: "stage3",
            how: "one task, switch() per step",
            run: |p| tasks::w2_switch("stage3", &scheduler(), p, |s| s.run()),
        },
        Workload {
            id: "W3",
            system: "stage3",
            how: "task per timer: sleep; cancel = a flag",
            run: |p| tasks::w3_sleep("stage3", &scheduler(), p, |s| s.run()),
        },
        Workload {
            id: "W4",
            system: "stage3",
            how: "AsyncQueue, two tasks",
            run: |p| tasks::w4_queue("stage3", &scheduler(), p, |s| s.run()),
        },
    ],
    serve: None,
    serve_apis: &[],
};

fn scheduler() -> Scheduler {
    Scheduler::new(RealClock::new())
}
