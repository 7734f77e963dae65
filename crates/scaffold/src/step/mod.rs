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
//! - `b` (or the left arrow): the step before, as the recording kept it, its state
//!   included; Enter then goes forward through the kept steps, and past the last one runs
//!   the program on. Nothing is run again: a step gone back to is only shown.
//! - `c`: close the panels and run to the end; the output goes on as without `--step`.
//! - `q`: put the terminal back, write the program's lines so far, exit with code 0. A
//!   terminal that goes away (its end of input) does the same.
//!
//! On the virtual clock the run steps through time; on the real clock the waits are real,
//! and the clock goes on while you read (a timer that fell due meanwhile runs late).

pub mod panel;
mod terminal;

use std::rc::Rc;
use std::time::Duration;

use crate::console;
use crate::event::Event;
use crate::record::{self, Record};
use crate::steps;
use crate::why::Snapshot;

use panel::View;
use terminal::{Key, Terminal};

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
        seen: Vec::new(),
        lines: Vec::new(),
        iteration: None,
        output: None,
    };
    let start = View {
        step: None,
        at: Duration::ZERO,
        clock: stepper.clock,
        before: &[],
        live: None,
        line: "(before the first step)",
        state: None,
        output: None,
    };
    loop {
        match wait(&mut stepper.terminal, &start) {
            Key::Step => break,
            Key::Back | Key::Redraw => {} // nothing before the start
            Key::Continue => return,      // the stepper is dropped: the terminal is put back
            Key::Quit => quit(stepper),
        }
    }
    let mut stepper = Some(stepper);
    record::set_hook(Some(Box::new(move |step, record| {
        let Some(now) = stepper.as_mut() else {
            return false;
        };
        match now.pause(step, record) {
            Key::Step | Key::Back | Key::Redraw => true,
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
    /// Every step shown so far, to go back to: step `i` is `seen[i]`.
    seen: Vec<Seen>,
    /// Their lines (the trace panel's), step `i`'s at `lines[i]`.
    lines: Vec<String>,
    /// Stage 5's iteration, as the trace prefixes it.
    iteration: Option<u64>,
    /// The program's last line.
    output: Option<Rc<str>>,
}

/// One step as it was shown: enough to show it again.
struct Seen {
    at: Duration,
    state: Option<Rc<Snapshot>>,
    output: Option<Rc<str>>,
}

impl Stepper {
    /// Draw step `index` (counted from 0, as the recording and the book count) and wait;
    /// `b` and Enter move through the steps kept, and the key that leaves the step this
    /// run is at is returned.
    fn pause(&mut self, index: usize, record: &Record) -> Key {
        let event = &record.event;
        // As the steps' JSON does (`steps::to_json`): an iteration numbers its own line.
        if let Event::Iteration(n) = *event {
            self.iteration = Some(n);
        }
        let line = line(self.iteration, event);
        if let Event::Say(said) = event {
            self.output = Some(said.as_str().into());
        }
        if let Event::Done { .. } = event {
            self.iteration = None;
        }
        // The recording numbers its records from 0 and shows each to the hook once: the
        // steps kept here are numbered as it numbers them.
        self.lines.truncate(index);
        self.seen.truncate(index);
        while self.seen.len() < index {
            // Not shown to us (none are, today): kept as a step with nothing known of it.
            self.lines
                .push("(a step not shown while stepping)".to_owned());
            let (at, state, output) = (record.at, None, None);
            self.seen.push(Seen { at, state, output });
        }
        self.lines.push(line);
        self.seen.push(Seen {
            at: record.at,
            state: record.state.clone(),
            output: self.output.clone(),
        });
        let mut shown = self.seen.len() - 1;
        loop {
            let seen = &self.seen[shown];
            let view = View {
                step: Some(shown),
                at: seen.at,
                clock: self.clock,
                before: &self.lines[..shown],
                live: (shown < index).then_some(index),
                line: &self.lines[shown],
                state: seen.state.as_deref(),
                output: seen.output.as_deref(),
            };
            match wait(&mut self.terminal, &view) {
                Key::Back => shown = shown.saturating_sub(1),
                Key::Step if shown + 1 < self.seen.len() => shown += 1,
                key => return key,
            }
        }
    }
}

/// Draw `view` until a key other than a resize comes.
fn wait(terminal: &mut Terminal, view: &View<'_>) -> Key {
    loop {
        let (width, height) = terminal.size();
        if terminal.draw(&panel::render(view, width, height)).is_err() {
            return Key::Quit; // the terminal takes nothing more: nobody can step
        }
        match terminal.key((width, height)) {
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
