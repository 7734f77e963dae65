//! The repository's files, as the tidy checks walk them (the conventions ARCHITECTURE.md
//! states; no seed section). Shared by `tidy.rs` and `architecture.rs`.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends in `.{ext}`, in sorted order; build output
/// (`target`, `book`) and hidden folders are skipped.
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                let hidden = name.to_string_lossy().starts_with('.');
                if name != "target" && name != "book" && !hidden {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The stage crates: `crates/stageN-*`, with N, in stage order.
pub fn stages() -> Vec<(u32, PathBuf)> {
    let mut stages: Vec<_> = fs::read_dir(root().join("crates"))
        .expect("the crates folder")
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let n = name
                .strip_prefix("stage")?
                .split('-')
                .next()?
                .parse()
                .ok()?;
            Some((n, entry.path()))
        })
        .collect();
    stages.sort();
    stages
}
