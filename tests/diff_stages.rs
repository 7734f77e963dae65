//! `bash scripts/diff-stages.sh N N+1` reads as chapter N+1 (ARCHITECTURE.md, "Invariants").
//! The script pairs files by the concept table `scripts/stage-concepts.tsv`; these tests
//! read the same table and check that every file it names exists (a moved file fails here,
//! naming its row), that each step shows its chapters' main files (the table's `main`
//! column) as a diff or in full, and that what it shows is the real diff, that files sharing
//! only braces are not diffed, and that bad arguments exit 2 with one line. The book's
//! "What changed" sections are checked against the same output: a section that runs the
//! script names only files it prints, and chapters 2 to 4, each a step of its own, name
//! every one.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[allow(dead_code)]
#[path = "support/tree.rs"]
mod tree;

use tree::{files, root, stages};

const TABLE: &str = "scripts/stage-concepts.tsv";

/// A stage's cell in a row of the table.
#[derive(Debug)]
enum Cell {
    /// `-`: the stage has no such thing.
    Absent,
    /// A path under the stage crate's `src/`: the stage's own file.
    Own(String),
    /// `=K`: the stage re-exports (or uses) stage K's file.
    From(usize),
}

/// A row of the table: one concept, and its file in each stage.
#[derive(Debug)]
struct Row {
    line: usize,
    concept: String,
    /// The chapters whose main file this is.
    main: Vec<usize>,
    /// `cells[s - 1]` is stage s's.
    cells: Vec<Cell>,
}

impl Row {
    /// The row's name in a message.
    fn name(&self) -> String {
        format!("{TABLE} line {}, row '{}'", self.line, self.concept)
    }

    /// Stage `stage`'s file for this concept: (the stage whose file it is, its path under
    /// that stage's `src/`), following `=K`; `None` if the stage has none.
    fn file(&self, stage: usize) -> Option<(usize, &str)> {
        match &self.cells[stage - 1] {
            Cell::Absent => None,
            Cell::Own(path) => Some((stage, path)),
            Cell::From(k) => match &self.cells[k - 1] {
                Cell::Own(path) => Some((*k, path)),
                other => panic!("{}: stage {stage} is =K of {other:?}", self.name()),
            },
        }
    }
}

/// The table: its rows and the number of stages (its stage columns).
fn table() -> (Vec<Row>, usize) {
    parse(&fs::read_to_string(root().join(TABLE)).expect("the concept table"))
}

fn parse(text: &str) -> (Vec<Row>, usize) {
    let mut header: Option<Vec<&str>> = None;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let Some(head) = &header else {
            header = Some(fields);
            continue;
        };
        assert_eq!(
            fields.len(),
            head.len(),
            "{TABLE} line {}: {} fields, not {} (one tab between columns, - for an empty cell): {line:?}",
            i + 1,
            fields.len(),
            head.len()
        );
        let stages = head.len() - 3;
        let main = match fields[1] {
            "-" => Vec::new(),
            list => list
                .split(',')
                .map(|c| {
                    c.parse()
                        .unwrap_or_else(|_| panic!("{TABLE} line {}: main is {list:?}", i + 1))
                })
                .collect(),
        };
        let cells = fields[2..2 + stages]
            .iter()
            .map(|cell| match *cell {
                "-" => Cell::Absent,
                c if c.starts_with('=') => Cell::From(
                    c[1..]
                        .parse()
                        .unwrap_or_else(|_| panic!("{TABLE} line {}: cell {c:?}", i + 1)),
                ),
                path => Cell::Own(path.to_owned()),
            })
            .collect();
        rows.push(Row {
            line: i + 1,
            concept: fields[0].to_owned(),
            main,
            cells,
        });
    }
    let header = header.expect("the table has a header");
    let stages = header.len() - 3;
    let expected: Vec<String> = ["concept", "main"]
        .into_iter()
        .map(str::to_owned)
        .chain((1..=stages).map(|s| s.to_string()))
        .chain(["what".to_owned()])
        .collect();
    assert_eq!(header, expected, "{TABLE}: the header");
    (rows, stages)
}

/// A chapter's stage: chapters 5 to 9 are all stage 5's, chapter 10 is stage 6's.
fn stage_of(chapter: usize, stages: usize) -> usize {
    match chapter {
        ..=4 => chapter,
        5..=9 => 5,
        _ => 6,
    }
    .min(stages)
}

/// Each stage's `src/`, from the repository root: `crates/stage3-tasks/src`.
fn src_dirs() -> Vec<String> {
    stages()
        .into_iter()
        .enumerate()
        .map(|(i, (n, dir))| {
            assert_eq!(n as usize, i + 1, "the stages are numbered 1, 2, ...");
            let dir = dir.strip_prefix(root()).unwrap().join("src");
            dir.display().to_string()
        })
        .collect()
}

/// Run `scripts/diff-stages.sh` of the repository at `repo` with `args`.
fn run(repo: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(repo.join("scripts/diff-stages.sh"))
        .args(args)
        .output()
        .expect("bash runs")
}

/// A step's output, which must have succeeded, quietly.
fn step(a: usize, b: usize) -> String {
    let out = run(&root(), &[&a.to_string(), &b.to_string()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "diff-stages.sh {a} {b}: {:?}, {stderr}",
        out.status
    );
    assert!(stderr.is_empty(), "diff-stages.sh {a} {b} said: {stderr}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A unified diff in `output`, of the file labelled `new`: (the heading above it, the old
/// label, the hunks' lines), or `None` if the output has no `+++ new`.
fn find_diff<'a>(output: &'a str, new: &str) -> Option<(&'a str, &'a str, Vec<&'a str>)> {
    let lines: Vec<&str> = output.lines().collect();
    let at = lines.iter().position(|l| *l == format!("+++ {new}"))?;
    let old = lines[at - 1]
        .strip_prefix("--- ")
        .unwrap_or_else(|| panic!("no --- line above +++ {new}"));
    let heading = lines[at - 2];
    // The hunks: as many lines as their headers count.
    let mut hunks = Vec::new();
    let mut i = at + 1;
    while let Some(header) = lines.get(i).and_then(|l| l.strip_prefix("@@ -")) {
        let counts: Vec<usize> = header
            .split(" @@")
            .next()
            .unwrap()
            .split(" +")
            .map(|range| range.split(',').nth(1).map_or(1, |n| n.parse().unwrap()))
            .collect();
        let (mut old_left, mut new_left) = (counts[0], counts[1]);
        hunks.push(lines[i]);
        i += 1;
        while old_left + new_left > 0 {
            let line = lines[i];
            match line.chars().next() {
                Some(' ') | None => {
                    old_left -= 1;
                    new_left -= 1;
                }
                Some('-') => old_left -= 1,
                Some('+') => new_left -= 1,
                Some('\\') => {}
                _ => panic!("{new}: not a hunk line: {line:?}"),
            }
            hunks.push(line);
            i += 1;
        }
    }
    Some((heading, old, hunks))
}

/// `old`'s lines with the hunks applied.
fn apply(old: &str, hunks: &[&str]) -> Vec<String> {
    let old: Vec<&str> = old.lines().collect();
    let mut out = Vec::new();
    let mut next = 0; // the next old line not yet copied
    for line in hunks {
        if let Some(header) = line.strip_prefix("@@ -") {
            let range = header.split(' ').next().unwrap();
            let (start, count) = range.split_once(',').unwrap_or((range, "1"));
            let start: usize = start.parse().unwrap();
            // `-5,3` starts at line 5; `-5,0` (nothing removed) comes after it.
            let start = if count == "0" { start } else { start - 1 };
            out.extend(old[next..start].iter().map(|l| l.to_string()));
            next = start;
        } else if let Some(kept) = line.strip_prefix(' ').or((line.is_empty()).then_some("")) {
            assert_eq!(old[next], kept, "a context line is not the old file's");
            out.push(kept.to_owned());
            next += 1;
        } else if let Some(removed) = line.strip_prefix('-') {
            assert_eq!(old[next], removed, "a removed line is not the old file's");
            next += 1;
        } else if let Some(added) = line.strip_prefix('+') {
            out.push(added.to_owned());
        }
    }
    out.extend(old[next..].iter().map(|l| l.to_string()));
    out
}

/// `got` has `want`'s lines, or the first line that differs is shown.
fn same_lines(got: &[String], want: &str, what: &str) {
    let want: Vec<&str> = want.lines().collect();
    if let Some(i) = (0..got.len().max(want.len()))
        .find(|&i| got.get(i).map(String::as_str) != want.get(i).copied())
    {
        panic!(
            "{what}: line {} is {:?}, not {:?} ({} lines, not {})",
            i + 1,
            got.get(i),
            want.get(i),
            got.len(),
            want.len()
        );
    }
}

#[test]
fn every_file_the_concept_table_names_exists() {
    let (rows, stages) = table();
    let src = src_dirs();
    assert_eq!(stages, src.len(), "{TABLE}: one column per stage crate");
    let mut problems = Vec::new();
    let mut concepts = BTreeSet::new();
    for row in &rows {
        if !concepts.insert(&row.concept) {
            problems.push(format!("{}: a second row of that name", row.name()));
        }
        for (i, cell) in row.cells.iter().enumerate() {
            let stage = i + 1;
            match cell {
                Cell::Absent => {}
                Cell::Own(path) => {
                    let file = format!("{}/{path}", src[i]);
                    if !root().join(&file).is_file() {
                        problems.push(format!(
                            "{}: stage {stage}'s {file} does not exist (moved? its cell is its path under {}/)",
                            row.name(),
                            src[i]
                        ));
                    }
                }
                Cell::From(k) => {
                    if *k == 0 || *k >= stage || !matches!(row.cells[k - 1], Cell::Own(_)) {
                        problems.push(format!(
                            "{}: stage {stage}'s =K must name an earlier stage K with a file of its own for it",
                            row.name()
                        ));
                    }
                }
            }
        }
        for &chapter in &row.main {
            let stage = stage_of(chapter, stages);
            if !(2..=7).contains(&chapter) && chapter != 10
                || !matches!(row.cells[stage - 1], Cell::Own(_))
            {
                problems.push(format!(
                    "{}: main for chapter {chapter}, but stage {stage} has no file of its own for it",
                    row.name()
                ));
            }
        }
    }
    for chapter in 2..=7 {
        if !rows.iter().any(|row| row.main.contains(&chapter)) {
            problems.push(format!("{TABLE}: no row is main for chapter {chapter}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{TABLE} is out of date with the tree; update these rows:\n{}",
        problems.join("\n")
    );
}

#[test]
fn each_step_shows_its_chapters_main_files_as_diffs_or_in_full() {
    let (rows, stages) = table();
    let src = src_dirs();
    let mut checked = Vec::new();
    for b in 2..=stages {
        let a = b - 1;
        let output = step(a, b);
        assert!(
            !output.contains('\x1b'),
            "{a} {b}: colour, though stdout is not a terminal"
        );
        for row in rows
            .iter()
            .filter(|row| row.main.iter().any(|&c| stage_of(c, stages) == b))
        {
            let (_, path) = row
                .file(b)
                .expect("a main file (checked by the table test)");
            let new = format!("{}/{path}", src[b - 1]);
            let old = row.file(a).map(|(k, p)| format!("{}/{p}", src[k - 1]));
            let (heading, shown_old, hunks) = find_diff(&output, &new).unwrap_or_else(|| {
                panic!(
                    "diff-stages.sh {a} {b} does not show {new}, a main file ({})",
                    row.name()
                )
            });
            let old_text = match (shown_old, &old) {
                ("/dev/null", None) => String::new(),
                ("/dev/null", Some(old)) => {
                    // Printed in full: the old file must be said to be no longer here.
                    let gone = format!("=== no longer here: {old} ");
                    assert!(
                        output.lines().any(|l| l.starts_with(&gone)),
                        "{a} {b}: {new} is printed in full, and {old} is not said to be no longer here"
                    );
                    String::new()
                }
                (shown, Some(old)) if shown == old => fs::read_to_string(root().join(old)).unwrap(),
                (shown, old) => panic!(
                    "{a} {b}: {new} is diffed against {shown}, not {old:?} ({})",
                    row.name()
                ),
            };
            let kind = if shown_old == "/dev/null" {
                "new"
            } else {
                "changed"
            };
            assert!(
                heading.starts_with(&format!("=== {kind} in stage {b}: {path} (")),
                "{a} {b}: the heading above {new} is {heading:?}"
            );
            let text = fs::read_to_string(root().join(&new)).unwrap();
            let what = format!("diff-stages.sh {a} {b}, {new} rebuilt from what it shows");
            same_lines(&apply(&old_text, &hunks), &text, &what);
            checked.push(format!("{a} {b}: {path} ({kind})"));
        }
        // Nothing is hidden: every file of either stage is named.
        for dir in [&src[a - 1], &src[b - 1]] {
            for file in files(&root().join(dir), "rs") {
                let file = file.strip_prefix(root()).unwrap().display().to_string();
                assert!(
                    output.contains(&file),
                    "diff-stages.sh {a} {b} never names {file}"
                );
            }
        }
    }
    // Chapter 3 is stage 3's task.rs, whole. Chapter 4 diffs stage 4's scheduler with stage
    // 1's, which stage 3 re-exports (they share about a quarter of their lines).
    assert!(
        checked.contains(&"2 3: task.rs (new)".to_owned()),
        "{checked:#?}"
    );
    assert!(
        checked.contains(&"3 4: scheduler.rs (changed)".to_owned()),
        "{checked:#?}"
    );
}

/// The files a step's output prints, by their path under their stage's `src/`
/// (`scheduler/inspect.rs`): those it shows as a diff or in full, says are no longer here,
/// or lists as reused or in no row of the table.
fn printed_files(output: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in output.lines().skip(1) {
        // A heading's own file: `=== changed in stage 4: io.rs (`, `=== new in stage 2: ...`.
        for kind in ["=== changed in stage ", "=== new in stage "] {
            if let Some(rest) = line.strip_prefix(kind)
                && let Some((_, rest)) = rest.split_once(": ")
            {
                out.insert(rest.split(' ').next().unwrap_or_default().to_owned());
            }
        }
        // Full paths, in any line that is no diff line: `crates/stage1-callbacks/src/timer.rs`.
        if line.starts_with("===") || line.starts_with("    crates/") {
            for word in line.split([' ', '(', ')', ';', ',']) {
                if let Some((_, path)) = word.split_once("/src/")
                    && word.starts_with("crates/")
                    && path.ends_with(".rs")
                {
                    out.insert(path.to_owned());
                }
            }
        }
    }
    out
}

/// A chapter's "What changed" section: (the chapter's file, the step `A B` it runs, the
/// `.rs` files its code spans name), for every section that runs the script.
fn what_changed_sections() -> Vec<(String, (usize, usize), BTreeSet<String>)> {
    let mut out = Vec::new();
    for page in files(&root().join("docs/src"), "md") {
        let text = fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let Some(start) = text.find("\n## What changed") else {
            continue;
        };
        let section = &text[start + 1..];
        let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
        let section = &section[..end];
        let Some((_, after)) = section.split_once("diff-stages.sh ") else {
            continue;
        };
        let nums: Vec<usize> = after
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .take(2)
            .map(|n| n.parse().unwrap())
            .collect();
        let named = section
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|span| {
                span.ends_with(".rs")
                    && span
                        .chars()
                        .all(|c| c == '_' || c == '/' || c == '.' || c.is_ascii_alphanumeric())
            })
            .map(str::to_owned)
            .collect();
        out.push((name, (nums[0], nums[1]), named));
    }
    out
}

/// What a "What changed" section gets wrong about what the script printed: the files it
/// names that were not printed and, where `whole` (a section that covers the whole step),
/// the printed files it leaves out. A name matches a printed path it equals, or ends after
/// a `/` (`inspect.rs` is `scheduler/inspect.rs`).
fn section_problems(
    named: &BTreeSet<String>,
    printed: &BTreeSet<String>,
    whole: bool,
) -> Vec<String> {
    let matches = |name: &str, path: &str| path == name || path.ends_with(&format!("/{name}"));
    let mut problems = Vec::new();
    for name in named {
        if !printed.iter().any(|p| matches(name, p)) {
            problems.push(format!("names `{name}`, which the script does not print"));
        }
    }
    if whole {
        for path in printed {
            if !named.iter().any(|n| matches(n, path)) {
                problems.push(format!("leaves out `{path}`, which the script prints"));
            }
        }
    }
    problems
}

#[test]
fn each_what_changed_section_names_the_files_the_script_prints() {
    let sections = what_changed_sections();
    let steps: Vec<_> = sections
        .iter()
        .map(|(page, step, _)| (page.as_str(), *step))
        .collect();
    for (page, step) in [
        ("ch02-generators.md", (1, 2)),
        ("ch03-tasks.md", (2, 3)),
        ("ch04-select.md", (3, 4)),
    ] {
        assert!(
            steps.contains(&(page, step)),
            "{page} runs no diff-stages.sh {} {}: {steps:?}",
            step.0,
            step.1
        );
    }
    let mut problems = Vec::new();
    for (page, (a, b), named) in &sections {
        let printed = printed_files(&step(*a, *b));
        // Chapters 2 to 4 are each a step of their own, and their sections cover all of it;
        // chapters 5 to 7 share the step from stage 4 and each tells its own part.
        let whole = page.as_str() < "ch05";
        for problem in section_problems(named, &printed, whole) {
            problems.push(format!(
                "{page}, What changed (diff-stages.sh {a} {b}): {problem}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_what_changed_section_that_names_a_file_not_printed_or_leaves_one_out_fails() {
    let output = "Stage 1 to stage 2, concept by concept. Main files: chapter 2: scheduler.rs.\n\
                  === changed in stage 2: scheduler.rs (the scheduler), from stage 1's scheduler.rs ===\n\
                  --- crates/stage1-a/src/scheduler.rs\n\
                  +++ crates/stage2-b/src/scheduler.rs\n\
                  +    let x = crates/stage9-z/src/not_a_heading.rs;\n\
                  === new in stage 2: io.rs (io) ===\n\
                  === no longer here: crates/stage1-a/src/scheduler/inspect.rs (what it holds) ===\n\
                  === reused unchanged, the same file in stage 1 and in stage 2 ===\n    \
                  crates/stage1-a/src/timer.rs (the timer heap)\n";
    let printed = printed_files(output);
    let want: BTreeSet<String> = ["io.rs", "scheduler.rs", "scheduler/inspect.rs", "timer.rs"]
        .map(str::to_owned)
        .into();
    assert_eq!(printed, want);
    let named = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    let right = named(&["scheduler.rs", "io.rs", "inspect.rs", "timer.rs"]);
    assert!(section_problems(&right, &printed, true).is_empty());
    assert_eq!(
        section_problems(
            &named(&["scheduler.rs", "io.rs", "timer.rs", "clock.rs"]),
            &printed,
            true
        ),
        [
            "names `clock.rs`, which the script does not print",
            "leaves out `scheduler/inspect.rs`, which the script prints",
        ]
    );
    assert!(section_problems(&named(&["io.rs"]), &printed, false).is_empty());
}

/// A small repository of three stages and a table, for the script's rules on their own.
struct Fixture(PathBuf);

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("diff-stages-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("scripts")).unwrap();
        fs::copy(
            root().join("scripts/diff-stages.sh"),
            dir.join("scripts/diff-stages.sh"),
        )
        .unwrap();
        Fixture(dir)
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.0.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A Rust file of `n` functions, each with a body of its own (`tag`) between braces.
fn code(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "fn {tag}_{i}() {{\n    {{\n        let {tag} = \"{tag} number {i}\";\n    }}\n}}\n"
            )
        })
        .collect()
}

#[test]
fn files_that_share_only_braces_are_not_diffed_and_a_re_export_is_diffed_through_its_stage() {
    let fx = Fixture::new("rules");
    // Stage 2 re-exports stage 1's kept.rs, and stage 3 changes it a little; stage 2
    // rewrites rewritten.rs, keeping only its braces, and stage 3 re-exports it.
    let table = "concept\tmain\t1\t2\t3\twhat\n\
                 kept\t3\tkept.rs\t=1\tkept.rs\ta file changed a little\n\
                 rewritten\t2\trewritten.rs\trewritten.rs\t=2\ta file rewritten, braces kept\n";
    fx.write("scripts/stage-concepts.tsv", table);
    let changed = code("kept", 10).replace("number 3", "number three");
    fx.write("crates/stage1-one/src/kept.rs", &code("kept", 10));
    fx.write("crates/stage3-three/src/kept.rs", &changed);
    fx.write("crates/stage1-one/src/rewritten.rs", &code("old", 10));
    fx.write("crates/stage2-two/src/rewritten.rs", &code("new", 10));
    fx.write("crates/stage1-one/src/gone.rs", &code("gone", 1));
    fx.write("crates/stage2-two/src/extra.rs", &code("extra", 1));
    let output = |a: &str, b: &str| {
        let out = run(&fx.0, &[a, b]);
        let output = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.status.success(),
            "{output}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        output
    };

    // Same braces, same shape, nothing else in common: no diff.
    let one_two = output("1", "2");
    let (heading, old, hunks) = find_diff(&one_two, "crates/stage2-two/src/rewritten.rs").unwrap();
    assert!(
        heading.starts_with("=== new in stage 2: rewritten.rs ("),
        "{one_two}"
    );
    assert_eq!(old, "/dev/null");
    same_lines(&apply("", &hunks), &code("new", 10), "rewritten.rs in full");
    assert!(
        one_two.contains("=== no longer here: crates/stage1-one/src/rewritten.rs ("),
        "{one_two}"
    );
    // Re-exported: the same file on both sides.
    assert!(
        one_two.contains("\n    crates/stage1-one/src/kept.rs ("),
        "{one_two}"
    );
    // Files in no row are listed.
    assert!(
        one_two.contains("\n    crates/stage1-one/src/gone.rs (5 lines)\n"),
        "{one_two}"
    );
    assert!(
        one_two.contains("\n    crates/stage2-two/src/extra.rs (5 lines)\n"),
        "{one_two}"
    );

    // Stage 3's kept.rs against stage 1's, which stage 2 re-exported.
    let two_three = output("2", "3");
    let (heading, old, hunks) = find_diff(&two_three, "crates/stage3-three/src/kept.rs").unwrap();
    assert_eq!(
        heading,
        "=== changed in stage 3: kept.rs (a file changed a little), from stage 1's kept.rs, which stage 2 re-exported ==="
    );
    assert_eq!(old, "crates/stage1-one/src/kept.rs");
    same_lines(
        &apply(&code("kept", 10), &hunks),
        &changed,
        "kept.rs's diff",
    );
    assert_eq!(
        hunks.iter().filter(|l| l.starts_with('+')).count(),
        1,
        "{two_three}"
    );

    // A row whose file moved is named, and the run fails.
    fx.write(
        "scripts/stage-concepts.tsv",
        &format!("{table}moved\t-\t-\tmoved.rs\t-\tsomething\n"),
    );
    let out = run(&fx.0, &["1", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "line 4, row 'moved': stage 2's file crates/stage2-two/src/moved.rs does not exist"
        ),
        "{stderr}"
    );
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let cases: &[&[&str]] = &[
        &[],
        &["4"],
        &["1", "2", "3"],
        &["a", "2"],
        &["1", "two"],
        &["1.5", "2"],
        &["-1", "2"],
        &["0", "1"],
        &["6", "7"],
        &["3", "3"],
        &["5", "4"],
    ];
    for args in cases {
        let out = run(&root(), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
        assert_eq!(
            stderr.lines().count(),
            1,
            "{args:?}: not one line: {stderr}"
        );
    }
}
