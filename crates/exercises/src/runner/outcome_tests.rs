//! Reading `cargo test`'s output, tested on outputs as it prints them (book introduction,
//! "Exercises"; the project's own): cut down from real runs of the stubs, backtraces
//! shortened.

use super::*;

/// Two of chapter 6's stubs, run together: the first failed test's loop says, as it is
/// dropped after the panic, which tasks it destroyed; a third test passed.
const CH6: &str = "
running 3 tests
test ex6_2_lock ... ok
test ex6_1_event ... FAILED
test ex6_3_shield ... FAILED

failures:

---- ex6_1_event stdout ----

thread 'ex6_1_event' (19777) panicked at crates/exercises/tests/ch6.rs:48:5:
every waiter wakes: Err(Error(Event loop would wait forever))
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/library/std/src/panicking.rs:689:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
ERROR:asyncio:Task was destroyed but it is pending!
task: <Task t2 pending>

---- ex6_3_shield stdout ----

thread 'ex6_3_shield' (19778) panicked at crates/exercises/tests/ch6.rs:154:5:
assertion `left == right` failed: the work goes on
  left: 1
 right: 2
stack backtrace:
   0: __rustc::rust_begin_unwind

failures:
    ex6_1_event
    ex6_3_shield

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out
";

#[test]
fn the_verdict_is_the_harness_and_the_message_is_the_panics_alone() {
    let outcomes = read(&["ex6_1_event", "ex6_2_lock", "ex6_3_shield"], CH6, "");
    assert_eq!(
        outcomes,
        [
            Outcome::Failed {
                at: Some("crates/exercises/tests/ch6.rs:48:5".into()),
                message: "every waiter wakes: Err(Error(Event loop would wait forever))".into(),
            },
            Outcome::Passed,
            Outcome::Failed {
                at: Some("crates/exercises/tests/ch6.rs:154:5".into()),
                message: "assertion `left == right` failed: the work goes on\n  left: 1\n right: 2"
                    .into(),
            },
        ]
    );
}

#[test]
fn the_test_threads_panic_is_the_one_told_and_the_note_ends_it_too() {
    // Without RUST_BACKTRACE the first panic of a process ends with a note; a panic of
    // another thread first (a worker the test joins) is not the test's.
    let stdout = "test ex7_2 ... FAILED

failures:

---- ex7_2 stdout ----
printed by the test
thread '<unnamed>' (12) panicked at crates/exercises/src/ch7.rs:9:9:
the worker's own
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
thread 'ex7_2' (11) panicked at crates/exercises/tests/ch7.rs:99:5:
called `Result::unwrap()` on an `Err` value
thread 'ex7_2' (11) panicked at crates/exercises/tests/ch7.rs:100:5:
a second panic, while unwinding

failures:
    ex7_2
";
    assert_eq!(
        read(&["ex7_2"], stdout, ""),
        [Outcome::Failed {
            at: Some("crates/exercises/tests/ch7.rs:99:5".into()),
            message: "called `Result::unwrap()` on an `Err` value".into(),
        }]
    );
    // No panic at all: what it printed is all there is to tell.
    let stdout = "test ex1_1 ... FAILED\n\nfailures:\n\n---- ex1_1 stdout ----\nsomething\n\n";
    assert_eq!(
        read(&["ex1_1"], stdout, ""),
        [Outcome::Failed {
            at: None,
            message: "something".into()
        }]
    );
}

/// One of cargo's `--message-format json` lines: rustc's diagnostic in `target`.
fn message(kind: &str, target: &str, level: &str, text: &str, rendered: &str) -> String {
    serde_json::json!({
        "reason": "compiler-message",
        "target": { "kind": [kind], "name": target },
        "message": { "level": level, "message": text, "rendered": rendered },
    })
    .to_string()
}

#[test]
fn a_build_that_fails_gives_rustcs_errors_by_test_binary_and_not_the_warnings() {
    let stub = "error: missing `fn` or `struct` for function or struct definition\n   \
                --> crates/exercises/tests/../src/build/ch1.rs:109:1\n    |\n\
                109 | callback(self)  let x = 1;\n    | ^^^^^^^^\n";
    let stdout = [
        message(
            "test",
            "ch1",
            "warning",
            "unused variable",
            "warning: unused variable\n",
        ),
        message("test", "build_ch1", "error", "missing `fn`", stub),
        message(
            "test",
            "build_ch1",
            "error",
            "aborting due to 1 previous error",
            "error: aborting",
        ),
        "running 1 test".to_owned(),
        message(
            "lib",
            "exercises",
            "error",
            "mismatched types",
            "error[E0308]: mismatched types\n",
        ),
    ]
    .join("\n");
    let errors = build_errors(&stdout);
    assert_eq!(
        errors,
        [
            (
                Target::Test("build_ch1".into()),
                stub.trim_end().replace("tests/../src", "src")
            ),
            (
                Target::Other("exercises".into()),
                "error[E0308]: mismatched types".into()
            ),
        ]
    );
    let outcome = Outcome::DidNotCompile(errors[0].1.clone());
    assert_eq!(
        outcome.error_at(),
        Some("crates/exercises/src/build/ch1.rs:109:1")
    );
    assert!(build_errors("running 1 test\n{\"reason\": nonsense\n").is_empty());
}

#[test]
fn no_verdict_and_no_build_error_shows_the_end_of_the_output() {
    let stdout = "\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed\n";
    let stderr = "    Finished `test` profile\n     Running tests/ch1.rs\n";
    let [Outcome::NoResult(tail)] = &read(&["ex9_9"], stdout, stderr)[..] else {
        panic!("a verdict from nowhere");
    };
    assert!(tail.contains("running 0 tests"), "{tail}");
    assert!(tail.ends_with("     Running tests/ch1.rs"), "{tail}");
}

#[test]
fn a_test_whose_name_begins_another_is_not_mistaken_for_it() {
    let stdout = "test ex1_1_longer ... FAILED\ntest ex1_1 ... ok\n";
    assert_eq!(read(&["ex1_1"], stdout, ""), [Outcome::Passed]);
}
