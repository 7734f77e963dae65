//! The figure marks of the book's back pages: a measured figure in prose is the cell of a
//! table that a run's committed data made, and says which.
//!
//! A mark wraps the figure as it reads:
//!
//! ```text
//! at <!--fig bench:W1:stage5:× floor-->1.73×<!--/fig--> the floor
//! ```
//!
//! names a source, a table, a row and a column. The source `bench` is the generated part of
//! `docs/src/benchmarks.md` (what `bench/run.sh` writes); any other source is a file
//! `bench/measured/SOURCE.md` that a generator wrote from the raw results beside it. A table
//! is named by its heading: the text before its first colon (the first word if it has none),
//! with ` C=N` added when the heading says `C = N`. A row is named by its first cells,
//! separated by `, `; a column by its header. The figure must be the cell, or the cell
//! without its bracketed range. So a table regenerated with other figures makes every mark
//! on it that no longer reads the same fail, until `UPDATE_FIGURES=1` rewrites the marks
//! (the words around them are the writer's to check).

/// One Markdown table under its heading.
#[derive(Clone, Debug)]
pub struct Table {
    pub id: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One mark in a page: where it is, what it names, and the figure it wraps.
#[derive(Debug)]
pub struct Mark {
    pub line: usize,
    pub source: String,
    pub key: String,
    pub text: String,
}

pub const BEGIN: &str = "<!-- BEGIN GENERATED";
pub const END: &str = "<!-- END GENERATED -->";
const OPEN: &str = "<!--fig ";
const CLOSE: &str = "<!--/fig-->";

/// The generated part of a page, markers included; empty if it has none.
pub fn generated(page: &str) -> &str {
    match (page.find(BEGIN), page.find(END)) {
        (Some(begin), Some(end)) if begin < end => &page[begin..end + END.len()],
        _ => "",
    }
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_owned()).collect()
}

/// A heading's table name: before the first colon (else the first word), plus ` C=N`.
pub fn table_id(heading: &str) -> String {
    let text = heading.trim_start_matches('#').trim();
    let mut id = match text.split_once(':') {
        Some((before, _)) => before.trim().to_owned(),
        None => text.split_whitespace().next().unwrap_or("").to_owned(),
    };
    if let Some((_, after)) = text.split_once("C = ") {
        let n: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(|c| *c != ',')
            .collect();
        id.push_str(&format!(" C={n}"));
    }
    id
}

/// Every table of a Markdown text, each under the heading last seen above it.
pub fn tables(markdown: &str) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    let mut heading = String::new();
    let mut in_table = false;
    let lines: Vec<&str> = markdown.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') {
            heading = table_id(trimmed);
            in_table = false;
        } else if trimmed.starts_with('|') {
            if !in_table {
                // A table starts with its header, then a rule of dashes.
                let rule = lines.get(i + 1).map(|l| l.trim()).unwrap_or("");
                if rule.starts_with('|') && rule.contains("---") {
                    out.push(Table {
                        id: heading.clone(),
                        header: cells(trimmed),
                        rows: Vec::new(),
                    });
                    in_table = true;
                }
            } else if !trimmed.contains("---")
                && let Some(table) = out.last_mut()
            {
                table.rows.push(cells(trimmed));
            }
        } else {
            in_table = false;
        }
    }
    out
}

/// The cell a key (`TABLE:ROW:COLUMN`) names, or why there is none.
pub fn cell(tables: &[Table], key: &str) -> Result<String, String> {
    let parts: Vec<&str> = key.split(':').collect();
    let [table, row, column] = parts[..] else {
        return Err(format!("`{key}` is not TABLE:ROW:COLUMN"));
    };
    let found: Vec<&Table> = tables.iter().filter(|t| t.id == table).collect();
    let [t] = found[..] else {
        return Err(format!("{} tables named `{table}`", found.len()));
    };
    let col = t
        .header
        .iter()
        .position(|h| h == column)
        .ok_or_else(|| format!("table `{table}` has no column `{column}`"))?;
    let wanted: Vec<&str> = row.split(", ").collect();
    let rows: Vec<&Vec<String>> = t
        .rows
        .iter()
        .filter(|r| r.len() >= wanted.len() && r.iter().zip(&wanted).all(|(c, w)| c == w))
        .collect();
    match rows[..] {
        [r] => r
            .get(col)
            .cloned()
            .ok_or_else(|| format!("row `{row}` is short")),
        _ => Err(format!("{} rows `{row}` in table `{table}`", rows.len())),
    }
}

/// A cell read as prose may quote it: whole, or without its bracketed range.
pub fn reads_as(cell: &str, text: &str) -> bool {
    text == cell || Some(text) == cell.split(" (").next().filter(|m| *m != cell)
}

/// Every mark of a page, in order.
pub fn marks(page: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    for (n, line) in page.lines().enumerate() {
        let mut rest = line;
        while let Some(start) = rest.find(OPEN) {
            let after = &rest[start + OPEN.len()..];
            let (Some(head), Some(close)) = (after.find("-->"), after.find(CLOSE)) else {
                out.push(Mark {
                    line: n + 1,
                    source: String::new(),
                    key: after.to_owned(),
                    text: "(a mark not closed on its line)".to_owned(),
                });
                break;
            };
            let name = &after[..head];
            let (source, key) = name.split_once(':').unwrap_or((name, ""));
            out.push(Mark {
                line: n + 1,
                source: source.trim().to_owned(),
                key: key.trim().to_owned(),
                text: after[head + 3..close.max(head + 3)].to_owned(),
            });
            rest = &after[close + CLOSE.len()..];
        }
    }
    out
}

/// What is wrong with the marks of a page, given each source's tables.
pub fn check(name: &str, page: &str, source: &dyn Fn(&str) -> Option<Vec<Table>>) -> Vec<String> {
    let mut problems = Vec::new();
    for mark in marks(page) {
        let Some(tables) = source(&mark.source) else {
            problems.push(format!("{name}:{}: no source `{}`", mark.line, mark.source));
            continue;
        };
        match cell(&tables, &mark.key) {
            Ok(cell) if reads_as(&cell, &mark.text) => {}
            Ok(cell) => problems.push(format!(
                "{name}:{}: {}:{} reads `{}` where the table says `{cell}`",
                mark.line, mark.source, mark.key, mark.text
            )),
            Err(why) => problems.push(format!(
                "{name}:{}: {}:{}: {why}",
                mark.line, mark.source, mark.key
            )),
        }
    }
    problems
}

/// The page with every mark's figure put back as its table reads now (the median part if
/// the mark quoted the median only).
pub fn rewrite(page: &str, source: &dyn Fn(&str) -> Option<Vec<Table>>) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let (Some(head), Some(close)) = (after.find("-->"), after.find(CLOSE)) else {
            break;
        };
        let name = &after[..head];
        let old = &after[head + 3..close];
        let (src, key) = name.split_once(':').unwrap_or((name, ""));
        let new = source(src.trim())
            .and_then(|t| cell(&t, key.trim()).ok())
            .map(|cell| match cell.split_once(" (") {
                Some((median, _)) if !old.contains(" (") => median.to_owned(),
                _ => cell,
            })
            .unwrap_or_else(|| old.to_owned());
        out.push_str(&rest[..start + OPEN.len() + head + 3]);
        out.push_str(&new);
        out.push_str(CLOSE);
        rest = &after[close + CLOSE.len()..];
    }
    out.push_str(rest);
    out
}
