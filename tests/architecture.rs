//! The rules ARCHITECTURE.md promises, checked: every stage source file names its book
//! chapter and seed section; no source file is over 300 lines without saying why; each
//! stage depends only on earlier stages; stage 5's modules import only downward, layer by
//! layer; every anchor in the code is included somewhere in the book.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[path = "support/tree.rs"]
mod tree;

use tree::{files, includes, module_doc, root, stages};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files(dir, "rs")
}

/// A file's code: what comes before its unit tests.
fn code(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_stage_source_file_names_its_chapter_and_seed_section() {
    let mut offenders = Vec::new();
    for (_, dir) in stages() {
        for file in rust_files(&dir.join("src")) {
            let doc = module_doc(&fs::read_to_string(&file).unwrap()).to_lowercase();
            let chapter = doc.contains("chapter") || doc.contains("book introduction");
            let seed = doc.contains("seed") || doc.contains("asyncio");
            if !chapter || !seed {
                offenders.push(rel(&file));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "their //! doc must name the book chapter and the seed section (or say there is none): {offenders:#?}"
    );
}

#[test]
fn no_source_file_is_over_300_lines_without_saying_why() {
    let mut offenders = Vec::new();
    for file in rust_files(&root().join("crates")) {
        if file.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let lines = code(&text).lines().count();
        if lines > 300 && !module_doc(&text).contains("300 lines") {
            offenders.push(format!("{}: {lines} lines", rel(&file)));
        }
    }
    assert!(
        offenders.is_empty(),
        "over 300 lines of code, and the //! doc does not say why (\"... 300 lines because ...\"): {offenders:#?}"
    );
}

/// The `stageN` crates a manifest section depends on.
fn stage_dependencies(manifest: &str, section: &str) -> Vec<u32> {
    let mut in_section = false;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == section;
            continue;
        }
        if in_section
            && let Some(n) = line.strip_prefix("stage")
            && let Some(n) = n.split(|c: char| !c.is_ascii_digit()).next()
            && let Ok(n) = n.parse()
        {
            found.push(n);
        }
    }
    found
}

#[test]
fn each_stage_depends_only_on_earlier_stages() {
    let stages = stages();
    assert_eq!(stages.len(), 5, "five stages");
    for (n, dir) in stages {
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for section in ["[dependencies]", "[dev-dependencies]"] {
            for m in stage_dependencies(&manifest, section) {
                assert!(m < n, "stage {n} depends on stage {m} in {section}");
            }
        }
    }
}

// ANCHOR: layers
/// Stage 5's modules, bottom up. A module may import only modules of a lower layer.
const STAGE5_LAYERS: &[(&str, u32)] = &[
    ("errors", 0),
    ("event_loop::handle", 1),
    ("io::selector", 1),
    ("futures::registry", 1),
    ("futures::current", 1),
    ("event_loop::timers", 2),
    ("io::io_table", 2),
    ("io::self_pipe", 2),
    ("io::signal_table", 2),
    ("event_loop", 3), // the loop's state: event_loop/mod.rs
    ("event_loop::scheduling", 4),
    ("event_loop::lifecycle", 4),
    ("event_loop::exceptions", 4),
    ("event_loop::selector_loop", 4),
    ("event_loop::weak", 4),
    ("event_loop::run_once", 5),
    ("futures::future", 6),
    ("futures::waker", 6),
    ("futures::task", 7),
    ("futures::runners", 8),
    ("futures::sleep", 8),
    ("futures::queue", 8),
    ("futures::combinators", 8),
    ("futures::first_of", 8),
    ("io::readers", 9),
    ("io::threads", 9),
    ("io::signals", 9),
    ("io::sockets", 9),
    ("io::server", 9),
    ("bridge", 10),
    ("futures", 11), // folders' mod.rs: they only declare their modules
    ("io", 11),
    // Chapter 8: transports and streams. The registry is low, for `add_reader` to ask it.
    ("transports::flow_control", 1),
    ("transports::registry", 5),
    ("transports::transport", 9),
    ("transports::reading", 10),
    ("transports::writing", 10),
    ("transports::info", 10),
    ("transports::connect", 11),
    ("transports", 12),
    ("streams::errors", 1),
    ("streams::reader", 10),
    ("streams::reads", 11),
    ("streams::drain", 9),
    ("streams::writer", 11),
    ("streams::protocol", 12),
    ("streams", 13),
];
// ANCHOR_END: layers

/// The module paths `code` imports from its own crate: every `crate::a::b::Item` and every
/// `use crate::a::{b::X, c}` group, as `a::b`, `a::b::X`, `a::c`.
fn crate_paths(code: &str) -> Vec<String> {
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut paths = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(after.len());
        let prefix = after[..end].trim_end_matches(':');
        if after[end..].starts_with('{') {
            let close = after[end..].find('}').map_or(after.len(), |j| end + j);
            for item in after[end + 1..close].split(',') {
                let item: String = item.split_whitespace().collect();
                if !item.is_empty() {
                    paths.push(format!("{prefix}::{item}"));
                }
            }
        } else {
            paths.push(prefix.to_owned());
        }
        rest = after;
    }
    paths
}

/// `code` of module `module` with every `super::` written from the crate root, so that an
/// upward import through `super::` is checked like one through `crate::`.
fn absolute(code: &str, module: &str) -> String {
    let parent = module.rsplit_once("::").map_or("", |(parent, _)| parent);
    let root = if parent.is_empty() {
        "crate::".to_owned()
    } else {
        format!("crate::{parent}::")
    };
    code.replace("super::", &root)
}

/// The module (from `layers`) a path lands in: its longest known prefix.
fn module_of<'a>(path: &str, layers: &BTreeMap<&'a str, u32>) -> Option<&'a str> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len()).rev().find_map(|k| {
        let prefix = parts[..k].join("::");
        layers.get_key_value(prefix.as_str()).map(|(m, _)| *m)
    })
}

#[test]
fn stage5_modules_import_only_downward() {
    let layers: BTreeMap<&str, u32> = STAGE5_LAYERS.iter().copied().collect();
    let src = root().join("crates/stage5-event-loop/src");
    let mut seen = BTreeSet::new();
    let mut upward = Vec::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        let module = parts.join("::");
        if module == "lib" {
            continue; // the crate root re-exports everything: it is the top
        }
        let Some(&layer) = layers.get(module.as_str()) else {
            panic!("{module} is not in STAGE5_LAYERS: give it a layer");
        };
        seen.insert(module.clone());
        let text = fs::read_to_string(&file).unwrap();
        for path in crate_paths(&absolute(code(&text), &module)) {
            let Some(target) = module_of(&path, &layers) else {
                upward.push(format!(
                    "{module}: `crate::{path}` goes through the crate root"
                ));
                continue;
            };
            if target != module && layers[target] >= layer {
                upward.push(format!(
                    "{module} (layer {layer}) imports {target} (layer {})",
                    layers[target]
                ));
            }
        }
    }
    let missing: Vec<_> = layers.keys().filter(|m| !seen.contains(**m)).collect();
    assert!(missing.is_empty(), "no such modules any more: {missing:?}");
    assert!(
        upward.is_empty(),
        "imports that go up or sideways:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_import_parser_sees_groups_and_paths() {
    let paths = crate_paths(
        "use crate::event_loop::{EventLoop, handle::Handle};\nfn f() { crate::errors::catch(); } // crate::x",
    );
    assert_eq!(
        paths,
        [
            "event_loop::EventLoop",
            "event_loop::handle::Handle",
            "errors::catch"
        ]
    );
    assert_eq!(
        absolute("use super::timers::Timers;", "event_loop::run_once"),
        "use crate::event_loop::timers::Timers;"
    );
    assert_eq!(absolute("super::errors::X", "io"), "crate::errors::X");
    let layers: BTreeMap<&str, u32> = STAGE5_LAYERS.iter().copied().collect();
    assert_eq!(
        module_of("event_loop::handle::Handle", &layers),
        Some("event_loop::handle")
    );
    assert_eq!(
        module_of("event_loop::EventLoop", &layers),
        Some("event_loop")
    );
    assert_eq!(module_of("Handle", &layers), None);
}

/// Every `// ANCHOR: name` in `text`.
fn anchors(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("// ANCHOR:"))
        .map(|a| a.trim().to_owned())
        .collect()
}

#[test]
fn every_anchor_in_the_code_is_included_in_the_book() {
    let mut included = BTreeSet::new();
    for entry in fs::read_dir(root().join("docs/src")).unwrap().flatten() {
        let text = fs::read_to_string(entry.path()).unwrap_or_default();
        for (path, anchor) in includes(&text) {
            let file = root().join("docs/src").join(path);
            if let (Ok(file), Some(anchor)) = (file.canonicalize(), anchor) {
                included.insert((file, anchor));
            }
        }
    }
    let mut orphans = Vec::new();
    for file in rust_files(&root().join("crates"))
        .into_iter()
        .chain(rust_files(&root().join("tests")))
    {
        let canonical = file.canonicalize().unwrap();
        for anchor in anchors(&fs::read_to_string(&file).unwrap()) {
            if !included.contains(&(canonical.clone(), anchor.clone())) {
                orphans.push(format!("{}: {anchor}", rel(&file)));
            }
        }
    }
    assert!(
        orphans.is_empty(),
        "anchors no chapter includes (include them, or remove them): {orphans:#?}"
    );
}
