//! `watch`: run the current exercise each time its file is saved, until it passes, then go
//! on to the next (book introduction, "Exercises"; the project's own). Three things wake
//! it, each from a thread of its own into one channel: the file's changes, a line typed on
//! standard input (Enter runs it now, `h` shows the hint, `q` quits), and Ctrl-C.
//!
//! File changes come from `notify`, the file-watching crate that cargo-watch, rustlings
//! and mdbook's `serve` use: kept up to date, one API over inotify, FSEvents, kqueue and
//! Windows, and few dependencies of its own. The loop itself, [`session`], is given its
//! inputs and the way to run an exercise, so that a test drives it with a real watcher on
//! a copy of an exercise's file and no cargo.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;

use exercises::catalog::{CATALOG, Exercise};
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::cargo::Runner;
use crate::outcome::Outcome;
use crate::report;

/// What can wake the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file was written (or replaced: editors often save by renaming a new file over it).
    Saved(PathBuf),
    /// Enter: run the exercise now.
    Run,
    /// `h`: show its hint.
    Hint,
    /// `q`, or Ctrl-C.
    Quit,
    /// Anything else typed.
    Other(String),
}

/// How a session ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// Every exercise is done.
    AllDone,
    /// The learner quit.
    Quit,
}

/// Watch the exercises of the runner's crate, on the terminal: from the first not done, or
/// from `from` on.
pub fn watch(
    runner: &Runner,
    from: Option<&'static Exercise>,
    out: &mut dyn Write,
) -> io::Result<End> {
    let root = runner.dir().canonicalize()?;
    let (tx, inputs) = mpsc::channel();
    // Kept until the session ends: dropping the watcher stops the events.
    let _watcher = file_events(&root.join("src"), tx.clone()).map_err(io::Error::other)?;
    quit_on_ctrl_c(tx.clone())?;
    read_keys(tx);
    let exercises = order(CATALOG, from);
    let mut run = |chosen: &[&'static Exercise]| runner.run(chosen);
    session(
        &exercises,
        &root,
        &mut run,
        &inputs,
        runner.solutions(),
        out,
    )
}

/// The exercises in the order `watch` takes them: the book's, or from `from` on, then the
/// ones before it, so that `watch 2.1` starts at 2.1 (or the first not done after it) and
/// still ends only when every exercise is done.
pub fn order(
    catalog: &'static [Exercise],
    from: Option<&'static Exercise>,
) -> Vec<&'static Exercise> {
    let start = from
        .and_then(|from| catalog.iter().position(|e| e.id == from.id))
        .unwrap_or(0);
    catalog[start..].iter().chain(&catalog[..start]).collect()
}

/// Send an [`Input::Saved`] for each file under `dir` that is written, until the watcher
/// returned is dropped.
pub fn file_events(dir: &Path, tx: Sender<Input>) -> notify::Result<RecommendedWatcher> {
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // An error here is the watcher's own (an event queue that overflowed, say): the
        // next save still comes, and Enter runs the exercise meanwhile.
        if let Ok(event) = event
            && is_a_write(&event.kind)
        {
            for path in event.paths {
                // Fails only once the session is over and nobody listens.
                let _ = tx.send(Input::Saved(path));
            }
        }
    })?;
    watcher.watch(dir, RecursiveMode::Recursive)?;
    Ok(watcher)
}

/// True for the events a save makes. Not for a file opened or read (cargo reads every
/// source file it builds: re-running on that would never stop), nor for its metadata.
fn is_a_write(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        _ => false,
    }
}

/// Ctrl-C sends [`Input::Quit`]; a second one, if the first did not end it, exits at once
/// with 130, the shell's code for an interrupted program.
fn quit_on_ctrl_c(tx: Sender<Input>) -> io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT])?;
    thread::spawn(move || {
        for (count, _) in signals.forever().enumerate() {
            if count > 0 || tx.send(Input::Quit).is_err() {
                std::process::exit(130);
            }
        }
    });
    Ok(())
}

/// Each line typed becomes an input. At the end of standard input (none, or closed) the
/// thread ends, and the other inputs go on.
fn read_keys(tx: Sender<Input>) {
    thread::spawn(move || {
        for line in io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let input = match line.trim() {
                "" => Input::Run,
                "h" | "hint" => Input::Hint,
                "q" | "quit" => Input::Quit,
                other => Input::Other(other.to_owned()),
            };
            if tx.send(input).is_err() {
                break;
            }
        }
    });
}

/// The loop: run every exercise, show the first not done, then run it again each time
/// its file (under `root`) is saved, until it passes; then the same for the next. `run`
/// runs the exercises it is given and returns their outcomes, in order.
pub fn session(
    exercises: &[&'static Exercise],
    root: &Path,
    run: &mut dyn FnMut(&[&'static Exercise]) -> io::Result<Vec<Outcome>>,
    inputs: &Receiver<Input>,
    solutions: bool,
    out: &mut dyn Write,
) -> io::Result<End> {
    let mut pending = VecDeque::new();
    loop {
        let outcomes = run(exercises)?;
        if quit_came(inputs, &mut pending) {
            writeln!(out, "\nStopped.")?;
            return Ok(End::Quit);
        }
        // The first not done that this machine can run (one it cannot would wait for ever).
        let first = exercises
            .iter()
            .zip(&outcomes)
            .find(|(_, o)| !o.passed() && !o.not_run());
        let Some((&current, outcome)) = first else {
            report::tally(out, &outcomes, solutions)?;
            report::all_done(out, &outcomes)?;
            return Ok(End::AllDone);
        };
        writeln!(out)?;
        report::heading(out, current)?;
        report::outcome(out, current, outcome, solutions)?;
        report::tally(out, &outcomes, solutions)?;
        let mut compiles = !matches!(outcome, Outcome::DidNotCompile(_));
        loop {
            // While the crate does not compile, the error may be in any of its files.
            let (watched, what) = if compiles {
                let file = format!("{}/{}", report::CRATE, current.file);
                (root.join(current.file), file)
            } else {
                let any = format!("{}/src/, any file", report::CRATE);
                (root.join("src"), any)
            };
            writeln!(
                out,
                "\nWatching {what}: save it to run exercise {} again \
                 (Enter: run it now, h: a hint, q: quit).",
                current.id
            )?;
            out.flush()?;
            match next(inputs, &mut pending, &watched) {
                Input::Quit => {
                    // On a line of its own: the terminal may have echoed `^C`.
                    writeln!(out, "\nStopped at exercise {}.", current.id)?;
                    return Ok(End::Quit);
                }
                Input::Hint => {
                    report::hint(out, current)?;
                    continue;
                }
                Input::Other(typed) => {
                    writeln!(out, "`{typed}`? Enter runs it, h shows a hint, q quits.")?;
                    continue;
                }
                Input::Run | Input::Saved(_) => {}
            }
            writeln!(out, "\nRunning exercise {}...", current.id)?;
            let outcome = run(&[current])?.pop().unwrap_or_else(|| {
                Outcome::NoResult("the runner got no outcome for it".to_owned())
            });
            if quit_came(inputs, &mut pending) {
                writeln!(out, "\nStopped at exercise {}.", current.id)?;
                return Ok(End::Quit);
            }
            report::outcome(out, current, &outcome, solutions)?;
            compiles = !matches!(outcome, Outcome::DidNotCompile(_));
            if outcome.passed() {
                writeln!(out, "On to the next exercise.")?;
                break;
            }
        }
    }
}

/// The next input that asks for something: a save of the file `watched`, or of a file in
/// the directory `watched` (once the writes have settled, so that one save is one run), or
/// a key. All senders gone is a quit.
fn next(inputs: &Receiver<Input>, pending: &mut VecDeque<Input>, watched: &Path) -> Input {
    loop {
        let input = match pending.pop_front() {
            Some(input) => input,
            None => match inputs.recv() {
                Ok(input) => input,
                Err(_) => return Input::Quit,
            },
        };
        match input {
            Input::Saved(path) if path.starts_with(watched) => {
                settle(inputs, pending);
                return Input::Run;
            }
            Input::Saved(_) => {} // another file: not the exercise being watched
            other => return other,
        }
    }
}

/// Let a save's writes settle (an editor may write a file in several steps): swallow the
/// saves that follow within 200 ms of each other, for at most 25 of them; keep the keys.
fn settle(inputs: &Receiver<Input>, pending: &mut VecDeque<Input>) {
    for _ in 0..25 {
        match inputs.recv_timeout(Duration::from_millis(200)) {
            Ok(Input::Saved(_)) => {}
            Ok(key) => pending.push_back(key),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// True if a quit came, while the last run ran (Ctrl-C in a terminal stops the `cargo test`
/// it ran, too: its outcome means nothing then). The other inputs wait their turn.
fn quit_came(inputs: &Receiver<Input>, pending: &mut VecDeque<Input>) -> bool {
    pending.extend(inputs.try_iter());
    pending.contains(&Input::Quit)
}

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
