//! What `loadgen --server-pid` reads about the server it drives, from Linux's `/proc`: the
//! server's CPU time (W5: CPU per echoed message), its resident memory and its open file
//! descriptors (W6: memory per idle connection).
//!
//! CPU time comes from `/proc/PID/task/*/schedstat`, the scheduler's own accounting in
//! nanoseconds, summed over every thread of the process. `/proc/PID/stat` would give the
//! same in clock ticks (10 ms here), too coarse for a window of a few seconds.
//!
//! Other systems have no `/proc` of this shape: there every function here returns an
//! `Unsupported` error that says so, rather than a bare "No such file or directory".

use std::fs;
use std::io;

/// On systems other than Linux, the error every function returns before touching `/proc`.
fn linux_only() -> io::Result<()> {
    if cfg!(target_os = "linux") {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "loadgen reads a server's CPU time and memory (--server-pid) from Linux's /proc: \
             only on Linux",
        ))
    }
}

/// The CPU time (user + system) every thread of process `pid` has used so far, in
/// nanoseconds.
pub fn cpu_ns(pid: u32) -> io::Result<u64> {
    linux_only()?;
    let mut total = 0;
    for entry in fs::read_dir(format!("/proc/{pid}/task"))? {
        let path = entry?.path().join("schedstat");
        // A thread that ended between the listing and the read has no file any more.
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        total += first_number(&text)?;
    }
    Ok(total)
}

/// The resident memory of process `pid` (`VmRSS` in `/proc/PID/status`), in KiB.
pub fn rss_kib(pid: u32) -> io::Result<u64> {
    linux_only()?;
    let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .ok_or_else(|| io::Error::other(format!("no VmRSS for process {pid}")))?;
    first_number(&line["VmRSS:".len()..])
}

/// How many file descriptors process `pid` has open.
pub fn open_fds(pid: u32) -> io::Result<usize> {
    linux_only()?;
    Ok(fs::read_dir(format!("/proc/{pid}/fd"))?.count())
}

fn first_number(text: &str) -> io::Result<u64> {
    text.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::other(format!("expected a number in {text:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nothing here depends on how much CPU time the test gets. A thread's schedstat is
    /// brought up to date when the thread leaves the CPU, so this one sleeps once (to
    /// leave it, not to wait for anything): its own time, above zero, is then in the sum.
    /// (Not "more than before": a thread of another test that ends meanwhile takes its
    /// time out of the sum.)
    #[test]
    #[cfg(target_os = "linux")]
    fn reads_this_process() {
        let me = std::process::id();
        std::thread::sleep(std::time::Duration::from_millis(1));
        assert!(cpu_ns(me).unwrap() > 0);
        assert!(rss_kib(me).unwrap() > 0);
        assert!(open_fds(me).unwrap() >= 3);
    }

    #[test]
    #[cfg(not(target_os = "linux"))]
    fn elsewhere_says_it_needs_linux() {
        let error = open_fds(std::process::id()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::Unsupported);
        assert!(error.to_string().contains("only on Linux"), "{error}");
    }

    #[test]
    fn parses_the_first_number() {
        assert_eq!(first_number("  123 kB").unwrap(), 123);
        assert_eq!(first_number("5120431 12007 59\n").unwrap(), 5_120_431); // schedstat
        assert!(first_number("x").is_err());
    }
}
