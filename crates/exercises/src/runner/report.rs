//! What the runner prints (book introduction, "Exercises"; the project's own): an exercise
//! with its place in the book and what to edit, its outcome in plain words, the list, and
//! the tally. Every function writes to the writer it is given, so that the same words go to
//! the terminal and to a test.

use std::io::{self, Write};

use exercises::catalog::Exercise;

use crate::outcome::Outcome;

/// Where the crate is, from the repository's root: the catalog's paths are inside it.
pub const CRATE: &str = "crates/exercises";

/// How wide the hints are wrapped.
const WIDTH: usize = 88;

/// An exercise's number and title, where the book asks for it, and what to edit.
pub fn heading(out: &mut dyn Write, exercise: &Exercise) -> io::Result<()> {
    let chapter = exercise.chapter;
    writeln!(out, "Exercise {}: {}", exercise.id, exercise.title)?;
    writeln!(
        out,
        "  in the book: chapter {} ({}), section \"{}\"",
        chapter.number, chapter.title, exercise.section
    )?;
    writeln!(
        out,
        "  edit:        `{}` in {CRATE}/{}",
        exercise.item, exercise.file
    )
}

/// How its test went, in plain words, and what to do next.
pub fn outcome(
    out: &mut dyn Write,
    exercise: &Exercise,
    outcome: &Outcome,
    solutions: bool,
) -> io::Result<()> {
    match outcome {
        Outcome::Passed if solutions => writeln!(
            out,
            "  Done: its test passes on the reference solution, {CRATE}/{}.",
            exercise.solution()
        ),
        Outcome::Passed => {
            writeln!(out, "  Done: its test passes.")?;
            writeln!(
                out,
                "  Compare with the reference solution: `{}` in {CRATE}/{}",
                exercise.item,
                exercise.solution()
            )
        }
        Outcome::Failed { at, message } => {
            match at {
                Some(at) => writeln!(out, "  Not done yet: its test fails, at {at}:")?,
                None => writeln!(out, "  Not done yet: its test fails:")?,
            }
            indented(out, message)?;
            writeln!(
                out,
                "  Stuck? A hint: cargo run -p exercises -- hint {}",
                exercise.id
            )
        }
        Outcome::DidNotCompile(errors) => {
            match outcome.error_at() {
                Some(at) => writeln!(out, "  Not done yet: it does not compile, at {at}:")?,
                None => writeln!(out, "  Not done yet: it does not compile:")?,
            }
            indented(out, errors)
        }
        Outcome::NotRun(why) => {
            writeln!(out, "  Not run: {why}.")?;
            writeln!(
                out,
                "  Its test needs io_uring (chapter 10, \"Where io_uring is refused\"): \
                 run it on a Linux machine that allows it."
            )
        }
        Outcome::NoResult(tail) => {
            writeln!(
                out,
                "  cargo ran, but said nothing of its test `{}`. What it printed last:",
                exercise.test
            )?;
            indented(out, tail)
        }
    }
}

/// `N of M done`, and which ran: the stubs (your code) or the reference solutions.
pub fn tally(out: &mut dyn Write, outcomes: &[Outcome], solutions: bool) -> io::Result<()> {
    let done = outcomes.iter().filter(|o| o.passed()).count();
    let whose = if solutions {
        " (the reference solutions)"
    } else {
        ""
    };
    let not_run = outcomes.iter().filter(|o| o.not_run()).count();
    let here = match not_run {
        0 => String::new(),
        n => format!(" ({n} cannot run on this machine)"),
    };
    writeln!(out, "{done} of {} done{whose}{here}.", outcomes.len())
}

/// The line after the tally when nothing is left to do here.
pub fn all_done(out: &mut dyn Write, outcomes: &[Outcome]) -> io::Result<()> {
    if outcomes.iter().any(Outcome::not_run) {
        writeln!(out, "Every exercise this machine can run is done.")
    } else {
        writeln!(out, "Every exercise is done.")
    }
}

/// One line per exercise: done or not (or not compiling), its number, title and chapter;
/// then [`broken`].
pub fn list(out: &mut dyn Write, rows: &[(&Exercise, Outcome)]) -> io::Result<()> {
    let width = rows.iter().map(|(e, _)| e.title.len()).max().unwrap_or(0);
    for (exercise, outcome) in rows {
        let done = match outcome {
            Outcome::Passed => "done",
            Outcome::DidNotCompile(_) => "err ",
            Outcome::NotRun(_) => "n/a ",
            Outcome::Failed { .. } | Outcome::NoResult(_) => "    ",
        };
        writeln!(
            out,
            "  [{done}] {:<4} {:<width$}  chapter {}, {}",
            exercise.id, exercise.title, exercise.chapter.number, exercise.section
        )?;
    }
    broken(out, rows)
}

/// One line for each exercise that does not compile: where its first error is, and how to
/// see them all.
pub fn broken(out: &mut dyn Write, rows: &[(&Exercise, Outcome)]) -> io::Result<()> {
    for (exercise, outcome) in rows {
        if let Outcome::DidNotCompile(_) = outcome {
            let at = outcome.error_at().unwrap_or("rustc says where");
            writeln!(
                out,
                "  [err ] {} does not compile: {at} (its errors: \
                 cargo run -p exercises -- run {})",
                exercise.id, exercise.id
            )?;
        }
    }
    Ok(())
}

/// One line per exercise: its number and title, and what its test said, in a word.
pub fn check(out: &mut dyn Write, rows: &[(&Exercise, Outcome)]) -> io::Result<()> {
    let width = rows.iter().map(|(e, _)| e.title.len()).max().unwrap_or(0);
    for (exercise, outcome) in rows {
        let verdict = match outcome {
            Outcome::Passed => "done",
            Outcome::Failed { .. } => "not yet: its test fails",
            Outcome::DidNotCompile(_) => "not yet: it does not compile",
            Outcome::NoResult(_) => "not yet: no result (run it alone to see why)",
            Outcome::NotRun(_) => "not run here: this machine cannot (`run ID` says why)",
        };
        writeln!(
            out,
            "  {:<4} {:<width$}  {verdict}",
            exercise.id, exercise.title
        )?;
    }
    Ok(())
}

/// The exercise's hint, wrapped.
pub fn hint(out: &mut dyn Write, exercise: &Exercise) -> io::Result<()> {
    heading(out, exercise)?;
    writeln!(out)?;
    for line in wrap(exercise.hint, WIDTH - 2) {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// `text`, each line indented by four spaces.
fn indented(out: &mut dyn Write, text: &str) -> io::Result<()> {
    for line in text.lines() {
        writeln!(out, "    {line}")?;
    }
    Ok(())
}

/// `text` in lines of at most `width` characters, broken between words (a longer word
/// gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use exercises::catalog::find;

    fn text(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_failure_says_where_to_look_what_to_edit_and_what_the_test_said() {
        let one = find("1.1").unwrap();
        let failed = Outcome::Failed {
            at: Some("crates/exercises/tests/ch1.rs:25:5".into()),
            message: "assertion `left == right` failed\n  left: 1\n right: 2".into(),
        };
        let shown = text(|out| {
            heading(out, one)?;
            outcome(out, one, &failed, false)
        });
        assert_eq!(
            shown,
            "Exercise 1.1: let the timers in
  in the book: chapter 1 (Stage 1: Callbacks), section \"Running it\"
  edit:        `chunked` in crates/exercises/src/ch1.rs
  Not done yet: its test fails, at crates/exercises/tests/ch1.rs:25:5:
    assertion `left == right` failed
      left: 1
     right: 2
  Stuck? A hint: cargo run -p exercises -- hint 1.1
"
        );
    }

    #[test]
    fn a_pass_points_at_the_reference_solution() {
        let one = find("1.1").unwrap();
        let shown = text(|out| outcome(out, one, &Outcome::Passed, false));
        assert!(shown.contains("`chunked` in crates/exercises/src/solutions/ch1.rs"));
        let shown = text(|out| tally(out, &[Outcome::Passed, Outcome::Passed], true));
        assert_eq!(shown, "2 of 2 done (the reference solutions).\n");
    }

    #[test]
    fn hints_are_wrapped_between_words() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("overlong word", 4), ["overlong", "word"]);
        assert!(wrap("", 10).is_empty());
    }
}
