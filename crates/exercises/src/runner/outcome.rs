//! What a run of `cargo test` says about each exercise, read from its output (book
//! introduction, "Exercises"; the project's own). Pass or fail is the harness's own
//! verdict, its `test NAME ... ok` or `... FAILED` line; a failure is told by the test's
//! own panic message, cut out of the harness's noise: not "running 1 test", not the
//! backtrace, not what the code under test printed around it (stage 5's "Task was destroyed
//! but it is pending!" when a failed test drops its loop).
//!
//! The runner runs the tests with `RUST_BACKTRACE=1`: then every panic's message, not only
//! the first in its process, ends where its `stack backtrace:` begins.

/// How an exercise's test went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The test passed: the exercise is done.
    Passed,
    /// The test failed.
    Failed {
        /// Where it panicked (`crates/exercises/tests/ch1.rs:25:5`), if it said.
        at: Option<String>,
        /// Its panic message: the assertion that did not hold.
        message: String,
    },
    /// Its code, or its test, does not compile: rustc's errors, in its own words, each with
    /// the file and line it is at.
    DidNotCompile(String),
    /// No verdict for this test: the end of what cargo printed, to say why.
    NoResult(String),
    /// Not run: this machine cannot run its test (chapter 10's without io_uring), and why.
    NotRun(String),
}

impl Outcome {
    /// True if the exercise is done.
    pub fn passed(&self) -> bool {
        *self == Outcome::Passed
    }

    /// True if this machine cannot run the exercise's test.
    pub fn not_run(&self) -> bool {
        matches!(self, Outcome::NotRun(_))
    }

    /// Where rustc's first error is (`crates/exercises/src/build/ch1.rs:108:1`), if the
    /// exercise did not compile.
    pub fn error_at(&self) -> Option<&str> {
        let Outcome::DidNotCompile(errors) = self else {
            return None;
        };
        errors
            .lines()
            .find_map(|line| line.trim_start().strip_prefix("--> "))
    }
}

/// The outcome of each of `tests` (by name), from one run's standard output and error:
/// its verdict, or else the end of what cargo printed. (A test whose binary did not compile
/// is told by [`build_errors`], which the runner reads first.)
pub fn read(tests: &[&str], stdout: &str, stderr: &str) -> Vec<Outcome> {
    tests
        .iter()
        .map(|test| match verdict(stdout, test) {
            Some(true) => Outcome::Passed,
            Some(false) => failure(stdout, test),
            None => Outcome::NoResult(tail(&format!("{}\n{stderr}", harness(stdout)), 15)),
        })
        .collect()
}

/// What cargo could not compile: a test binary, named as in `--test NAME`, or anything else
/// (the library, the runner's binary), which every test needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An integration test: `tests/{name}.rs`.
    Test(String),
    /// The library or a binary: nothing runs without it.
    Other(String),
}

/// rustc's errors, each in its own words (with its source lines, notes and help, and the
/// `-->` line that names the file and line), by the target they are in, in the order rustc
/// gave them; read from the `compiler-message` lines of `cargo --message-format json`.
/// Warnings are left out, and so is rustc's "aborting due to" summary.
pub fn build_errors(stdout: &str) -> Vec<(Target, String)> {
    let mut found: Vec<(Target, String)> = Vec::new();
    for message in stdout.lines().filter_map(cargo_message) {
        if message["reason"] != "compiler-message" || message["message"]["level"] != "error" {
            continue;
        }
        let text = message["message"]["message"].as_str().unwrap_or_default();
        if text.starts_with("aborting due to") {
            continue;
        }
        let rendered = message["message"]["rendered"].as_str().unwrap_or(text);
        let name = message["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let is_test = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|kind| kind == "test"));
        let target = if is_test {
            Target::Test(name)
        } else {
            Target::Other(name)
        };
        let rendered = &tidy_paths(rendered.trim_end());
        match found.iter_mut().find(|(t, _)| *t == target) {
            Some((_, errors)) => {
                errors.push('\n');
                errors.push_str(rendered);
            }
            None => found.push((target, rendered.to_owned())),
        }
    }
    found
}

/// One of cargo's JSON messages, which share standard output with the tests; `None` for a
/// line of the tests' own.
fn cargo_message(line: &str) -> Option<serde_json::Value> {
    if !line.starts_with('{') {
        return None;
    }
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    message["reason"].is_string().then_some(message)
}

/// Standard output without cargo's JSON messages: what the test harness printed.
fn harness(stdout: &str) -> String {
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|line| cargo_message(line).is_none())
        .collect();
    lines.join("\n")
}

/// The harness's verdict on `test`: its `test NAME ... ok` or `test NAME ... FAILED` line.
fn verdict(stdout: &str, test: &str) -> Option<bool> {
    stdout.lines().find_map(|line| {
        match line
            .strip_prefix("test ")?
            .strip_prefix(test)?
            .strip_prefix(" ... ")?
        {
            "ok" => Some(true),
            "FAILED" => Some(false),
            _ => None,
        }
    })
}

/// The failure of `test`, from its `---- NAME stdout ----` section: the panic of the test's
/// own thread (named after the test), or else the first panic, or else all it printed.
fn failure(stdout: &str, test: &str) -> Outcome {
    let header = format!("---- {test} stdout ----");
    let section: Vec<&str> = stdout
        .lines()
        .skip_while(|line| *line != header)
        .skip(1)
        .take_while(|line| !(line.starts_with("---- ") || *line == "failures:"))
        .collect();
    let panics: Vec<(usize, &str, &str)> = section
        .iter()
        .enumerate()
        .filter_map(|(i, line)| panic_header(line).map(|(thread, at)| (i, thread, at)))
        .collect();
    let chosen = panics
        .iter()
        .find(|(_, thread, _)| *thread == test)
        .or(panics.first());
    let Some(&(start, _, at)) = chosen else {
        return Outcome::Failed {
            at: None,
            message: trimmed(&section),
        };
    };
    let message: Vec<&str> = section[start + 1..]
        .iter()
        .copied()
        .take_while(|line| !ends_a_message(line))
        .collect();
    Outcome::Failed {
        at: Some(tidy_paths(at)),
        message: trimmed(&message),
    }
}

/// `thread 'NAME' (ID) panicked at FILE:LINE:COLUMN:` (older Rust prints no `(ID)`): the
/// thread's name and the place.
fn panic_header(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("thread '")?;
    let (thread, rest) = rest.split_once('\'')?;
    let (_, at) = rest.split_once("panicked at ")?;
    Some((thread, at.strip_suffix(':').unwrap_or(at)))
}

/// True for the first line after a panic's message: its backtrace, or the note that takes
/// the backtrace's place, or another panic.
fn ends_a_message(line: &str) -> bool {
    line.starts_with("stack backtrace:")
        || line.starts_with("note: run with `RUST_BACKTRACE")
        || line.starts_with("note: Some details are omitted")
        || panic_header(line).is_some()
}

/// `text` with each stub's path as the learner knows it: a test binary holds its stub as
/// `tests/../src/ch1.rs` (its `#[path]`), which is `src/ch1.rs`.
fn tidy_paths(text: &str) -> String {
    text.replace("/tests/../src/", "/src/")
}

/// `lines` as one text, without the blank lines around it.
fn trimmed(lines: &[&str]) -> String {
    lines.join("\n").trim_matches('\n').trim_end().to_owned()
}

/// The last `n` lines of `text` that are not blank.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
#[path = "outcome_tests.rs"]
mod tests;
