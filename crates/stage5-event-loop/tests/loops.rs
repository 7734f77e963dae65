//! `echo_server --loops N` (the book's "Beyond one core"): N event loops on N threads,
//! each accepting on the same port with `SO_REUSEPORT`. With two loops, 200 connections
//! reach both (the kernel hashes each connection's addresses and ports: all 200 landing on
//! one loop has a chance of 2 in 2^200); and a shutdown while 100 clients are in the middle
//! of a transfer loses nothing on either loop. Each server runs in a child process (see
//! `child_server`), so the signals reach only it. A loop that the operating system
//! refuses (out of file descriptors) is an error `loops::run` returns, not a panic.

#[allow(dead_code)]
#[path = "../examples/echo_server.rs"]
mod echo_server;

#[allow(dead_code)]
mod child_server;

use std::fs::File;
use std::time::Duration;

use loadgen::child::{ChildTest, Signal, complete_lines};
use loadgen::client;
use scaffold::Options;
use scaffold::net::Reply;

use echo_server::Settings;
use echo_server::loops::{self, Config};

const CHILD: &str = "STAGE5_LOOPS_CHILD";
const CHILD_NOFILE: &str = "STAGE5_LOOPS_NOFILE_CHILD";

// ANCHOR: both_loops
#[test]
fn two_loops_each_serve_some_of_200_connections() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(2, 5.0);
    }
    let (child, addr) = child_server::start("two_loops_each_serve_some_of_200_connections", CHILD);
    for n in 0..200 {
        let mut stream = client::connect(addr).unwrap();
        client::round_trip(&mut stream, b"", &client::message(n, 0, 32)).unwrap();
    }
    child.signal(Signal::Int).unwrap();
    let finished = child.finish().unwrap();
    child_server::assert_exited_well(&finished, 200);
    let (summary, per_loop) = child_server::report(&finished);
    assert_eq!(summary.served, 200);
    assert_eq!(per_loop.len(), 2);
    assert_eq!(per_loop.iter().sum::<usize>(), 200);
    assert!(per_loop.iter().all(|&n| n > 0), "{per_loop:?}");
    // Each loop says what it served, on its own console.
    for (i, n) in per_loop.iter().enumerate() {
        let line = format!("loop {i}: clients served: {n}");
        assert_eq!(complete_lines(&finished.stdout, &line), 1, "{line}");
    }
}
// ANCHOR_END: both_loops

#[test]
fn sigterm_mid_transfer_with_two_loops_loses_nothing() {
    if std::env::var_os(CHILD).is_some() {
        return child_server::serve(2, child_server::GRACE);
    }
    let finished = child_server::stop_mid_transfer(
        "sigterm_mid_transfer_with_two_loops_loses_nothing",
        CHILD,
        100,
        Signal::Term,
    );
    let (_, per_loop) = child_server::report(&finished);
    assert_eq!(per_loop.len(), 2);
}

/// `--loops N` with too few file descriptors for N loops (`ulimit -n`): each loop needs
/// an epoll descriptor, a self-pipe and a listener. The server must say why it cannot
/// start and exit, not panic with a backtrace. The child (64 descriptors) fills its table
/// so that exactly one descriptor is free: enough for loop 1's listener, not for its
/// selector; then, with none free, asks for one loop, which cannot get its selector either.
#[test]
fn too_few_descriptors_for_the_loops_is_an_error_not_a_panic() {
    if std::env::var_os(CHILD_NOFILE).is_some() {
        return too_few_descriptors();
    }
    let finished = ChildTest::new(
        "too_few_descriptors_for_the_loops_is_an_error_not_a_panic",
        CHILD_NOFILE,
        Duration::from_secs(120),
    )
    .nofile(64)
    .run()
    .unwrap();
    finished.assert_success();
    let stderr = &finished.stderr;
    assert!(!stderr.contains("panicked"), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("child: error: "))
        .collect();
    assert_eq!(errors.len(), 2, "{stderr}");
    assert!(errors[0].starts_with("loop 1: "), "{stderr}");
    assert!(
        errors.iter().all(|e| e.contains("Too many open files")),
        "{stderr}"
    );
}

/// The child: `loops::run` with two loops and one free descriptor, then with one loop and
/// none; each must return its error.
fn too_few_descriptors() {
    let options = Options::default();
    let clock = options.install();
    let config = |loops| Config {
        settings: Settings::new(Reply::Plain),
        loops,
        with_producer: None,
    };
    let any_port = "127.0.0.1:0".parse().unwrap();
    for loops in [2, 1] {
        let listener = Settings::listen(any_port, loops).unwrap();
        let mut filler = Vec::new();
        while let Ok(file) = File::open("/dev/null") {
            filler.push(file);
        }
        if loops == 2 {
            filler.pop(); // one free descriptor: loop 1's listener takes it
        }
        let outcome = loops::run(clock.clone(), options.clone(), listener, &config(loops));
        drop(filler);
        match outcome {
            Ok(_) => eprintln!("child: {loops} loops served with no descriptor to spare"),
            Err(error) => eprintln!("child: error: {error}"),
        }
    }
}

// ANCHOR: ping_pong
/// What one message between two loops costs when the receiver is asleep in `select`:
/// `ROUND_TRIPS` pings from loop A to loop B, each answered by a pong, every message a
/// `call_soon_threadsafe` that wakes the other loop through its self-pipe. Prints the
/// time per round trip and the CPU time (both threads) per message; asserts only that
/// every ping got its pong. Run it with:
/// `cargo test --release -p stage5 --test loops -- --ignored --nocapture`
#[test]
#[ignore = "a measurement: run it on purpose, in release"]
fn ping_pong_between_two_loops() {
    use stage5::{EventLoop, ThreadsafeLoop};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    const ROUND_TRIPS: usize = 20_000;
    let pongs = Arc::new(AtomicUsize::new(0));
    let (b_sender, b_ready) = std::sync::mpsc::sync_channel(1);
    let b = std::thread::spawn(move || {
        let lp = EventLoop::new();
        b_sender.send(lp.threadsafe()).unwrap();
        lp.run_forever().unwrap(); // until A says stop
    });
    let lp = EventLoop::new();
    let (a, b_loop) = (lp.threadsafe(), b_ready.recv().unwrap());

    /// Send ping number `n` to B, whose answer sends the next ping.
    fn ping(n: usize, a: ThreadsafeLoop, b: ThreadsafeLoop, pongs: Arc<AtomicUsize>) {
        if n == ROUND_TRIPS {
            b.call_soon_threadsafe(EventLoop::stop).unwrap();
            return a.call_soon_threadsafe(EventLoop::stop).unwrap();
        }
        let (a2, b2) = (a.clone(), b.clone());
        b.call_soon_threadsafe(move |_| {
            let a3 = a2.clone();
            a2.call_soon_threadsafe(move |_| {
                pongs.fetch_add(1, Ordering::Relaxed);
                ping(n + 1, a3, b2, pongs);
            })
            .unwrap();
        })
        .unwrap();
    }
    let cpu_before = loadgen::procstat::cpu_ns(std::process::id()).unwrap();
    let start = Instant::now();
    ping(0, a, b_loop, pongs.clone());
    lp.run_forever().unwrap();
    let wall = start.elapsed();
    b.join().unwrap();
    let cpu = loadgen::procstat::cpu_ns(std::process::id()).unwrap() - cpu_before;
    assert_eq!(pongs.load(Ordering::Relaxed), ROUND_TRIPS);
    eprintln!(
        "{ROUND_TRIPS} round trips: {:.2} us each; CPU {:.2} us per message (both threads)",
        wall.as_secs_f64() * 1e6 / ROUND_TRIPS as f64,
        cpu as f64 / 1e3 / (2 * ROUND_TRIPS) as f64
    );
}
// ANCHOR_END: ping_pong

const RECORDING_CHILD: &str = "STAGE5_LOOPS_RECORDING_CHILD";

/// Where the child of the test run by process `parent` writes its recording.
fn recording_of(parent: u32) -> std::path::PathBuf {
    let name = format!("loops-{parent}.json");
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn with_two_loops_the_recording_keeps_every_loop_a_process_each() {
    if std::env::var_os(RECORDING_CHILD).is_some() {
        let options = Options {
            record: Some(recording_of(std::os::unix::process::parent_id())),
            ..Options::default()
        };
        return child_server::serve_with(options, 2, 5.0, echo_server::Api::Sock);
    }
    let path = recording_of(std::process::id());
    let (child, addr) = child_server::start(
        "with_two_loops_the_recording_keeps_every_loop_a_process_each",
        RECORDING_CHILD,
    );
    // 40 connections reach both loops (all on one: a chance of 2 in 2^40).
    for n in 0..40 {
        let mut stream = client::connect(addr).unwrap();
        client::round_trip(&mut stream, b"", &client::message(n, 0, 32)).unwrap();
    }
    child.signal(Signal::Int).unwrap();
    let finished = child.finish().unwrap();
    child_server::assert_exited_well(&finished, 40);
    let (_, per_loop) = child_server::report(&finished);
    assert!(per_loop.iter().all(|&n| n > 0), "{per_loop:?}");
    let text = std::fs::read_to_string(&path).expect("the recording is written");
    std::fs::remove_file(&path).expect("the test's own file");
    let trace: serde_json::Value = serde_json::from_str(&text).expect("the JSON parses");
    let events = trace["traceEvents"].as_array().expect("trace events");
    let names = |what: &str, pid: usize| -> Vec<String> {
        let of = |e: &&serde_json::Value| e["ph"] == "M" && e["name"] == what && e["pid"] == pid;
        let name = |e: &serde_json::Value| e["args"]["name"].as_str().unwrap().to_owned();
        events.iter().filter(of).map(name).collect()
    };
    // A process per loop, named by its loop, and on each a track per connection it served.
    for (i, served) in per_loop.iter().enumerate() {
        let process = names("process_name", i + 1);
        assert_eq!(process.len(), 1, "loop {i}: {process:?}");
        assert!(process[0].ends_with(&format!(" · loop {i}")), "{process:?}");
        let tracks = names("thread_name", i + 1);
        let closed = tracks.iter().filter(|t| t.ends_with(": Connection closed"));
        assert_eq!(closed.count(), *served, "loop {i}: {tracks:?}");
    }
    assert!(
        names("process_name", 3).is_empty(),
        "two loops, two processes"
    );
}

#[test]
fn a_timeline_is_refused_with_several_loops_and_a_recording_is_not() {
    let flags = echo_server::Flags::default();
    let timeline = Options {
        timeline: Some("run.svg".into()),
        ..Options::default()
    };
    let record = Options {
        record: Some("run.json".into()),
        ..Options::default()
    };
    assert_eq!(flags.refused(&timeline), None, "one loop draws");
    flags.loops.set(2);
    let why = flags.refused(&timeline).expect("refused");
    assert!(why.starts_with("--timeline draws one loop's run"), "{why}");
    assert!(!why.contains('\n'), "one line: {why}");
    assert_eq!(flags.refused(&record), None, "every loop is recorded");
}
