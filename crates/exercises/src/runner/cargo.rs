//! How the runner runs an exercise: `cargo test` of its test, as a learner would type it
//! (book introduction, "Exercises"; no seed section). One exercise is
//!
//! ```text
//! cargo test -p exercises --test ch1 -- --ignored --exact ex1_1_a_due_timer_runs_between_chunks
//! ```
//!
//! plus `--features solutions` when the runner itself was built with it. Several exercises
//! are one `cargo test` with one `--test` per test binary and every test's name: one build,
//! one line of output per test, however many exercises are asked about.
//!
//! The child cargo is the one that runs the runner (`$CARGO`, which `cargo run` sets),
//! in this crate's directory, with the environment it was given: a `CARGO_TARGET_DIR` the
//! runner was started with is the child's too. That is how the runner's own tests, which
//! run it inside `cargo test`, give it a target directory of its own (`tests/runner.rs`
//! says why). `cargo run` itself is no such trouble: on Unix it replaces itself with the
//! runner, locks released, before the runner starts.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use exercises::catalog::Exercise;

use crate::outcome::{self, Outcome};

/// What runs the exercises' tests.
#[derive(Debug, Clone)]
pub struct Runner {
    cargo: OsString,
    dir: PathBuf,
    solutions: bool,
}

impl Runner {
    /// The runner as built: this crate's directory, and the solutions if the runner was
    /// built with the `solutions` feature.
    pub fn new() -> Runner {
        Runner {
            cargo: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            solutions: cfg!(feature = "solutions"),
        }
    }

    /// The crate's directory, which the catalog's paths are relative to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True if it runs the reference solutions rather than the stubs.
    pub fn solutions(&self) -> bool {
        self.solutions
    }

    /// The `cargo test` arguments that run `exercises`' tests.
    pub fn arguments(&self, exercises: &[&Exercise]) -> Vec<String> {
        let mut args: Vec<String> = ["test", "-p", "exercises", "--color", "never"]
            .map(String::from)
            .to_vec();
        if self.solutions {
            args.extend(["--features", "solutions"].map(String::from));
        }
        let mut binaries: Vec<&str> = Vec::new();
        for exercise in exercises {
            if !binaries.contains(&exercise.binary) {
                binaries.push(exercise.binary);
            }
        }
        if binaries.len() > 1 {
            // Every binary's tests, even after one that fails.
            args.push("--no-fail-fast".to_owned());
        }
        for binary in binaries {
            args.extend(["--test".to_owned(), binary.to_owned()]);
        }
        args.extend(["--", "--ignored", "--exact", "--color", "never"].map(String::from));
        args.extend(exercises.iter().map(|e| e.test.to_owned()));
        args
    }

    /// Run `exercises`' tests (building what changed first) and read each one's outcome.
    /// The error is cargo's that could not be started.
    pub fn run(&self, exercises: &[&Exercise]) -> io::Result<Vec<Outcome>> {
        let output = Command::new(&self.cargo)
            .args(self.arguments(exercises))
            .current_dir(&self.dir)
            // Every panic's message then ends where its backtrace begins (outcome.rs).
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .output()
            .map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("could not run {}: {error}", self.cargo.to_string_lossy()),
                )
            })?;
        let tests: Vec<&str> = exercises.iter().map(|e| e.test).collect();
        Ok(outcome::read(
            &tests,
            &String::from_utf8_lossy(&output.stdout),
            &String::from_utf8_lossy(&output.stderr),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use exercises::catalog::{CATALOG, find};

    fn runner(solutions: bool) -> Runner {
        Runner {
            solutions,
            ..Runner::new()
        }
    }

    #[test]
    fn one_exercise_is_the_cargo_test_of_its_test() {
        let one = find("1.1").unwrap();
        assert_eq!(
            runner(false).arguments(&[one]).join(" "),
            "test -p exercises --color never --test ch1 -- --ignored --exact --color never \
             ex1_1_a_due_timer_runs_between_chunks"
        );
        assert!(
            runner(true)
                .arguments(&[one])
                .join(" ")
                .starts_with("test -p exercises --color never --features solutions --test ch1 --")
        );
    }

    #[test]
    fn all_exercises_are_one_cargo_test_with_each_binary_once() {
        let all: Vec<&Exercise> = CATALOG.iter().collect();
        let args = runner(false).arguments(&all);
        let binaries: Vec<&str> = args
            .windows(2)
            .filter(|pair| pair[0] == "--test")
            .map(|pair| pair[1].as_str())
            .collect();
        // In the catalog's order: each chapter's Try it binary, then its Build it one.
        let chapters: Vec<String> = (1..=8)
            .flat_map(|n| [format!("ch{n}"), format!("build_ch{n}")])
            .collect();
        assert_eq!(binaries, chapters);
        assert!(args.contains(&"--no-fail-fast".to_owned()));
        assert!(args.ends_with(&[CATALOG[CATALOG.len() - 1].test.to_owned()]));
    }
}
