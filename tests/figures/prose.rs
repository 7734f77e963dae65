//! A page's prose, as a reader reads it: what is left once the generated part, code
//! blocks, includes, comments, marks, code spans and link targets are taken out. The
//! figures test counts its words and looks in it for a measured figure typed by hand.

use super::marks::{BEGIN, END};

/// Each line of prose with its line number; tables kept (`tables`) or left out.
pub fn lines(page: &str, tables: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut generated = false;
    for (n, line) in page.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with(BEGIN) {
            generated = true;
        }
        if generated {
            generated = !trimmed.starts_with(END);
            continue;
        }
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || trimmed.starts_with("{{#") || (!tables && trimmed.starts_with('|')) {
            continue;
        }
        out.push((n + 1, strip(line)));
    }
    out
}

/// A line without marks (figure and all), comments, code spans and link targets.
fn strip(line: &str) -> String {
    let mut text = line.to_owned();
    for (open, close) in [("<!--fig ", "<!--/fig-->"), ("<!--", "-->"), ("](", ")")] {
        while let Some(start) = text.find(open) {
            let Some(len) = text[start..].find(close) else {
                break;
            };
            let keep = if open == "](" { "]" } else { " " };
            text.replace_range(start..start + len + close.len(), keep);
        }
    }
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(part);
        } else {
            out.push_str(" code ");
        }
    }
    out
}

/// The prose's words (tables, code and generated text left out).
pub fn words(page: &str) -> usize {
    lines(page, false)
        .iter()
        .map(|(_, l)| l.split_whitespace().count())
        .sum()
}

/// Units that make a number a measurement, not a size the workload was given.
const UNITS: &[&str] = &["×", "%", "ns", "µs", "times"];

/// Every number in the prose (tables included) that reads as a measured figure but is not
/// in a mark: a decimal, or a number followed by a ratio's or a time's unit. Names with
/// digits (`W1`, `stage5`, `p99`), versions (`3.11.7`, Python 3.11, Linux 5.14) and
/// exercises' numbers (`Try it: 10.1`, `Build it: 10.3`) are not figures.
pub fn unmarked(page: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in lines(page, true) {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if !chars[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || ((chars[i] == '.' || chars[i] == ',')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let before: String = chars[start.saturating_sub(7)..start].iter().collect();
            let name = start > 0 && (chars[start - 1].is_alphanumeric() || chars[start - 1] == '_')
                || ["Python ", "Linux ", " it: "]
                    .iter()
                    .any(|v| before.ends_with(v));
            let token: String = chars[start..i].iter().collect();
            let version = token.matches('.').count() > 1;
            let after: String = chars[i..].iter().collect();
            let after = after.trim_start();
            let unit = UNITS.iter().any(|u| {
                after.strip_prefix(u).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_alphanumeric()) || *u == "×"
                })
            });
            if !name && !version && (token.contains('.') || unit) {
                out.push((n, token));
            }
        }
    }
    out
}
