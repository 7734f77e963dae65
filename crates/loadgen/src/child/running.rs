//! A child test that is running (see `ChildTest::spawn`): the test waits for lines on its
//! standard error, sends it signals by its process id, and finally waits for it to end.
//! The test and benchmark harness's own plumbing: no book chapter or public source.

use std::io::{self, BufRead, Read};
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::{Finished, Reading, join, reader};

/// A child test that is running (see [`ChildTest::spawn`](super::ChildTest::spawn)).
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
    /// A child just started: its time runs out at `deadline`; its standard output is
    /// being read (`None`: not until it ends), its standard error comes line by line.
    pub(super) fn new(
        child: Child,
        deadline: Instant,
        stdout: Option<Reading>,
        stderr: mpsc::Receiver<String>,
    ) -> Running {
        Running {
            child,
            deadline,
            stdout,
            stderr,
            stderr_seen: String::new(),
        }
    }

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

impl Drop for Running {
    /// A test that panics (or returns) before [`Running::finish`] must not leave its child
    /// running for ever: kill it, through its `Child` handle (so only the process this
    /// `Running` started), and reap it. After `finish` it has ended and been waited for.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // An error means it ended meanwhile: nothing left to kill; the wait reaps it.
            let _ = self.child.kill();
            // Reaping is all that is left to do; if it fails the kernel reaps it with us.
            let _ = self.child.wait();
        }
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
pub(super) fn line_reader(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
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

#[cfg(test)]
mod tests {
    use super::super::ChildTest;
    use std::time::Duration;

    const CHILD: &str = "LOADGEN_DROPPED_CHILD";

    /// A parent that drops its `Running` (as a panicking test does) kills its child.
    #[test]
    #[cfg(target_os = "linux")] // it looks for the child in /proc
    fn a_dropped_running_child_is_killed() {
        if std::env::var_os(CHILD).is_some() {
            eprintln!("child: started");
            // Bounded even if nobody kills it.
            std::thread::sleep(Duration::from_secs(60));
            return;
        }
        let test = "child::running::tests::a_dropped_running_child_is_killed";
        let mut running = ChildTest::new(test, CHILD, Duration::from_secs(120))
            .spawn()
            .unwrap();
        running
            .stderr_line(|l| l.contains("child: started"))
            .unwrap();
        let pid = running.pid();
        drop(running);
        // Killed and reaped: no process by that id any more (and none has taken it yet).
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "the child {pid} is still running"
        );
    }
}
