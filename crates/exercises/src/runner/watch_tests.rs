//! `watch`'s loop, tested (book introduction, "Exercises"; the project's own): a real file
//! watcher on a copy of an exercise's file in a temporary directory, and a pretend `cargo
//! test` that reads the copy and says which runs it was asked for. Bounded by counts of
//! runs, each awaited for a generous minute (CI is a busy machine).

use std::fs::{self, OpenOptions};
use std::sync::{Arc, Mutex};

use exercises::catalog::find;

use super::*;

/// A writer whose text the test reads once the session is over.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Shared {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A temporary directory, removed when the test ends, passed or failed.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a directory left in the system's temporary directory harms nobody.
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn append(file: &Path, line: &str) {
    let mut f = OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(line.as_bytes()).unwrap();
}

/// A run the pretend cargo was asked for: which exercises, and the lines the test had
/// added to the copy by then.
type Asked = (Vec<&'static str>, usize);

#[test]
fn saving_the_copied_file_runs_its_exercise_again_until_it_passes_then_the_next() {
    let dir = TempDir(std::env::temp_dir().join(format!("exercises-watch-{}", std::process::id())));
    let _ = fs::remove_dir_all(&dir.0); // left by a killed run with the same process id, if any
    fs::create_dir_all(dir.0.join("src")).unwrap();
    let root = dir.0.canonicalize().unwrap();
    let file = root.join("src/ch1.rs");
    let original = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ch1.rs");
    fs::copy(&original, &file).unwrap();
    let lines_before = fs::read_to_string(&file).unwrap().lines().count();

    // 1.1 is in the copied file; 2.1's file is not there, and is never saved.
    let exercises = [find("1.1").unwrap(), find("2.1").unwrap()];
    let (tx, inputs) = mpsc::channel();
    let watcher = file_events(&root.join("src"), tx.clone()).unwrap();
    let (asked_tx, asked) = mpsc::channel::<Asked>();
    let out = Shared::default();
    let session = {
        let (root, mut out) = (root.clone(), out.clone());
        thread::spawn(move || {
            // 1.1 passes once its file says `// solved`; 2.1 never does.
            let mut run = |chosen: &[&'static Exercise]| {
                let text = fs::read_to_string(root.join("src/ch1.rs"))?;
                let added = text.lines().count() - lines_before;
                asked_tx
                    .send((chosen.iter().map(|e| e.id).collect(), added))
                    .unwrap();
                Ok(chosen
                    .iter()
                    .map(|e| match e.id == "1.1" && text.contains("// solved") {
                        true => Outcome::Passed,
                        false => Outcome::Failed {
                            at: None,
                            message: format!("{} is not done", e.id),
                        },
                    })
                    .collect())
            };
            session(&exercises, &root, &mut run, &inputs, false, &mut out)
        })
    };
    let next = || asked.recv_timeout(Duration::from_secs(60)).unwrap();

    assert_eq!(
        next(),
        (vec!["1.1", "2.1"], 0),
        "first every exercise, to find where to start"
    );
    fs::write(
        root.join("src/other.rs"),
        "// another file: saving it runs nothing\n",
    )
    .unwrap();
    append(&file, "// still thinking\n");
    assert_eq!(next(), (vec!["1.1"], 1), "saved, not solved: run again");
    append(&file, "// solved\n");
    // The save runs 1.1 (once, or more if the writes did not settle): then the next.
    let mut runs = 2;
    loop {
        runs += 1;
        assert!(runs < 10, "too many runs");
        match next() {
            (ids, 2) if ids == ["1.1"] => continue,
            (ids, 2) if ids == ["1.1", "2.1"] => break,
            other => panic!("unexpected run {other:?}"),
        }
    }
    // A quit that comes while a run runs ends the session before it tells that run (an
    // interrupted `cargo test` tells nothing): quit once 2.1 is told and watched.
    let watching = "save it to run exercise 2.1 again";
    for _ in 0..600 {
        if out.text().contains(watching) {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    tx.send(Input::Quit).unwrap();
    assert_eq!(session.join().unwrap().unwrap(), End::Quit);
    drop(watcher);

    let text = out.text();
    assert!(text.contains("Exercise 1.1: let the timers in"), "{text}");
    assert!(text.contains("1.1 is not done"), "{text}");
    assert!(text.contains("Done: its test passes."), "{text}");
    assert!(
        text.contains("On to the next exercise.\n\nExercise 2.1: a generator by hand"),
        "{text}"
    );
    assert!(text.ends_with("Stopped at exercise 2.1.\n"), "{text}");
}

#[test]
fn a_save_of_another_file_or_a_read_is_not_a_run() {
    let (tx, inputs) = mpsc::channel();
    let file = Path::new("/x/src/ch1.rs");
    for input in [
        Input::Saved("/x/src/ch2.rs".into()),
        Input::Saved(file.into()),
        Input::Hint,
    ] {
        tx.send(input).unwrap();
    }
    drop(tx);
    let mut pending = VecDeque::new();
    assert_eq!(next(&inputs, &mut pending, file), Input::Run);
    assert_eq!(
        next(&inputs, &mut pending, file),
        Input::Hint,
        "kept while settling"
    );
    assert_eq!(
        next(&inputs, &mut pending, file),
        Input::Quit,
        "no sender left"
    );
    // While the crate does not compile, the whole directory is watched.
    let (tx, inputs) = mpsc::channel();
    tx.send(Input::Saved("/x/src/ch3.rs".into())).unwrap();
    drop(tx);
    assert_eq!(next(&inputs, &mut pending, Path::new("/x/src")), Input::Run);
    assert!(!is_a_write(&EventKind::Access(AccessKind::Open(
        notify::event::AccessMode::Any
    ))));
    assert!(is_a_write(&EventKind::Access(AccessKind::Close(
        AccessMode::Write
    ))));
}

#[test]
fn watch_id_starts_at_that_exercise_and_still_ends_only_when_all_are_done() {
    let ids = |exercises: &[&Exercise]| exercises.iter().map(|e| e.id).collect::<Vec<_>>();
    let book = order(CATALOG, None);
    assert_eq!(ids(&book), ids(&CATALOG.iter().collect::<Vec<_>>()));
    let from = order(CATALOG, find("2.1"));
    assert_eq!(from.len(), CATALOG.len());
    assert_eq!((from[0].id, from[from.len() - 1].id), ("2.1", "1.4"));

    // Nothing done: `watch 2.1` shows 2.1, not 1.1. No sender left: the session then quits.
    let (tx, inputs) = mpsc::channel::<Input>();
    drop(tx);
    let mut run = |chosen: &[&'static Exercise]| {
        Ok(chosen
            .iter()
            .map(|e| Outcome::Failed {
                at: None,
                message: format!("{} is not done", e.id),
            })
            .collect())
    };
    let mut out = Vec::new();
    let end = session(&from, Path::new("."), &mut run, &inputs, false, &mut out).unwrap();
    let shown = String::from_utf8(out).unwrap();
    assert_eq!(end, End::Quit);
    assert!(
        shown.starts_with("\nExercise 2.1: a generator by hand\n"),
        "{shown}"
    );
    assert!(shown.contains("2.1 is not done"), "{shown}");
    assert!(shown.ends_with("Stopped at exercise 2.1.\n"), "{shown}");
}

#[test]
fn an_exercise_this_machine_cannot_run_is_not_waited_on() {
    // 10.1 cannot run here (io_uring refused) and 1.1 is done: nothing is left to watch,
    // so the session ends at once rather than waiting for a save that could not help.
    let exercises = [find("10.1").unwrap(), find("1.1").unwrap()];
    let (_tx, inputs) = mpsc::channel();
    let mut out = Shared::default();
    let mut run = |chosen: &[&'static Exercise]| {
        Ok(chosen
            .iter()
            .map(|e| match e.id {
                "10.1" => Outcome::NotRun("io_uring refused here".to_owned()),
                _ => Outcome::Passed,
            })
            .collect())
    };
    let end = session(
        &exercises,
        Path::new("."),
        &mut run,
        &inputs,
        false,
        &mut out,
    )
    .unwrap();
    assert!(matches!(end, End::AllDone));
    assert!(
        out.text().ends_with(
            "1 of 2 done (1 cannot run on this machine).\n\
             Every exercise this machine can run is done.\n"
        ),
        "{}",
        out.text()
    );
}
