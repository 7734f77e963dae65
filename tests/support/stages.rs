//! The six stages' example programs and how each stage runs one, in one place (book
//! introduction, "Two commands"; every chapter's examples). Shared by the root tests: the
//! snapshots of every stage's examples (`examples.rs`) and the stages side by side
//! (`cross_stage.rs`).
//!
//! Each runner (`run_stageN`) makes the stage's scheduler on the clock it is given, lets the
//! program schedule its work, and runs the scheduler to the end, as the example's own
//! `main` does; `stageN` runs it on the virtual clock inside the transcript (so that it
//! sees `--trace`). The book's timeline pictures (`timelines.rs`) use the runners too.

use std::rc::Rc;

use scaffold::Clock;

#[allow(dead_code)]
#[path = "../../crates/stage1-callbacks/examples/countdown.rs"]
pub mod stage1_countdown;
#[allow(dead_code)]
#[path = "../../crates/stage1-callbacks/examples/producer_consumer.rs"]
pub mod stage1_producer_consumer;

#[allow(dead_code)]
#[path = "../../crates/stage2-generators/examples/countdown.rs"]
pub mod stage2_countdown;
#[allow(dead_code)]
#[path = "../../crates/stage2-generators/examples/producer_consumer.rs"]
pub mod stage2_producer_consumer;

// Stage 3's `mixed` includes its `countdown` and `producer_consumer` as its own modules,
// and a file is loaded once: stage 3's programs are reached through it.
#[allow(dead_code)]
#[path = "../../crates/stage3-tasks/examples/mixed.rs"]
pub mod stage3_mixed;

#[allow(dead_code)]
#[path = "../../crates/stage4-select/examples/countdown.rs"]
pub mod stage4_countdown;
#[allow(dead_code)]
#[path = "../../crates/stage4-select/examples/producer_consumer.rs"]
pub mod stage4_producer_consumer;

#[allow(dead_code)]
#[path = "../../crates/stage5-event-loop/examples/countdown.rs"]
pub mod stage5_countdown;
#[allow(dead_code)]
#[path = "../../crates/stage5-event-loop/examples/producer_consumer.rs"]
pub mod stage5_producer_consumer;

#[allow(dead_code)]
#[path = "../../crates/stage6-proactor/examples/countdown.rs"]
pub mod stage6_countdown;
#[allow(dead_code)]
#[path = "../../crates/stage6-proactor/examples/producer_consumer.rs"]
pub mod stage6_producer_consumer;

/// Stage 1's scheduler (and stage 3's, which is the same): schedule, then run.
pub fn run_stage1(clock: Rc<dyn Clock>, program: fn(&stage1::Scheduler)) {
    let s = stage1::Scheduler::new(clock);
    program(&s);
    s.run();
}

/// [`run_stage1`] on the virtual clock, in a transcript.
pub fn stage1(trace: bool, program: fn(&stage1::Scheduler)) -> String {
    scaffold::transcript(trace, |clock| run_stage1(clock, program))
}

/// Stage 2's coroutine scheduler.
pub fn run_stage2(clock: Rc<dyn Clock>, program: fn(&stage2::Scheduler)) {
    let s = stage2::Scheduler::new(clock);
    program(&s);
    s.run();
}

/// [`run_stage2`] on the virtual clock, in a transcript.
pub fn stage2(trace: bool, program: fn(&stage2::Scheduler)) -> String {
    scaffold::transcript(trace, |clock| run_stage2(clock, program))
}

/// Stage 4's scheduler with a selector.
pub fn run_stage4(clock: Rc<dyn Clock>, program: fn(&stage4::Scheduler)) {
    let s = stage4::Scheduler::new(clock).expect("a selector");
    program(&s);
    s.run().expect("no I/O errors without sockets");
}

/// [`run_stage4`] on the virtual clock, in a transcript.
pub fn stage4(trace: bool, program: fn(&stage4::Scheduler)) -> String {
    scaffold::transcript(trace, |clock| run_stage4(clock, program))
}

/// Stage 5: `asyncio.run(main())`, as the example's `main` does.
pub fn run_stage5<F>(clock: Rc<dyn Clock>, main: fn(stage5::EventLoop) -> F)
where
    F: std::future::Future<Output = Result<(), stage5::Error>> + 'static,
{
    stage5::run(clock, |lp| main(lp.clone())).expect("the program runs to completion");
}

/// [`run_stage5`] on the virtual clock, in a transcript.
pub fn stage5<F>(trace: bool, main: fn(stage5::EventLoop) -> F) -> String
where
    F: std::future::Future<Output = Result<(), stage5::Error>> + 'static,
{
    scaffold::transcript(trace, |clock| run_stage5(clock, main))
}

/// Stage 6: `asyncio.run(main())` on the proactor loop, as the example's `main` does.
pub fn run_stage6<F>(clock: Rc<dyn Clock>, main: fn(stage6::ProactorLoop) -> F)
where
    F: std::future::Future<Output = Result<(), stage6::Error>> + 'static,
{
    let ring = stage6::setup::ring().expect("io_uring (checked by `io_uring_here` first)");
    stage6::run(ring, clock, |lp| main(lp.clone())).expect("the program runs to completion");
}

/// [`run_stage6`] on the virtual clock, in a transcript.
pub fn stage6<F>(trace: bool, main: fn(stage6::ProactorLoop) -> F) -> String
where
    F: std::future::Future<Output = Result<(), stage6::Error>> + 'static,
{
    scaffold::transcript(trace, |clock| run_stage6(clock, main))
}

/// True if io_uring is allowed here; if not, the reason is printed, and the stage 6 tests
/// say why they did not run.
pub fn io_uring_here() -> bool {
    match stage6::setup::ring() {
        Ok(_) => true,
        Err(refused) => {
            eprintln!("skipped: {refused}");
            false
        }
    }
}
