//! Standard output as the examples write it (book, "Going further", "Output that never
//! blocks the loop"): through a writer thread, so that the loop never blocks on a full
//! pipe. When the output *is* read, nothing changes: every line arrives, in order,
//! including those still queued when the program exits.
//!
//! The program runs in a child process (this test again, see `loadgen::child`) whose
//! standard output is a pipe this test reads, slowly: the child prints faster than that
//! and exits at once, so most of its lines are still queued when it exits.

use std::time::Duration;

use loadgen::child::ChildTest;
use scaffold::{Options, say};

const CHILD: &str = "SCAFFOLD_STDOUT_CHILD";

/// More than a pipe holds (64 KiB), so the writer has to wait for the reader, and far less
/// than the writer's buffer (1 MiB), so that no line is dropped however slow the reader.
const LINES: usize = 20_000;

#[test]
fn every_line_arrives_in_order_even_when_the_program_exits_at_once() {
    if std::env::var_os(CHILD).is_some() {
        Options::default().install();
        for n in 0..LINES {
            say!("line {n:05}");
        }
        // Straight to `exit`, with lines still queued: the flush at thread exit must
        // write them (bounded: it gives up only on a writer that makes no progress).
        std::process::exit(0);
    }
    let finished = ChildTest::new(
        "every_line_arrives_in_order_even_when_the_program_exits_at_once",
        CHILD,
        Duration::from_secs(120),
    )
    .slow_reader()
    .run()
    .unwrap();
    assert!(
        finished.status.is_some_and(|s| s.success()),
        "{:?}\n{}",
        finished.status,
        finished.stderr
    );
    // The test harness prints `test NAME ... ` before the first line, on the same line.
    let said: Vec<&str> = finished
        .stdout
        .lines()
        .filter_map(|l| l.find("line ").map(|at| &l[at..]))
        .collect();
    let expected: Vec<String> = (0..LINES).map(|n| format!("line {n:05}")).collect();
    assert_eq!(said.len(), LINES, "{}", finished.stderr);
    assert!(
        said.iter().zip(&expected).all(|(a, b)| a == b),
        "out of order"
    );
    assert!(!finished.stderr.contains("dropped"), "{}", finished.stderr);
}
