//! The runner's command line (book introduction, "Exercises"; the project's own: the runner
//! is this project's own tool). Parsed with `lexopt`, as the examples' flags are; an
//! exercise is named by its number in the book (`1.1`) and looked up in the catalog here,
//! so that every command gets an exercise that exists.

use std::ffi::OsString;

use exercises::catalog::{self, Exercise};

/// The usage, for `--help`.
pub const USAGE: &str = "\
The book's exercises, in reading order: each is a stub to finish until its test passes.

Usage: cargo run -p exercises [-- COMMAND]

Commands:
  (none)      run the first exercise not done yet, and say how many are done
  list        every exercise: done or not, its number, title and chapter
  run ID      run one exercise; ID is its number in the book, like 1.1
  hint ID     a hint for one exercise
  check       run every exercise, and count those done
  watch [ID]  run the current exercise (or from ID on) each time its file is saved, then
              the next (Enter: run it now, h + Enter: a hint, q + Enter or Ctrl-C: quit)

Options:
  -h, --help  print this help

Exit status: 0 when what was asked passes (an exercise done; with check, all of them;
watch, when it ends), 1 when it does not, 2 for a command line it does not understand.
Built with `--features solutions`, it runs the reference solutions instead of the stubs.
";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `--help` or `help`.
    Help,
    /// No command: the first exercise not done yet.
    Next,
    /// `list`.
    List,
    /// `run ID`.
    Run(&'static Exercise),
    /// `hint ID`.
    Hint(&'static Exercise),
    /// `check`.
    Check,
    /// `watch`, or `watch ID`: from the first exercise not done, or from `ID` on.
    Watch(Option<&'static Exercise>),
}

/// Parse the arguments (without the program's name). The error is one line, for standard
/// error.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut words = Vec::new();
    while let Some(arg) = parser.next().map_err(|error| error.to_string())? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(word) => words.push(word.string().map_err(|error| error.to_string())?),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        [] => Ok(Command::Next),
        ["help"] => Ok(Command::Help),
        ["list"] => Ok(Command::List),
        ["check"] => Ok(Command::Check),
        ["watch"] => Ok(Command::Watch(None)),
        ["watch", id] => exercise(id).map(|exercise| Command::Watch(Some(exercise))),
        ["run", id] => exercise(id).map(Command::Run),
        ["hint", id] => exercise(id).map(Command::Hint),
        [command @ ("run" | "hint")] => Err(format!(
            "`{command}` needs an exercise's number, like `{command} 1.1`"
        )),
        [command @ ("run" | "hint" | "watch"), _, extra, ..] => Err(format!(
            "`{command}` takes one exercise, not `{extra}` as well"
        )),
        [command @ ("list" | "check" | "help"), extra, ..] => {
            Err(format!("`{command}` takes nothing, not `{extra}`"))
        }
        [unknown, ..] => Err(format!(
            "no command `{unknown}`: the commands are list, run ID, hint ID, check and watch [ID]"
        )),
    }
}

/// The exercise numbered `id`, or why there is none.
fn exercise(id: &str) -> Result<&'static Exercise, String> {
    let (Some(first), Some(last)) = (catalog::CATALOG.first(), catalog::CATALOG.last()) else {
        return Err("the catalog has no exercises".to_owned());
    };
    catalog::find(id).ok_or_else(|| {
        format!(
            "no exercise `{id}`: an exercise is named by its chapter and its number in the \
             chapter, from {} to {} (`list` shows them all)",
            first.id, last.id
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Command, String> {
        parse(words.iter().map(OsString::from))
    }

    #[test]
    fn commands_and_their_exercise() {
        assert_eq!(parse_words(&[]), Ok(Command::Next));
        assert_eq!(parse_words(&["list"]), Ok(Command::List));
        assert_eq!(parse_words(&["check"]), Ok(Command::Check));
        assert_eq!(parse_words(&["watch"]), Ok(Command::Watch(None)));
        assert_eq!(parse_words(&["--help"]), Ok(Command::Help));
        assert_eq!(parse_words(&["run", "-h"]), Ok(Command::Help));
        let one = catalog::find("1.1").unwrap();
        assert_eq!(parse_words(&["run", "1.1"]), Ok(Command::Run(one)));
        assert_eq!(parse_words(&["hint", "1.1"]), Ok(Command::Hint(one)));
        assert_eq!(
            parse_words(&["watch", "1.1"]),
            Ok(Command::Watch(Some(one)))
        );
    }

    #[test]
    fn bad_usage_is_one_line_that_says_what_is_wrong() {
        let error = |words: &[&str]| parse_words(words).unwrap_err();
        assert_eq!(
            error(&["run", "9.9"]),
            "no exercise `9.9`: an exercise is named by its chapter and its number in the \
             chapter, from 1.1 to 10.3 (`list` shows them all)"
        );
        assert_eq!(
            error(&["hint"]),
            "`hint` needs an exercise's number, like `hint 1.1`"
        );
        assert_eq!(error(&["check", "1.1"]), "`check` takes nothing, not `1.1`");
        assert_eq!(
            error(&["run", "1.1", "1.2"]),
            "`run` takes one exercise, not `1.2` as well"
        );
        assert!(error(&["frobnicate"]).starts_with("no command `frobnicate`"));
        // An unknown exercise is the same one line, whichever command names it.
        for command in ["run", "hint", "watch"] {
            assert_eq!(error(&[command, "9.9"]), error(&["run", "9.9"]));
        }
        assert_eq!(
            error(&["watch", "1.1", "1.2"]),
            "`watch` takes one exercise, not `1.2` as well"
        );
        assert_eq!(error(&["--frobnicate"]), "invalid option '--frobnicate'");
        for message in [error(&["run", "9.9"]), error(&["frobnicate"])] {
            assert!(!message.contains('\n'), "{message}");
        }
    }
}
