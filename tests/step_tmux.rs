//! `--step` as a person uses it (book introduction, "Watching a run", "Stepping in the
//! terminal"): stage 1's `countdown` runs in a detached `tmux` session of fixed size, the
//! test presses Enter, `c` and `q` there, and reads the screen as the person would.
//!
//! What the panels must show is not written here: it is computed from a recording of the
//! same program, made without `--step` (`scaffold::timeline::capture` and the steps'
//! JSON, `scaffold::steps`), so that the panels are checked against what the run records.
//!
//! Every wait is bounded: the screen is polled for at most [`PATIENCE`]. Each session has
//! a name of its own (the process id and a counter) on a tmux server of its own, and is
//! killed when its test ends, passed or failed. Without tmux the test fails under CI (which
//! installs it: `.ci/run`) and is skipped elsewhere, saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

#[allow(dead_code)]
#[path = "support/stages.rs"]
mod stages;

/// How long the screen may take to show what a key asked for.
const PATIENCE: Duration = Duration::from_secs(20);

/// True if tmux can be run; without it, fails under CI and skips elsewhere.
fn tmux_here() -> bool {
    let found = Command::new("tmux").arg("-V").output();
    if found.is_ok_and(|out| out.status.success()) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "tmux is missing: these tests drive --step in it (.ci/run installs it with apt-get)"
    );
    eprintln!("skipped: tmux is not installed (apt-get install tmux), and these tests need it");
    false
}

/// Stage 1's `countdown` example, built by cargo as a person would build it. Its path comes
/// from cargo's own messages, and the test runs a copy: every stage has a `countdown`, and
/// `target/debug/examples/countdown` is whichever was built last.
fn countdown() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "-p", "stage1", "--example", "countdown"])
            .arg("--message-format=json")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo build -p stage1 --example countdown failed"
        );
        let messages = String::from_utf8_lossy(&out.stdout);
        let mut built = messages.lines().filter_map(|line| {
            let message: Value = serde_json::from_str(line).ok()?;
            let example = message["target"]["kind"] == serde_json::json!(["example"]);
            let named = message["target"]["name"] == "countdown";
            (example && named).then(|| message["executable"].as_str().map(PathBuf::from))?
        });
        let built = built.next_back().expect("cargo names the example it built");
        // A copy of our own: the next build of another stage's `countdown` replaces cargo's.
        let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join("step-stage1-countdown");
        std::fs::copy(&built, &copy).expect("the target folder is writable");
        copy
    })
}

/// One tmux session running one command, on a server of its own (its socket at `socket`),
/// killed when dropped.
struct Session {
    name: String,
    socket: PathBuf,
    files: PathBuf,
}

impl Session {
    /// Start `countdown ARGS` in a 120 by 40 terminal; when it ends, the shell writes its
    /// exit code to `code` and the terminal's settings to `stty`, then waits to be killed.
    fn start(args: &str) -> Session {
        let script = |bin: &Path, dir: &Path| {
            let (bin, dir) = (bin.display(), dir.display());
            format!(
                "'{bin}' {args}; echo $? > '{dir}/code'; stty -a > '{dir}/stty'; exec sleep 600"
            )
        };
        Session::start_script(script)
    }

    /// Start the shell command `script(countdown, folder)` in a 120 by 40 terminal, with a
    /// folder of its own for the files it writes.
    fn start_script(script: impl FnOnce(&Path, &Path) -> String) -> Session {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let name = format!("step-{}-{n}", std::process::id());
        let files = Path::new(env!("CARGO_TARGET_TMPDIR")).join(&name);
        std::fs::create_dir_all(&files).expect("the target folder is writable");
        for stale in ["code", "stty", "pid"] {
            // Left by an earlier run with the same process id, or never written: either way gone.
            std::fs::remove_file(files.join(stale)).ok();
        }
        let script = script(countdown(), &files);
        let socket = std::env::temp_dir().join(&name); // short: a socket's path is limited
        let session = Session {
            name,
            socket,
            files,
        };
        session.tmux(
            &[
                "new-session",
                "-d",
                "-s",
                &session.name,
                "-x",
                "120",
                "-y",
                "40",
            ],
            Some(&script),
        );
        session
    }

    fn tmux(&self, args: &[&str], command: Option<&str>) -> String {
        let mut tmux = Command::new("tmux");
        tmux.arg("-S").arg(&self.socket);
        tmux.args(["-f", "/dev/null"]).args(args);
        if let Some(command) = command {
            tmux.args(["sh", "-c", command]);
        }
        let out = tmux.output().expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn press(&self, key: &str) {
        self.tmux(&["send-keys", "-t", &self.name, key], None);
    }

    /// Poll the screen until it shows `lines` in this order (each one a whole line, trailing
    /// spaces aside); fails, with the last screen, after [`PATIENCE`].
    fn shows(&self, lines: &[String]) -> String {
        let start = Instant::now();
        loop {
            let screen = self.tmux(&["capture-pane", "-p", "-t", &self.name], None);
            let mut want = lines.iter().peekable();
            for line in screen.lines().map(str::trim_end) {
                want.next_if(|w| w.as_str() == line);
            }
            if want.peek().is_none() {
                return screen;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "the screen never showed {:?}; it shows:\n{screen}",
                want.peek()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The exit code and terminal settings the shell wrote once the program ended.
    fn ended(&self) -> (String, String) {
        let start = Instant::now();
        loop {
            let read = |name| std::fs::read_to_string(self.files.join(name)).ok();
            if let (Some(code), Some(stty)) = (read("code"), read("stty"))
                && stty.contains("speed")
            {
                return (code.trim().to_owned(), stty);
            }
            assert!(start.elapsed() < PATIENCE, "the program did not end");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Only this session, on its own server; if it is already gone, nothing is left.
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["kill-session", "-t", &self.name])
            .output()
            .ok();
        // The server leaves its socket behind, and the shell its two files: not ours to keep.
        std::fs::remove_file(&self.socket).ok();
        std::fs::remove_dir_all(&self.files).ok();
    }
}

/// The same run, recorded without `--step`: its steps as the book's steppers read them,
/// and each recorded event as it prints (for the steps that have no trace line).
struct Run {
    json: Value,
    events: Vec<String>,
}

fn recorded() -> Run {
    let records = std::thread::spawn(|| {
        let run = |clock| stages::run_stage1(clock, stages::stage1_countdown::program);
        let records = scaffold::timeline::capture(run);
        let events = records
            .records
            .iter()
            .map(|r| r.event.to_string())
            .collect();
        (
            scaffold::steps::to_json("stage 1 · countdown", &records),
            events,
        )
    });
    let (json, events) = records.join().expect("it runs");
    let json = serde_json::from_str(&json).expect("the steps are JSON");
    Run { json, events }
}

/// Step `i`'s line (counted from 0) as the recording says it: its trace line, the
/// program's line, or its kind and the event.
fn line_of(run: &Run, i: usize) -> String {
    let step = &run.json["steps"][i];
    match (step["trace"].as_str(), step["say"].as_str()) {
        (Some(trace), _) => trace.to_owned(),
        (None, Some(said)) => format!("| {said}"),
        (None, None) => format!("({}: {})", step["kind"].as_str().unwrap(), run.events[i]),
    }
}

/// ` <- call_soon by c1 at step 5`, from a cause in the steps' JSON (steps counted from 0).
fn why(cause: &Value) -> String {
    if cause.is_null() {
        return String::new();
    }
    let by = cause["by"]
        .as_str()
        .map(|by| format!(" by {by}"))
        .unwrap_or_default();
    let step = cause["step"].as_u64().unwrap();
    format!(" <- {}{by} at step {step}", cause["what"].as_str().unwrap())
}

/// The lines the panels must show after `n` presses of Enter (at step `n - 1`: steps are
/// counted from 0), in order, from `run`.
fn panels(run: &Run, n: usize) -> Vec<String> {
    let steps = run.json["steps"].as_array().unwrap();
    let step = &steps[n - 1];
    let mut lines = vec![];
    for i in n.saturating_sub(5)..n - 1 {
        lines.push(format!("  {i:>5}  {}", line_of(run, i)));
    }
    lines.push(format!(">{:>6}  {}", n - 1, line_of(run, n - 1)));
    let state =
        &run.json["states"][step["state"].as_u64().expect("stage 1 reports its state") as usize];
    let running = &state["running"];
    lines.push(match running["id"].as_str() {
        Some(id) => format!("  {id}{}", why(&running["why"])),
        None => "  nothing runs now".to_owned(),
    });
    lines.push(format!(
        "{:-<120}",
        format!("-- ready queue: {} ", state["ready_len"])
    ));
    for (i, entry) in state["ready"].as_array().unwrap().iter().enumerate() {
        lines.push(format!(
            "  {:>2}. {}{}",
            i + 1,
            entry["id"].as_str().unwrap(),
            why(&entry["why"])
        ));
    }
    lines.push(format!(
        "{:-<120}",
        format!("-- timer heap: {}, in pop order ", state["timers_len"])
    ));
    for (i, t) in state["timers"].as_array().unwrap().iter().enumerate() {
        let (due, seq, id) = (
            t["due"].as_f64().unwrap(),
            &t["seq"],
            t["id"].as_str().unwrap(),
        );
        lines.push(format!(
            "  {:>2}. due {due:.3} seq {seq}: {id}{}",
            i + 1,
            why(&t["why"])
        ));
    }
    let said = steps[..n].iter().rev().find_map(|s| s["say"].as_str());
    lines.push(format!("  {}", said.unwrap_or("(nothing yet)")));
    lines
}

/// The header after `n` presses of Enter (step `n - 1`), with the clock's time the
/// recording gives it.
fn header(run: &Run, n: usize) -> String {
    let at = run.json["steps"][n - 1]["at"].as_f64().unwrap();
    format!(
        "step {}   clock {at:.3} s (virtual)   {}",
        n - 1,
        scaffold::step::panel::KEYS
    )
}

#[test]
fn enter_steps_through_what_the_recording_says_and_q_quits_cleanly() {
    if !tmux_here() {
        return;
    }
    let run = recorded();
    let session = Session::start("--virtual-time --step");
    session.shows(&[
        "before step 0   clock 0.000 s (virtual)   Enter: next step   b: back   c: continue to the end   q: quit"
            .to_owned(),
    ]);
    for n in 1..=10 {
        session.press("Enter");
        let mut want = vec![header(&run, n)];
        want.extend(panels(&run, n));
        let screen = session.shows(&want);
        if n == 3 {
            assert!(screen.contains("-- waits: 0 "), "{screen}");
        }
    }
    session.press("q");
    let (code, stty) = session.ended();
    assert_eq!(code, "0", "q exits with 0");
    let settings: Vec<&str> = stty.split_whitespace().collect();
    for setting in ["icanon", "echo", "isig", "opost"] {
        assert!(
            settings.contains(&setting),
            "the terminal is left without {setting}:\n{stty}"
        );
    }
    // The alternate screen is gone, and the lines said up to step 10 are on the screen.
    let said = ["  0.000 | Down 5", "  0.000 | Up 0"].map(str::to_owned);
    let screen = session.shows(&said);
    assert!(!screen.contains("-- ready queue"), "{screen}");
}

#[test]
fn c_runs_to_the_end_with_the_whole_output() {
    if !tmux_here() {
        return;
    }
    let plain = Command::new(countdown())
        .arg("--virtual-time")
        .stdin(Stdio::null())
        .output();
    let plain = plain.expect("countdown runs");
    assert!(plain.status.success());
    let lines: Vec<String> = String::from_utf8(plain.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 25, "countdown says 25 lines");
    let session = Session::start("--virtual-time --step");
    session.shows(&["-- scheduler ".to_owned() + &"-".repeat(107)]);
    session.press("Enter");
    session.shows(&["  nothing runs now".to_owned()]);
    session.press("c");
    let (code, _) = session.ended();
    assert_eq!(code, "0");
    session.shows(&lines);
}

#[test]
fn without_a_terminal_or_with_a_file_to_write_step_says_why_and_exits_with_2() {
    for (args, says) in [
        (&["--step"][..], "error: --step needs a terminal"),
        (
            &["--step", "--record", "run.json"][..],
            "error: --step cannot be combined",
        ),
    ] {
        let out = Command::new(countdown())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing runs");
    }
    assert!(
        !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("run.json")
            .exists()
    );
}

#[test]
fn a_terminal_that_goes_away_ends_the_run_as_q_does() {
    if !tmux_here() {
        return;
    }
    // SIGHUP ignored, as under `nohup`, by the shell and the program it starts: only its
    // terminal's end of input (a read of nothing, for ever after) tells the program.
    let session = Session::start_script(|bin, dir| {
        let (bin, dir) = (bin.display(), dir.display());
        format!(
            "trap '' HUP; sh -c 'echo $$ > \"{dir}/pid\"; exec \"{bin}\" --virtual-time --step'; \
             echo $? > '{dir}/code'"
        )
    });
    session.shows(&["-- scheduler ".to_owned() + &"-".repeat(107)]);
    session.press("Enter");
    session.shows(&["  nothing runs now".to_owned()]);
    let pid = std::fs::read_to_string(session.files.join("pid")).expect("the shell wrote it");
    // The terminal goes: tmux closes its side of the pty, and the paused program reads nothing.
    session.tmux(&["kill-session", "-t", &session.name], None);
    let start = Instant::now();
    let code = loop {
        if let Ok(code) = std::fs::read_to_string(session.files.join("code"))
            && code.ends_with('\n')
        {
            break Some(code);
        }
        if start.elapsed() > PATIENCE {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let Some(code) = code else {
        // Ours, by the id its own shell wrote: it would spin on for ever otherwise.
        let killed = Command::new("kill").args(["-9", pid.trim()]).status();
        panic!("the program did not end once its terminal was gone (killed: {killed:?})");
    };
    assert_eq!(code.trim(), "0", "the end of the terminal quits as q does");
}

#[test]
fn the_trace_fills_the_terminal_and_b_or_the_left_arrow_steps_back_through_the_recording() {
    if !tmux_here() {
        return;
    }
    let run = recorded();
    let session = Session::start("--virtual-time --step");
    session.shows(&["-- scheduler ".to_owned() + &"-".repeat(107)]);
    for n in 1..=12 {
        session.press("Enter");
        session.shows(&[header(&run, n)]);
    }
    // At step 11, on 40 rows: every step from 0 on, not the last few only.
    let mut trace: Vec<String> = (0..11)
        .map(|i| format!("  {i:>5}  {}", line_of(&run, i)))
        .collect();
    trace.push(format!(">{:>6}  {}", 11, line_of(&run, 11)));
    session.shows(&trace);
    // Back twice (b, then the left arrow): steps 10 and 9 as the recording kept them.
    let back = |n: usize| {
        let (step, back) = (
            format!("step {}", n - 1),
            format!("step {} (back from 11)", n - 1),
        );
        header(&run, n).replacen(&step, &back, 1)
    };
    for (key, n) in [("b", 11), ("Left", 10)] {
        session.press(key);
        let mut want = vec![back(n)];
        want.extend(panels(&run, n));
        session.shows(&want);
    }
    // Enter goes forward through what was kept (step 10), then on from step 11.
    for n in [11, 12, 13] {
        session.press("Enter");
        let mut want = vec![if n == 11 { back(n) } else { header(&run, n) }];
        want.extend(panels(&run, n));
        session.shows(&want);
    }
    session.press("q");
    let (code, _) = session.ended();
    assert_eq!(code, "0");
}
