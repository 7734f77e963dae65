//! Build it 2.4: the same four tasks on your `Scheduler::run` (`src/build/ch2.rs`), as
//! generators by hand, and on stage 2's scheduler, as `async` blocks with `switch` and
//! `sleep`, both on the virtual clock; the two runs must match line for line. Run it with
//! `cargo run -p exercises -- run 2.4` (or
//! `cargo test -p exercises --test build_ch2 -- --ignored`).

// Your code, compiled into this test alone (`src/build/ch2.rs`; with the `solutions` feature,
// its reference solution): an error in it stops no other test.
#[cfg_attr(not(feature = "solutions"), path = "../src/build/ch2.rs")]
#[cfg_attr(feature = "solutions", path = "../src/solutions/build/ch2.rs")]
#[allow(
    dead_code,
    reason = "a stub holds parts that only the finished exercise uses"
)]
mod ch2;

use std::rc::Rc;
use std::time::Duration;

use ch2::{Scheduler, Ticker, Yield};
use exercises::assert_yours;
use exercises::build::{Log, assert_same_run};
use stage1::{Clock, VirtualClock};

const ONE: Duration = Duration::from_secs(1);
const TWO: Duration = Duration::from_secs(2);

/// The tasks: `(name, times, pauses)`, as `Ticker` takes them.
const TASKS: [(&str, u32, &[Yield]); 4] = [
    ("up", 5, &[Yield::Sleep(ONE)]),
    ("down", 3, &[Yield::Sleep(TWO)]),
    // Due at 2 s with two others, and then only switches: stage 2 runs it again at once.
    ("nap", 3, &[Yield::Sleep(TWO), Yield::Switch]),
    ("spin", 2, &[Yield::Switch]),
];

/// `Ticker` as the compiler writes it: the same loop, `async`, on stage 2's `switch` and
/// `sleep`.
async fn ticker(
    clock: Rc<VirtualClock>,
    log: Log,
    name: &'static str,
    times: u32,
    pauses: &'static [Yield],
) {
    let say = |what: String| {
        let line = format!("{:.3} {what}", clock.now().as_secs_f64());
        log.borrow_mut().push(line);
    };
    for i in 1..=times {
        say(format!("{name} {i}"));
        match pauses[(i as usize - 1) % pauses.len()] {
            Yield::Switch => stage2::switch().await,
            Yield::Sleep(delay) => stage2::sleep(delay).await,
            Yield::Done => return,
        }
    }
    say(format!("{name} done"));
}

fn lines(log: &Log) -> Vec<String> {
    log.borrow().clone()
}

#[test]
#[ignore = "exercise 2.4: generators that sleep, in turn"]
fn ex2_4_round_robin_matches_stage_2() {
    let expected = Log::default();
    let clock = VirtualClock::new();
    let stage = stage2::Scheduler::new(clock.clone());
    for (name, times, pauses) in TASKS {
        stage.new_task(ticker(clock.clone(), expected.clone(), name, times, pauses));
    }
    stage.run();

    let got = Log::default();
    let mut yours = Scheduler::new(VirtualClock::new());
    for (name, times, pauses) in TASKS {
        yours.new_task(Ticker::new(&got, name, times, pauses));
    }
    yours.run();
    assert_same_run("stage 2", &lines(&expected), &lines(&got));
    assert_yours!(yours.pending(), (0, 0), "no task is left ready or asleep");
}
