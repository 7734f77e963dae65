//! The repository's files, as the tidy checks walk them (the conventions ARCHITECTURE.md
//! states; no public source). Shared by `tidy.rs` and `architecture.rs`.

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

/// The stage crates: `crates/stageN-*` whose package is `stageN`, with N, in stage order.
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
            // `stage5-python` is built on stage 5, not a stage: its package is no `stageN`.
            let manifest = fs::read_to_string(entry.path().join("Cargo.toml")).ok()?;
            manifest
                .contains(&format!("name = \"stage{n}\""))
                .then(|| (n, entry.path()))
        })
        .collect();
    stages.sort();
    stages
}

/// The leading `//!` lines of a file's `text`, as one line of text.
pub fn module_doc(text: &str) -> String {
    let lines = text.lines().map_while(|l| l.strip_prefix("//!"));
    lines.map(str::trim).collect::<Vec<_>>().join(" ")
}

/// The `{{#include ...}}` directives of a Markdown text: (path, optional anchor).
pub fn includes(text: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{#include ") {
        let after = &rest[start + "{{#include ".len()..];
        // `\{{#include ...}}` is mdBook's escape: text about includes, not an include.
        if rest[..start].ends_with('\\') {
            rest = after;
            continue;
        }
        let Some(end) = after.find("}}") else { break };
        let target = after[..end].trim();
        let (path, anchor) = match target.split_once(':') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target, None),
        };
        // Line ranges (`file:3:10`, `file:3:`) are not anchors.
        let anchor = anchor.filter(|a| !a.starts_with(|c: char| c.is_ascii_digit()));
        found.push((path.to_owned(), anchor.map(str::to_owned)));
        rest = &after[end..];
    }
    found
}
