//! `bench-stage5 serve`, the echo server of the W5 and W6 benchmarks (book page
//! "Benchmarks"), given what it cannot use: a port in use, or too few file descriptors. It
//! must exit with an error that says why, not panic. With few descriptors the binary runs
//! under `sh -c 'ulimit -n N; exec ...'` (no `unsafe` `setrlimit`), for several small N:
//! how many descriptors the process already holds when it starts depends on what it
//! inherits, so one of them leaves room for the standard streams but not for the event
//! loop's epoll descriptor and self-pipe. And `serve --help` is help, not an error.

use std::net::TcpListener;
use std::process::{Command, Stdio};

#[test]
fn a_port_in_use_is_named_with_a_hint() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_bench-stage5"))
        .args(["serve", "--addr", &addr, "--max-secs", "0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let said = format!("error: cannot listen on {addr}: ");
    assert!(stderr.starts_with(&said), "{stderr}");
    assert!(stderr.contains("another server"), "{stderr}");
}

#[test]
fn out_of_descriptors_serve_says_why_and_does_not_panic() {
    let exe = env!("CARGO_BIN_EXE_bench-stage5");
    let mut said_why = 0;
    for nofile in 4..=12 {
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!(r#"ulimit -n {nofile} && exec "$0" "$@""#))
            .arg(exe)
            .args(["serve", "--addr", "127.0.0.1:0", "--max-secs", "0"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("panicked"),
            "ulimit -n {nofile}:\n{stderr}"
        );
        if stderr.contains("cannot create the event loop: Too many open files") {
            assert_eq!(output.status.code(), Some(1), "ulimit -n {nofile}");
            said_why += 1;
        }
    }
    assert!(said_why > 0, "no limit left the loop without descriptors");
}

#[test]
fn serve_help_prints_the_usage() {
    let output = Command::new(env!("CARGO_BIN_EXE_bench-stage5"))
        .args(["serve", "--help"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        stdout.contains("bench-SYSTEM serve [--addr ADDR]"),
        "{stdout}"
    );
}
