//! What a run of `cargo test` says about each exercise, read from its output (book
//! introduction, "Exercises"; no seed section). Pass or fail is the harness's own verdict,
//! its `test NAME ... ok` or `... FAILED` line; a failure is told by the test's own panic
//! message, cut out of the harness's noise: not "running 1 test", not the backtrace, not
//! what the code under test printed around it (stage 5's "Task was destroyed but it is
//! pending!" when a failed test drops its loop).
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
    /// The crate does not compile: rustc's errors, in its own words.
    DidNotCompile(String),
    /// No verdict for this test: the end of what cargo printed, to say why.
    NoResult(String),
}

impl Outcome {
    /// True if the exercise is done.
    pub fn passed(&self) -> bool {
        *self == Outcome::Passed
    }
}

/// The outcome of each of `tests` (by name), from one run's standard output and error.
pub fn read(tests: &[&str], stdout: &str, stderr: &str) -> Vec<Outcome> {
    tests
        .iter()
        .map(|test| match verdict(stdout, test) {
            Some(true) => Outcome::Passed,
            Some(false) => failure(stdout, test),
            None => match compile_errors(stderr) {
                Some(errors) => Outcome::DidNotCompile(errors),
                None => Outcome::NoResult(tail(&format!("{stdout}\n{stderr}"), 15)),
            },
        })
        .collect()
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
        at: Some(at.to_owned()),
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

/// rustc's errors (each `error[E...]` or `error:` block, with its source lines and its
/// notes and help) if the build failed; cargo's own lines and the warnings are left out.
fn compile_errors(stderr: &str) -> Option<String> {
    if !stderr.contains("error: could not compile") {
        return None;
    }
    let mut errors = Vec::new();
    let mut inside = false;
    for line in stderr.lines() {
        let starts_block = !line.starts_with(' ') && !line.is_empty();
        let starts_digit = line.starts_with(|c: char| c.is_ascii_digit());
        let sub_diagnostic = line.starts_with("note:") || line.starts_with("help:");
        if starts_block && !starts_digit && !sub_diagnostic {
            inside = (line.starts_with("error[") || line.starts_with("error:"))
                && !line.starts_with("error: could not compile");
        } else if is_cargo_status(line) {
            inside = false;
        }
        if inside {
            errors.push(line);
        }
    }
    let errors = trimmed(&errors);
    Some(if errors.is_empty() {
        tail(stderr, 15)
    } else {
        errors
    })
}

/// One of cargo's progress lines, `   Compiling stage1 v0.1.0 (...)`.
fn is_cargo_status(line: &str) -> bool {
    let word = line.trim_start().split(' ').next().unwrap_or_default();
    line.starts_with("  ")
        && matches!(
            word,
            "Compiling" | "Checking" | "Finished" | "Running" | "Blocking" | "Building"
        )
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
