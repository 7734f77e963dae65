//! Run one test of the calling test binary again, in a child process with conditions a
//! test cannot set on itself: a standard output nobody reads, a low limit on file
//! descriptors (`ulimit -n`), or signals sent to the whole process (a server told to stop
//! with `SIGTERM`).
//!
//! The test calls [`ChildTest::run`] with its own name and an environment variable; the
//! child is the same binary running just that test with the variable set, so the test
//! checks the variable first and, if set, plays the child's part. [`ChildTest::spawn`]
//! instead returns while the child runs, so the test can wait for a line on its standard
//! error (`listening on ...`) and send it a signal, by its process id only. The child is
//! bounded: killed (by its process id, through its `Child` handle) when it overruns its
//! time.

use std::io::{self, Read};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

mod running;
pub use running::{Running, Signal};

/// How a child test is run.
#[derive(Debug, Clone)]
pub struct ChildTest {
    test: String,
    env: String,
    nofile: Option<u32>,
    stdout: Reader,
    limit: Duration,
}

/// How the child's standard output is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// As fast as it comes.
    Fast,
    /// 4 KiB every 10 ms: a reader that keeps up, slowly.
    Slow,
    /// Not until the child has ended.
    Never,
}

/// What the child did.
#[derive(Debug)]
pub struct Finished {
    /// How it ended; `None` if it overran its time and was killed.
    pub status: Option<ExitStatus>,
    /// Its standard output (with an unread stdout: what the pipe held when it ended).
    pub stdout: String,
    /// Its standard error, read as it came.
    pub stderr: String,
}

impl ChildTest {
    /// Run the test `test` of this binary, with `env` set to `1`, for at most `limit`.
    pub fn new(test: &str, env: &str, limit: Duration) -> ChildTest {
        ChildTest {
            test: test.to_owned(),
            env: env.to_owned(),
            nofile: None,
            stdout: Reader::Fast,
            limit,
        }
    }

    /// Lower the child's limit on open file descriptors to `n` (through
    /// `sh -c 'ulimit -n N; exec ...'`, which needs no `unsafe` `setrlimit`).
    pub fn nofile(mut self, n: u32) -> ChildTest {
        self.nofile = Some(n);
        self
    }

    /// Give the child a standard output that nobody reads while it runs: a pipe that
    /// fills up (64 KiB on Linux) and then blocks every write. It is read once the child
    /// has ended.
    pub fn unread_stdout(mut self) -> ChildTest {
        self.stdout = Reader::Never;
        self
    }

    /// Read the child's standard output slowly but steadily (4 KiB every 10 ms), so that
    /// what the child prints at once piles up on its side of the pipe.
    pub fn slow_reader(mut self) -> ChildTest {
        self.stdout = Reader::Slow;
        self
    }

    /// Start the child and wait for it to end, or kill it at the time limit.
    pub fn run(&self) -> io::Result<Finished> {
        self.spawn()?.finish()
    }

    /// Start the child and return at once: the caller can watch its standard error line
    /// by line ([`Running::stderr_line`]) and send it a signal ([`Running::signal`]) while
    /// it runs, then [`Running::finish`].
    pub fn spawn(&self) -> io::Result<Running> {
        let exe = std::env::current_exe()?;
        let mut command = match self.nofile {
            Some(n) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!(r#"ulimit -n {n} && exec "$0" "$@""#))
                    .arg(exe);
                sh
            }
            None => Command::new(exe),
        };
        // `--nocapture` so that the child's `eprintln!` reaches us; one thread, one test.
        command
            .args(["--exact", &self.test, "--nocapture", "--test-threads=1"])
            .env(&self.env, "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn()?;
        let stderr = running::line_reader(child.stderr.take());
        let stdout = match self.stdout {
            Reader::Never => None,
            how => Some(reader(child.stdout.take(), how == Reader::Slow)),
        };
        Ok(Running::new(
            child,
            Instant::now() + self.limit,
            stdout,
            stderr,
        ))
    }
}

/// A pipe being read to its end on a thread of its own.
type Reading = thread::JoinHandle<io::Result<String>>;

/// Read `pipe` to its end on a thread of its own; `slowly`, 4 KiB every 10 ms.
fn reader(pipe: Option<impl Read + Send + 'static>, slowly: bool) -> Reading {
    thread::spawn(move || {
        let mut text = Vec::new();
        let Some(mut pipe) = pipe else {
            return Ok(String::new());
        };
        if slowly {
            let mut piece = [0; 4096];
            loop {
                match pipe.read(&mut piece)? {
                    0 => break,
                    n => text.extend_from_slice(&piece[..n]),
                }
                thread::sleep(Duration::from_millis(10));
            }
        } else {
            pipe.read_to_end(&mut text)?;
        }
        Ok(String::from_utf8_lossy(&text).into_owned())
    })
}

fn join(reading: Reading) -> io::Result<String> {
    reading
        .join()
        .map_err(|_| io::Error::other("a pipe reader panicked"))?
}

impl Finished {
    /// Check that the child succeeded (passed, within its time limit), showing what it
    /// printed if it did not.
    #[track_caller]
    pub fn assert_success(&self) {
        let Finished {
            status,
            stdout,
            stderr,
        } = self;
        assert!(
            status.is_some_and(|s| s.success()),
            "the child failed or overran ({status:?}):\n{stdout}\n{stderr}"
        );
    }

    /// Check a child whose standard output nobody read: it succeeded, and each of the
    /// `said` lines it printed (lines ending with one of `endings`) either reached the pipe
    /// whole or was counted in the console's exit report, the pipe having filled up.
    pub fn assert_said_lines_written_or_dropped(&self, endings: &[&str], said: usize) {
        self.assert_success();
        let Finished { stdout, stderr, .. } = self;
        let written: usize = endings.iter().map(|e| complete_lines(stdout, e)).sum();
        let dropped = dropped_lines(stderr).unwrap_or(0) as usize;
        assert_eq!(
            written + dropped,
            said,
            "{written} lines written, {dropped} reported dropped; stderr:\n{stderr}"
        );
        assert!(
            written > 0 && dropped > 0,
            "the scenario should fill the pipe and then drop: {written} written, {dropped} \
             dropped; stderr:\n{stderr}"
        );
    }
}

/// How many complete lines of `text` end with `line` (a child test's harness may print
/// before it, on the same line); a last line cut short is not counted.
pub fn complete_lines(text: &str, line: &str) -> usize {
    text.split_inclusive('\n')
        .filter(|l| l.strip_suffix('\n').is_some_and(|l| l.ends_with(line)))
        .count()
}

/// The count in the console's exit report, `N lines of output dropped: ...`, if any.
pub fn dropped_lines(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|l| {
        let (count, rest) = l.split_once(' ')?;
        rest.contains("of output dropped")
            .then(|| count.parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_reports_are_read() {
        let text = "test x ... Connection closed\nConnection closed\nConnection clo";
        assert_eq!(complete_lines(text, "Connection closed"), 2);
        assert_eq!(complete_lines("Connection closed", "Connection closed"), 0);
        let stderr = "listening\n12 lines of output dropped: standard output was not being read\n";
        assert_eq!(dropped_lines(stderr), Some(12));
        assert_eq!(dropped_lines("listening\n"), None);
    }
}
