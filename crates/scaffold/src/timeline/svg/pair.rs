//! Two runs in one picture, one above the other on one time scale (book chapter 10,
//! "Readiness against completion, drawn"). No public source: the project's own instrument.
//!
//! Each run is drawn as [`render`](super::render) draws it, on a canvas whose left edge and
//! span of time are the two runs' widest, so that a moment is at the same place in both;
//! the two documents are nested in one, the second under the first. The second's
//! definitions (the hatch and the arrowhead) are the first's: one document holds each id
//! once.

use std::fmt::Write;

use super::super::model::Timeline;
use super::super::style::escape;
use super::{Canvas, WIDTH, canvas, render_on};

/// The room between the two pictures.
const GAP: f64 = 8.0;

/// The two runs `parts` (each with its own title), the first above the second, as one SVG
/// document titled `title`.
pub fn render_pair(title: &str, parts: [(&str, &Timeline); 2]) -> String {
    let [a, b] = parts.map(|(_, timeline)| canvas(timeline));
    let (x0, span) = (a.x0.max(b.x0), a.span.max(b.span));
    let drawn = parts.map(|(part, timeline)| {
        let canvas = Canvas {
            out: String::new(),
            span,
            x0,
        };
        render_on(canvas, part, timeline, None)
    });
    let heights = drawn.each_ref().map(|svg| height(svg));
    let total = heights[0] + GAP + heights[1];
    let mut out = String::new();
    // `write!` into a String cannot fail: the results below are unwrapped by `ok()`.
    writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{total:.0}" viewBox="0 0 {WIDTH} {total:.0}" role="img" aria-label="{}">"#,
        escape(title)
    )
    .ok();
    writeln!(out, "<title>{}</title>", escape(title)).ok();
    let mut y = 0.0;
    for (i, svg) in drawn.iter().enumerate() {
        let svg = if i == 0 {
            svg.clone()
        } else {
            without_defs(svg)
        };
        let nested = svg.replacen(
            r#"<svg xmlns="http://www.w3.org/2000/svg" "#,
            &format!(r#"<svg x="0" y="{y:.0}" "#),
            1,
        );
        out.push_str(&nested);
        y += heights[i] + GAP;
    }
    out.push_str("</svg>\n");
    out
}

/// The height a drawn document says it has.
fn height(svg: &str) -> f64 {
    svg.split_once(r#" height=""#)
        .and_then(|(_, rest)| rest.split('"').next()?.parse().ok())
        .unwrap_or(0.0)
}

/// `svg` without its `<defs>` block.
fn without_defs(svg: &str) -> String {
    match (svg.find("<defs>"), svg.find("</defs>\n")) {
        (Some(start), Some(end)) if start < end => {
            format!("{}{}", &svg[..start], &svg[end + "</defs>\n".len()..])
        }
        _ => svg.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_make_one_document_with_each_id_once() {
        let timeline = Timeline::default();
        let svg = render_pair("both", [("above", &timeline), ("below", &timeline)]);
        assert!(svg.starts_with("<svg xmlns=") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<svg ").count(), 3, "{svg}");
        assert_eq!(svg.matches(r#"id="arrow""#).count(), 1, "{svg}");
        assert!(svg.contains(">above</text>") && svg.contains(">below</text>"));
        let one = height(&super::super::render("one", &timeline, None));
        assert_eq!(height(&svg), 2.0 * one + GAP);
        assert!(svg.contains(&format!(r#"<svg x="0" y="{:.0}" "#, one + GAP)));
    }
}
