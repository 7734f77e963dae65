//! The same programs on every stage, side by side.
//!
//! For each stage that exists, `countdown` and `producer_consumer` run on the virtual clock
//! (the examples' own code, included from each crate), and one snapshot shows their lines
//! in columns, one column per stage. A row marked `≠` is where a stage's order differs from
//! stage 1's: the book explains every such row. Stage 6 needs io_uring: where it is
//! refused, the two tests say so and do not run.

#[path = "support/stages.rs"]
mod stages;

use stages::*;

/// Lay out one transcript per stage in columns; mark rows that differ from the first.
fn side_by_side(columns: &[(&str, String)]) -> String {
    let lines: Vec<Vec<&str>> = columns.iter().map(|(_, t)| t.lines().collect()).collect();
    let rows = lines.iter().map(Vec::len).max().unwrap_or(0);
    let width = lines
        .iter()
        .flatten()
        .map(|l| l.chars().count())
        .chain(columns.iter().map(|(name, _)| name.len()))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let header: Vec<String> = columns
        .iter()
        .map(|(name, _)| format!("{name:width$}"))
        .collect();
    out.push_str(&format!("  | {}\n", header.join(" | ").trim_end()));
    for row in 0..rows {
        let cells: Vec<&str> = lines
            .iter()
            .map(|l| l.get(row).copied().unwrap_or(""))
            .collect();
        let mark = if cells.iter().all(|c| *c == cells[0]) {
            ' '
        } else {
            '≠'
        };
        let padded: Vec<String> = cells.iter().map(|c| format!("{c:width$}")).collect();
        out.push_str(&format!("{mark} | {}\n", padded.join(" | ").trim_end()));
    }
    out
}

#[test]
fn countdown_on_every_stage() {
    if !io_uring_here() {
        return; // stage 6 cannot run here (the reason is printed)
    }
    insta::assert_snapshot!(side_by_side(&[
        ("stage1", stage1(false, stage1_countdown::program)),
        ("stage2", stage2(false, stage2_countdown::program)),
        // Stage 3's scheduler is stage 1's: the same runner drives it.
        ("stage3", stage1(false, stage3_mixed::countdown::program)),
        ("stage4", stage4(false, stage4_countdown::program)),
        ("stage5", stage5(false, stage5_countdown::program)),
        ("stage6", stage6(false, stage6_countdown::program)),
    ]));
}

#[test]
fn producer_consumer_on_every_stage() {
    if !io_uring_here() {
        return; // stage 6 cannot run here (the reason is printed)
    }
    insta::assert_snapshot!(side_by_side(&[
        ("stage1", stage1(false, stage1_producer_consumer::program)),
        ("stage2", stage2(false, stage2_producer_consumer::program)),
        (
            "stage3",
            stage1(false, stage3_mixed::producer_consumer::program)
        ),
        ("stage4", stage4(false, stage4_producer_consumer::program)),
        ("stage5", stage5(false, stage5_producer_consumer::program)),
        ("stage6", stage6(false, stage6_producer_consumer::program)),
    ]));
}

#[test]
fn side_by_side_marks_differences() {
    let table = side_by_side(&[("a", "x\ny\n".into()), ("b", "x\nz\n".into())]);
    assert_eq!(table, "  | a | b\n  | x | x\n≠ | y | z\n");
}
