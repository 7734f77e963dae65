//! The files a recorded run is written to, `--timeline FILE.svg` and `--record FILE.json`
//! (book introduction, "Timelines" and "Watching a run"). No public source: the project's own
//! instrument.
//!
//! Each file is created before the run, so that a path that cannot be written is an error
//! at once rather than after the program has run, and written when the program ends. Both
//! kinds fail the same way, with one line naming the file.

use std::fmt;
use std::io;
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
    std::fs::write(path, contents).map_err(|source| WriteError {
        what,
        path: path.to_owned(),
        source,
    })
}
