//! The runner as a learner runs it (book introduction, "Exercises"; no seed section): the
//! binary itself, which runs the exercises' tests with `cargo test`.
//!
//! That `cargo test` runs in a target directory of its own inside this one's
//! (`target/tmp/runner/target`): the runner's cargo inherits its environment, and each run
//! here sets `CARGO_TARGET_DIR`. In this one's, it would wait for the build directory's lock
//! if the `cargo test` running these tests held it while they run (cargo 1.95 does not, but
//! that is cargo's business, not a promise, and a wait there would be for ever); and it
//! would build with its own feature set and settings among this build's files, relinking
//! `target/debug/exercises`, the binary under test, whenever they differ (under
//! `cargo test --workspace`, say). The first build there compiles the exercises and the
//! five stages once more (28 s on this project's 2 cores; later runs reuse it), without debug
//! information (`CARGO_PROFILE_DEV_DEBUG=false`: a third of the size, and quicker), which
//! the runner does not need: a panic's message and place are there without it. Every test
//! here shares that directory, and runs at most one `cargo test` of all the exercises.
//!
//! Built without the `solutions` feature, the runner runs the stubs, and these tests expect
//! nothing done; built with it (`cargo test -p exercises --features solutions --test
//! runner`, as `.ci/run` does), the reference solutions, and everything done.

use std::fs::{self, File};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use exercises::catalog::CATALOG;

/// What a run of the runner said.
#[derive(Debug)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run the runner with `args`, and wait for it: for at most 20 minutes (12,000 polls,
/// 100 ms apart), enough for a first build on a busy machine.
fn runner(args: &[&str]) -> Ran {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("runner");
    fs::create_dir_all(&dir).unwrap();
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let (out, err) = (dir.join(format!("{n}.out")), dir.join(format!("{n}.err")));
    let mut child = Command::new(env!("CARGO_BIN_EXE_exercises"))
        .args(args)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .stdin(Stdio::null())
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap())
        .spawn()
        .unwrap();
    for _ in 0..12_000 {
        if let Some(status) = child.try_wait().unwrap() {
            return Ran {
                code: status.code().expect("the runner exits, it is not killed"),
                stdout: fs::read_to_string(&out).unwrap(),
                stderr: fs::read_to_string(&err).unwrap(),
            };
        }
        thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("the runner did not end in 20 minutes: {args:?}");
}

/// Lines of the test harness or of the code under test, which the runner leaves out.
const NOISE: [&str; 6] = [
    "running 1 test",
    "test result",
    "stack backtrace",
    "RUST_BACKTRACE",
    "Task was destroyed",
    "Compiling",
];

#[test]
fn help_hints_and_bad_usage_need_no_cargo() {
    let help = runner(&["--help"]);
    assert_eq!(help.code, 0);
    assert!(
        help.stdout
            .contains("Usage: cargo run -p exercises [-- COMMAND]")
    );

    let hint = runner(&["hint", "2.3"]);
    assert_eq!(hint.code, 0);
    assert!(
        hint.stdout
            .starts_with("Exercise 2.3: close wakes every waiter\n")
    );
    assert!(
        hint.stdout.contains("take all the waiters out first"),
        "{hint:?}"
    );

    for args in [
        &["run", "9.9"][..],
        &["hint"],
        &["frobnicate"],
        &["check", "1.1"],
    ] {
        let bad = runner(args);
        assert_eq!(bad.code, 2, "{args:?}: {bad:?}");
        assert!(bad.stdout.is_empty(), "{bad:?}");
        assert_eq!(bad.stderr.lines().count(), 1, "one line: {bad:?}");
    }
    let unknown = runner(&["run", "9.9"]).stderr;
    assert!(
        unknown.starts_with("error: no exercise `9.9`: an exercise is named by its chapter")
            && unknown.contains("from 1.1 to"),
        "{unknown}"
    );
}

#[cfg(not(feature = "solutions"))]
#[test]
fn on_the_stubs_nothing_is_done_and_the_first_exercise_is_told_plainly() {
    let first = runner(&[]);
    assert_eq!(first.code, 1, "{first:?}");
    let told = &first.stdout;
    assert!(
        told.starts_with("Exercise 1.1: let the timers in\n"),
        "{told}"
    );
    assert!(told.contains("chapter 1 (Stage 1: Callbacks), section \"Running it\""));
    assert!(
        told.contains("`chunked` in crates/exercises/src/ch1.rs"),
        "{told}"
    );
    assert!(
        told.contains("its test fails, at crates/exercises/tests/ch1.rs:"),
        "{told}"
    );
    assert!(
        told.contains("    assertion `left == right` failed"),
        "{told}"
    );
    assert!(
        told.ends_with(&format!("\n0 of {} done.\n", CATALOG.len())),
        "{told}"
    );
    for noise in NOISE {
        assert!(!told.contains(noise), "{noise}: {told}");
    }

    let check = runner(&["check"]);
    assert_eq!(check.code, 1, "{check:?}");
    assert_eq!(
        check.stdout.matches("not yet: its test fails").count(),
        CATALOG.len(),
        "{check:?}"
    );
    assert!(
        check
            .stdout
            .ends_with(&format!("\n0 of {} done.\n", CATALOG.len()))
    );

    // Stage 5's loop says which tasks it destroyed when a failed test drops it: not part
    // of the test's message.
    let event = runner(&["run", "6.1"]);
    assert_eq!(event.code, 1, "{event:?}");
    assert!(
        event.stdout.contains("    every waiter wakes: Err("),
        "{event:?}"
    );
    for noise in NOISE {
        assert!(!event.stdout.contains(noise), "{noise}: {event:?}");
    }
}

#[cfg(feature = "solutions")]
#[test]
fn on_the_solutions_everything_is_done_and_each_names_its_solution() {
    let check = runner(&["check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.stdout.matches("  done\n").count(), CATALOG.len());
    let all = CATALOG.len();
    assert!(
        check.stdout.ends_with(&format!(
            "\n{all} of {all} done (the reference solutions).\n"
        )),
        "{check:?}"
    );

    let first = runner(&[]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(
        first.stdout.ends_with("Every exercise is done.\n"),
        "{first:?}"
    );

    let one = runner(&["run", "3.2"]);
    assert_eq!(one.code, 0, "{one:?}");
    let done = "Done: its test passes on the reference solution, \
                crates/exercises/src/solutions/ch3.rs.";
    assert!(one.stdout.contains(done), "{one:?}");
    for noise in NOISE {
        assert!(!one.stdout.contains(noise), "{noise}: {one:?}");
    }
}
