//! Stage 6's examples given careless command lines (book introduction, "The output
//! contract"; chapter 10, "The echo server on the proactor"): a bad flag or value is one
//! `error:` line (the usage after it) and exit code 2; a file or port that cannot be had is
//! one line and exit code 1, before anything runs; `--help` answers with exit code 0, even
//! where io_uring is refused. Never a panic, never a hang: no case here starts a run that
//! waits (each is refused before its loop starts, or runs on the virtual clock).
//!
//! Each example runs as its own process (`cargo run`, as `tests/examples.rs` at the root
//! does): `main` exits, which a test cannot do in its own process.

use std::net::TcpListener;
use std::process::{Command, Output};

/// `example` run with `args`; `refuse` makes io_uring refused ([`stage6::setup::REFUSE_VAR`]).
fn run(example: &str, args: &[&str], refuse: bool) -> Output {
    let mut command = Command::new(env!("CARGO"));
    command.args(["run", "-q", "-p", "stage6", "--example", example, "--"]);
    command.args(args);
    if refuse {
        command.env(stage6::setup::REFUSE_VAR, "refuse");
    }
    command.output().expect("cargo runs")
}

/// Exit `code`, standard error's first line starting with `first`, nothing on standard
/// output, and no panic.
fn assert_refused(example: &str, args: &[&str], refuse: bool, code: i32, first: &str) {
    let out = run(example, args, refuse);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let case = format!("{example} {args:?}");
    assert_eq!(out.status.code(), Some(code), "{case}: {stderr}");
    assert!(
        stderr.lines().next().unwrap_or("").starts_with(first),
        "{case}: first line not {first:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    assert!(out.stdout.is_empty(), "{case} printed to standard output");
}

#[test]
fn bad_flags_and_values_are_one_error_line_and_exit_2() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("countdown", &["--bogus"], "error: invalid option '--bogus'"),
        ("countdown", &["--timeline"], "error: missing argument"),
        ("countdown", &["--record"], "error: missing argument"),
        ("countdown", &["--trace=yes"], "error: unexpected argument"),
        ("countdown", &["positional"], "error: unexpected argument"),
        (
            "countdown",
            &["--step", "--record", "x.json"],
            "error: --step",
        ),
        ("producer_consumer", &["--bogus"], "error: invalid option"),
        ("producer_consumer", &["-x"], "error: invalid option '-x'"),
        ("echo_server", &["--api", "bogus"], "error: --api must be"),
        ("echo_server", &["--api"], "error: missing argument"),
        (
            "echo_server",
            &["--api", "sock", "--api", "x"],
            "error: --api",
        ),
        ("echo_server", &["--port", "80"], "error: invalid option"),
        (
            "echo_server",
            &["--addr", "127.0.0.1:70000"],
            "error: invalid",
        ),
        ("echo_server", &["--addr", "127.0.0.1:-1"], "error: invalid"),
        ("echo_server", &["--addr", "nonsense"], "error: invalid"),
        ("echo_server", &["--grace", "nan"], "error: --grace must"),
        ("echo_server", &["--grace", "-1"], "error: --grace must"),
        ("echo_server", &["--grace", "abc"], "error: invalid value"),
        ("echo_server", &["--step"], "error: --step"),
    ];
    for (example, args, first) in cases {
        assert_refused(example, args, false, 2, first);
    }
}

#[test]
fn a_file_or_port_that_cannot_be_had_is_one_line_and_exit_1_before_the_run() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    let nowhere = "/nonexistent-directory/run.json";
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "countdown",
            &["--virtual-time", "--record", nowhere],
            "error: cannot write",
        ),
        (
            "countdown",
            &["--virtual-time", "--timeline", nowhere],
            "error: cannot write",
        ),
        (
            "producer_consumer",
            &["--record", "/tmp"],
            "error: cannot write",
        ),
        (
            "echo_server",
            &["--addr", "127.0.0.1:0", "--record", nowhere],
            "error: cannot",
        ),
        ("echo_server", &["--addr", &taken], "error: cannot listen"),
    ];
    for (example, args, first) in cases {
        assert_refused(example, args, false, 1, first);
        let out = run(example, args, false);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{example} {args:?}: {stderr}");
    }
}

#[test]
fn help_answers_and_bad_flags_are_named_even_where_io_uring_is_refused() {
    for example in ["countdown", "producer_consumer", "echo_server"] {
        for refuse in [false, true] {
            let out = run(example, &["--help"], refuse);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{example} --help: {stderr}");
            assert!(stdout.starts_with(&format!("{example}: ")), "{stdout}");
            assert!(stdout.contains("--record FILE"), "{stdout}");
        }
        assert_refused(example, &["--bogus"], true, 2, "error: invalid option");
    }
    assert_refused("echo_server", &["--api", "bogus"], true, 2, "error: --api");
}
