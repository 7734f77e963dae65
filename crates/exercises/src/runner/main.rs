//! The exercise runner, `cargo run -p exercises` (book introduction, "Exercises"; the
//! project's own: a tool around the book's exercises, in the manner of rustlings). With no
//! command it runs the first exercise not done yet, in the book's order, and says what it
//! is, where the book asks for it, what to edit, and what its test said; `list`, `run ID`,
//! `hint ID`, `check` and `watch [ID]` do the rest (`--help`, [`cli::USAGE`]).
//!
//! The exercises and their order are the catalog's (`exercises::catalog`). Each is run as
//! its own `cargo test` (`cargo.rs`), whose output is read for the verdict and the test's
//! message (`outcome.rs`) and told in plain words (`report.rs`).
//!
//! Exit status: 0 when what was asked passes (`watch`: when it ends, all done or quit), 1
//! when it does not (or cargo could not be run), 2 for a command line it does not
//! understand.

mod cargo;
mod cli;
mod machine;
mod outcome;
mod report;
mod watch;

use std::io::{self, Write};
use std::process::ExitCode;

use exercises::catalog::{CATALOG, Exercise};

use crate::cargo::Runner;
use crate::cli::Command;
use crate::outcome::Outcome;

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("error: {error} (see `cargo run -p exercises -- --help`)");
            return ExitCode::from(2);
        }
    };
    let runner = Runner::new();
    let mut out = io::stdout().lock();
    match execute(&command, &runner, &mut out) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            // Most likely cargo could not be started; or standard output is closed.
            eprintln!("error: {error}");
            ExitCode::from(1)
        }
    }
}

/// Do what `command` asks; true if it passed.
fn execute(command: &Command, runner: &Runner, out: &mut dyn Write) -> io::Result<bool> {
    let solutions = runner.solutions();
    match *command {
        Command::Help => {
            write!(out, "{}", cli::USAGE)?;
            Ok(true)
        }
        Command::Hint(exercise) => {
            report::hint(out, exercise)?;
            Ok(true)
        }
        Command::Run(exercise) => {
            let outcome = runner
                .run(&[exercise])?
                .pop()
                .unwrap_or_else(|| Outcome::NoResult("no outcome".to_owned()));
            report::heading(out, exercise)?;
            report::outcome(out, exercise, &outcome, solutions)?;
            Ok(outcome.passed())
        }
        Command::Next => {
            let rows = run_all(runner)?;
            let outcomes: Vec<Outcome> = rows.iter().map(|(_, o)| o.clone()).collect();
            // The first not done that this machine can run.
            let next = rows
                .iter()
                .find(|(_, outcome)| !outcome.passed() && !outcome.not_run());
            match next {
                Some((exercise, outcome)) => {
                    report::heading(out, exercise)?;
                    report::outcome(out, exercise, outcome, solutions)?;
                    writeln!(out)?;
                    // The others that do not compile, if any: not the one just told.
                    let others: Vec<_> = rows
                        .iter()
                        .filter(|(other, _)| other.id != exercise.id)
                        .cloned()
                        .collect();
                    report::broken(out, &others)?;
                    report::tally(out, &outcomes, solutions)?;
                    Ok(false)
                }
                None => {
                    report::tally(out, &outcomes, solutions)?;
                    report::all_done(out, &outcomes)?;
                    Ok(true)
                }
            }
        }
        Command::List | Command::Check => {
            let rows = run_all(runner)?;
            if *command == Command::List {
                report::list(out, &rows)?;
            } else {
                report::check(out, &rows)?;
            }
            let outcomes: Vec<Outcome> = rows.into_iter().map(|(_, o)| o).collect();
            writeln!(out)?;
            report::tally(out, &outcomes, solutions)?;
            // A list is what was asked for, done or not; a check passes when all that this
            // machine can run are done (the tally says how many it cannot).
            Ok(*command == Command::List || outcomes.iter().all(|o| o.passed() || o.not_run()))
        }
        // Quitting is asked for, as much as watching was: it ends as asked, with 0.
        Command::Watch(from) => watch::watch(runner, from, out).map(|_| true),
    }
}

/// Every exercise of the catalog, with its outcome, in the book's order.
fn run_all(runner: &Runner) -> io::Result<Vec<(&'static Exercise, Outcome)>> {
    let exercises: Vec<&'static Exercise> = CATALOG.iter().collect();
    let outcomes = runner.run(&exercises)?;
    Ok(exercises.into_iter().zip(outcomes).collect())
}
