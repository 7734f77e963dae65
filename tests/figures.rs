//! The book's figures drawn from measurements are what their files draw now.
//!
//! Each row of [`FIGURES`] is a committed SVG under `docs/src/figures/` and the committed
//! measurements it is drawn from (`bench/measured/`, with their provenance in its README).
//! The drawing is code, `bench/loops_report.py` (Python's standard library only), not a
//! hand-made picture: the test runs it with `--check`, which fails if the committed SVG is
//! not exactly what it would draw. If the change is right (new measurements, a new way
//! of drawing them), redraw the figures with
//!
//! ```text
//! UPDATE_FIGURES=1 cargo test --test figures
//! ```
//!
//! (ignored when `CI` is set, so CI never redraws a figure). Without `python3` the check is
//! skipped with a note on standard error, as the conformance tests skip their comparison
//! with CPython; CI has Python 3.11, and there a missing `python3` fails the test.

use std::path::Path;
use std::process::Command;

/// One committed figure: `docs/src/figures/{svg}`, drawn from `bench/measured/{data}`.
struct Figure {
    svg: &'static str,
    data: &'static str,
}

/// Every figure the book draws from measurements.
const FIGURES: &[Figure] = &[Figure {
    svg: "loops-16-cores.svg",
    data: "loops-16-cores.jsonl",
}];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Run the generator on one figure; `None` if there is no `python3` to run it.
fn draw(figure: &Figure, check: bool) -> Option<std::process::Output> {
    let mut command = Command::new("python3");
    command
        .current_dir(root())
        .arg("bench/loops_report.py")
        .arg("figure")
        .arg(format!("bench/measured/{}", figure.data))
        .arg(format!("docs/src/figures/{}", figure.svg));
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
        "figures that differ from what bench/loops_report.py draws now:\n  {}\n\
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
                FIGURES.iter().any(|f| line.contains(f.svg)),
                "{chapter} shows a figure no row of FIGURES checks: {line}"
            );
        }
    }
}
