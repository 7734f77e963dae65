//! The loop never blocks on its own output, standard error included (book, "Going
//! further", "Output that never blocks the loop"; chapter 8, "Three echo servers"). Each
//! test runs its own test binary again as a child whose standard error is a pipe nobody
//! reads while it runs (64 KiB, then every write waits): the loop's log of 30,000 errors
//! nobody retrieved, and each echo server (`sock`, `protocol`, `streams`) that 2,000
//! clients reset, go on all the same. Bounded by counts and a generous limit on the child; nothing asserts a duration.
//!
//! `loadgen::child` reads a child's standard error as it comes (its `listening on` line);
//! here the child says where it listens on standard output instead, and nobody reads its
//! standard error until it is told to exit.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use echo_server::loops::{self, Config};
use echo_server::{Api, Settings};
use scaffold::Options;
use scaffold::net::Reply;
use stage5::{Error, EventLoop};

/// How long a child may run: far more than either scenario needs.
const LIMIT: Duration = Duration::from_secs(120);

/// A child whose standard output is read line by line and whose standard error is not.
struct Unread {
    child: Child,
    deadline: Instant,
    stdout: mpsc::Receiver<String>,
    stdout_seen: String,
    stderr: Option<ChildStderr>,
}

impl Unread {
    /// Run this binary's test `test` with `env` set, as the child.
    fn spawn(test: &str, env: &str) -> Unread {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env(env, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (lines, stdout) = mpsc::channel();
        let pipe = BufReader::new(child.stdout.take().unwrap());
        thread::spawn(move || {
            // Until the pipe ends (the child is gone) or nobody listens.
            for line in pipe.lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = child.stderr.take();
        let deadline = Instant::now() + LIMIT;
        Unread {
            child,
            deadline,
            stdout,
            stdout_seen: String::new(),
            stderr,
        }
    }

    /// Wait for a line on the child's standard output that holds `prefix`; what follows it.
    fn stdout_line(&mut self, prefix: &str) -> String {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            match self.stdout.recv_timeout(left) {
                Ok(line) => {
                    self.stdout_seen.push_str(&line);
                    self.stdout_seen.push('\n');
                    // Anywhere in the line: libtest's `test NAME ... ` may come first.
                    if let Some(at) = line.find(prefix) {
                        return line[at + prefix.len()..].to_owned();
                    }
                }
                Err(why) => panic!(
                    "no `{prefix}` line from the child ({why}); it said:\n{}",
                    self.stdout_seen
                ),
            }
        }
    }

    /// Start reading the child's standard error, let it go on (a line on its standard
    /// input), and wait for it to end (killed at its limit: `None`); how it ended, its
    /// standard output and its standard error.
    fn finish(mut self) -> (Option<ExitStatus>, String, String) {
        let mut pipe = self.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = Vec::new();
            // An error reading ends the text where it is; the assertions say what lacks.
            drop(pipe.read_to_end(&mut text));
            String::from_utf8_lossy(&text).into_owned()
        });
        if let Some(mut stdin) = self.child.stdin.take() {
            // A child that is gone already does not need telling.
            drop(stdin.write_all(b"go\n"));
        }
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() >= self.deadline {
                self.child.kill().unwrap();
                self.child.wait().unwrap();
                break None;
            }
            thread::sleep(Duration::from_millis(20));
        };
        let stdout: Vec<String> = self.stdout.iter().collect();
        self.stdout_seen.push_str(&stdout.join("\n"));
        (status, self.stdout_seen.clone(), stderr.join().unwrap())
    }

    /// Send the child `SIGTERM`, by its process id (`kill(1)`: no `unsafe` here).
    fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -TERM {}", self.child.id());
    }
}

impl Drop for Unread {
    /// A test that fails before `finish` leaves no child behind (killed by its handle).
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // An error means it ended meanwhile; the wait reaps it either way.
            drop(self.child.kill());
            drop(self.child.wait());
        }
    }
}

/// The child's last step: wait for the parent's line on standard input.
fn wait_for_go() {
    let mut line = String::new();
    // The parent's line, or the end of the pipe: either way, go.
    drop(std::io::stdin().read_line(&mut line));
}

const LOG_CHILD: &str = "STAGE5_UNREAD_STDERR_LOG_CHILD";

/// Futures dropped with an exception nobody retrieved: each is logged in two lines.
const UNRETRIEVED: usize = 30_000;

/// Before the loop's logger went through the console's writer thread, it wrote with
/// `eprintln!`, and the child stopped for ever after about 64 KiB of log (about 800 of the
/// 30,000 reports): no `done` line, killed at its limit.
#[test]
fn the_loops_log_never_waits_for_a_standard_error_nobody_reads() {
    if std::env::var_os(LOG_CHILD).is_some() {
        let lp = EventLoop::new();
        for _ in 0..UNRETRIEVED {
            lp.call_soon(|lp| {
                let future = lp.create_future::<()>();
                future
                    .set_exception(Error::msg("a failure that nobody looked at"))
                    .unwrap();
            })
            .unwrap();
        }
        lp.call_soon(EventLoop::stop).unwrap();
        lp.run_forever().unwrap();
        lp.close().unwrap();
        println!("done");
        return wait_for_go(); // then the console's flush, with the parent reading
    }
    let test = "the_loops_log_never_waits_for_a_standard_error_nobody_reads";
    let mut child = Unread::spawn(test, LOG_CHILD);
    child.stdout_line("done");
    let (status, stdout, stderr) = child.finish();
    assert!(status.is_some_and(|s| s.success()), "{status:?}:\n{stdout}");
    let logged = stderr
        .lines()
        .filter(|l| *l == "ERROR:asyncio:Future exception was never retrieved")
        .count();
    let dropped: usize = stderr
        .lines()
        .find_map(|l| {
            l.strip_suffix(" lines of diagnostics dropped: standard error was not being read")
        })
        .unwrap_or_else(|| {
            let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
            panic!("no count of what was dropped; stderr ends {tail:?}")
        })
        .parse()
        .unwrap();
    // Over a megabyte of log against a 1 MiB buffer: some reports were dropped, whole,
    // and every line is either written or counted.
    assert!(logged < UNRETRIEVED, "{logged} reports written");
    assert_eq!(2 * logged + dropped, 2 * UNRETRIEVED);
}

const RESET_CHILD: &str = "STAGE5_UNREAD_STDERR_RESET_CHILD";

/// How many clients reset the server.
const RESETS: usize = 2_000;

/// A client that sends a line, reads its echo back (so the server has accepted it and
/// waits in `read` again), then closes with linger 0: a reset, not an end of stream.
fn reset_after_one_echo(addr: SocketAddr) -> std::io::Result<()> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    stream.write_all(b"hello\n")?;
    let mut echo = [0; 6];
    stream.read_exact(&mut echo)?;
    assert_eq!(&echo, b"hello\n");
    socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO))
}

/// 2,000 clients reset the server with `api`, whose standard error nobody reads; then one
/// more is served, and `SIGTERM` stops it: exit 0, every client counted. Before, each
/// reset logged two lines to the streams server's standard error, and with nobody reading
/// it the server stopped for ever after about 700 resets, `SIGTERM` included (killed at
/// the limit); the `sock` and `protocol` servers log nothing for a reset.
fn resets_with_standard_error_unread(test: &str, api: Api) {
    if std::env::var_os(RESET_CHILD).is_some() {
        let options = Options::default();
        let clock = options.install();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        println!("listening on {}", listener.local_addr().unwrap());
        let config = Config {
            settings: Settings {
                api,
                ..Settings::new(Reply::Plain)
            },
            loops: 1,
            with_producer: None,
        };
        loops::run(clock, options, listener, &config).unwrap();
        return wait_for_go();
    }
    let mut child = Unread::spawn(test, RESET_CHILD);
    let addr: SocketAddr = child.stdout_line("listening on ").parse().unwrap();
    for i in 0..RESETS {
        if let Err(error) = reset_after_one_echo(addr) {
            panic!("client {i} of {RESETS}: {error}: the server no longer serves");
        }
    }
    // Still serving: one more client gets its echo, and leaves as clients do.
    let mut last = TcpStream::connect(addr).unwrap();
    last.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    last.write_all(b"still here\n").unwrap();
    let mut echo = [0; 11];
    last.read_exact(&mut echo).unwrap();
    assert_eq!(&echo, b"still here\n");
    drop(last);
    child.terminate();
    child.stdout_line("clients served: ");
    let (status, stdout, stderr) = child.finish();
    assert!(status.is_some_and(|s| s.success()), "{status:?}:\n{stderr}");
    assert!(
        stdout.contains(&format!("\nclients served: {}\n", RESETS + 1)),
        "{stdout}"
    );
    assert!(!stderr.contains("never retrieved"), "{stderr}");
}

#[test]
fn a_sock_server_whose_standard_error_nobody_reads_survives_resets() {
    let test = "a_sock_server_whose_standard_error_nobody_reads_survives_resets";
    resets_with_standard_error_unread(test, Api::Sock);
}

#[test]
fn a_protocol_server_whose_standard_error_nobody_reads_survives_resets() {
    let test = "a_protocol_server_whose_standard_error_nobody_reads_survives_resets";
    resets_with_standard_error_unread(test, Api::Protocol);
}

#[test]
fn a_streams_server_whose_standard_error_nobody_reads_survives_resets() {
    let test = "a_streams_server_whose_standard_error_nobody_reads_survives_resets";
    resets_with_standard_error_unread(test, Api::Streams);
}
