//! The same programs on every stage, side by side.
//!
//! For each stage that exists, `countdown` and `producer_consumer` run on the virtual clock
//! (the examples' own code, included from each crate), and one snapshot shows their lines
//! in columns, one column per stage. A row marked `≠` is where a stage's order differs from
//! stage 1's: the book explains every such row.

#[allow(dead_code)]
#[path = "../crates/stage1-callbacks/examples/countdown.rs"]
mod stage1_countdown;
#[allow(dead_code)]
#[path = "../crates/stage1-callbacks/examples/producer_consumer.rs"]
mod stage1_producer_consumer;

#[allow(dead_code)]
#[path = "../crates/stage2-generators/examples/countdown.rs"]
mod stage2_countdown;
#[allow(dead_code)]
#[path = "../crates/stage2-generators/examples/producer_consumer.rs"]
mod stage2_producer_consumer;

#[allow(dead_code)]
#[path = "../crates/stage3-tasks/examples/countdown.rs"]
mod stage3_countdown;
#[allow(dead_code)]
#[path = "../crates/stage3-tasks/examples/producer_consumer.rs"]
mod stage3_producer_consumer;

#[allow(dead_code)]
#[path = "../crates/stage4-select/examples/countdown.rs"]
mod stage4_countdown;
#[allow(dead_code)]
#[path = "../crates/stage4-select/examples/producer_consumer.rs"]
mod stage4_producer_consumer;

#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/countdown.rs"]
mod stage5_countdown;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/producer_consumer.rs"]
mod stage5_producer_consumer;

fn stage1(program: fn(&stage1::Scheduler)) -> String {
    stage1::transcript(false, |clock| {
        let s = stage1::Scheduler::new(clock);
        program(&s);
        s.run();
    })
}

fn stage2(program: fn(&stage2::Scheduler)) -> String {
    stage1::transcript(false, |clock| {
        let s = stage2::Scheduler::new(clock);
        program(&s);
        s.run();
    })
}

fn stage4(program: fn(&stage4::Scheduler)) -> String {
    stage1::transcript(false, |clock| {
        let s = stage4::Scheduler::new(clock).expect("a selector");
        program(&s);
        s.run().expect("no I/O errors without sockets");
    })
}

fn stage5<F>(program: fn(stage5::EventLoop) -> F) -> String
where
    F: std::future::Future<Output = Result<(), stage5::Error>> + 'static,
{
    stage1::transcript(false, |clock| {
        // asyncio.run(main()), as the example's `main` does; the loop is made inside the
        // capture, as it reads the trace flag when it is created.
        stage5::run(clock, |lp| program(lp.clone())).expect("the program runs to completion");
    })
}

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
    insta::assert_snapshot!(side_by_side(&[
        ("stage1", stage1(stage1_countdown::program)),
        ("stage2", stage2(stage2_countdown::program)),
        // Stage 3's scheduler is stage 1's: the same runner drives it.
        ("stage3", stage1(stage3_countdown::program)),
        ("stage4", stage4(stage4_countdown::program)),
        ("stage5", stage5(stage5_countdown::program)),
    ]));
}

#[test]
fn producer_consumer_on_every_stage() {
    insta::assert_snapshot!(side_by_side(&[
        ("stage1", stage1(stage1_producer_consumer::program)),
        ("stage2", stage2(stage2_producer_consumer::program)),
        ("stage3", stage1(stage3_producer_consumer::program)),
        ("stage4", stage4(stage4_producer_consumer::program)),
        ("stage5", stage5(stage5_producer_consumer::program)),
    ]));
}

#[test]
fn side_by_side_marks_differences() {
    let table = side_by_side(&[("a", "x\ny\n".into()), ("b", "x\nz\n".into())]);
    assert_eq!(table, "  | a | b\n  | x | x\n≠ | y | z\n");
}
