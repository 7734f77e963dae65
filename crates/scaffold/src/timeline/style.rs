//! How the timeline looks: its style sheet (a light palette, and a dark one under
//! `prefers-color-scheme: dark`), the escaping and clipping of its words, and the spacing
//! of its time axis's ticks and of its arrows (book introduction, "Timelines"). No public
//! source: the project's own instrument.

/// The picture's style sheet: classes for every mark, in a light and a dark palette.
pub const STYLE: &str = "
text { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 11px; fill: #1f2328; }
.title { font-size: 13px; font-weight: 600; }
.name { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-weight: 600; }
.muted { fill: #57606a; }
.bg { fill: #ffffff; stroke: #d0d7de; }
.grid { stroke: #d8dee4; stroke-width: 1; }
.run { fill: #1a7f37; }
.end { stroke: #1f2328; stroke-width: 2; }
.sleep { fill: #b6d4fe; stroke: #5b9bf0; }
.queue { fill: url(#hatch); stroke: #bf8700; }
.hatch { stroke: #d4a72c; stroke-width: 1.5; }
.io { fill: #efe3ff; stroke: #8250df; stroke-dasharray: 4 2; }
.wait { fill: none; stroke: #57606a; stroke-dasharray: 1 2; }
.idle-sleep { fill: #eaeef2; stroke: #afb8c1; }
.idle-io { fill: #f6f0ff; stroke: #8250df; stroke-dasharray: 4 2; }
.wake { stroke: #cf222e; stroke-width: 1.5; fill: none; }
.head { fill: #cf222e; }
.ready { stroke: #1a7f37; stroke-width: 1.5; fill: none; }
.timers { stroke: #0969da; stroke-width: 1.5; fill: none; }
@media (prefers-color-scheme: dark) {
  text { fill: #e6edf3; }
  .muted { fill: #9198a1; }
  .bg { fill: #0d1117; stroke: #3d444d; }
  .grid { stroke: #30363d; }
  .run { fill: #3fb950; }
  .end { stroke: #e6edf3; }
  .sleep { fill: #1f3a5f; stroke: #4493f8; }
  .queue { stroke: #d29922; }
  .hatch { stroke: #9e6a03; }
  .io { fill: #2a1d4a; stroke: #ab7df8; }
  .wait { stroke: #9198a1; }
  .idle-sleep { fill: #21262d; stroke: #3d444d; }
  .idle-io { fill: #231a3a; stroke: #ab7df8; }
  .wake { stroke: #ff7b72; }
  .head { fill: #ff7b72; }
  .ready { stroke: #3fb950; }
  .timers { stroke: #4493f8; }
}
";

/// `text` with the five characters XML reserves escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text`, with `…` if cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// Where to draw marks that want to be at `xs` (in order, left to right) so that no two
/// are nearer than `gap`: each at its place, or `gap` right of the one before if that is
/// further right. Wake arrows at one moment (a `select` readies several tasks) so fan out
/// from it, and never reach back before it.
pub fn fan(xs: impl IntoIterator<Item = f64>, gap: f64) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for x in xs {
        out.push(out.last().map_or(x, |&previous| x.max(previous + gap)));
    }
    out
}

/// A tick spacing that gives at most a dozen ticks over `end` seconds.
pub fn tick_step(end: f64) -> f64 {
    let steps = [
        0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0,
    ];
    let mut scale = 1.0;
    loop {
        for step in steps {
            if end / (step * scale) <= 12.0 {
                return step * scale;
            }
        }
        scale *= 10.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_clipped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(clip("Producing 10", 20), "Producing 10");
        assert_eq!(clip("client got: Got:hello", 8), "client …");
    }

    #[test]
    fn marks_at_one_place_fan_out_and_others_stay_put() {
        let xs = fan([100.0, 100.0, 100.0, 200.0, 205.0], 10.0);
        assert_eq!(xs, [100.0, 110.0, 120.0, 200.0, 210.0]);
    }

    #[test]
    fn ticks_stay_few() {
        assert_eq!(tick_step(20.0), 2.0);
        assert_eq!(tick_step(10.0), 1.0);
        assert_eq!(tick_step(3.5), 0.5);
        assert_eq!(tick_step(300.0), 50.0);
    }
}
