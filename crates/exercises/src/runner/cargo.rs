//! How the runner runs an exercise: `cargo test` of its test, as a learner would type it
//! (book introduction, "Exercises"; the project's own). One exercise is
//!
//! ```text
//! cargo test -p exercises --test ch1 -- --ignored --exact ex1_1_a_due_timer_runs_between_chunks
//! ```
//!
//! plus `--features solutions` when the runner itself was built with it, and cargo's
//! messages as JSON, to tell which test binary each of rustc's errors is in. Several
//! exercises are one `cargo test` with one `--test` per test binary and every test's name:
//! one build, one line of output per test, however many exercises are asked about.
//!
//! The runner is built without the learner's code: each test binary compiles its chapter's
//! stub into itself (`tests/ch1.rs` holds `src/ch1.rs`). A stub that does not compile stops
//! its own test binary; cargo then stops the whole run, so the runner runs again without
//! the binaries that failed, and tells their exercises by rustc's errors, the others by
//! their tests. Only an error outside every test binary (the library's catalog, say) stops
//! them all.
//!
//! The child cargo is the one that runs the runner (`$CARGO`, which `cargo run` sets), in
//! the crate's directory (or `EXERCISES_DIR`'s, if that is set: the runner's own tests
//! point it at a copy of the crate), with the environment it was given: a
//! `CARGO_TARGET_DIR` the runner was started with is the child's too (`tests/runner.rs`
//! says why its tests give one). `cargo run` itself is no such trouble: on Unix it replaces
//! itself with the runner, locks released, before the runner starts.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use exercises::catalog::Exercise;

use crate::machine;
use crate::outcome::{self, Outcome, Target};

/// What runs the exercises' tests.
#[derive(Debug, Clone)]
pub struct Runner {
    cargo: OsString,
    dir: PathBuf,
    solutions: bool,
}

impl Runner {
    /// The runner as built: this crate's directory (unless `EXERCISES_DIR` names another),
    /// and the solutions if the runner was built with the `solutions` feature.
    pub fn new() -> Runner {
        Runner {
            cargo: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            dir: std::env::var_os("EXERCISES_DIR")
                .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from),
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
        let mut args: Vec<String> = [
            "test",
            "-p",
            "exercises",
            "--color",
            "never",
            "--message-format",
            "json",
        ]
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

    /// Run `exercises`' tests (building what changed first) and read each one's outcome,
    /// in the order given. A test binary that does not compile gives its exercises rustc's
    /// errors, and the others are run without it. The error is cargo's that could not be
    /// started.
    pub fn run(&self, exercises: &[&Exercise]) -> io::Result<Vec<Outcome>> {
        // What this machine cannot run is told so, and not run.
        let mut outcomes: Vec<Option<Outcome>> = exercises
            .iter()
            .map(|exercise| machine::cannot_run(exercise).map(Outcome::NotRun))
            .collect();
        // Each round leaves out at least one binary more, or is the last: one round per
        // binary at most, and one to run what is left.
        for _ in 0..=exercises.len() {
            let left: Vec<&Exercise> = exercises
                .iter()
                .zip(&outcomes)
                .filter(|(_, outcome)| outcome.is_none())
                .map(|(exercise, _)| *exercise)
                .collect();
            if left.is_empty() {
                break;
            }
            let (stdout, stderr) = self.cargo_test(&left)?;
            let broken = outcome::build_errors(&stdout);
            let everything = broken.iter().find_map(|(target, errors)| match target {
                Target::Other(_) => Some(errors),
                Target::Test(_) => None,
            });
            let round: Vec<Outcome> = match everything {
                // Nothing runs without the library: every exercise left is told its errors.
                Some(errors) => vec![Outcome::DidNotCompile(errors.clone()); left.len()],
                None if broken.is_empty() => {
                    let tests: Vec<&str> = left.iter().map(|e| e.test).collect();
                    outcome::read(&tests, &stdout, &stderr)
                }
                // Those in a binary that did not compile are told; the rest run again.
                None => {
                    let mut told = false;
                    for (slot, exercise) in outcomes.iter_mut().zip(exercises) {
                        let errors = broken.iter().find_map(|(target, errors)| {
                            (*target == Target::Test(exercise.binary.to_owned())).then_some(errors)
                        });
                        if let (None, Some(errors)) = (&slot, errors) {
                            *slot = Some(Outcome::DidNotCompile(errors.clone()));
                            told = true;
                        }
                    }
                    if told {
                        continue;
                    }
                    // Errors in a binary none of them is in: cargo's business, shown as is.
                    let errors: Vec<&str> = broken.iter().map(|(_, e)| e.as_str()).collect();
                    vec![Outcome::DidNotCompile(errors.join("\n")); left.len()]
                }
            };
            let mut round = round.into_iter();
            for slot in outcomes.iter_mut().filter(|slot| slot.is_none()) {
                *slot = round.next();
            }
        }
        Ok(outcomes
            .into_iter()
            .map(|outcome| {
                outcome.unwrap_or_else(|| Outcome::NoResult("cargo ran, but not its test".into()))
            })
            .collect())
    }

    /// One `cargo test` of `exercises`' tests: its standard output and error.
    fn cargo_test(&self, exercises: &[&Exercise]) -> io::Result<(String, String)> {
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
        Ok((
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
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
            "test -p exercises --color never --message-format json --test ch1 -- --ignored --exact \
             --color never ex1_1_a_due_timer_runs_between_chunks"
        );
        assert!(runner(true).arguments(&[one]).join(" ").starts_with(
            "test -p exercises --color never --message-format json --features solutions \
                     --test ch1 --"
        ));
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
        // In the catalog's order: each chapter's Try it binary, then its Build it one;
        // chapter 9 has no Build it.
        let chapters: Vec<String> = (1..=8)
            .flat_map(|n| [format!("ch{n}"), format!("build_ch{n}")])
            .chain(["ch9", "ch10", "build_ch10"].map(String::from))
            .collect();
        assert_eq!(binaries, chapters);
        assert!(args.contains(&"--no-fail-fast".to_owned()));
        assert!(args.ends_with(&[CATALOG[CATALOG.len() - 1].test.to_owned()]));
    }
}
