//! The runner as a learner runs it (book introduction, "Exercises"; the project's own): the
//! binary itself, which runs the exercises' tests with `cargo test`.
//!
//! Never on the live files, which are the learner's: each test runs the runner on a copy
//! of this crate whose exercises are in a state the test sets (`in_a_copy`), so that these
//! tests pass whatever the learner has done. The copy is a workspace of its own in
//! `target/tmp/runner/copy/`, with this crate its only member and the stages where they
//! are; the runner is pointed at it with `EXERCISES_DIR`, and its exercise files are the
//! reference solutions, every exercise done, before the test changes one. One copy, one
//! test at a time: cargo names a workspace's builds by their path in the workspace, so two
//! copies would share their builds in the one target directory, and overwrite each other's.
//!
//! The runner's `cargo test` runs in a target directory of its own inside this one's
//! (`target/tmp/runner/target`): the runner's cargo inherits its environment, and each run
//! here sets `CARGO_TARGET_DIR`. In this one's, it would wait for the build directory's
//! lock if the `cargo test` running these tests held it while they run (cargo 1.95 does
//! not, but that is cargo's business, not a promise, and a wait there would be for ever).
//! The first build there compiles the five stages once more (28 s on this project's 2
//! cores; later runs reuse it, and every copy shares them), without debug information
//! (`CARGO_PROFILE_DEV_DEBUG=false`: a third of the size, and quicker), which the runner
//! does not need: a panic's message and place are there without it. A copy is written file
//! by file, and only where a file differs, so that cargo sees what changed and nothing
//! else.
//!
//! Built without the `solutions` feature, the runner runs each copy's exercise files;
//! built with it (`cargo test -p exercises --features solutions --test runner`, as
//! `.ci/run` does), the reference solutions, and everything done.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use exercises::catalog::CATALOG;

/// What a run of the runner (or of cargo) said.
#[derive(Debug)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Where the runs of these tests keep their files.
fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("runner")
}

/// Start `command` with the target directory these tests share, its output in files;
/// wait for it for at most 20 minutes (12,000 polls, 100 ms apart), enough for a first
/// build on a busy machine.
fn ran(mut command: Command) -> Ran {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch();
    fs::create_dir_all(&dir).unwrap();
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    // The process's id too: the copy's own tests, run by one of these, write here as well.
    let name = format!("{}-{n}", std::process::id());
    let (out, err) = (
        dir.join(format!("{name}.out")),
        dir.join(format!("{name}.err")),
    );
    let mut child: Child = command
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
                code: status.code().expect("it exits, it is not killed"),
                stdout: fs::read_to_string(&out).unwrap(),
                stderr: fs::read_to_string(&err).unwrap(),
            };
        }
        thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("{command:?} did not end in 20 minutes");
}

/// Run the runner with `args` on the copy of the crate in `dir` (none: the runner needs
/// no cargo for what it is asked).
fn runner(dir: Option<&Path>, args: &[&str]) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_exercises"));
    command.args(args);
    if let Some(dir) = dir {
        command.env("EXERCISES_DIR", dir);
    }
    ran(command)
}

/// Run cargo with `args` in `dir`, as a learner in that crate would.
#[cfg(not(feature = "solutions"))] // the tests that change a copy
fn cargo(dir: &Path, args: &[&str]) -> Ran {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.args(args).current_dir(dir);
    ran(command)
}

/// Write `bytes` to `path` unless it holds them already (its time then stays, and cargo
/// rebuilds nothing for it).
fn write(path: &Path, bytes: &[u8]) {
    if fs::read(path).ok().as_deref() != Some(bytes) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// Every file under `from`, written under `to` where it differs.
fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            write(&target, &fs::read(entry.path()).unwrap());
        }
    }
}

/// The workspace's manifest for a copy: the workspace's own sections of the real one
/// (not the root package's), this crate its only member, the other crates at their paths
/// in the real repository.
fn workspace_manifest(repo: &Path) -> String {
    let real = fs::read_to_string(repo.join("Cargo.toml")).unwrap();
    let mut kept = Vec::new();
    let mut keep = false;
    for line in real.lines() {
        if line.starts_with('[') {
            keep = line.starts_with("[workspace");
        }
        if !keep {
            continue;
        }
        if line.starts_with("members = ") {
            kept.push("members = [\"crates/exercises\"]".to_owned());
        } else {
            let crates = format!("path = \"{}/crates/", repo.display());
            kept.push(line.replace("path = \"crates/", &crates));
        }
    }
    kept.join("\n") + "\n"
}

/// The copy of this crate, with every exercise file its reference solution, for the test
/// that holds the guard until it ends: the crate's directory in it.
fn copy() -> (MutexGuard<'static, ()>, PathBuf) {
    static COPY: Mutex<()> = Mutex::new(());
    // A test that failed while it held the copy leaves it as good as any: it is reset below.
    let guard = COPY.lock().unwrap_or_else(PoisonError::into_inner);
    let krate = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = krate.join("../..").canonicalize().unwrap();
    let root = scratch().join("copy");
    write(
        &root.join("Cargo.toml"),
        workspace_manifest(&repo).as_bytes(),
    );
    write(
        &root.join("Cargo.lock"),
        &fs::read(repo.join("Cargo.lock")).unwrap(),
    );
    // The book, which the catalog's tests read: the real one.
    let docs = root.join("docs");
    if fs::symlink_metadata(&docs).is_err() {
        std::os::unix::fs::symlink(repo.join("docs"), &docs).unwrap();
    }
    let copied = root.join("crates/exercises");
    write(
        &copied.join("Cargo.toml"),
        &fs::read(krate.join("Cargo.toml")).unwrap(),
    );
    for dir in ["src", "tests"] {
        copy_tree(&krate.join(dir), &copied.join(dir));
    }
    for exercise in CATALOG {
        let solved = fs::read(krate.join(exercise.solution())).unwrap();
        write(&copied.join(exercise.file), &solved);
    }
    (guard, copied)
}

/// Append `text` to the copy's file `file` (relative to the crate).
#[cfg(not(feature = "solutions"))] // the tests that change a copy
fn append(krate: &Path, file: &str, text: &str) {
    let path = krate.join(file);
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(text.as_bytes());
    write(&path, &bytes);
}

/// Insert `line` in the copy's test file `file` as the first line of test `test`.
#[cfg(not(feature = "solutions"))] // the tests that change a copy
fn fail_first(krate: &Path, file: &str, test: &str, line: &str) {
    let path = krate.join(file);
    let text = fs::read_to_string(&path).unwrap();
    let opening = format!("fn {test}() {{\n");
    assert!(text.contains(&opening), "{file} has no `{opening}`");
    write(
        &path,
        text.replacen(&opening, &format!("{opening}{line}\n"), 1)
            .as_bytes(),
    );
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
    let help = runner(None, &["--help"]);
    assert_eq!(help.code, 0);
    assert!(
        help.stdout
            .contains("Usage: cargo run -p exercises [-- COMMAND]")
    );

    let hint = runner(None, &["hint", "2.3"]);
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
        &["hint", "9.9"],
        &["watch", "9.9"],
        &["hint"],
        &["frobnicate"],
        &["check", "1.1"],
    ] {
        let bad = runner(None, args);
        assert_eq!(bad.code, 2, "{args:?}: {bad:?}");
        assert!(bad.stdout.is_empty(), "{bad:?}");
        assert_eq!(bad.stderr.lines().count(), 1, "one line: {bad:?}");
    }
    let unknown = runner(None, &["run", "9.9"]).stderr;
    assert!(
        unknown.starts_with("error: no exercise `9.9`: an exercise is named by its chapter")
            && unknown.contains("from 1.1 to"),
        "{unknown}"
    );
}

#[cfg(not(feature = "solutions"))]
#[test]
fn in_a_copy_the_first_exercise_not_done_is_told_plainly_yours_and_expected_apart() {
    let (_copy, krate) = copy();
    let test = "ex1_2_call_at_is_a_time_not_a_delay";
    let line =
        r#"exercises::assert_yours!(["at 1: ran at 1.000"], ["at 1: ran at 3.000"], "when");"#;
    fail_first(&krate, "tests/ch1.rs", test, line);

    let first = runner(Some(&krate), &[]);
    assert_eq!(first.code, 1, "{first:?}");
    let told = &first.stdout;
    assert!(told.starts_with("Exercise 1.2: `call_at`\n"), "{told}");
    assert!(told.contains("chapter 1 (Stage 1: Callbacks), section \"Time without waiting\""));
    assert!(
        told.contains("`call_at` in crates/exercises/src/ch1.rs"),
        "{told}"
    );
    assert!(
        told.contains("its test fails, at crates/exercises/tests/ch1.rs:"),
        "{told}"
    );
    assert!(
        told.contains(
            "    when\n      expected: [\"at 1: ran at 3.000\"]\n         yours: [\"at 1: ran at 1.000\"]\n"
        ),
        "{told}"
    );
    let all = CATALOG.len();
    assert!(
        told.ends_with(&format!("\n{} of {all} done.\n", all - 1)),
        "{told}"
    );
    for noise in NOISE {
        assert!(!told.contains(noise), "{noise}: {told}");
    }

    let check = runner(Some(&krate), &["check"]);
    assert_eq!(check.code, 1, "{check:?}");
    assert_eq!(check.stdout.matches("  done\n").count(), all - 1);
    assert!(check.stdout.contains("  1.2  `call_at`"), "{check:?}");
    assert_eq!(check.stdout.matches("not yet: its test fails").count(), 1);
}

#[cfg(not(feature = "solutions"))]
#[test]
fn in_a_copy_a_stub_that_does_not_compile_is_its_exercise_outcome_and_the_rest_still_run() {
    let (_copy, krate) = copy();
    append(&krate, "src/build/ch1.rs", "callback(self)  let x = 1;\n");
    let all = CATALOG.len();

    // The runner itself is built without the stubs: `cargo run` of it still works.
    let hint = cargo(
        &krate,
        &["run", "-q", "-p", "exercises", "--", "hint", "1.4"],
    );
    assert_eq!(hint.code, 0, "{hint:?}");
    assert!(
        hint.stdout
            .starts_with("Exercise 1.4: the callback scheduler\n")
    );

    let list = runner(Some(&krate), &["list"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert_eq!(
        list.stdout.matches("  [done] ").count(),
        all - 1,
        "{list:?}"
    );
    assert!(
        list.stdout
            .contains("  [err ] 1.4  the callback scheduler "),
        "{list:?}"
    );
    assert!(
        list.stdout
            .contains("  [err ] 1.4 does not compile: crates/exercises/src/build/ch1.rs:"),
        "{list:?}"
    );
    assert!(
        list.stdout
            .ends_with(&format!("\n{} of {all} done.\n", all - 1)),
        "{list:?}"
    );

    let one = runner(Some(&krate), &["run", "1.4"]);
    assert_eq!(one.code, 1, "{one:?}");
    assert!(
        one.stdout
            .contains("  Not done yet: it does not compile, at crates/exercises/src/build/ch1.rs:"),
        "{one:?}"
    );
    assert!(one.stdout.contains("callback(self)  let x = 1;"), "{one:?}");
    assert!(!one.stdout.contains("tests/../src"), "{one:?}");

    // No command: the first not done is the one that does not compile.
    let first = runner(Some(&krate), &[]);
    assert_eq!(first.code, 1, "{first:?}");
    assert!(
        first
            .stdout
            .starts_with("Exercise 1.4: the callback scheduler\n"),
        "{first:?}"
    );
}

#[cfg(not(feature = "solutions"))]
#[test]
fn in_a_copy_where_the_learner_solved_some_and_broke_one_the_crates_own_tests_pass() {
    // The workspace's test command, on this crate: not the exercises' tests (ignored, and
    // built only when named), none that reads the learner's files as shipped, and none
    // that makes a copy of its own (these, in a copy: they would copy the copy).
    let (_copy, krate) = copy();
    append(&krate, "src/ch4.rs", "fn half_done( {\n");
    let tests = cargo(
        &krate,
        &["test", "-p", "exercises", "--", "--skip", "in_a_copy"],
    );
    assert_eq!(tests.code, 0, "{tests:?}");
    assert!(
        tests.stderr.contains("Running tests/catalog.rs"),
        "{tests:?}"
    );
    assert!(
        tests.stderr.contains("Running tests/runner.rs"),
        "{tests:?}"
    );
}

#[cfg(feature = "solutions")]
#[test]
fn on_the_solutions_everything_is_done_and_each_names_its_solution() {
    // The copy's exercise files are solutions too: with the feature, the runner runs those
    // under `src/solutions/`, whose paths it names.
    let (_copy, krate) = copy();
    let all = CATALOG.len();
    if io_uring_here() {
        let check = runner(Some(&krate), &["check"]);
        assert_eq!(check.code, 0, "{check:?}");
        assert_eq!(check.stdout.matches("  done\n").count(), all);
        assert!(
            check.stdout.ends_with(&format!(
                "\n{all} of {all} done (the reference solutions).\n"
            )),
            "{check:?}"
        );
        let first = runner(Some(&krate), &[]);
        assert_eq!(first.code, 0, "{first:?}");
        assert!(
            first.stdout.ends_with("Every exercise is done.\n"),
            "{first:?}"
        );
    }

    // Where io_uring is refused (here on purpose, as stage 6's examples are told to),
    // chapter 10's are not run and say so, never "done"; the rest are all done.
    let refused = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_exercises"));
        command
            .args(args)
            .env("EXERCISES_DIR", &krate)
            .env("STAGE6_IO_URING", "refuse");
        ran(command)
    };
    let chapter_10 = CATALOG.iter().filter(|e| e.chapter.number == 10).count();
    let check = refused(&["check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.stdout.matches("  done\n").count(), all - chapter_10);
    assert_eq!(check.stdout.matches("  not run here: ").count(), chapter_10);
    let done = all - chapter_10;
    assert!(
        check.stdout.ends_with(&format!(
            "\n{done} of {all} done (the reference solutions) \
             ({chapter_10} cannot run on this machine).\n"
        )),
        "{check:?}"
    );
    let first = refused(&[]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(
        first
            .stdout
            .ends_with("Every exercise this machine can run is done.\n"),
        "{first:?}"
    );
    let one = refused(&["run", "10.1"]);
    assert_eq!(one.code, 1, "{one:?}");
    assert!(
        one.stdout.contains("  Not run: io_uring refused"),
        "{one:?}"
    );

    let one = runner(Some(&krate), &["run", "3.2"]);
    assert_eq!(one.code, 0, "{one:?}");
    let done = "Done: its test passes on the reference solution, \
                crates/exercises/src/solutions/ch3.rs.";
    assert!(one.stdout.contains(done), "{one:?}");
    for noise in NOISE {
        assert!(!one.stdout.contains(noise), "{noise}: {one:?}");
    }
}

/// True if this machine gives stage 6 its ring (chapter 10's exercises then run).
#[cfg(feature = "solutions")]
fn io_uring_here() -> bool {
    #[cfg(target_os = "linux")]
    return stage6::setup::ring().is_ok();
    #[cfg(not(target_os = "linux"))]
    return false;
}
