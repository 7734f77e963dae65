//! Chapter 9's conformance table is the committed run's: the lines `suite: P passed, F
//! failed, S skipped, H hung of N` that `crates/stage5-python/conformance/run.py` printed,
//! kept in `crates/stage5-python/conformance/last-run.txt`. A table edited by hand, or a
//! run committed without its table, fails. The suites not run are counted on CPython 3.11.7's
//! own test package.

use super::marks;

/// The committed run's lines (its first part: one line per suite).
const RUN: &str = "crates/stage5-python/conformance/last-run.txt";
const CHAPTER: &str = "docs/src/ch09-asyncio-on-our-loop.md";
const HEADER: [&str; 6] = ["suite", "passed", "failed", "skipped", "hung", "of"];

/// The run's suite name as the chapter's table names it.
fn chapter_name(run_name: &str) -> String {
    match run_name {
        "test_events_rest" => "`test_events`, the other classes".to_owned(),
        name => format!("`{name}`"),
    }
}

/// `name: P passed, F failed, S skipped, H hung of N` as the table's row, or `None`.
fn row(line: &str) -> Option<Vec<String>> {
    let (name, counts) = line.split_once(": ")?;
    let words: Vec<&str> = counts.split_whitespace().collect();
    let [
        p,
        "passed,",
        f,
        "failed,",
        s,
        "skipped,",
        h,
        "hung",
        "of",
        n,
    ] = words[..]
    else {
        return None;
    };
    let mut out = vec![chapter_name(name.trim())];
    for figure in [p, f, s, h, n] {
        figure.parse::<u32>().ok()?;
        out.push(figure.to_owned());
    }
    Some(out)
}

/// The rows of the run, in the run's order.
fn run_rows(run: &str) -> Vec<Vec<String>> {
    run.lines().filter_map(row).collect()
}

/// The rows of the one table in `chapter` headed `header`.
fn table_rows(chapter: &str, header: &[&str]) -> Vec<Vec<String>> {
    let tables = marks::tables(chapter);
    let found: Vec<_> = tables.iter().filter(|t| t.header == header).collect();
    assert_eq!(found.len(), 1, "{CHAPTER}: one table headed {header:?}");
    found[0].rows.clone()
}

/// The rows of the chapter's conformance table (headed [`HEADER`]).
fn chapter_rows(chapter: &str) -> Vec<Vec<String>> {
    table_rows(chapter, &HEADER)
}

fn sorted(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.sort();
    rows
}

#[test]
fn chapter_9s_conformance_table_is_the_committed_run() {
    let run = super::read(RUN);
    let from_run = run_rows(&run);
    assert!(
        !from_run.is_empty(),
        "{RUN}: no `suite: P passed, ...` line"
    );
    assert_eq!(
        sorted(chapter_rows(&super::read(CHAPTER))),
        sorted(from_run),
        "{CHAPTER}'s conformance table is not what {RUN} says: copy the run's counts \
         (scripts/asyncio-conformance.sh prints them) into both"
    );
}

#[test]
fn a_run_line_reads_as_its_row_and_a_table_that_differs_is_caught() {
    assert_eq!(
        row("test_events_rest: 34 passed, 0 failed, 0 skipped, 0 hung of 34"),
        Some(
            [
                "`test_events`, the other classes",
                "34",
                "0",
                "0",
                "0",
                "34"
            ]
            .map(String::from)
            .to_vec()
        )
    );
    assert_eq!(row("  fail test_x: boom"), None);
    assert_eq!(
        row("test_locks: many passed, 0 failed, 0 skipped, 0 hung of 70"),
        None
    );
    let chapter = "| suite | passed | failed | skipped | hung | of |\n\
                   | --- | --- | --- | --- | --- | --- |\n\
                   | `test_locks` | 70 | 0 | 0 | 0 | 70 |\n";
    let run = "test_locks: 69 passed, 1 failed, 0 skipped, 0 hung of 70\n";
    assert_ne!(sorted(chapter_rows(chapter)), sorted(run_rows(run)));
    let run = "test_locks: 70 passed, 0 failed, 0 skipped, 0 hung of 70\n";
    assert_eq!(sorted(chapter_rows(chapter)), sorted(run_rows(run)));
}

/// `(module, class)` of a cell such as "`test_unix_events`' `SelectorEventLoopSignalTests`".
fn suite_names(cell: &str) -> Option<(String, String)> {
    let names: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
    match names[..] {
        [module, class] => Some((module.to_owned(), class.to_owned())),
        _ => None,
    }
}

#[test]
fn the_suites_not_run_have_the_tests_the_chapter_counts() {
    // The counts come from CPython 3.11.7's own test package, which ships with Python.
    let not_run = table_rows(&super::read(CHAPTER), &["suite", "tests", "why"]);
    let script = "import sys, unittest, importlib\n\
                  if sys.version.split()[0] != '3.11.7': print('skip'); sys.exit()\n\
                  try: import test.test_asyncio\n\
                  except ImportError: print('skip'); sys.exit()\n\
                  for line in sys.stdin:\n    m, c = line.split()\n    \
                  mod = importlib.import_module('test.test_asyncio.' + m)\n    \
                  print(unittest.TestLoader().loadTestsFromTestCase(getattr(mod, c)).countTestCases())\n";
    let mut asked = String::new();
    let mut said = Vec::new();
    for row in &not_run {
        let (module, class) = suite_names(&row[0])
            .unwrap_or_else(|| panic!("{CHAPTER}: `{}` names no module and class", row[0]));
        asked.push_str(&format!("{module} {class}\n"));
        said.push(row[1].clone());
    }
    let child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(std::env::var_os("CI").is_none(), "CI has Python 3.11.7");
        eprintln!("note: no python3: the suites not run are not counted");
        return;
    };
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(asked.as_bytes())
            .expect("python3 reads the suites");
    }
    let output = child.wait_with_output().expect("python3 answers");
    let counts: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    if counts == ["skip"] {
        eprintln!(
            "note: python3 is not 3.11.7, or has no test package: the suites not run are not counted"
        );
        return;
    }
    assert_eq!(
        counts, said,
        "{CHAPTER}: the suites not run, counted on CPython 3.11.7"
    );
}
