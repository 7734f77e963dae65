//! The flags every example of every stage accepts (book introduction, "The output
//! contract"). No seed section: the seed only prints; these flags are this project's own,
//! and every later stage uses them as they are.
//!
//! - no flag: exactly the seed's lines, on the real clock;
//! - `--timestamps`: each line prefixed with scheduler time, `  4.000 | Down 4`;
//! - `--virtual-time`: the virtual clock (no real waiting); implies `--timestamps`;
//! - `--trace`: the scheduler's own steps too, marked with `~`;
//! - `--timeline FILE.svg`: a picture of the run, drawn from the same steps, written to
//!   `FILE.svg` when the program ends ([`crate::timeline`]);
//! - `--record FILE.json`: the same steps as Chrome trace events, for the Perfetto UI or
//!   `chrome://tracing`, written to `FILE.json` when the program ends
//!   ([`crate::trace_events`]);
//! - `--step`: pause before each step and draw the scheduler in the terminal: Enter steps,
//!   `b` steps back, `c` continues, `q` quits ([`crate::step`]); not with `--timeline` or
//!   `--record`;
//! - `--help`: the usage; an unknown flag prints it to standard error and exits with 2.
//!
//! Parsing uses the small `lexopt` crate rather than hand-written plumbing; an example
//! adds its own long flags (`--addr`, `--plain`, ...) through a closure.

use std::ffi::OsString;
use std::fmt::Display;
use std::path::PathBuf;
use std::rc::Rc;

use crate::clock::{Clock, RealClock, VirtualClock};
use crate::console::{self, Console};
use crate::record;
use crate::run_file;
use crate::step;
use crate::timeline;
use crate::trace_events;

pub use lexopt;

mod loops;

/// The output contract's flags, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `--timestamps` (or implied by `--virtual-time`).
    pub timestamps: bool,
    /// `--virtual-time`.
    pub virtual_time: bool,
    /// `--trace`.
    pub trace: bool,
    /// `--timeline FILE`: where to draw the run.
    pub timeline: Option<PathBuf>,
    /// `--record FILE`: where to write the run as trace events.
    pub record: Option<PathBuf>,
    /// `--step`: pause at every step, the scheduler drawn in the terminal.
    pub step: bool,
}

const COMMON_USAGE: &str = "\
Options:
      --timestamps     prefix each line with scheduler time, as in `  4.000 | Down 4`
      --virtual-time   run on the virtual clock: no real waiting (implies --timestamps)
      --trace          also print the scheduler's own steps (lines marked with ~)
      --timeline FILE  when the program ends, draw its run as an SVG picture in FILE
      --record FILE    when the program ends, write its run as trace events (JSON) in FILE,
                       for the Perfetto UI or chrome://tracing
      --step           pause before each step and draw the scheduler's state in the
                       terminal: Enter steps, b steps back, c continues to the end,
                       q quits
  -h, --help           print this help";

/// What parsing found: options to run with, or a request for help.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Run with these options.
    Run(Options),
    /// `--help` was given.
    Help,
}

impl Options {
    /// Parse this process's arguments for an example that has only the common flags.
    /// On `--help` prints the usage and exits with 0; on a bad flag prints the error and
    /// the usage to standard error and exits with 2.
    pub fn parse(about: &str) -> Options {
        Options::parse_with(about, "", |_, _| Ok(false))
    }

    /// Like [`Options::parse`], for an example with flags of its own. `extra_usage` lists
    /// them (one per line, as in the common usage); `extra` is offered every long flag the
    /// common set does not know and returns whether it took it.
    pub fn parse_with(
        about: &str,
        extra_usage: &str,
        extra: impl FnMut(&str, &mut lexopt::Parser) -> Result<bool, lexopt::Error>,
    ) -> Options {
        let usage = usage(about, extra_usage);
        match Options::try_parse_from(std::env::args_os().skip(1), extra) {
            Ok(Parsed::Run(options)) => options,
            Ok(Parsed::Help) => {
                println!("{usage}");
                std::process::exit(0);
            }
            Err(error) => {
                eprintln!("error: {error}\n\n{usage}");
                std::process::exit(2);
            }
        }
    }

    /// Parse `args` (without the program name). Never exits: the testable core of
    /// [`Options::parse_with`].
    pub fn try_parse_from<I>(
        args: I,
        mut extra: impl FnMut(&str, &mut lexopt::Parser) -> Result<bool, lexopt::Error>,
    ) -> Result<Parsed, lexopt::Error>
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        use lexopt::Arg::{Long, Short};
        let mut options = Options::default();
        let mut parser = lexopt::Parser::from_args(args);
        while let Some(arg) = parser.next()? {
            match arg {
                Long("timestamps") => options.timestamps = true,
                Long("virtual-time") => {
                    options.virtual_time = true;
                    options.timestamps = true;
                }
                Long("trace") => options.trace = true,
                Long("timeline") => options.timeline = Some(file_name("timeline", &mut parser)?),
                Long("record") => options.record = Some(file_name("record", &mut parser)?),
                Long("step") => options.step = true,
                Long("help") | Short('h') => return Ok(Parsed::Help),
                Long(name) => {
                    let name = name.to_owned();
                    let took = extra(&name, &mut parser).map_err(|e| for_flag(&name, e))?;
                    if !took {
                        return Err(lexopt::Arg::Long(&name).unexpected());
                    }
                }
                other => return Err(other.unexpected()),
            }
        }
        if options.step
            && let Some(why) = step::refused(options.timeline.is_some(), options.record.is_some())
        {
            return Err(why.into());
        }
        Ok(Parsed::Run(options))
    }

    /// The clock these options ask for.
    pub fn clock(&self) -> Rc<dyn Clock> {
        if self.virtual_time {
            VirtualClock::new()
        } else {
            RealClock::new()
        }
    }

    /// Make the clock, point this thread's console at standard output as the flags ask,
    /// and return the clock for the scheduler to run on.
    ///
    /// With `--step`, take the terminal and show step 0 first ([`crate::step::start`]: a
    /// clear error and exit code 2 without one), then record while stepping.
    ///
    /// With `--timeline` or `--record`, also start recording (and create the files now, so
    /// that a path that cannot be written is an error before the run, not after it).
    pub fn install(&self) -> Rc<dyn Clock> {
        let clock = self.clock();
        console::install(Console::stdout(clock.clone(), self.timestamps, self.trace));
        if let Some(path) = &self.timeline {
            run_file::create("timeline", path).unwrap_or_else(|error| exit_with_error(error));
        }
        if let Some(path) = &self.record {
            run_file::create("recording", path).unwrap_or_else(|error| exit_with_error(error));
        }
        if self.timeline.is_some() || self.record.is_some() || self.step {
            record::start(clock.clone()); // one recording serves both files, or the stepper
        }
        if self.step {
            step::start(self.virtual_time);
        }
        clock
    }

    /// The end of the output contract, called when the program has run: with
    /// `--timeline FILE`, draw the recorded run into `FILE`; with `--record FILE`, write it
    /// there as trace events, with every other loop's if the program ran several
    /// ([`Options::install_loop`]) (exit code 1 if a file cannot be written).
    pub fn finish(&self) {
        step::end(); // with `--step`: the terminal as it was, and the held lines written
        if self.timeline.is_none() && self.record.is_none() {
            return;
        }
        let records = record::stop();
        if let Some(note) = bounds_note(&records) {
            crate::warn!("{note}");
        }
        let title = timeline::title(self.virtual_time);
        if let Some(path) = &self.timeline {
            timeline::write(path, &title, &records).unwrap_or_else(|error| exit_with_error(error));
        }
        if let Some(path) = &self.record {
            // The other loops' recordings, if this program ran several (`install_loop`).
            let others = trace_events::handed_in();
            let title = match others.is_empty() {
                true => title,
                false => format!("{title} · loop 0"),
            };
            let mut loops = vec![trace_events::group(&title, &records)];
            loops.extend(others);
            trace_events::write_loops(path, loops).unwrap_or_else(|error| exit_with_error(error));
        }
    }
}

/// What a recording that reached its bounds left out, in one line for standard error (the
/// files say it too: the picture's note, the trace's process name), or `None`.
fn bounds_note(records: &record::Records) -> Option<String> {
    let mut parts = Vec::new();
    if records.dropped > 0 {
        let kept = records.records.len();
        parts.push(format!(
            "kept the first {kept} events, {} more dropped",
            records.dropped
        ));
    }
    if records.states_dropped > 0 {
        let limit = record::STATE_LIMIT;
        let without = records.states_dropped;
        parts.push(format!(
            "kept the scheduler's state for its first {limit} changes, {without} steps without"
        ));
    }
    (!parts.is_empty()).then(|| format!("note: the recording {}", parts.join("; ")))
}

/// Name the flag in an error about its value: lexopt alone says `cannot parse argument
/// "abc": invalid digit found in string`, which leaves the reader to guess which flag.
fn for_flag(name: &str, error: lexopt::Error) -> lexopt::Error {
    match error {
        lexopt::Error::ParsingFailed { value, error } => {
            format!("invalid value {value:?} for --{name}: {error}").into()
        }
        lexopt::Error::NonUnicodeValue(value) => {
            format!("invalid value {value:?} for --{name}: not valid UTF-8").into()
        }
        other => other,
    }
}

fn usage(about: &str, extra_usage: &str) -> String {
    let name = std::env::args()
        .next()
        .and_then(|path| {
            let stem = std::path::Path::new(&path)
                .file_stem()?
                .to_str()?
                .to_owned();
            Some(stem)
        })
        .unwrap_or_else(|| "example".to_owned());
    let mut text = format!("{name}: {about}\n\n{COMMON_USAGE}");
    if !extra_usage.is_empty() {
        text.push('\n');
        text.push_str(extra_usage.trim_end());
    }
    text
}

/// Print `error: {message}` to standard error and exit with code 1: how an example reports
/// a failure that is not the user's typing (a port in use, say). What was printed before
/// is flushed first (with a bounded wait: see [`console::flush`]).
pub fn exit_with_error(message: impl Display) -> ! {
    step::end(); // the terminal back first, where the message can be read
    crate::warn!("error: {message}");
    console::flush();
    std::process::exit(1);
}

/// The file name `--FLAG` takes. A flag where the name should be (`--timeline
/// --virtual-time`) is an error, not a file called `--virtual-time`; `./-x` names one.
fn file_name(flag: &str, parser: &mut lexopt::Parser) -> Result<PathBuf, lexopt::Error> {
    let value = parser.value()?;
    if value.to_string_lossy().starts_with('-') {
        return Err(format!(
            "--{flag} needs a file name, not {} (for a file of that name, write ./{0})",
            value.to_string_lossy()
        )
        .into());
    }
    Ok(value.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Parsed, lexopt::Error> {
        Options::try_parse_from(args, |_, _| Ok(false))
    }

    #[test]
    fn no_flags_means_the_seeds_plain_output() {
        assert_eq!(parse(&[]).unwrap(), Parsed::Run(Options::default()));
    }

    #[test]
    fn timeline_takes_a_file() {
        let Parsed::Run(options) = parse(&["--timeline", "run.svg"]).unwrap() else {
            panic!("expected options");
        };
        assert_eq!(options.timeline, Some(PathBuf::from("run.svg")));
        let error = parse(&["--timeline"]).unwrap_err().to_string();
        assert!(error.contains("--timeline"), "{error}");
    }

    #[test]
    fn a_flag_is_no_file_name() {
        for flag in ["--timeline", "--record"] {
            let error = parse(&[flag, "--virtual-time"]).unwrap_err().to_string();
            assert!(
                error.contains(flag) && error.contains("not --virtual-time"),
                "{error}"
            );
            let Parsed::Run(options) = parse(&[flag, "./-x"]).unwrap() else {
                panic!("{flag} ./-x is a run");
            };
            let path = options.timeline.or(options.record);
            assert_eq!(path, Some(PathBuf::from("./-x")));
        }
    }

    #[test]
    fn record_takes_a_file() {
        let Parsed::Run(options) = parse(&["--record", "run.json"]).unwrap() else {
            panic!("expected options");
        };
        assert_eq!(options.record, Some(PathBuf::from("run.json")));
        let error = parse(&["--record"]).unwrap_err().to_string();
        assert!(error.contains("--record"), "{error}");
    }

    #[test]
    fn step_is_a_switch_and_refuses_the_flags_that_write_at_the_end() {
        let Parsed::Run(options) = parse(&["--step", "--virtual-time"]).unwrap() else {
            panic!("expected options");
        };
        assert!(options.step && options.virtual_time);
        for other in ["--timeline", "--record"] {
            let error = parse(&["--step", other, "run.file"])
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("--step cannot be combined with"),
                "{error}"
            );
        }
    }

    #[test]
    fn a_recording_over_its_bounds_says_what_it_left_out() {
        let mut records = record::Records::default();
        assert_eq!(bounds_note(&records), None);
        records.dropped = 7;
        records.states_dropped = 3;
        let note = bounds_note(&records).expect("a note");
        assert!(
            note.contains("kept the first 0 events, 7 more dropped"),
            "{note}"
        );
        assert!(note.contains("3 steps without"), "{note}");
    }

    #[test]
    fn virtual_time_implies_timestamps() {
        let Parsed::Run(options) = parse(&["--virtual-time", "--trace"]).unwrap() else {
            panic!("expected options");
        };
        assert!(options.virtual_time && options.timestamps && options.trace);
    }

    #[test]
    fn help_and_unknown_flags() {
        assert_eq!(parse(&["--help"]).unwrap(), Parsed::Help);
        assert_eq!(parse(&["-h"]).unwrap(), Parsed::Help);
        let error = parse(&["--fast"]).unwrap_err().to_string();
        assert!(error.contains("--fast"), "{error}");
        assert!(parse(&["stray"]).is_err());
    }

    #[test]
    fn a_bad_value_names_its_flag() {
        let with_addr = |flag: &str, p: &mut lexopt::Parser| {
            use lexopt::ValueExt;
            let _addr: std::net::SocketAddr = p.value()?.parse()?; // only the error matters
            Ok(flag == "addr")
        };
        let error = Options::try_parse_from(["--addr", "nonsense"], with_addr)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            r#"invalid value "nonsense" for --addr: invalid socket address syntax"#
        );
    }

    #[test]
    fn examples_add_their_own_flags() {
        let mut addr = String::new();
        let parsed =
            Options::try_parse_from(["--addr", "127.0.0.1:1", "--timestamps"], |flag, p| {
                Ok(match flag {
                    "addr" => {
                        addr = lexopt::ValueExt::string(p.value()?)?;
                        true
                    }
                    _ => false,
                })
            })
            .unwrap();
        assert_eq!(addr, "127.0.0.1:1");
        assert_eq!(
            parsed,
            Parsed::Run(Options {
                timestamps: true,
                ..Options::default()
            })
        );
    }
}
