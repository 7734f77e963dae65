//! `--step`'s panels, drawn from one step (book introduction, "Watching a run", "Stepping
//! in the terminal"). No seed section: the project's own instrument.
//!
//! [`render`] is a pure function of a [`View`] and the terminal's size: the lines to draw,
//! none wider than the terminal and no more of them than it has rows. The ready queue, the
//! heap and the waits take the rows they need (sharing them when they do not all fit, a
//! list that does not fit ending with `+N more`), and the trace takes every row left: the
//! steps before this one, as many as fit, [`BEFORE`] at least. The lines are ASCII apart
//! from what the program itself says, so that they look the same in any terminal and
//! locale.

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
    /// The lines of the steps before it, from step 0 on: step `i`'s line is `before[i]`.
    pub before: &'a [String],
    /// When this step is one gone back to: the step the run is paused at.
    pub live: Option<usize>,
    /// This step's line: its trace line, or what it is when the trace prints none.
    pub line: &'a str,
    /// The scheduler's state after the step, if it said.
    pub state: Option<&'a Snapshot>,
    /// The last line the program said, up to this step.
    pub output: Option<&'a str>,
}

/// The keys, as the first line names them.
pub const KEYS: &str = "Enter: next step   b: back   c: continue to the end   q: quit";

/// How many earlier steps the trace shows at least, rows allowing.
pub const BEFORE: usize = 4;

/// The lines to draw for `view` on a terminal `width` columns wide and `height` rows high.
pub fn render(view: &View<'_>, width: usize, height: usize) -> Vec<String> {
    let step = match (view.step, view.live) {
        (Some(n), Some(live)) => format!("step {n} (back from {live})"),
        (Some(n), None) => format!("step {n}"),
        (None, _) => "before step 0".to_owned(),
    };
    let header = format!(
        "{step}   clock {:.3} s ({})   {KEYS}",
        view.at.as_secs_f64(),
        view.clock
    );
    let number = view.step.map(|n| n.to_string()).unwrap_or_default();
    let current = format!("> {number:>5}  {}", view.line);
    let Some(state) = view.state else {
        let said = if view.step.is_none() {
            "  the program has not started: Enter runs it to its first step".to_owned()
        } else {
            "  no state at this step".to_owned()
        };
        let tail = vec![title("scheduler", width), said];
        // Header, the trace's title, its current line, the tail and the last output (2).
        let rows = height.saturating_sub(3 + tail.len() + 2);
        return finish(
            trace(header, view, current, rows, width),
            tail,
            view,
            width,
            height,
        );
    };
    let running = match &state.running {
        Some(entry) => format!("  {}{}", entry.id, why(&entry.why)),
        None => "  nothing runs now".to_owned(),
    };
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
    // Always drawn: the header, the trace's title and current line, `running` (2), each
    // list's title and first row, the last output (2); then the earlier steps, BEFORE of
    // them at least, where they fit.
    let fixed = 3 + 2 + lists.len() * 2 + 2;
    let least = view.before.len().min(BEFORE);
    let spare = height.saturating_sub(fixed + least);
    // A list needs a row per entry, and one for `+N more` when the state lists only its first.
    let needs = lists
        .each_ref()
        .map(|(_, shown, len)| (*len).min(shown.len() + 1));
    let rows = share(&needs, spare);
    let given: usize = rows.iter().sum();
    let mut tail = vec![title("running", width), running];
    for ((name, shown, len), rows) in lists.into_iter().zip(rows) {
        tail.push(title(&name, width));
        tail.extend(cut(shown, len, rows + 1));
    }
    let earlier = least + spare - given;
    finish(
        trace(header, view, current, earlier, width),
        tail,
        view,
        width,
        height,
    )
}

/// The header, then the trace: the last `rows` steps before this one, and this one.
fn trace(
    header: String,
    view: &View<'_>,
    current: String,
    rows: usize,
    width: usize,
) -> Vec<String> {
    let mut lines = vec![header, title("trace", width)];
    let from = view.before.len().saturating_sub(rows);
    for (step, line) in view.before.iter().enumerate().skip(from) {
        lines.push(format!("  {step:>5}  {line}"));
    }
    lines.push(current);
    lines
}

/// The trace, the scheduler's `tail`, the last output line, then every line cut to the
/// terminal.
fn finish(
    mut lines: Vec<String>,
    tail: Vec<String>,
    view: &View<'_>,
    width: usize,
    height: usize,
) -> Vec<String> {
    lines.extend(tail);
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

    fn view<'a>(state: Option<&'a Snapshot>, before: &'a [String]) -> View<'a> {
        View {
            step: Some(before.len()),
            at: Duration::ZERO,
            clock: "virtual",
            before,
            live: None,
            line: "call_later c3 in 4.000 s: due 4.000, seq 1",
            state,
            output: Some("Down 5"),
        }
    }

    /// The lines of `n` steps, step `i`'s saying `line i`.
    fn steps(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("line {i}")).collect()
    }

    #[test]
    fn a_step_shows_its_line_what_runs_what_waits_and_why() {
        let state = snapshot();
        let mut before = steps(5);
        before.push("| Down 5".to_owned());
        let lines = render(&view(Some(&state), &before), 100, 40);
        let title = |name: &str| format!("{:-<100}", format!("-- {name} "));
        let mut expected = vec![
            format!("step 6   clock 0.000 s (virtual)   {KEYS}"),
            title("trace"),
        ];
        expected.extend((0..5).map(|i| format!("  {i:>5}  line {i}")));
        expected.extend([
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
        ]);
        assert_eq!(lines, expected);
    }

    #[test]
    fn the_trace_fills_the_rows_the_lists_leave() {
        let state = snapshot();
        let before = steps(100);
        let lines = render(&view(Some(&state), &before), 100, 45);
        assert_eq!(lines.len(), 45, "{lines:#?}");
        // 13 rows for the rest (the header, two titles and the current line of the trace,
        // `running`, three lists of one row, the last output): 32 earlier steps fit.
        assert!(lines.contains(&"     68  line 68".to_owned()), "{lines:#?}");
        assert!(!lines.iter().any(|l| l.contains("line 67")), "{lines:#?}");
        assert_eq!(lines.last().map(String::as_str), Some("  Down 5"));
        // Without a state, the same: every row the scheduler's two lines leave.
        let lines = render(&view(None, &before), 100, 45);
        assert_eq!(lines.len(), 45, "{lines:#?}");
        assert!(lines.contains(&"     62  line 62".to_owned()), "{lines:#?}");
        // Fewer steps than rows: all of them, from step 0.
        let before = steps(3);
        let lines = render(&view(Some(&state), &before), 100, 45);
        assert_eq!(lines[2], "      0  line 0");
    }

    #[test]
    fn a_step_gone_back_to_says_where_the_run_is() {
        let before = steps(3);
        let back = View {
            live: Some(7),
            ..view(None, &before)
        };
        let lines = render(&back, 100, 20);
        assert!(
            lines[0].starts_with("step 3 (back from 7)   clock 0.000 s"),
            "{lines:#?}"
        );
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
        let before = steps(10);
        let lines = render(&view(Some(&state), &before), 60, 20);
        assert_eq!(lines.len(), 20);
        assert!(lines.iter().all(|l| l.len() <= 60), "{lines:#?}");
        assert!(lines.contains(&"  +37 more".to_owned()), "{lines:#?}");
        // The heap's one timer is shown whole: a short list is not cut for a long one.
        assert!(lines.iter().any(|l| l.contains("due 4.000 seq 1: c3")));
        // The trace keeps its four earlier steps, and the last output its place at the end.
        assert!(lines.contains(&"      6  line 6".to_owned()), "{lines:#?}");
        assert_eq!(lines.last().map(String::as_str), Some("  Down 5"));
    }

    #[test]
    fn a_line_wider_than_the_terminal_is_cut() {
        assert_eq!(fit("abcdefghij".to_owned(), 8), "abcde...");
        assert_eq!(fit("abc".to_owned(), 8), "abc");
    }
}
