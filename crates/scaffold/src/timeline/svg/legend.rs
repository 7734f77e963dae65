//! The timeline picture's legend: one swatch per mark, in the picture's own classes (book
//! introduction, "Timelines"). No public source. A child of `svg`, which draws the rest.

use std::fmt::Write;

use super::Canvas;

impl Canvas {
    /// The legend's row at height `y`.
    pub(super) fn legend(&mut self, y: f64) {
        let rect = |class| {
            format!(r#"<rect class="{class}" x="0" y="-9" width="22" height="10" rx="2"/>"#)
        };
        let items = [
            (
                r#"<circle class="run" cx="11" cy="-4" r="3.5"/>"#.to_owned(),
                "runs",
            ),
            (rect("sleep"), "sleeps"),
            (rect("queue"), "waits on a queue"),
            (rect("io"), "waits on a socket"),
            (
                r#"<line class="wake" x1="3" y1="-4" x2="19" y2="-4" marker-end="url(#arrow)"/>"#
                    .to_owned(),
                "wakes",
            ),
            (rect("idle-sleep"), "loop idle"),
        ];
        let mut x = 8.0;
        for (shape, word) in items {
            writeln!(self.out, r#"<g transform="translate({x:.1},{y:.1})">{shape}<text x="28" y="0">{word}</text></g>"#).ok();
            x += 36.0 + word.len() as f64 * 6.0;
        }
    }
}
