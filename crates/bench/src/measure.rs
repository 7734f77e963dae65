//! Timing one run of a workload: wall time from [`Instant`], CPU time from the kernel's
//! accounting of this thread, and the JSON line that reports both.
//!
//! CPU time is this thread's `CLOCK_THREAD_CPUTIME_ID` (through `rustix`, which keeps the
//! system call safe), the clock Python's `time.thread_time_ns()` reads, so that every
//! system is timed by the same clock. Every in-process workload runs on one thread,
//! tokio's included (a `current_thread` runtime), so this thread's time is the process's
//! time. (`/proc/thread-self/schedstat` would be simpler, but on this kernel it is only
//! brought up to date at each scheduler tick, 4 ms: too coarse for a 5 ms run.)

use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The CPU time (user and system) this thread has used so far; zero throughout when
/// `BENCH_CPU_CLOCK=off`, for counting the workloads' instructions under valgrind
/// (`bench/counts.sh`), which stops the process at rustix's lookup of the vDSO.
pub fn thread_cpu_time() -> Duration {
    static ON: OnceLock<bool> = OnceLock::new();
    let on = ON.get_or_init(|| std::env::var_os("BENCH_CPU_CLOCK").is_none_or(|v| v != "off"));
    if !on {
        return Duration::ZERO;
    }
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec.unsigned_abs(), t.tv_nsec as u32)
}

/// One timed run: `n` operations took `wall` and `cpu`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// How many operations (callbacks, steps, timers, items) the run did.
    pub n: u64,
    /// Elapsed real time.
    pub wall: Duration,
    /// CPU time of this thread, user and system.
    pub cpu: Duration,
}

impl Sample {
    /// The best of several runs of the same work: the least wall time and the least CPU
    /// time (each may come from a different run).
    pub fn best(samples: impl IntoIterator<Item = Sample>) -> Option<Sample> {
        samples.into_iter().reduce(|a, b| Sample {
            n: a.n,
            wall: a.wall.min(b.wall),
            cpu: a.cpu.min(b.cpu),
        })
    }

    /// Wall nanoseconds per operation.
    pub fn wall_ns_per_op(&self) -> f64 {
        self.wall.as_nanos() as f64 / self.n.max(1) as f64
    }

    /// The JSON line `bench-SYSTEM` prints for this sample.
    pub fn json(&self, system: &str, workload: &str, how: &str, runs: u64) -> String {
        let mut line = String::new();
        // Writing to a `String` cannot fail.
        let _ = write!(
            line,
            "{{\"system\":\"{}\",\"workload\":\"{}\",\"how\":\"{}\",\"runs\":{runs},\"n\":{},\
             \"wall_ns\":{},\"cpu_ns\":{},\"wall_ns_per_op\":{:.2},\"cpu_ns_per_op\":{:.2}}}",
            escape(system),
            escape(workload),
            escape(how),
            self.n,
            self.wall.as_nanos(),
            self.cpu.as_nanos(),
            self.wall_ns_per_op(),
            self.cpu.as_nanos() as f64 / self.n.max(1) as f64,
        );
        line
    }
}

/// Run `work` (which does `n` operations) once and time it.
pub fn measure(n: u64, work: impl FnOnce()) -> Sample {
    let cpu = thread_cpu_time();
    let start = Instant::now();
    work();
    let wall = start.elapsed();
    Sample {
        n,
        wall,
        cpu: thread_cpu_time().saturating_sub(cpu),
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What holds however busy the machine is (a loaded machine may give a busy loop any
    /// share of a core, so no test asks for a minimum of CPU time): work done is counted
    /// in iterations, not in time, and it costs *some* CPU time; a thread asleep is off
    /// the CPU, so it cannot use as much CPU time as it waited; the clock never runs back.
    #[test]
    fn cpu_time_counts_work_and_not_waiting() {
        let busy = measure(7, || {
            let mut x = 0u64;
            for i in 0..1_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            std::hint::black_box(x);
        });
        assert_eq!(busy.n, 7);
        assert!(busy.cpu > Duration::ZERO, "{busy:?}");
        let idle = measure(1, || std::thread::sleep(Duration::from_millis(20)));
        assert!(idle.wall >= Duration::from_millis(20), "{idle:?}");
        assert!(idle.cpu < idle.wall, "{idle:?}");
        let (a, b) = (thread_cpu_time(), thread_cpu_time());
        assert!(b >= a);
    }

    #[test]
    fn the_best_takes_the_least_of_each() {
        let at = |wall, cpu| Sample {
            n: 1,
            wall: Duration::from_nanos(wall),
            cpu: Duration::from_nanos(cpu),
        };
        assert_eq!(Sample::best([at(5, 3), at(4, 6)]), Some(at(4, 3)));
        assert_eq!(Sample::best([]), None);
    }

    #[test]
    fn the_json_line_has_every_field() {
        let sample = Sample {
            n: 4,
            wall: Duration::from_nanos(10),
            cpu: Duration::from_nanos(8),
        };
        assert_eq!(
            sample.json("floor", "W1", "a \"box\"", 3),
            "{\"system\":\"floor\",\"workload\":\"W1\",\"how\":\"a \\\"box\\\"\",\"runs\":3,\"n\":4,\
             \"wall_ns\":10,\"cpu_ns\":8,\"wall_ns_per_op\":2.50,\"cpu_ns_per_op\":2.00}"
        );
    }
}
