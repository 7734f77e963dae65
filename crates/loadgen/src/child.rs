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

use std::io::{self, BufRead, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

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
        let stderr = line_reader(child.stderr.take());
        let stdout = match self.stdout {
            Reader::Never => None,
            how => Some(reader(child.stdout.take(), how == Reader::Slow)),
        };
        Ok(Running {
            child,
            deadline: Instant::now() + self.limit,
            stdout,
            stderr,
            stderr_seen: String::new(),
        })
    }
}

/// A child test that is running (see [`ChildTest::spawn`]).
#[derive(Debug)]
pub struct Running {
    child: Child,
    deadline: Instant,
    stdout: Option<Reading>,
    stderr: mpsc::Receiver<String>,
    stderr_seen: String,
}

/// A signal the tests send to a child: the ones a server is asked to stop with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// `SIGINT` (Ctrl-C).
    Int,
    /// `SIGTERM` (what `kill` sends).
    Term,
    /// `SIGHUP` (the terminal went away).
    Hup,
}

impl Running {
    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait until the child writes a line to standard error for which `wanted` is true,
    /// and return it; an error if the child ends first or its time runs out.
    pub fn stderr_line(&mut self, wanted: impl Fn(&str) -> bool) -> io::Result<String> {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                // A line: keep it for the report, and stop if it is the one.
                Ok(line) => {
                    self.stderr_seen.push_str(&line);
                    if wanted(&line) {
                        return Ok(line);
                    }
                }
                // The pipe ended (the child is gone) or the time is up.
                Err(why) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "no such line from the child ({why}); its stderr:\n{}",
                            self.stderr_seen
                        ),
                    ));
                }
            }
        }
    }

    /// Send `signal` to the child, by its process id. The id cannot belong to another
    /// process yet: the child is not reaped (waited for) before [`Running::finish`].
    #[cfg(unix)]
    pub fn signal(&self, signal: Signal) -> io::Result<()> {
        use rustix::process::{Pid, Signal as Sig, kill_process};
        let pid = i32::try_from(self.child.id())
            .ok()
            .and_then(Pid::from_raw)
            .ok_or_else(|| io::Error::other("the child has no valid process id"))?;
        let sig = match signal {
            Signal::Int => Sig::INT,
            Signal::Term => Sig::TERM,
            Signal::Hup => Sig::HUP,
        };
        kill_process(pid, sig).map_err(io::Error::from)
    }

    /// Signals are a Unix mechanism: elsewhere, an `Unsupported` error that says so.
    #[cfg(not(unix))]
    pub fn signal(&self, signal: Signal) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("cannot send {signal:?} to a child: signals are Unix only"),
        ))
    }

    /// Wait for the child to end, or kill it at its time limit; what it did.
    pub fn finish(mut self) -> io::Result<Finished> {
        let status = wait(&mut self.child, self.deadline)?;
        let stdout = match self.stdout.take() {
            Some(reading) => join(reading)?,
            // The child is gone, so the pipe ends at what it holds.
            None => join(reader(self.child.stdout.take(), false))?,
        };
        // The child is gone: the reader thread sends what is left, then the channel ends.
        let mut stderr = std::mem::take(&mut self.stderr_seen);
        stderr.extend(self.stderr.iter());
        Ok(Finished {
            status,
            stdout,
            stderr,
        })
    }
}

/// Wait for `child` until `deadline`; kill it past that.
fn wait(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Read `pipe` line by line on a thread of its own, sending each line (with its `\n`) as
/// it comes; the channel ends with the pipe.
fn line_reader(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (lines, receiver) = mpsc::channel();
    thread::spawn(move || {
        let Some(pipe) = pipe else { return };
        let mut pipe = io::BufReader::new(pipe);
        let mut line = Vec::new();
        // Until the end of the pipe, or an error reading it: either way no more lines.
        while pipe.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            if lines
                .send(String::from_utf8_lossy(&line).into_owned())
                .is_err()
            {
                return; // nobody listens any more
            }
            line.clear();
        }
    });
    receiver
}

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
    /// Check a child whose standard output nobody read: it succeeded, and each of the
    /// `said` lines it printed (lines ending with one of `endings`) either reached the pipe
    /// whole or was counted in the console's exit report, the pipe having filled up.
    pub fn assert_said_lines_written_or_dropped(&self, endings: &[&str], said: usize) {
        let Finished {
            status,
            stdout,
            stderr,
        } = self;
        assert!(
            status.is_some_and(|s| s.success()),
            "the child failed or overran ({status:?}):\n{stderr}"
        );
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
