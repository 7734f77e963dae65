//! No figure in the book is typed by hand: every measured figure is what a run's committed
//! data makes.
//!
//! - Each row of [`FIGURES`] is a committed file (an SVG under `docs/src/figures/`, or the
//!   tables under `bench/measured/` that a page includes) and the committed measurements it
//!   is drawn from (`bench/measured/`, with their provenance in its README). The drawing is
//!   code, `bench/loops_report.py` or `bench/counts_report.py` (Python's standard library
//!   only): the test runs it with `--check`, which fails if the committed file is not
//!   exactly what it would draw.
//! - Every measured figure in the prose of the back pages ([`PAGES`]) is in a *mark* that
//!   names the table cell it quotes (`figures/marks.rs`): the generated tables of the
//!   benchmarks page, or a generated file of `bench/measured/`. A mark that no longer reads
//!   as its cell fails, so a table regenerated under stale prose fails; a decimal, or a
//!   number with `×`, `%`, `ns`, `µs` or `times`, outside a mark fails too
//!   (`figures/prose.rs`).
//! - The benchmarks page's generated tables are what `bench/python/report.py` makes from
//!   the committed results of the run they show (`bench/measured/benchmarks.jsonl`), with
//!   `--tables-only --check` (the run's description, its date and machine, is kept as is);
//!   the last of them measure each stage against the targets set for it.
//! - Chapter 9's conformance table is the committed run of CPython's asyncio tests on
//!   our loop (`figures/conformance.rs`).
//! - The back pages keep to [`MAX_WORDS`] words of prose each.
//!
//! If the change is right (new measurements, a new way of drawing them), redraw the
//! figures and rewrite every mark's figure from its table with
//!
//! ```text
//! UPDATE_FIGURES=1 cargo test --test figures
//! ```
//!
//! then read the sentences around the marks that changed (ignored when `CI` is set, so CI
//! never redraws a figure). Without `python3` the drawings are not checked, with a note on
//! standard error, as the conformance tests skip their comparison with CPython; CI has
//! Python 3.11, and there a missing `python3` fails the test.

#[path = "figures/conformance.rs"]
mod conformance;
#[path = "figures/marks.rs"]
mod marks;
#[path = "figures/prose.rs"]
mod prose;

use std::path::Path;
use std::process::Command;

use marks::Table;

/// One committed drawing: `{svg}` (from the root), drawn from `bench/measured/{data}` by
/// `{script} {how}`.
struct Figure {
    svg: &'static str,
    data: &'static str,
    script: &'static str,
    how: &'static str,
}

/// Every figure and generated table the book draws from measurements.
const FIGURES: &[Figure] = &[
    Figure {
        svg: "docs/src/figures/loops-16-cores.svg",
        data: "loops-16-cores.jsonl",
        script: "bench/loops_report.py",
        how: "figure",
    },
    Figure {
        svg: "bench/measured/loops-16-cores.md",
        data: "loops-16-cores.jsonl",
        script: "bench/loops_report.py",
        how: "page",
    },
    Figure {
        svg: "bench/measured/counts.md",
        data: "counts.jsonl",
        script: "bench/counts_report.py",
        how: "page",
    },
    Figure {
        svg: "bench/measured/proactor.md",
        data: "proactor.jsonl",
        script: "bench/proactor_report.py",
        how: "page",
    },
];

/// The pages whose prose states measured figures, each one in a mark: the back pages, and
/// chapter 10, whose every figure is in a mark.
const PAGES: &[&str] = &[
    "benchmarks.md",
    "going-further.md",
    "beyond-one-core.md",
    "how-it-fails.md",
    "reference.md",
    "ch10-proactor.md",
];

/// Chapters whose marks are checked too (their other figures, older, are not all in marks
/// yet, so the prose check leaves them alone).
const MARKED: &[&str] = &["ch09-asyncio-on-our-loop.md"];

/// The back pages that keep to [`MAX_WORDS`] words of prose.
const SHORT: &[&str] = &[
    "benchmarks.md",
    "going-further.md",
    "beyond-one-core.md",
    "reference.md",
];
const MAX_WORDS: usize = 3000;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Run the generator on one figure; `None` if there is no `python3` to run it.
fn draw(figure: &Figure, check: bool) -> Option<std::process::Output> {
    let mut command = Command::new("python3");
    command
        .current_dir(root())
        .arg(figure.script)
        .arg(figure.how)
        .arg(format!("bench/measured/{}", figure.data))
        .arg(figure.svg);
    if check {
        command.arg("--check");
    }
    match command.output() {
        Ok(output) => Some(output),
        Err(error) if std::env::var_os("CI").is_none() => {
            eprintln!(
                "note: python3 not available ({error}): {} not checked",
                figure.svg
            );
            None
        }
        Err(error) => panic!("CI has Python 3.11, but python3 did not run: {error}"),
    }
}

#[test]
fn the_books_measured_figures_are_what_the_generator_draws() {
    let update = std::env::var_os("UPDATE_FIGURES").is_some() && std::env::var_os("CI").is_none();
    let mut stale = Vec::new();
    for figure in FIGURES {
        let Some(output) = draw(figure, !update) else {
            continue;
        };
        if !output.status.success() {
            stale.push(format!(
                "{}: {}",
                figure.svg,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "figures that differ from what their generators draw now:\n  {}\n\
         if the change is right: UPDATE_FIGURES=1 cargo test --test figures",
        stale.join("\n  ")
    );
}

#[test]
fn every_figure_the_book_shows_from_measurements_has_a_row() {
    // A figure drawn from measurements that no row checks would never be checked again.
    for chapter in ["beyond-one-core.md"] {
        let text = std::fs::read_to_string(root().join("docs/src").join(chapter))
            .expect("the chapter exists");
        for line in text.lines().filter(|l| l.contains("](figures/loops-")) {
            assert!(
                FIGURES
                    .iter()
                    .any(|f| line.contains(f.svg.trim_start_matches("docs/src/"))),
                "{chapter} shows a figure no row of FIGURES checks: {line}"
            );
        }
    }
}

/// Remake the benchmarks page's tables from the committed results of its run, or with
/// `check` only say whether they are what it would make; `None` if there is no `python3`.
fn remake_benchmark_tables(check: bool) -> Option<std::process::Output> {
    let mut command = Command::new("python3");
    command.current_dir(root()).args([
        "bench/python/report.py",
        "--results",
        "bench/measured/benchmarks.jsonl",
        "--out",
        "docs/src/benchmarks.md",
        "--tables-only",
    ]);
    if check {
        command.arg("--check");
    }
    match command.output() {
        Ok(output) => Some(output),
        Err(error) if std::env::var_os("CI").is_none() => {
            eprintln!("note: python3 not available ({error}): the benchmark tables not checked");
            None
        }
        Err(error) => panic!("CI has Python 3.11, but python3 did not run: {error}"),
    }
}

#[test]
fn the_benchmark_tables_are_what_the_committed_run_makes() {
    // With UPDATE_FIGURES the marks' test remakes them, before it rewrites the marks from
    // them: two tests writing one page at once would lose one's writing.
    let update = std::env::var_os("UPDATE_FIGURES").is_some() && std::env::var_os("CI").is_none();
    if update {
        return;
    }
    let Some(output) = remake_benchmark_tables(true) else {
        return;
    };
    assert!(
        output.status.success(),
        "{}\nif the change is right: UPDATE_FIGURES=1 cargo test --test figures",
        String::from_utf8_lossy(&output.stderr).trim()
    );
}

#[test]
fn each_stage_is_measured_against_the_targets_set_for_it() {
    // Stage 5 against its own targets, every one measured, and stage 6 against the goals
    // set for the proactor, not stage 5's targets applied to a stage that runs few of them.
    let tables = marks::tables(marks::generated(&read("docs/src/benchmarks.md")));
    let table = |id: &str| {
        tables
            .iter()
            .find(|t| t.id == id)
            .unwrap_or_else(|| panic!("no table `{id}` in the benchmarks' generated part"))
    };
    let stage5 = table("stage5");
    assert_eq!(stage5.rows.len(), 9, "{stage5:#?}");
    for row in &stage5.rows {
        assert_ne!(row[2], "not measured", "stage 5's own target: {row:?}");
    }
    let goals: Vec<(&str, &str)> = table("stage6")
        .rows
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    assert_eq!(
        goals,
        [
            ("W5 C=1000 server CPU per message / stage5", "≤ 0.85×"),
            ("W5 C=1000 server CPU per message / tokio", "≤ 1.0×"),
        ]
    );
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The tables a mark's source names, as committed.
fn source(name: &str) -> Option<Vec<Table>> {
    if name == "bench" {
        return Some(marks::tables(marks::generated(&read(
            "docs/src/benchmarks.md",
        ))));
    }
    let ok = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '-');
    let text = std::fs::read_to_string(root().join(format!("bench/measured/{name}.md")));
    ok.then_some(text.ok()).flatten().map(|t| marks::tables(&t))
}

#[test]
fn every_measured_figure_in_the_prose_is_the_cell_its_mark_names() {
    let update = std::env::var_os("UPDATE_FIGURES").is_some() && std::env::var_os("CI").is_none();
    let mut problems = Vec::new();
    let mut count = 0;
    if update && let Some(output) = remake_benchmark_tables(false) {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    for page in PAGES.iter().chain(MARKED) {
        let path = format!("docs/src/{page}");
        let mut text = read(&path);
        if update {
            text = marks::rewrite(&text, &source);
            std::fs::write(root().join(&path), &text).unwrap();
        }
        count += marks::marks(&text).len();
        problems.extend(marks::check(page, &text, &source));
    }
    assert!(
        count > 20,
        "only {count} marks: the back pages state few figures?"
    );
    assert!(
        problems.is_empty(),
        "figures that are not what their tables say:\n  {}\n\
         if the tables are right: UPDATE_FIGURES=1 cargo test --test figures, then read the \
         sentences around them",
        problems.join("\n  ")
    );
}

#[test]
fn no_measured_figure_in_the_prose_is_typed_by_hand() {
    let mut found = Vec::new();
    for page in PAGES {
        for (line, figure) in prose::unmarked(&read(&format!("docs/src/{page}"))) {
            found.push(format!("{page}:{line}: {figure}"));
        }
    }
    assert!(
        found.is_empty(),
        "figures typed by hand (quote a table's cell in a mark, or drop the figure):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn versions_and_exercise_numbers_are_not_figures_but_a_decimal_is() {
    let page = "Since Linux 5.1 and Python 3.11.7.\n\n> **Try it: 10.1, a buffer.** \
                **Build it: 10.3.** It took 1.14 of them, 3 times more.\n";
    let found: Vec<String> = prose::unmarked(page).into_iter().map(|(_, f)| f).collect();
    assert_eq!(found, ["1.14", "3"]);
}

#[test]
fn the_back_pages_keep_to_three_thousand_words_of_prose() {
    for page in SHORT {
        let words = prose::words(&read(&format!("docs/src/{page}")));
        assert!(
            words <= MAX_WORDS,
            "{page}: {words} words of prose, over {MAX_WORDS}"
        );
    }
}

#[test]
fn the_introduction_keeps_to_two_thousand_five_hundred_words_of_prose() {
    // The idea and the map come first; a page that grows past this has let the tooling
    // back in front of them.
    let words = prose::words(&read("docs/src/introduction.md"));
    assert!(
        words <= 2_500,
        "introduction.md: {words} words of prose, over 2,500"
    );
}

#[test]
fn a_table_regenerated_under_stale_prose_fails() {
    // The benchmarks page as committed passes; the same page with one marked cell of its
    // generated tables changed, as a new run of bench/run.sh would change it, does not.
    // The page's other sources (bench/measured/) as committed.
    let with = |text: String| {
        move |name: &str| match name {
            "bench" => Some(marks::tables(marks::generated(&text))),
            _ => source(name),
        }
    };
    // The marks rewritten from the page's own tables, so that this test does not depend on
    // whether another test is rewriting the file (`UPDATE_FIGURES=1`) as it runs.
    let committed = read("docs/src/benchmarks.md");
    let page = marks::rewrite(&committed, &with(committed.clone()));
    let first = marks::marks(&page)
        .into_iter()
        .find(|m| m.source == "bench")
        .expect("the benchmarks page marks a figure of its own run");
    let tables = marks::tables(marks::generated(&page));
    marks::cell(&tables, &first.key).expect("the mark names a cell");
    let mut key = first.key.split(':');
    let (table, row, column) = (
        key.next().unwrap(),
        key.next().unwrap(),
        key.next().unwrap(),
    );
    // The row's line in the generated part, with the mark's cell changed.
    let block = marks::generated(&page);
    let column = tables
        .iter()
        .find(|t| t.id == table)
        .and_then(|t| t.header.iter().position(|h| h == column))
        .expect("the mark's table and column are in the generated part");
    let heading = block
        .lines()
        .position(|l| l.starts_with("### ") && marks::table_id(l) == table)
        .expect("the mark's table is in the generated part");
    let line = block
        .lines()
        .skip(heading)
        .find(|l| l.starts_with(&format!("| {row} |")))
        .expect("the mark's row is in its table");
    let mut cells: Vec<&str> = line.split('|').collect();
    cells[column + 1] = " 9.99× (9.98–9.99) ";
    let regenerated = block.replace(line, &cells.join("|"));
    let stale = page.replace(block, &regenerated);
    assert!(marks::check("benchmarks.md", &page, &with(page.clone())).is_empty());
    let problems = marks::check("benchmarks.md", &stale, &with(stale.clone()));
    assert!(!problems.is_empty(), "a stale figure passed");
    for problem in &problems {
        assert!(
            problem.contains(&first.key) && problem.contains("9.99× (9.98–9.99)"),
            "{problems:#?}"
        );
    }
    // And the prose follows once the marks are rewritten from the new tables.
    let followed = marks::rewrite(&stale, &with(stale.clone()));
    assert!(marks::check("benchmarks.md", &followed, &with(followed.clone())).is_empty());
}

#[test]
fn a_figure_outside_a_mark_is_found_and_one_inside_is_not() {
    let page = "W1 costs 84.0 ns, 1.73× the floor, 5 times; stage5 at 3.11.7 and `2.5`.\n\
                Marked: <!--fig bench:W1:stage5:× floor-->1.73×<!--/fig-->; 64 bytes, 10 ms.\n";
    let found: Vec<String> = prose::unmarked(page).into_iter().map(|(_, f)| f).collect();
    assert_eq!(found, ["84.0", "1.73", "5"]);
}
