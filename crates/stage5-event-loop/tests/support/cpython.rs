//! The other half of every conformance scenario (book chapters 5 to 8, "The same order as
//! CPython"): run `conformance/NAME.py` under the installed python3, whose asyncio is the
//! original stage 5 retells, and require its lines to equal ours, one for one. Shared by
//! `conformance.rs` and `conformance_transports.rs`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{PoisonError, RwLock};

/// Scenarios and spawns kept apart. A process spawned while another test thread's socket is
/// open holds a copy of every descriptor until it execs (close-on-exec ones included): a
/// socket that thread closes meanwhile has not ended for its peer, which reads "nothing yet"
/// where it should read the end (seen under load, in 4 of 180 runs of the transport
/// scenarios). Scenarios share the lock; a spawn takes it alone, until the child has exec'd.
static SPAWNING: RwLock<()> = RwLock::new(());

/// Run `scenario` while no process is being spawned.
pub fn without_spawning<T>(scenario: impl FnOnce() -> T) -> T {
    let _shared = SPAWNING.read().unwrap_or_else(PoisonError::into_inner);
    scenario()
}

/// Compare `ours` with what `conformance/{name}.py` prints. Without python3, or when the
/// script prints `SKIP ...` (a Python other than the one the scenario needs), say so and
/// pass: the snapshot still pins our side.
pub fn compare_with_cpython(name: &str, ours: &[&str]) {
    let ours: Vec<String> = ours.iter().map(|l| l.to_string()).collect();
    compare_with_cpython_by(name, &ours, str::to_owned);
}

/// [`compare_with_cpython`], with CPython's lines passed through `normalise` first (`ours`
/// are given normalised already).
pub fn compare_with_cpython_by(name: &str, ours: &[String], normalise: fn(&str) -> String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let spawned = {
        let _alone = SPAWNING.write().unwrap_or_else(PoisonError::into_inner);
        // `spawn` returns once the child has exec'd (or failed to).
        Command::new("python3")
            .arg(format!("{name}.py"))
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    let output = match spawned.and_then(|child| child.wait_with_output()) {
        Ok(output) => output,
        Err(error) => {
            eprintln!("note: python3 not available ({error}): {name} not compared with CPython");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "conformance/{name}.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    if stdout.starts_with("SKIP") {
        eprintln!("note: {name}: {}", stdout.trim());
        return;
    }
    let theirs: Vec<String> = stdout.lines().map(normalise).collect();
    assert_eq!(
        ours, theirs,
        "{name}: stage 5 (left) and CPython's asyncio (right) disagree"
    );
}
