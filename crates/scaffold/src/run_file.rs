//! The files a recorded run is written to, `--timeline FILE.svg` and `--record FILE.json`
//! (book introduction, "Timelines" and "Watching a run"). No public source: the project's own
//! instrument.
//!
//! Each file is created before the run, so that a path that cannot be written is an error
//! at once rather than after the program has run, and written when the program ends. Both
//! kinds fail the same way, with one line naming the file.
//!
//! Only a regular file is written. A FIFO would make `open` wait until something reads it
//! (forever, if nothing does), and a device or a socket is no place for a run's file, so
//! anything else is refused with that one line. Looking before opening gives the clear
//! reason; but the path can change between the look and the `open`, so the `open` itself
//! never waits (`O_NONBLOCK`: on a FIFO nobody reads it fails at once, on one somebody
//! reads it succeeds at once) and what it opened is looked at again, through the open
//! descriptor, before a byte is written.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a run's file could not be written.
#[derive(Debug)]
pub struct WriteError {
    /// What the file holds: `timeline` or `recording`.
    pub what: &'static str,
    /// The file.
    pub path: PathBuf,
    /// What the operating system said.
    pub source: io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, path, source) = (self.what, self.path.display(), &self.source);
        write!(f, "cannot write the {what} {path}: {source}")
    }
}

impl std::error::Error for WriteError {}

/// Create (or empty) `path`, the `what` of a run about to start.
pub fn create(what: &'static str, path: &Path) -> Result<(), WriteError> {
    write(what, path, "")
}

/// Write `contents` into `path`, the `what` of the run that has ended.
pub fn write(
    what: &'static str,
    path: &Path,
    contents: impl AsRef<[u8]>,
) -> Result<(), WriteError> {
    let fail = |source| WriteError {
        what,
        path: path.to_owned(),
        source,
    };
    open_regular(path)
        .and_then(|mut file| file.write_all(contents.as_ref()))
        .map_err(fail)
}

/// The reason a path that is there but is no regular file is refused.
const NOT_REGULAR: &str = "not a regular file (a FIFO or a device is refused: writing \
                           there could wait for a reader forever)";

/// Open `path` for writing, created or emptied, if it is a regular file; never waits.
fn open_regular(path: &Path) -> io::Result<File> {
    match std::fs::metadata(path) {
        Ok(found) if !found.is_file() => return Err(io::Error::other(NOT_REGULAR)),
        // A regular file, or nothing there yet (or nothing we may look at): `open` decides.
        Ok(_) | Err(_) => {}
    }
    open_checked(path)
}

/// Open `path` without waiting, and keep it only if what was opened is a regular file.
fn open_checked(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        // What `open` found may not be what `metadata` saw: it must not wait either way.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    // Looked at through the descriptor: the very file that will be written.
    if !file.metadata()?.is_file() {
        return Err(io::Error::other(NOT_REGULAR));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// A fresh folder of this test's own under the system's temporary folder.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("run-file-{}-{name}", std::process::id()));
        // Left by an earlier run with the same process id, or not there: either way gone.
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
        dir
    }

    /// `create` and `write` on `path`, each on a thread of its own and given ten seconds
    /// (it takes microseconds, or forever if `open` waits): their errors, as printed.
    fn both(path: &Path) -> Vec<String> {
        let mut said = Vec::new();
        for contents in [None, Some("{}")] {
            let (tx, rx) = mpsc::channel();
            let owned = path.to_owned();
            std::thread::spawn(move || {
                let done = match contents {
                    None => create("recording", &owned),
                    Some(text) => write("recording", &owned, text),
                };
                // The test may have given up waiting: then nobody listens, and that is its failure.
                drop(tx.send(done.map_err(|e| e.to_string())));
            });
            let done = rx.recv_timeout(Duration::from_secs(10));
            let done = done.unwrap_or_else(|_| panic!("opening {} waits", path.display()));
            said.push(done.expect_err("refused"));
        }
        said
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once_with_one_line_whether_or_not_something_reads_it() {
        let dir = folder("fifo");
        let fifo = dir.join("f");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.expect("mkfifo runs").success());
        for error in both(&fifo) {
            let expected = format!(
                "cannot write the recording {}: not a regular",
                fifo.display()
            );
            assert!(error.starts_with(&expected), "{error}");
            assert!(!error.contains('\n'), "{error}");
        }
        // As if the path became a FIFO after the look: `open` fails at once with nobody
        // reading, and with a reader it opens at once and the descriptor's look refuses.
        assert!(open_checked(&fifo).is_err());
        use std::os::unix::fs::OpenOptionsExt;
        let mut reading = std::fs::File::options();
        let reader = reading
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
        let reader = reader.expect("a FIFO opens for reading at once without O_NONBLOCK's wait");
        let error = open_checked(&fifo).expect_err("refused").to_string();
        assert!(error.starts_with("not a regular file"), "{error}");
        drop(reader);
        std::fs::remove_dir_all(&dir).ok(); // only this test's folder
    }

    #[test]
    fn a_regular_file_is_emptied_then_written_and_a_folder_refused() {
        let dir = folder("regular");
        let path = dir.join("run.json");
        std::fs::write(&path, "old contents").unwrap();
        create("recording", &path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        write("recording", &path, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let error = create("timeline", &dir).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
        std::fs::remove_dir_all(&dir).ok(); // only this test's folder
    }
}
