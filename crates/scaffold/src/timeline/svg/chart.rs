//! The timeline picture's two charts, the ready queue's length and the timer heap's size
//! over time (book introduction, "Timelines"). No public source. A child of `svg`, which
//! draws the rest.

use std::fmt::Write;
use std::time::Duration;

use super::{CHART, Canvas, X1};

impl Canvas {
    /// A chart of `samples`, each held until the next, in its own row at height `y`.
    pub(super) fn chart(&mut self, name: &str, class: &str, samples: &[(Duration, usize)], y: f64) {
        let max = samples.iter().map(|s| s.1).max().unwrap_or(0);
        let base = y + CHART;
        let out = &mut self.out;
        writeln!(out, r#"<text x="8" y="{:.1}">{name}</text>"#, y + 14.0).ok();
        writeln!(
            out,
            r#"<text class="muted" x="8" y="{:.1}">max {max}</text>"#,
            y + 28.0
        )
        .ok();
        writeln!(
            out,
            r#"<line class="grid" x1="{}" y1="{base}" x2="{X1}" y2="{base}"/>"#,
            self.x0
        )
        .ok();
        if samples.is_empty() {
            return;
        }
        let scale = (CHART - 4.0) / max.max(1) as f64;
        let mut path = format!("M{:.1} {base:.1}", self.x0);
        let mut last = base;
        for &(at, value) in samples {
            let x = self.x(at);
            let v = base - value as f64 * scale;
            write!(path, " L{x:.1} {last:.1} L{x:.1} {v:.1}").ok();
            last = v;
        }
        write!(path, " L{X1:.1} {last:.1}").ok();
        writeln!(self.out, r#"<path class="{class}" d="{path}"/>"#).ok();
    }
}
