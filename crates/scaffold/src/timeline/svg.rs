//! Drawing a [`Timeline`] as SVG text (book introduction, "Timelines"). No public source.
//!
//! Written by hand rather than with a plotting crate: the picture is a few rectangles,
//! circles, lines and words, and SVG is text. Drawing it here keeps the output exactly
//! reproducible (the committed pictures are compared byte for byte), with no dependency.
//!
//! The picture is 750 px wide, the width of the book's text column. The plot begins right
//! of the longest row label (at most at `X0_MAX`), so that a label is cut only when it
//! could not fit; the charts are drawn in `svg/chart.rs`, the legend in `svg/legend.rs`.
//! Its colours come from classes in an embedded style sheet, with a second palette under
//! `prefers-color-scheme: dark`, and it paints its own background, so it stays readable
//! whichever theme the page around it uses.

use std::fmt::Write;
use std::time::Duration;

use super::model::{Arrow, Bar, BarKind, Lane, Timeline};
use super::style::{STYLE, clip, escape, fan, tick_step};

mod chart;
mod legend;
mod pair;

pub use pair::render_pair;

const WIDTH: f64 = 750.0;
const X0: f64 = 170.0; // where time 0 is drawn, at the least; lane names to the left
/// Where time 0 is drawn at the most: right of the longest row label that fits.
const X0_MAX: f64 = 300.0;
/// A row label's room per character: a little more than the style's 11 px font needs.
const LABEL_CHAR: f64 = 6.0;
const X1: f64 = 735.0;
const LABEL_X: f64 = 44.0; // where a row's label begins, right of its name
const TOP: f64 = 30.0;
const LANE: f64 = 22.0;
const CHART: f64 = 34.0;
/// The least distance between two wake arrows: a little more than an arrowhead's 9 px.
const ARROW_GAP: f64 = 10.0;

struct Canvas {
    out: String,
    span: f64, // seconds from the left edge of the plot to the right
    x0: f64,   // the plot's left edge, where time 0 is drawn
}

impl Canvas {
    /// Where the time `secs` seconds after the start is drawn.
    fn x_secs(&self, secs: f64) -> f64 {
        self.x0 + secs / self.span * (X1 - self.x0)
    }

    fn x(&self, at: Duration) -> f64 {
        self.x_secs(at.as_secs_f64())
    }

    fn lane(&mut self, lane: &Lane, y: f64, idle: bool) {
        let mid = y + LANE / 2.0;
        let out = &mut self.out;
        // `write!` into a String cannot fail: the results below are unwrapped by `ok()`.
        writeln!(
            out,
            r#"<line class="grid" x1="{}" y1="{mid}" x2="{X1}" y2="{mid}"/>"#,
            self.x0
        )
        .ok();
        writeln!(
            out,
            r#"<text class="name" x="8" y="{:.1}">{}</text>"#,
            mid + 4.0,
            escape(&lane.name)
        )
        .ok();
        if let Some(label) = &lane.label {
            let label = escape(&clip(label, label_chars(X0_MAX)));
            writeln!(
                out,
                r#"<text class="muted" x="{LABEL_X}" y="{:.1}">{label}</text>"#,
                mid + 4.0
            )
            .ok();
        }
        for bar in &lane.bars {
            self.bar(bar, mid, idle);
        }
        for &at in &lane.runs {
            let x = self.x(at);
            writeln!(
                self.out,
                r#"<circle class="run" cx="{x:.1}" cy="{mid}" r="3.5"/>"#
            )
            .ok();
        }
        if let Some(at) = lane.finished {
            let x = self.x(at) + 5.0;
            writeln!(
                self.out,
                r#"<line class="end" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}"/>"#,
                mid - 6.0,
                mid + 6.0
            )
            .ok();
        }
    }

    fn bar(&mut self, bar: &Bar, mid: f64, idle: bool) {
        let class = match (idle, bar.kind) {
            (true, BarKind::Sleep) => "idle-sleep",
            (true, _) => "idle-io",
            (false, BarKind::Sleep) => "sleep",
            (false, BarKind::Queue) => "queue",
            (false, BarKind::Io) => "io",
            (false, BarKind::Wait) => "wait",
        };
        let (mut from, mut to) = (self.x(bar.from), self.x(bar.to));
        if to - from > 8.0 {
            // A little gap at each end, so that back-to-back sleeps stay two bars.
            from += 2.0;
            to -= 2.0;
        }
        let width = (to - from).max(1.0);
        writeln!(
            self.out,
            r#"<rect class="{class}" x="{from:.1}" y="{:.1}" width="{width:.1}" height="10" rx="2"/>"#,
            mid - 5.0
        )
        .ok();
    }

    fn axis(&mut self, y: f64, end: f64) {
        let step = tick_step(end);
        let decimals = if step >= 1.0 {
            0
        } else if step >= 0.1 {
            1
        } else {
            3
        };
        let mut i = 0;
        loop {
            let t = step * i as f64;
            if t > end + step * 1e-6 {
                break;
            }
            let x = self.x_secs(t);
            let out = &mut self.out;
            writeln!(
                out,
                r#"<line class="grid" x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}"/>"#,
                y + 4.0
            )
            .ok();
            writeln!(out, r#"<text class="muted" x="{x:.1}" y="{:.1}" text-anchor="middle">{t:.decimals$} s</text>"#, y + 16.0).ok();
            i += 1;
        }
    }
}

/// Where each wake arrow is drawn across (see [`fan`]).
fn arrow_xs(canvas: &Canvas, arrows: &[Arrow]) -> Vec<f64> {
    fan(arrows.iter().map(|arrow| canvas.x(arrow.at)), ARROW_GAP)
}

/// The empty canvas `timeline` is drawn on: its span of time fixes where each moment is.
fn canvas(timeline: &Timeline) -> Canvas {
    let end = timeline.end.as_secs_f64().max(0.001);
    let mut canvas = Canvas {
        out: String::new(),
        span: end * 1.02, // a little room after the last event
        x0: plot_left(timeline),
    };
    // Wakes at the run's last moment fan out to the right: widen the span until they fit.
    for _ in 0..4 {
        let last = arrow_xs(&canvas, &timeline.arrows).last().copied();
        let over = last.map_or(0.0, |x| x - (X1 + 2.0));
        if over <= 0.0 {
            break;
        }
        canvas.span *= (X1 - canvas.x0) / (X1 - canvas.x0 - over);
    }
    canvas
}

/// How many characters of a row label fit left of a plot that begins at `x0`.
fn label_chars(x0: f64) -> usize {
    ((x0 - LABEL_X - 12.0) / LABEL_CHAR) as usize
}

/// Where the plot begins: right of the longest row label, so that no label is cut unless
/// it is longer than fits left of [`X0_MAX`].
fn plot_left(timeline: &Timeline) -> f64 {
    let longest = timeline.lanes.iter().chain([&timeline.scheduler]);
    let longest = longest.filter_map(|lane| lane.label.as_ref());
    let chars = longest
        .map(|label| label.chars().count())
        .max()
        .unwrap_or(0);
    let x0 = X0
        .max(LABEL_X + 12.0 + chars as f64 * LABEL_CHAR)
        .min(X0_MAX);
    x0.round()
}

/// Where [`render`] draws the moment `at` of `timeline`, in the picture's pixels: a
/// stepper's cursor stands there.
pub fn x_of(timeline: &Timeline, at: Duration) -> f64 {
    canvas(timeline).x(at)
}

/// The timeline as a complete SVG document, titled `title`.
pub fn render(title: &str, timeline: &Timeline, note: Option<&str>) -> String {
    render_on(canvas(timeline), title, timeline, note)
}

/// [`render`] on a given canvas: its span and left edge fix where each moment is drawn.
fn render_on(mut canvas: Canvas, title: &str, timeline: &Timeline, note: Option<&str>) -> String {
    let end = timeline.end.as_secs_f64().max(0.001);
    let rows = timeline.lanes.len() + 1;
    let axis = TOP + rows as f64 * LANE + 4.0;
    let charts = axis + 26.0;
    let legend = charts + 2.0 * (CHART + 8.0) + 18.0;
    let height = legend + 12.0;
    let out = &mut canvas.out;
    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" role="img" aria-label="{}">"#,
        escape(title)
    )
    .ok();
    writeln!(out, "<title>{}</title>", escape(title)).ok();
    writeln!(out, "<style>{STYLE}</style>").ok();
    out.push_str(concat!(
        "<defs>",
        r#"<pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">"#,
        r#"<line class="hatch" x1="0" y1="0" x2="0" y2="5"/></pattern>"#,
        r#"<marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto-start-reverse">"#,
        r#"<path class="head" d="M0 0 L8 4 L0 8 z"/></marker>"#,
        "</defs>\n"
    ));
    writeln!(
        out,
        r#"<rect class="bg" x="0.5" y="0.5" width="{:.0}" height="{:.0}" rx="6"/>"#,
        WIDTH - 1.0,
        height - 1.0
    )
    .ok();
    writeln!(
        out,
        r#"<text class="title" x="8" y="19">{}</text>"#,
        escape(title)
    )
    .ok();
    if let Some(note) = note {
        writeln!(
            out,
            r#"<text class="muted" x="{X1}" y="19" text-anchor="end">{}</text>"#,
            escape(note)
        )
        .ok();
    }
    canvas.axis(axis, end);
    for &at in &timeline.iterations {
        let x = canvas.x(at);
        writeln!(
            canvas.out,
            r#"<line class="grid" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}"/>"#,
            TOP + 3.0,
            TOP + 7.0
        )
        .ok();
    }
    canvas.lane(&timeline.scheduler, TOP, true);
    for (i, lane) in timeline.lanes.iter().enumerate() {
        canvas.lane(lane, TOP + (i + 1) as f64 * LANE, false);
    }
    let mid = |lane: Option<usize>| TOP + lane.map_or(0.0, |i| (i + 1) as f64) * LANE + LANE / 2.0;
    let xs = arrow_xs(&canvas, &timeline.arrows);
    for (arrow, x) in timeline.arrows.iter().zip(xs) {
        let (from, to) = (mid(arrow.from), mid(Some(arrow.to)));
        let to = if to > from { to - 5.0 } else { to + 5.0 };
        writeln!(canvas.out, r#"<line class="wake" x1="{x:.1}" y1="{from:.1}" x2="{x:.1}" y2="{to:.1}" marker-end="url(#arrow)"/>"#).ok();
    }
    canvas.chart("ready queue", "ready", &timeline.ready, charts);
    canvas.chart(
        "timer heap",
        "timers",
        &timeline.timers,
        charts + CHART + 8.0,
    );
    canvas.legend(legend);
    canvas.out.push_str("</svg>\n");
    canvas.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_timeline_is_still_a_picture() {
        let svg = render("nothing", &Timeline::default(), None);
        assert!(
            svg.starts_with("<svg ") && svg.ends_with("</svg>\n"),
            "{svg}"
        );
    }

    #[test]
    fn a_long_row_label_moves_the_plot_right_and_is_drawn_whole() {
        let label = "-- 2. a trampoline, stopped after 3 s";
        let lane = |label: &str| Lane {
            label: Some(label.to_owned()),
            ..Lane::default()
        };
        let short = Timeline {
            lanes: vec![lane("Down 5")],
            end: Duration::from_secs(1),
            ..Timeline::default()
        };
        let long = Timeline {
            lanes: vec![lane("Down 5"), lane(label)],
            ..short.clone()
        };
        assert_eq!(x_of(&short, Duration::ZERO), X0);
        let x0 = x_of(&long, Duration::ZERO);
        assert!(x0 >= LABEL_X + label.len() as f64 * LABEL_CHAR, "{x0}");
        let svg = render("labels", &long, None);
        assert!(svg.contains(&format!(">{label}</text>")), "{svg}");
        // One longer than fits left of X0_MAX is cut there.
        let longer = label.repeat(2);
        let cut = Timeline {
            lanes: vec![lane(&longer)],
            ..short
        };
        assert_eq!(x_of(&cut, Duration::ZERO), X0_MAX);
        assert!(render("cut", &cut, None).contains("…</text>"));
    }

    #[test]
    fn wakes_at_one_moment_fan_out_and_fit_in_the_plot() {
        let s = Duration::from_secs;
        let wake = |at, to| Arrow { at, from: None, to };
        let timeline = Timeline {
            lanes: vec![Lane::default(); 3],
            // Two at 1 s, three at the very end, as the scripted echo server's run has.
            arrows: vec![
                wake(s(1), 0),
                wake(s(1), 1),
                wake(s(4), 2),
                wake(s(4), 0),
                wake(s(4), 1),
            ],
            end: s(4),
            ..Timeline::default()
        };
        let svg = render("fan", &timeline, None);
        let xs: Vec<f64> = svg
            .lines()
            .filter_map(|line| line.strip_prefix(r#"<line class="wake" x1=""#))
            .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(xs.len(), 5, "{svg}");
        for pair in xs.windows(2) {
            assert!(pair[1] - pair[0] >= ARROW_GAP - 0.1, "{xs:?}");
        }
        assert!(xs[4] <= X1 + 2.1, "the last fan leaves the plot: {xs:?}");
    }
}
