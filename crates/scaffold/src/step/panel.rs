//! `--step`'s panels, drawn from one step (book introduction, "Watching a run", "Stepping
//! in the terminal"). No seed section: the project's own instrument.
//!
//! [`render`] is a pure function of a [`View`] and the terminal's size: the lines to draw,
//! none wider than the terminal and no more of them than it has rows. The ready queue, the
//! heap and the waits share the rows left over, and a list that does not fit ends with
//! `+N more`. The lines are ASCII apart from what the program itself says, so that they
//! look the same in any terminal and locale.

use std::time::Duration;

use crate::why::{Cause, Snapshot};

/// What one pause shows.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The step, counted from 0 (`None`: the program has not started).
    pub step: Option<usize>,
    /// The clock's time at that step.
    pub at: Duration,
    /// `virtual` or `real`.
    pub clock: &'a str,
    /// The lines of the steps before it, oldest first, each with its step number.
    pub before: &'a [(usize, String)],
    /// This step's line: its trace line, or what it is when the trace prints none.
    pub line: &'a str,
    /// The scheduler's state after the step, if it said.
    pub state: Option<&'a Snapshot>,
    /// The last line the program said, up to this step.
    pub output: Option<&'a str>,
}

/// The keys, as the first line names them.
pub const KEYS: &str = "Enter: next step   c: continue to the end   q: quit";

/// The lines to draw for `view` on a terminal `width` columns wide and `height` rows high.
pub fn render(view: &View<'_>, width: usize, height: usize) -> Vec<String> {
    let step = match view.step {
        Some(n) => format!("step {n}"),
        None => "before step 0".to_owned(),
    };
    let mut lines = vec![format!(
        "{step}   clock {:.3} s ({})   {KEYS}",
        view.at.as_secs_f64(),
        view.clock
    )];
    lines.push(title("trace", width));
    for (step, line) in view.before {
        lines.push(format!("  {step:>5}  {line}"));
    }
    let number = view.step.map(|n| n.to_string()).unwrap_or_default();
    lines.push(format!("> {number:>5}  {}", view.line));
    let Some(state) = view.state else {
        lines.push(title("scheduler", width));
        lines.push(if view.step.is_none() {
            "  the program has not started: Enter runs it to its first step".to_owned()
        } else {
            "  no state at this step".to_owned()
        });
        return finish(lines, view, width, height);
    };
    lines.push(title("running", width));
    lines.push(match &state.running {
        Some(entry) => format!("  {}{}", entry.id, why(&entry.why)),
        None => "  nothing runs now".to_owned(),
    });
    let ready: Vec<String> = state
        .ready
        .iter()
        .enumerate()
        .map(|(i, e)| format!("  {:>2}. {}{}", i + 1, e.id, why(&e.why)))
        .collect();
    let timers: Vec<String> = state
        .timers
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (due, seq) = (t.timer.due.as_secs_f64(), t.timer.seq);
            format!(
                "  {:>2}. due {due:.3} seq {seq}: {}{}",
                i + 1,
                t.timer.id,
                why(&t.why)
            )
        })
        .collect();
    let waits: Vec<String> = state
        .waits
        .iter()
        .map(|w| format!("  {} waits for {}", w.id, w.on))
        .collect();
    let lists = [
        (
            format!("ready queue: {}", state.ready_len),
            ready,
            state.ready_len,
        ),
        (
            format!("timer heap: {}, in pop order", state.timers_len),
            timers,
            state.timers_len,
        ),
        (
            format!("waits: {}", state.waits.len()),
            waits,
            state.waits.len(),
        ),
    ];
    // What is left once everything else is drawn: each list's title and one row at least.
    let fixed = lines.len() + 2 + lists.len() * 2;
    // A list needs a row per entry, and one for `+N more` when the state lists only its first.
    let needs = lists
        .each_ref()
        .map(|(_, shown, len)| (*len).min(shown.len() + 1));
    let rows = share(&needs, height.saturating_sub(fixed));
    for ((name, shown, len), rows) in lists.into_iter().zip(rows) {
        lines.push(title(&name, width));
        lines.extend(cut(shown, len, rows + 1));
    }
    finish(lines, view, width, height)
}

/// The last output line, then every line cut to the terminal.
fn finish(mut lines: Vec<String>, view: &View<'_>, width: usize, height: usize) -> Vec<String> {
    lines.push(title("last output", width));
    lines.push(match view.output {
        Some(line) => format!("  {line}"),
        None => "  (nothing yet)".to_owned(),
    });
    lines.truncate(height);
    lines.into_iter().map(|l| fit(l, width)).collect()
}

/// ` <- call_later by c1 at step 5`: a cause, at the step it happened (counted from 0).
fn why(cause: &Option<Cause>) -> String {
    match cause {
        Some(c) => {
            let by = c.by.map(|id| format!(" by {id}")).unwrap_or_default();
            format!(" <- {}{by} at step {}", c.what, c.step)
        }
        None => String::new(),
    }
}

fn title(name: &str, width: usize) -> String {
    let head = format!("-- {name} ");
    let fill = width.saturating_sub(head.len());
    format!("{head}{}", "-".repeat(fill))
}

/// A list of `len` entries (the first of them in `shown`) in `rows` rows: `(empty)`, or as
/// many as fit and then `+N more`.
fn cut(mut shown: Vec<String>, len: usize, rows: usize) -> Vec<String> {
    if len == 0 {
        return vec!["  (empty)".to_owned()];
    }
    if shown.len() < len || shown.len() > rows {
        let keep = shown.len().min(rows.saturating_sub(1));
        shown.truncate(keep);
        shown.push(format!("  +{} more", len - keep));
    }
    shown
}

/// Share `spare` extra rows between lists of these lengths, one row at a time, so that a
/// short list is shown whole before a long one takes the rest.
fn share<const N: usize>(lens: &[usize; N], mut spare: usize) -> [usize; N] {
    let mut rows = [0; N];
    loop {
        let mut gave = false;
        for (row, &len) in rows.iter_mut().zip(lens) {
            if spare > 0 && *row + 1 < len {
                *row += 1;
                spare -= 1;
                gave = true;
            }
        }
        if !gave {
            return rows;
        }
    }
}

fn fit(line: String, width: usize) -> String {
    if line.chars().count() <= width {
        return line;
    }
    let mut cut: String = line.chars().take(width.saturating_sub(3)).collect();
    cut.push_str("...");
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Id;
    use crate::state::Timer;
    use crate::why::{Entry, TimerEntry};

    fn cause(what: &str, by: Option<Id>, step: usize) -> Option<Cause> {
        let what = what.to_owned();
        Some(Cause { what, by, step })
    }

    fn snapshot() -> Snapshot {
        let (c1, c2, c3) = (Id::Callback(1), Id::Callback(2), Id::Callback(3));
        Snapshot {
            running: Some(Entry {
                id: c1,
                why: cause("call_soon", None, 0),
            }),
            ready: vec![Entry {
                id: c2,
                why: cause("call_soon", None, 1),
            }],
            ready_len: 1,
            timers: vec![TimerEntry {
                timer: Timer {
                    due: Duration::from_secs(4),
                    seq: 1,
                    id: c3,
                },
                why: cause("call_later", Some(c1), 5),
            }],
            timers_len: 1,
            ..Snapshot::default()
        }
    }

    fn view<'a>(state: Option<&'a Snapshot>, before: &'a [(usize, String)]) -> View<'a> {
        View {
            step: Some(6),
            at: Duration::ZERO,
            clock: "virtual",
            before,
            line: "call_later c3 in 4.000 s: due 4.000, seq 1",
            state,
            output: Some("Down 5"),
        }
    }

    #[test]
    fn a_step_shows_its_line_what_runs_what_waits_and_why() {
        let state = snapshot();
        let before = [(5, "| Down 5".to_owned())];
        let lines = render(&view(Some(&state), &before), 100, 40);
        let title = |name: &str| format!("{:-<100}", format!("-- {name} "));
        let expected = [
            format!("step 6   clock 0.000 s (virtual)   {KEYS}"),
            title("trace"),
            "      5  | Down 5".to_owned(),
            ">     6  call_later c3 in 4.000 s: due 4.000, seq 1".to_owned(),
            title("running"),
            "  c1 <- call_soon at step 0".to_owned(),
            title("ready queue: 1"),
            "   1. c2 <- call_soon at step 1".to_owned(),
            title("timer heap: 1, in pop order"),
            "   1. due 4.000 seq 1: c3 <- call_later by c1 at step 5".to_owned(),
            title("waits: 0"),
            "  (empty)".to_owned(),
            title("last output"),
            "  Down 5".to_owned(),
        ];
        assert_eq!(lines, expected);
    }

    #[test]
    fn a_step_without_state_says_so() {
        let lines = render(&view(None, &[]), 80, 40);
        assert!(
            lines.contains(&"  no state at this step".to_owned()),
            "{lines:#?}"
        );
        let start = View {
            step: None,
            ..view(None, &[])
        };
        let lines = render(&start, 80, 40);
        assert!(
            lines.iter().any(|l| l.contains("has not started")),
            "{lines:#?}"
        );
    }

    #[test]
    fn long_lists_share_the_rows_and_say_how_many_more() {
        let mut state = snapshot();
        let entry = state.ready[0].clone();
        state.ready = vec![entry; 16];
        state.ready_len = 40;
        let lines = render(&view(Some(&state), &[]), 60, 20);
        assert_eq!(lines.len(), 20);
        assert!(lines.iter().all(|l| l.len() <= 60), "{lines:#?}");
        assert!(lines.contains(&"  +33 more".to_owned()), "{lines:#?}");
        // The heap's one timer is shown whole: a short list is not cut for a long one.
        assert!(lines.iter().any(|l| l.contains("due 4.000 seq 1: c3")));
    }

    #[test]
    fn a_line_wider_than_the_terminal_is_cut() {
        assert_eq!(fit("abcdefghij".to_owned(), 8), "abcde...");
        assert_eq!(fit("abc".to_owned(), 8), "abc");
    }
}
