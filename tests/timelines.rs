//! The book's timeline pictures are what the code draws now.
//!
//! Each row of [`PICTURES`] runs an example's own program on the virtual clock with its
//! events recorded, draws the picture (`scaffold::timeline`), and compares it with the file
//! committed under `docs/src/timelines/`. A picture that differs fails the test, like a
//! snapshot: look at the new drawing (written beside the test's temporary files, the
//! failure says where), and if the change is right, regenerate the committed pictures with
//!
//! ```text
//! UPDATE_TIMELINES=1 cargo test --test timelines
//! ```
//!
//! (ignored when `CI` is set, so CI never rewrites a picture). To add a picture, add a row:
//! its stage, the example's name, the file, and a function that runs the program on the
//! clock it is given.

// Stage 4's scripted run and stage 5's run of the same program include the same example
// files: one source, two modules, on purpose (one for each scheduler).
#![allow(clippy::duplicate_mod)]

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Mutex;

use scaffold::Clock;

// The example programs and the stages' runners, shared with `examples.rs` and
// `cross_stage.rs`; the transcript wrappers are not used here.
#[allow(dead_code)]
#[path = "support/stages.rs"]
mod stages;

#[path = "support/asyncio_handles.rs"]
mod asyncio_handles;
#[allow(dead_code)]
#[path = "../crates/stage4-select/tests/support/scripted_io.rs"]
mod stage4_scripted_io;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/examples/callbacks.rs"]
mod stage5_callbacks;
#[allow(dead_code)]
#[path = "../crates/stage5-event-loop/tests/support/old_code.rs"]
mod stage5_old_code;
#[path = "../crates/stage5-event-loop/tests/support/protocol_echo.rs"]
mod stage5_protocol_echo;
#[path = "../crates/stage6-proactor/tests/support/protocol_echo.rs"]
mod stage6_protocol_echo;

/// The handles asyncio's own loop ran for chapter 9's countdown (`conformance/handles.py`).
const COUNTDOWN_HANDLES: &str =
    include_str!("../crates/stage5-python/conformance/handles/countdown.txt");

/// Chapter 9's picture: asyncio's countdown, its recorded handles replayed on stage 5.
fn asyncio_countdown(clock: Rc<dyn Clock>) -> Vec<String> {
    let record = asyncio_handles::parse(COUNTDOWN_HANDLES).expect("the record reads");
    let lp = stage5::EventLoop::with_clock(clock);
    let ran = asyncio_handles::replay(&lp, record);
    lp.close().expect("the loop closes");
    ran
}

use stages::{run_stage1, run_stage2, run_stage5};

/// One committed picture: `docs/src/timelines/{file}`, drawn from `run`.
struct Picture {
    stage: u32,
    example: &'static str,
    file: &'static str,
    run: fn(Rc<dyn Clock>),
}

/// Every timeline the book shows. Stage 5 adds its rows here.
const PICTURES: &[Picture] = &[
    Picture {
        stage: 1,
        example: "countdown",
        file: "stage1-countdown.svg",
        run: |clock| run_stage1(clock, stages::stage1_countdown::program),
    },
    Picture {
        stage: 1,
        example: "producer_consumer",
        file: "stage1-producer_consumer.svg",
        run: |clock| run_stage1(clock, stages::stage1_producer_consumer::program),
    },
    Picture {
        stage: 2,
        example: "countdown",
        file: "stage2-countdown.svg",
        run: |clock| run_stage2(clock, stages::stage2_countdown::program),
    },
    Picture {
        stage: 2,
        example: "producer_consumer",
        file: "stage2-producer_consumer.svg",
        run: |clock| run_stage2(clock, stages::stage2_producer_consumer::program),
    },
    Picture {
        stage: 3,
        example: "mixed --concurrent",
        file: "stage3-mixed.svg",
        run: |clock| stages::stage3_mixed::concurrently(&stage3::Scheduler::new(clock)),
    },
    Picture {
        stage: 4,
        example: "echo_server --with-producer 3, scripted client",
        file: "stage4-scripted_io.svg",
        run: stage4_scripted_io::run,
    },
    Picture {
        stage: 5,
        example: "callbacks, parts 1 and 2",
        file: "stage5-callbacks.svg",
        run: |clock| {
            let lp = stage5::EventLoop::with_clock(clock);
            stage5_callbacks::one_loop(&lp).expect("parts 1 and 2 run to their end");
        },
    },
    Picture {
        stage: 5,
        example: "countdown",
        file: "stage5-countdown.svg",
        run: |clock| run_stage5(clock, stages::stage5_countdown::program),
    },
    Picture {
        stage: 5,
        example: "producer_consumer",
        file: "stage5-producer_consumer.svg",
        run: |clock| run_stage5(clock, stages::stage5_producer_consumer::program),
    },
    Picture {
        stage: 5,
        example: "stage 4's scripted I/O on the event loop",
        file: "stage5-scripted_io.svg",
        run: |clock| stage5_old_code::scenario(&stage5::EventLoop::with_clock(clock)),
    },
    Picture {
        stage: 5,
        example: "chapter 8's echo: a Protocol server and client on a socket pair",
        file: "stage5-protocol_echo.svg",
        run: |clock| {
            let lp = stage5::EventLoop::with_clock(clock);
            stage5_protocol_echo::scenario(&lp);
            lp.close().expect("the loop closes");
        },
    },
    Picture {
        stage: 5,
        example: "asyncio's countdown, its handles replayed",
        file: "stage5-asyncio_countdown.svg",
        run: |clock| drop(asyncio_countdown(clock)),
    },
    Picture {
        stage: 6,
        example: "chapter 8's echo on the proactor: a Protocol server and client on a socket pair",
        file: "stage6-protocol_echo.svg",
        run: |clock| {
            // Where io_uring is refused the picture cannot be drawn: the test says so.
            let ring = stage6::setup::ring().expect("io_uring (stage 6's picture needs it)");
            let lp = stage6::ProactorLoop::new(ring, clock).expect("a loop");
            stage6_protocol_echo::scenario(&lp);
            lp.close().expect("the loop closes");
        },
    },
];

/// One committed picture of two runs, one above the other on one time scale:
/// `docs/src/timelines/{file}`, drawn from the rows of [`PICTURES`] named `above` and
/// `below` (their files), each under its own title.
struct Pair {
    file: &'static str,
    title: &'static str,
    above: (&'static str, &'static str),
    below: (&'static str, &'static str),
}

/// Every picture of two runs the book shows.
const PAIRS: &[Pair] = &[Pair {
    file: "stage5-stage6-protocol_echo.svg",
    title: "readiness against completion: chapter 8's echo on stage 5 and on stage 6",
    above: (
        "stage5-protocol_echo.svg",
        "stage 5 · readiness: epoll says ready, the reader reads (virtual clock)",
    ),
    below: (
        "stage6-protocol_echo.svg",
        "stage 6 · completion: io_uring says done, the future is resolved (virtual clock)",
    ),
}];

/// The row of [`PICTURES`] that draws `file`.
fn picture(file: &str) -> &'static Picture {
    PICTURES
        .iter()
        .find(|p| p.file == file)
        .unwrap_or_else(|| panic!("no picture draws {file}"))
}

/// The picture a pair draws now: each run recorded as its own row records it.
fn draw_pair(pair: &'static Pair) -> String {
    let _alone = alone();
    std::thread::spawn(|| {
        let [above, below] = [pair.above, pair.below].map(|(file, part)| {
            let run = picture(file).run;
            // A thread of its own for each run, as `draw` gives it (see there); what
            // comes back is the run read into its rows, which may cross threads.
            let timeline = std::thread::spawn(move || {
                let records = scaffold::timeline::capture(run);
                assert_eq!(records.dropped, 0, "{file}: every event recorded");
                scaffold::timeline::read(&records.records)
            })
            .join()
            .expect("the program runs to its end");
            (part, timeline)
        });
        scaffold::timeline::svg::render_pair(pair.title, [(above.0, &above.1), (below.0, &below.1)])
    })
    .join()
    .expect("both programs run to their ends")
}

#[test]
fn the_books_pairs_are_what_the_code_draws() {
    let update = std::env::var_os("UPDATE_TIMELINES").is_some() && std::env::var_os("CI").is_none();
    let mut stale = Vec::new();
    for pair in PAIRS {
        let svg = draw_pair(pair);
        assert!(svg == draw_pair(pair), "{} differs between runs", pair.file);
        // Each half is its run as its own picture draws it, moved to the common scale: the
        // same rows (the loop, then each task and callback), in the same order.
        for (file, _) in [pair.above, pair.below] {
            let alone = std::fs::read_to_string(committed(file)).expect("its own picture");
            let said = |svg: &str| -> Vec<String> {
                svg.split(r#"<text class="name""#)
                    .skip(1)
                    .filter_map(|t| Some(t.split_once('>')?.1.split('<').next()?.to_owned()))
                    .collect()
            };
            let both = said(&svg);
            let own = said(&alone);
            assert!(
                !own.is_empty() && both.windows(own.len()).any(|w| w == own.as_slice()),
                "{}: the half drawn from {file} has not the rows {file} has",
                pair.file
            );
        }
        let path = committed(pair.file);
        if update {
            std::fs::write(&path, &svg).expect("the timelines folder is writable");
            continue;
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != svg {
            let new = Path::new(env!("CARGO_TARGET_TMPDIR")).join(pair.file);
            std::fs::write(&new, &svg).expect("the target folder is writable");
            stale.push(format!("{} (drawn now: {})", path.display(), new.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "pictures of two runs that differ from what the code draws now:\n  {}\n\
         look at the new drawings; if they are right: UPDATE_TIMELINES=1 cargo test --test timelines",
        stale.join("\n  ")
    );
}

#[test]
fn stage5_runs_asyncios_handles_in_asyncios_order() {
    // The picture is only asyncio's run if stage 5, given the same calls, ran the handles
    // in the order asyncio's own loop ran them.
    let record = asyncio_handles::parse(COUNTDOWN_HANDLES).expect("the record reads");
    let (ran, said) = std::thread::spawn(|| {
        let mut ran = Vec::new();
        let said = scaffold::transcript(false, |clock| ran = asyncio_countdown(clock));
        (ran, said)
    })
    .join()
    .expect("the replay runs to its end");
    assert_eq!(ran, record.runs);
    // And it printed what the program printed, in its order (each line after its time).
    let printed: Vec<&str> = COUNTDOWN_HANDLES
        .lines()
        .filter_map(|line| line.strip_prefix("say "))
        .filter_map(|line| line.split_once(' ').map(|(_, said)| said))
        .collect();
    let lines: Vec<&str> = said
        .lines()
        .filter_map(|line| line.split_once(" | ").map(|(_, said)| said))
        .collect();
    assert_eq!(lines, printed);
    assert_eq!(ran.len(), 23, "every handle asyncio ran, once");
}

fn committed(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/src/timelines")
        .join(file)
}

/// The picture a row draws now. Each run gets a thread of its own, as a program would:
/// stage 3 numbers its tasks per thread, so a run must not follow another on one thread.
fn draw(picture: &'static Picture) -> String {
    let _alone = alone();
    std::thread::spawn(|| draw_here(picture))
        .join()
        .expect("the program runs to its end")
}

fn draw_here(picture: &Picture) -> String {
    let records = scaffold::timeline::capture(picture.run);
    let title = format!(
        "stage {} · {} (virtual clock)",
        picture.stage, picture.example
    );
    scaffold::timeline::draw(&title, &records)
}

#[test]
fn the_books_timelines_are_what_the_code_draws() {
    let update = std::env::var_os("UPDATE_TIMELINES").is_some() && std::env::var_os("CI").is_none();
    let mut stale = Vec::new();
    for picture in PICTURES {
        let svg = draw(picture);
        let path = committed(picture.file);
        if update {
            std::fs::write(&path, &svg).expect("the timelines folder is writable");
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != svg {
            let new = Path::new(env!("CARGO_TARGET_TMPDIR")).join(picture.file);
            std::fs::write(&new, &svg).expect("the target folder is writable");
            stale.push(format!("{} (drawn now: {})", path.display(), new.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "timelines that differ from what the code draws now:\n  {}\n\
         look at the new drawings; if they are right: UPDATE_TIMELINES=1 cargo test --test timelines",
        stale.join("\n  ")
    );
}

/// The steps a row's run records now, as the book's stepper reads them (`scaffold::steps`).
fn steps(picture: &'static Picture) -> String {
    let _alone = alone();
    std::thread::spawn(|| {
        let records = scaffold::timeline::capture(picture.run);
        let title = format!("stage {} · {}", picture.stage, picture.example);
        scaffold::steps::to_json(&title, &records)
    })
    .join()
    .expect("the program runs to its end")
}

/// `text` with every descriptor's number (`fd 4`) replaced by `fd #`: which number a
/// socket gets depends on what else the test process has open (cargo's harness, a test
/// before it), not on the scheduler, so the steps are compared without them.
fn without_fds(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("fd ") {
        out.push_str(&rest[..at + 3]);
        rest = &rest[at + 3..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('#');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn descriptor_numbers_are_masked_and_nothing_else() {
    assert_eq!(
        without_fds("read_wait fd 12: c6 waits, fd x, fd 3"),
        "read_wait fd #: c6 waits, fd x, fd #"
    );
}

/// One run at a time in this process: the steps name the descriptors a run's sockets got,
/// and the kernel hands out the lowest free number, which another run open at the same
/// moment would change.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static ONE_RUN: Mutex<()> = Mutex::new(());
    // A run that panicked fails its own test; the lock itself is still good.
    ONE_RUN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `docs/src/steps/{stem}.json`: the same run as `docs/src/timelines/{stem}.svg`.
fn committed_steps(picture: &Picture) -> PathBuf {
    let stem = picture.file.trim_end_matches(".svg");
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/src/steps")
        .join(format!("{stem}.json"))
}

#[test]
fn the_books_steppers_replay_what_the_code_records() {
    let update = std::env::var_os("UPDATE_TIMELINES").is_some() && std::env::var_os("CI").is_none();
    let mut stale = Vec::new();
    for picture in PICTURES {
        let json = steps(picture);
        let path = committed_steps(picture);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).expect("docs/src is writable");
            std::fs::write(&path, &json).expect("the steps folder is writable");
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if without_fds(&on_disk) != without_fds(&json) {
            let name = path.file_name().unwrap();
            let new = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
            std::fs::write(&new, &json).expect("the target folder is writable");
            stale.push(format!(
                "{} (recorded now: {})",
                path.display(),
                new.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "steppers' runs that differ from what the code records now:\n  {}\n\
         if the change is right: UPDATE_TIMELINES=1 cargo test --test timelines",
        stale.join("\n  ")
    );
}

#[test]
fn every_committed_timeline_has_a_row() {
    // A picture nobody draws any more would never be checked again: delete it, or add its row.
    let folder = committed("");
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(&folder).expect("docs/src/timelines exists") {
        let name = entry.expect("a readable folder").file_name();
        let name = name.to_string_lossy();
        if !PICTURES.iter().any(|p| p.file == name) && !PAIRS.iter().any(|p| p.file == name) {
            stale.push(name.into_owned());
        }
    }
    assert!(stale.is_empty(), "timelines no test draws: {stale:?}");
}

#[test]
fn drawing_is_deterministic() {
    // The comparison above is only fair if the same run always draws the same picture:
    // the scripted I/O, with its real sockets, most of all.
    for picture in PICTURES {
        assert!(
            draw(picture) == draw(picture),
            "{} differs between runs",
            picture.file
        );
    }
}

/// `--record`'s trace events for stage 5's `countdown`, recorded as the pictures are: the
/// JSON parses, each wake's flow has its two ends, each track's ticks never go back, every
/// track with a slice or a flow on it is named, and runs, counters and wakes are all there.
#[test]
fn stage5_countdown_records_as_trace_events() {
    use std::collections::{HashMap, HashSet};
    let alone = alone();
    let json = std::thread::spawn(|| {
        let records = scaffold::timeline::capture(|clock| {
            run_stage5(clock, stages::stage5_countdown::program)
        });
        scaffold::trace_events::to_json("stage 5 · countdown (virtual clock)", &records)
    })
    .join()
    .expect("the program runs to its end");
    drop(alone);
    let trace: serde_json::Value = serde_json::from_str(&json).expect("the JSON parses");
    let events = trace["traceEvents"].as_array().expect("a list of events");
    let track = |e: &serde_json::Value| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
    let phase = |e: &serde_json::Value| e["ph"].as_str().unwrap().to_owned();
    let named: HashSet<_> = events
        .iter()
        .filter(|e| phase(e) == "M" && e["name"] == "thread_name")
        .map(track)
        .collect();
    let mut last = HashMap::new();
    let mut flows: HashMap<u64, (usize, usize)> = HashMap::new();
    let mut count: HashMap<String, usize> = HashMap::new();
    for event in events {
        let ph = phase(event);
        *count.entry(ph.clone()).or_default() += 1;
        if ph == "M" {
            continue;
        }
        let ts = event["ts"].as_u64().expect("a tick");
        let before = last.insert(track(event), ts).unwrap_or(0);
        assert!(
            ts >= before,
            "{event} comes before tick {before} on its track"
        );
        if ["X", "s", "f"].contains(&ph.as_str()) {
            assert!(named.contains(&track(event)), "{event}: an unnamed track");
        }
        let id = || event["id"].as_u64().expect("a flow's id");
        match ph.as_str() {
            "s" => flows.entry(id()).or_default().0 += 1,
            "f" => {
                assert_eq!(event["bp"], "e", "{event}");
                flows.entry(id()).or_default().1 += 1;
            }
            _ => {}
        }
    }
    assert!(flows.values().all(|&ends| ends == (1, 1)), "{flows:?}");
    for ph in ["X", "C", "s"] {
        assert!(
            count.get(ph).is_some_and(|&n| n > 0),
            "no {ph} event: {count:?}"
        );
    }
}

/// The curve of class `class` (`ready`, `timers`) in a committed picture: each vertex's x and
/// the length it stands for, read back through the chart's `max N`.
fn chart(svg: &str, class: &str) -> Vec<(f64, usize)> {
    let start = svg
        .find(&format!(r#"<path class="{class}" d=""#))
        .unwrap_or_else(|| panic!("no {class} chart"));
    let max: f64 = svg[..start]
        .rsplit_once(">max ")
        .and_then(|(_, rest)| rest.split('<').next()?.parse().ok())
        .expect("the chart says its max");
    let d = svg[start..].split('"').nth(3).expect("the path's d");
    let numbers: Vec<f64> = d
        .split([' ', 'M', 'L'])
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().expect("a number"))
        .collect();
    let points: Vec<(f64, f64)> = numbers.chunks(2).map(|p| (p[0], p[1])).collect();
    let base = points[0].1;
    let top = points.iter().map(|p| p.1).fold(base, f64::min);
    let unit = if max > 0.0 { (base - top) / max } else { 1.0 };
    points
        .iter()
        .map(|&(x, y)| (x, ((base - y) / unit).round() as usize))
        .collect()
}

#[test]
fn every_timelines_counters_are_the_recorded_states() {
    // Checked on the committed files, which the tests above keep equal to what the code
    // draws: at every moment a step was recorded, the charts hold the lengths of the state
    // the last step at that moment left.
    let mut wrong = Vec::new();
    for picture in PICTURES {
        let svg = std::fs::read_to_string(committed(picture.file)).expect("the picture");
        let json = std::fs::read_to_string(committed_steps(picture)).expect("its steps");
        let steps: serde_json::Value = serde_json::from_str(&json).expect("the steps parse");
        let states = steps["states"].as_array().expect("states");
        let steps = steps["steps"].as_array().expect("steps");
        for (class, length) in [("ready", "ready_len"), ("timers", "timers_len")] {
            let curve = chart(&svg, class);
            let at = |x: f64| curve.iter().rev().find(|p| p.0 <= x + 0.05).map(|p| p.1);
            for (i, step) in steps.iter().enumerate() {
                let x = step["x"].as_f64().expect("a step's x");
                let last_there = steps.get(i + 1).is_none_or(|n| n["x"].as_f64() != Some(x));
                let Some(state) = step["state"].as_u64().filter(|_| last_there) else {
                    continue;
                };
                let expected = states[state as usize][length].as_u64().map(|n| n as usize);
                if at(x) != expected {
                    wrong.push(format!(
                        "{}: the {class} chart at step {i} (x {x}) shows {:?}, its state {expected:?}",
                        picture.file,
                        at(x)
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "charts that are not the states:\n  {}",
        wrong.join("\n  ")
    );
}
