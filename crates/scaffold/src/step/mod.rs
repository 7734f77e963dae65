//! `--step`: a run paused at every step, its scheduler drawn in the terminal (book
//! introduction, "Watching a run", "Stepping in the terminal"). No seed section: the
//! project's own instrument, as the recording it stands on.
//!
//! Stepping records the run as `--record` does, and sets a hook on the recording
//! ([`record::set_hook`]): each event the scheduler reports is kept with its state, then
//! shown to the hook, which draws the panels ([`panel::render`], a pure function of the
//! step) and waits for a key (its `terminal` module) before the program goes on. Nothing in a stage
//! knows: the pause happens inside `event!` and `say!`, as the scheduler reports its step.
//!
//! - Enter: one step (one event). The first screen comes before step 0: the program has
//!   not started. Steps are counted from 0, as the book's steppers and the causes count them.
//! - `c`: close the panels and run to the end; the output goes on as without `--step`.
//! - `q`: put the terminal back, write the program's lines so far, exit with code 0.
//!
//! On the virtual clock the run steps through time; on the real clock the waits are real,
//! and the clock goes on while you read (a timer that fell due meanwhile runs late).

pub mod panel;
mod terminal;

use std::collections::VecDeque;

use crate::console;
use crate::event::Event;
use crate::record::{self, Record};
use crate::steps;

use panel::View;
use terminal::{Key, Terminal};

/// How many earlier steps the trace panel shows above the current one.
pub const BEFORE: usize = 4;

/// Why `--step` cannot combine with other flags, if it cannot: a stepped run may end at
/// `q`, before any file of `--timeline` or `--record` is written.
pub fn refused(timeline: bool, record: bool) -> Option<&'static str> {
    (timeline || record).then_some(
        "--step cannot be combined with --timeline or --record: a stepped run may end at q, \
         before their file is written (record the run without --step)",
    )
}

/// Why the echo servers refuse `--step`: a server's steps wait on the network, not on a
/// key, and it never reaches an end.
pub const SERVERS_REFUSE: &str = "--step: an echo server serves until it is interrupted, and its \
     steps wait for clients rather than for your keys; step the other examples";

/// Open the terminal, show step 0 and, unless the user continues or quits there, pause at
/// every step from now on. `virtual_time` names the clock in the panels. Without a
/// terminal, says so on one line and exits with 2. Call it with a recording on.
pub fn start(virtual_time: bool) {
    let terminal = Terminal::open().unwrap_or_else(|why| {
        eprintln!("error: {why}");
        std::process::exit(2);
    });
    let mut stepper = Stepper {
        terminal,
        clock: if virtual_time { "virtual" } else { "real" },
        before: VecDeque::new(),
        iteration: None,
        output: None,
    };
    let start = View {
        step: None,
        at: std::time::Duration::ZERO,
        clock: stepper.clock,
        before: &[],
        line: "(before the first step)",
        state: None,
        output: None,
    };
    match wait(&mut stepper.terminal, &start) {
        Key::Step => {}
        Key::Continue => return, // the stepper is dropped: the terminal is put back
        Key::Quit | Key::Redraw => quit(stepper),
    }
    let mut stepper = Some(stepper);
    record::set_hook(Some(Box::new(move |step, record| {
        let Some(now) = stepper.as_mut() else {
            return false;
        };
        match now.pause(step, record) {
            Key::Step | Key::Redraw => true,
            Key::Continue => {
                // The run goes on as without `--step`: nothing more to keep.
                drop(record::stop());
                false // the hook, and the stepper with it, is dropped
            }
            Key::Quit => match stepper.take() {
                Some(stepper) => quit(stepper),
                None => false,
            },
        }
    })));
}

/// End stepping, if it is on: the terminal is put back and the held lines come out. The
/// program's end calls it ([`crate::Options::finish`], [`crate::cli::exit_with_error`]).
pub fn end() {
    drop(record::set_hook(None));
}

/// `q`: put the terminal back, write out what the program said, and exit with 0.
fn quit(stepper: Stepper) -> ! {
    drop(stepper);
    console::flush();
    std::process::exit(0);
}

/// The terminal, and what the panels remember from the steps before.
struct Stepper {
    terminal: Terminal,
    clock: &'static str,
    /// The last [`BEFORE`] steps' lines, with their numbers.
    before: VecDeque<(usize, String)>,
    /// Stage 5's iteration, as the trace prefixes it.
    iteration: Option<u64>,
    /// The program's last line.
    output: Option<String>,
}

impl Stepper {
    /// Draw step `index` (counted from 0, as the recording and the book count) and wait.
    fn pause(&mut self, index: usize, record: &Record) -> Key {
        let event = &record.event;
        // As the steps' JSON does (`steps::to_json`): an iteration numbers its own line.
        if let Event::Iteration(n) = *event {
            self.iteration = Some(n);
        }
        let line = line(self.iteration, event);
        if let Event::Say(said) = event {
            self.output = Some(said.clone());
        }
        if let Event::Done { .. } = event {
            self.iteration = None;
        }
        let before: Vec<(usize, String)> = self.before.iter().cloned().collect();
        let view = View {
            step: Some(index),
            at: record.at,
            clock: self.clock,
            before: &before,
            line: &line,
            state: record.state.as_deref(),
            output: self.output.as_deref(),
        };
        let key = wait(&mut self.terminal, &view);
        if self.before.len() == BEFORE {
            self.before.pop_front();
        }
        self.before.push_back((index, line));
        key
    }
}

/// Draw `view` until a key other than a resize comes.
fn wait(terminal: &mut Terminal, view: &View<'_>) -> Key {
    loop {
        let (width, height) = terminal.size();
        if terminal.draw(&panel::render(view, width, height)).is_err() {
            return Key::Quit; // the terminal takes nothing more: nobody can step
        }
        match terminal.key() {
            Key::Redraw => continue,
            key => return key,
        }
    }
}

/// A step's line: its trace line, the program's line (marked `|`, as the console marks
/// it), or, for the bookkeeping the trace does not print, what it is in brackets.
pub fn line(iteration: Option<u64>, event: &Event) -> String {
    match event {
        Event::Say(said) => format!("| {said}"),
        Event::Iteration(n) => format!("(iteration {n} begins)"),
        other => steps::trace_line(iteration, other)
            .unwrap_or_else(|| format!("({}: {other})", steps::kind(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Id;

    #[test]
    fn each_step_has_a_line() {
        let run = Event::Run {
            id: Id::Callback(3),
        };
        assert_eq!(line(Some(4), &run), "[4] run c3");
        assert_eq!(line(None, &Event::Say("Down 5".into())), "| Down 5");
        let queues = Event::Queues {
            ready: 1,
            timers: 2,
        };
        assert_eq!(line(None, &queues), "(queues: ready 1, timers 2)");
        assert_eq!(line(None, &Event::Iteration(7)), "(iteration 7 begins)");
    }

    #[test]
    fn step_refuses_the_flags_that_write_at_the_end() {
        assert!(refused(false, false).is_none());
        assert!(refused(true, false).unwrap().contains("--timeline"));
        assert!(refused(false, true).is_some());
    }
}
