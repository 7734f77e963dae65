//! `loadgen`'s command line given what it cannot do (book page "Benchmarks"): a message
//! too big to allocate, more connections times bytes than memory holds, a server process
//! that does not exist. Each must be a clear error and exit code 2 before any connection
//! is made, not an allocation failure that aborts the process, a hang, or the operating
//! system's bare "No such file or directory".

use std::net::TcpListener;
use std::process::{Command, Output, Stdio};

/// Run `loadgen` with `args` against a listener nobody accepts on (connections would
/// queue there, so a bad size is reached, not a refused connection).
fn loadgen(args: &[&str]) -> Output {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["--addr", &addr, "--secs", "0.1", "--warmup", "0"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Check that `output` is exit code 2 with a first line that starts with `said`.
fn assert_refused(output: &Output, said: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with(said), "{stderr}");
}

#[test]
fn a_message_too_big_is_refused() {
    let output = loadgen(&["--size", "99999999999", "--conns", "1"]);
    assert_refused(&output, "error: --size must be");
}

#[test]
fn more_connections_times_bytes_than_allowed_is_refused() {
    let output = loadgen(&["--size", "16777216", "--conns", "1000"]);
    assert_refused(&output, "error: --conns times --size must be");
}

#[test]
#[cfg(target_os = "linux")]
fn a_server_pid_that_is_no_process_is_named() {
    // A process that has ended and been waited for: its number names nobody (until the
    // system hands it out again, which takes tens of thousands of new processes).
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let output = loadgen(&["--server-pid", &pid.to_string()]);
    assert_refused(
        &output,
        &format!("error: --server-pid {pid}: no such process"),
    );
}
