//! The rules ARCHITECTURE.md promises, checked: every source file of a stage or of the
//! scaffold names its book chapter and its public source, and no file under `crates/` (nor
//! ARCHITECTURE.md) cites unpublished notes; no source file is over 300 lines
//! without saying why; each stage depends only on earlier stages; stage 5's modules import
//! only downward, layer by layer, and folder by folder (imports only: a method call is not
//! an import); every anchor in the code is included somewhere in the book; ARCHITECTURE.md's
//! index of `EventLoop`'s methods names the file of each (`UPDATE_METHOD_INDEX=1` rewrites it).

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
fn every_stage_source_file_names_its_chapter_and_public_source() {
    let mut offenders = Vec::new();
    // The scaffold beneath the stages too: its files kept the rule when they left stage 1.
    let scaffold = root().join("crates/scaffold");
    for dir in stages().into_iter().map(|(_, dir)| dir).chain([scaffold]) {
        for file in rust_files(&dir.join("src")) {
            let doc = module_doc(&fs::read_to_string(&file).unwrap()).to_lowercase();
            let chapter = doc.contains("chapter") || doc.contains("book introduction");
            // The talk or asyncio, or a word that there is none ("no public source", "the
            // project's own"); never the numbers of notes a reader cannot open.
            let source = ["asyncio", "talk", "no public source", "project's own"]
                .iter()
                .any(|s| doc.contains(s));
            let unpublished = ["seed 0", "seeds 0", "working notes"]
                .iter()
                .any(|s| doc.contains(s));
            if !chapter || !source || unpublished {
                offenders.push(rel(&file));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "their //! doc must name the book chapter and the public source (Beazley's talk, asyncio, or say there is none), and cite no unpublished notes: {offenders:#?}"
    );
}

#[test]
fn no_file_cites_the_unpublished_notes() {
    // Beyond the stages' module docs: every line of every source file under `crates/`
    // (the exercises, the examples, scratchloop's Python) and ARCHITECTURE.md. A reader
    // can open the talk and asyncio's files, never the notes the project was planned from.
    let crates = root().join("crates");
    let mut sources: Vec<PathBuf> = ["rs", "py"]
        .iter()
        .flat_map(|ext| files(&crates, ext))
        .collect();
    sources.push(root().join("ARCHITECTURE.md"));
    let mut offenders = Vec::new();
    for file in sources {
        let text = fs::read_to_string(&file).unwrap().to_lowercase();
        for (n, line) in text.lines().enumerate() {
            if ["seed 0", "seeds 0", "working notes"]
                .iter()
                .any(|s| line.contains(s))
            {
                offenders.push(format!("{}:{}", rel(&file), n + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "cite Beazley's talk or asyncio's files (CPython v3.11.7), not the project's notes: {offenders:#?}"
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
    assert_eq!(stages.len(), 6, "six stages");
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
    ("events::handle", 1),
    ("io_driver::selector", 1),
    ("io_driver::selector::proactor", 2), // chapter 10: reads the selector's private fields
    ("io_driver::selector::errno", 1),
    ("parts::registry", 1),
    ("parts::current", 1),
    ("io_driver::transport_fds", 1),
    ("events::handle::repeating", 2), // a child module reads its parent's private fields
    ("events::handle::reused", 2),
    ("event_loop::timers", 2),
    ("io_driver::io_table", 2),
    ("io_driver::self_pipe", 2),
    ("io_driver::signal_table", 2),
    ("io_driver::io_table::level", 3),
    ("io_driver::io_table::reuse", 3),
    ("io_driver::io_table::release", 3),
    ("io_driver::io_table::checks", 3),
    ("io_driver::io_table::drained", 3),
    ("io_driver::io_table::close", 3),
    ("io_driver::io_table::listed", 3),
    ("io_driver::io_table::invariants", 3),
    ("io_driver::driver", 3),              // the parts above, owned together
    ("io_driver::driver::wait_checks", 4), // reads the driver's private fields
    ("event_loop", 4),                     // the loop's state: event_loop/mod.rs
    ("event_loop::scheduling", 5),
    ("event_loop::running", 5),
    ("event_loop::exceptions", 5),
    ("event_loop::selector_loop", 5),
    ("event_loop::weak", 5),
    ("event_loop::reuse", 5),
    ("event_loop::run_once", 6),
    ("event_loop::run_once::events", 6), // imports neither run_once nor anything of layer 6
    ("event_loop::inspect", 6),          // imports scheduling's `clamped`; nothing imports it
    ("event_loop::lifecycle", 7),        // calls run_once's run_once_inner
    ("futures::future", 7),
    ("futures::waker", 7),
    ("futures::future::awaiting", 8), // future.rs's children read its state
    ("futures::future::canceller", 8),
    ("futures::future::report", 8),
    ("futures::task", 8),
    ("event_loop::runners", 9), // a face of the loop: run_until_complete, run
    ("event_loop::tasks", 9),   // create_future, create_task
    ("futures::sleep", 9),
    ("futures::queue", 9),
    ("futures::combinators", 9),
    ("futures::first_of", 9),
    ("futures::timeout", 10),        // built on layer 9's first_of and sleep
    ("event_loop::io::readers", 10), // chapter 7's faces of the loop
    ("event_loop::io::threads", 10),
    ("event_loop::io::signals", 10),
    ("event_loop::io::sockets", 10),
    ("event_loop::io::server", 10),
    ("event_loop::bridge", 14), // stages 1 to 4's traits on the loop
    ("events", 12),             // folders' mod.rs: they only declare their modules
    ("parts", 12),
    ("io_driver", 12),
    ("futures", 12),
    ("event_loop::io", 12),
    // Chapter 8: transports and streams.
    ("transports::flow_control", 1),
    ("transports::transport", 10),
    ("transports::transport::reading", 11),
    ("transports::transport::writing", 11),
    ("transports::transport::info", 11),
    ("event_loop::connect", 12), // chapter 8's faces of the loop
    ("transports", 13),
    ("streams::errors", 1),
    ("streams::reader", 11),
    ("streams::reader::reads", 12),
    ("streams::drain", 10),
    ("streams::writer", 12),
    ("streams::protocol", 13),
    ("streams", 14),
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
                match (prefix.is_empty(), item.is_empty()) {
                    (_, true) => {}
                    (true, false) => paths.push(item), // `use crate::{a::X, b}`
                    (false, false) => paths.push(format!("{prefix}::{item}")),
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

/// Stage 5's modules, as paths from the crate root (`event_loop::run_once`; a folder's
/// `mod.rs` is the folder), each with its code before its unit tests. The crate root is
/// left out: it re-exports everything, and is the top.
fn stage5_modules() -> Vec<(String, String)> {
    let src = root().join("crates/stage5-event-loop/src");
    let mut modules = Vec::new();
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
        if module != "lib" {
            let text = fs::read_to_string(&file).unwrap();
            modules.push((module, code(&text).to_owned()));
        }
    }
    modules
}

#[test]
fn stage5_modules_import_only_downward() {
    let layers: BTreeMap<&str, u32> = STAGE5_LAYERS.iter().copied().collect();
    let mut seen = BTreeSet::new();
    let mut upward = Vec::new();
    for (module, code) in stage5_modules() {
        let Some(&layer) = layers.get(module.as_str()) else {
            panic!("{module} is not in STAGE5_LAYERS: give it a layer");
        };
        seen.insert(module.clone());
        for path in crate_paths(&absolute(&code, &module)) {
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

// ANCHOR: folders
/// Stage 5's folders (and the file beside them, `errors.rs`), bottom up, as ARCHITECTURE.md
/// lists them: a module imports only from its own folder or an earlier one. The loop's
/// base is low and its faces high, as asyncio's loop classes sit below its futures and
/// tasks while their `create_task`, `sock_recv` and `create_server` use them: a face of
/// the loop, in `event_loop/`, is named by its own path, and a module is in the longest
/// entry its path starts with.
const STAGE5_FOLDERS: &[&str] = &[
    "errors",
    "events",
    "parts",
    "io_driver",
    "event_loop", // the base: state, call_*, timers, run_once, lifecycle, the driver's calls
    "futures",
    "event_loop::tasks",   // the faces chapter 6 adds: create_future, create_task
    "event_loop::runners", // run_until_complete, run
    "event_loop::io",      // chapter 7's: readers, threads, signals, sockets, server
    "transports",
    "event_loop::connect", // chapter 8's: create_server, create_connection
    "streams",
    "event_loop::bridge", // stages 1 to 4's traits on the loop
];
// ANCHOR_END: folders

/// The entry of [`STAGE5_FOLDERS`] that module path `path` is in: the longest it starts with.
fn folder_of(path: &str) -> Option<usize> {
    let within = |f: &str| path == f || path.starts_with(&format!("{f}::"));
    (0..STAGE5_FOLDERS.len())
        .filter(|&i| within(STAGE5_FOLDERS[i]))
        .max_by_key(|&i| STAGE5_FOLDERS[i].len())
}

/// The imports in `code`, of module `module`, that reach a folder later in
/// [`STAGE5_FOLDERS`] than the module's own ([`folder_of`]), or no folder at all.
fn upward_folder_imports(module: &str, code: &str) -> Vec<String> {
    let folder = folder_of;
    let Some(own) = folder(module) else {
        return vec![format!("{module} is in no folder of STAGE5_FOLDERS")];
    };
    crate_paths(&absolute(code, module))
        .into_iter()
        .filter_map(|path| match folder(&path) {
            Some(target) if target <= own => None,
            Some(target) => Some(format!(
                "{module} (in {}) imports {path} (in {})",
                STAGE5_FOLDERS[own], STAGE5_FOLDERS[target]
            )),
            None => Some(format!("{module}: `crate::{path}` is in no folder")),
        })
        .collect()
}

#[test]
fn stage5_folders_import_only_from_folders_below() {
    let upward: Vec<String> = stage5_modules()
        .iter()
        .flat_map(|(module, code)| upward_folder_imports(module, code))
        .collect();
    assert!(
        upward.is_empty(),
        "imports from a later folder:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_folder_check_refuses_an_upward_import() {
    // A part that named the loop would make `io_driver/` import from `event_loop/`, above it.
    let code = "use crate::events::handle::Handle;\nuse crate::event_loop::EventLoop;";
    assert_eq!(
        upward_folder_imports("io_driver::io_table", code),
        ["io_driver::io_table (in io_driver) imports event_loop::EventLoop (in event_loop)"]
    );
    // The same import is fine from a folder above the loop, and from the loop itself.
    assert!(upward_folder_imports("event_loop::io::sockets", code).is_empty());
    assert!(upward_folder_imports("event_loop::run_once", code).is_empty());
    // The loop's base is below futures; its faces are above them.
    let code = "use crate::futures::future::Future;";
    assert_eq!(
        upward_folder_imports("event_loop::run_once", code),
        ["event_loop::run_once (in event_loop) imports futures::future::Future (in futures)"]
    );
    assert!(upward_folder_imports("event_loop::io::sockets", code).is_empty());
    assert_eq!(
        upward_folder_imports(
            "event_loop::io::sockets",
            "use crate::event_loop::connect::bind;"
        ),
        [
            "event_loop::io::sockets (in event_loop::io) imports event_loop::connect::bind (in event_loop::connect)"
        ]
    );
    // Through `super::`, and in a group.
    assert_eq!(
        upward_folder_imports("events", "use super::futures::Future;"),
        ["events (in events) imports futures::Future (in futures)"]
    );
    assert_eq!(
        upward_folder_imports(
            "parts",
            "use crate::{errors::Error, event_loop::io::sockets::Done};"
        ),
        ["parts (in parts) imports event_loop::io::sockets::Done (in event_loop::io)"]
    );
    assert_eq!(
        upward_folder_imports("timers", "use crate::errors::Error;"),
        ["timers is in no folder of STAGE5_FOLDERS"]
    );
}

#[test]
fn the_import_parser_sees_groups_and_paths() {
    let paths = crate_paths(
        "use crate::event_loop::{EventLoop, timers::Scheduled};\nuse crate::{errors::Error, io};\nfn f() { crate::errors::catch(); } // crate::x",
    );
    assert_eq!(
        paths,
        [
            "event_loop::EventLoop",
            "event_loop::timers::Scheduled",
            "errors::Error",
            "io",
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
        module_of("events::handle::Handle", &layers),
        Some("events::handle")
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

/// A method of `EventLoop`, as the index in ARCHITECTURE.md lists it: its name (a trait's
/// as `Trait::name`), its visibility (`pub`, `pub(crate)`, ..., `private`, or `trait`),
/// and its file under stage 5's `src/`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Method {
    name: String,
    visibility: String,
    file: String,
}

impl Method {
    /// The method's row in the index.
    fn row(&self) -> String {
        format!(
            "| `{}` | {} | `{}` |",
            self.name, self.visibility, self.file
        )
    }
}

/// The number of leading spaces of `line`.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The trait an `impl` header implements (`None` for an inherent impl) and the type it is
/// for, generics and `where` clause left out: `impl<T> fmt::Debug for X<T> where ...`
/// gives `(Some("fmt::Debug"), "X<T>")`.
fn impl_header(header: &str) -> (Option<String>, String) {
    let mut rest = header
        .trim()
        .strip_prefix("impl")
        .unwrap_or(header)
        .trim_start();
    if rest.starts_with('<') {
        let mut depth = 0;
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                rest = rest[i + 1..].trim_start();
                break;
            }
        }
    }
    let rest = rest.split(" where").next().unwrap_or(rest).trim();
    match rest.split_once(" for ") {
        Some((tr, ty)) => {
            let tr = tr.split('<').next().unwrap_or(tr).trim();
            (Some(tr.to_owned()), ty.trim().to_owned())
        }
        None => (None, rest.to_owned()),
    }
}

/// The visibility and name of the `fn` that `item` (a line of an `impl` block, indentation
/// removed) declares, if it declares one: `pub(crate) async fn wait(` gives
/// `("pub(crate)", "wait")`.
fn fn_item(item: &str) -> Option<(String, String)> {
    let (visibility, rest) = match item.strip_prefix("pub") {
        Some(rest) if rest.starts_with('(') => {
            let close = rest.find(')')?;
            (format!("pub{}", &rest[..=close]), &rest[close + 1..])
        }
        Some(rest) if rest.starts_with(' ') => ("pub".to_owned(), rest),
        _ => ("private".to_owned(), item),
    };
    let mut rest = rest.trim_start();
    for qualifier in ["const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(qualifier).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some((visibility, rest[..end].to_owned()))
}

/// Every `impl ... EventLoop` block in `code` (rustfmt's layout: an item of the block is
/// indented four spaces more than its `impl`, which its `}` closes at the same
/// indentation): the trait it implements (`None` for an inherent impl), its indentation,
/// and the lines of its body.
fn event_loop_impls(code: &str) -> Vec<(Option<String>, usize, Vec<&str>)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut impls = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !line.trim_start().starts_with("impl") {
            i += 1;
            continue;
        }
        let depth = indent(line);
        let mut header = String::new();
        while i < lines.len() {
            header.push(' ');
            header.push_str(lines[i].trim());
            i += 1;
            if header.ends_with('{') {
                break;
            }
        }
        let (tr, ty) = impl_header(header.trim_end_matches('{'));
        if ty != "EventLoop" {
            continue;
        }
        let start = i;
        while i < lines.len() && !(indent(lines[i]) == depth && lines[i].trim() == "}") {
            i += 1;
        }
        impls.push((tr, depth, lines[start..i].to_vec()));
    }
    impls
}

/// Every method of every `impl ... EventLoop` block in `code`. Trait methods are named
/// `Trait::name`, with visibility `trait`.
fn event_loop_methods(code: &str, file: &str) -> Vec<Method> {
    let mut methods = Vec::new();
    for (tr, depth, body) in event_loop_impls(code) {
        for item in body {
            if indent(item) == depth + 4
                && let Some((visibility, name)) = fn_item(item.trim())
            {
                let (name, visibility) = match &tr {
                    Some(tr) => (format!("{tr}::{name}"), "trait".to_owned()),
                    None => (name, visibility),
                };
                methods.push(Method {
                    name,
                    visibility,
                    file: file.to_owned(),
                });
            }
        }
    }
    methods
}

/// Every method of `EventLoop` in stage 5's sources, by name.
fn stage5_methods() -> BTreeMap<String, Method> {
    let src = root().join("crates/stage5-event-loop/src");
    let mut methods = BTreeMap::new();
    for file in rust_files(&src) {
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        for method in event_loop_methods(code(&fs::read_to_string(&file).unwrap()), &name) {
            if let Some(other) = methods.insert(method.name.clone(), method.clone()) {
                panic!("{} twice: {} and {}", method.name, other.file, method.file);
            }
        }
    }
    methods
}

const INDEX_BEGIN: &str = "<!-- method index: begin -->";
const INDEX_END: &str = "<!-- method index: end -->";
const INDEX_HEADER: &str = "| file | methods |\n| --- | --- |\n";

/// The index's table: one row per file of `event_loop/`, its methods' names in order.
fn index_table(methods: &BTreeMap<String, Method>) -> String {
    let mut by_file: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for method in methods.values() {
        let name = format!("`{}`", method.name);
        by_file.entry(&method.file).or_default().push(name);
    }
    let rows: String = by_file
        .iter()
        .map(|(file, names)| format!("| `{file}` | {} |\n", names.join(", ")))
        .collect();
    format!("{INDEX_HEADER}{rows}")
}

/// The index's rows in `text` (ARCHITECTURE.md): each method's file, by name; a name
/// listed twice is a problem.
fn index_rows(text: &str, problems: &mut Vec<String>) -> BTreeMap<String, String> {
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, file, names, _] = cells[..] else {
            problems.push(format!("not a row of two cells: {line}"));
            continue;
        };
        let file = file.trim_matches('`');
        for name in names.split(',').map(|n| n.trim().trim_matches('`')) {
            if rows.contains_key(name) {
                problems.push(format!("remove the second `{name}`"));
            } else {
                rows.insert(name.to_owned(), file.to_owned());
            }
        }
    }
    rows
}

#[test]
fn the_method_index_in_architecture_md_is_true() {
    let path = root().join("ARCHITECTURE.md");
    let text = fs::read_to_string(&path).unwrap();
    let (Some(begin), Some(end)) = (text.find(INDEX_BEGIN), text.find(INDEX_END)) else {
        panic!("ARCHITECTURE.md has no `{INDEX_BEGIN}` ... `{INDEX_END}` around its method index");
    };
    let methods = stage5_methods();
    assert!(methods.len() > 50, "found only {methods:#?}");
    let table = index_table(&methods);
    if std::env::var_os("PRINT_METHOD_INDEX").is_some() {
        println!("{table}");
    }
    if std::env::var_os("UPDATE_METHOD_INDEX").is_some() && std::env::var_os("CI").is_none() {
        let start = begin + INDEX_BEGIN.len();
        let updated = format!("{}\n\n{table}\n{}", &text[..start], &text[end..]);
        fs::write(&path, updated).expect("ARCHITECTURE.md is writable");
        return;
    }
    let mut problems = Vec::new();
    let listed = index_rows(&text[begin..end], &mut problems);
    for (name, method) in &methods {
        match listed.get(name) {
            None => problems.push(format!("add    `{name}` to `{}`", method.file)),
            Some(file) if *file != method.file => problems.push(format!(
                "move   `{name}` to `{}`   (the table says: `{file}`)",
                method.file
            )),
            Some(_) => {}
        }
    }
    for (name, file) in &listed {
        if !methods.contains_key(name) {
            problems.push(format!(
                "remove `{name}` from `{file}`   (no such method any more)"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's index of EventLoop's methods is not true:\n{}\n\
         edit those rows, or rewrite the whole table: \
         UPDATE_METHOD_INDEX=1 cargo test --test architecture method_index",
        problems.join("\n")
    );
}

#[test]
fn the_method_index_parser_sees_inherent_and_trait_impls_of_event_loop_only() {
    let code = "\
impl EventLoop {
    // A comment.
    /// Doc.
    pub fn run(&self) -> Result<(), Error> {
        fn inner() {}
        let s = \"fn not_a_method\";
    }

    pub(in crate::event_loop) async fn wait(&self) {}
    fn helper<T>(&self) {}
}

impl fmt::Debug for EventLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {}
}

impl<F, T> Step<EventLoop> for TaskCore<F, T>
where
    F: Future,
{
    fn step(self: Rc<Self>, lp: &EventLoop) {}
}

impl Call<EventLoop> for dyn Step<EventLoop> {
    fn call(self: Rc<Self>, lp: &EventLoop) {}
}
";
    let found: Vec<(String, String)> = event_loop_methods(code, "f.rs")
        .into_iter()
        .map(|m| (m.name, m.visibility))
        .collect();
    let expected = [
        ("run", "pub"),
        ("wait", "pub(in crate::event_loop)"),
        ("helper", "private"),
        ("fmt::Debug::fmt", "trait"),
    ];
    assert_eq!(found, expected.map(|(n, v)| (n.to_owned(), v.to_owned())));
    let mut problems = Vec::new();
    let rows = index_rows(
        "| file | methods |\n| `f.rs` | `run`, `Schedule::time` |\n| `g.rs` | `run` |",
        &mut problems,
    );
    assert_eq!(rows["run"], "f.rs");
    assert_eq!(rows["Schedule::time"], "f.rs");
    assert_eq!(problems, ["remove the second `run`"]);
}

#[test]
fn every_method_of_event_loop_is_in_event_loop() {
    // As asyncio's loop methods are in its loop classes: futures, tasks, transports and
    // streams are types that call the loop, and add no method to it.
    let outside: Vec<String> = stage5_methods()
        .into_values()
        .filter(|m| !m.file.starts_with("event_loop/"))
        .map(|m| m.row())
        .collect();
    assert!(
        outside.is_empty(),
        "methods of EventLoop outside event_loop/ (move them there, and call the type they build):\n{}",
        outside.join("\n")
    );
}

/// The names of `EventLoop`'s methods (`methods`) that `code` calls: `lp.name(` anywhere
/// (`lp` is what stage 5 calls a loop it is handed), and `self.name(` inside an `impl
/// EventLoop` block. Comments are left out; a call through another name is not seen.
fn loop_calls(code: &str, methods: &BTreeMap<String, Method>) -> BTreeSet<String> {
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut calls = BTreeSet::new();
    let mut scan = |text: &str, receiver: &str| {
        let needle = format!("{receiver}.");
        let mut rest = text;
        while let Some(i) = rest.find(&needle) {
            let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
            let boundary = rest[..i].chars().next_back().is_none_or(|c| !word(c));
            let after = &rest[i + needle.len()..];
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let (name, next) = after.split_at(end);
            let called = next.starts_with('(') || next.starts_with("::<");
            if boundary && called && methods.contains_key(name) {
                calls.insert(name.to_owned());
            }
            rest = next;
        }
    };
    scan(&code, "lp");
    for (_, _, body) in event_loop_impls(&code) {
        scan(&body.join("\n"), "self");
    }
    calls
}

/// The module a file of stage 5's `src/` is: `event_loop/io/sockets.rs` is
/// `event_loop::io::sockets`, `event_loop/mod.rs` is `event_loop`.
fn module_of_file(file: &str) -> String {
    let path = file.trim_end_matches(".rs").trim_end_matches("/mod");
    path.replace('/', "::")
}

/// The loop's methods that are not `pub` and that the types outside `event_loop/` may call
/// all the same, each with what asyncio's types reach in its loop for the same thing
/// (asyncio's futures and tasks call its loop's public methods, and its transports a few
/// underscored ones: `_add_reader`, `_remove_reader`, `_transports`).
const STAGE5_LOOP_SEAMS: &[(&str, &str)] = &[
    (
        "downgrade",
        "a future's, a task's, a transport's `_loop`, held weakly",
    ),
    (
        "address",
        "`Task.__step`'s `get_loop() is not self._loop` check",
    ),
    ("register_task", "`Task.__init__`'s `_register_task(self)`"),
    (
        "unregister_task",
        "`_unregister_task`, when the task is done",
    ),
    (
        "task",
        "a waker's task, found by its key (asyncio's `__wakeup` holds it)",
    ),
    (
        "call_soon_step",
        "`Task`'s `loop.call_soon(self.__step)`, its handle reused",
    ),
    (
        "remote",
        "a waker's `call_soon_threadsafe`, from another thread",
    ),
    (
        "add_callback_waiter",
        "a transport's `_loop._add_reader`, `_add_writer`",
    ),
    (
        "remove_callback_waiter",
        "a transport's `_loop._remove_reader`, `_remove_writer`",
    ),
    (
        "attach_transport",
        "`_SelectorTransport.__init__`: `_loop._transports[fd] = self`",
    ),
    (
        "detach_transport",
        "`_call_connection_lost`: the fd leaves `_loop._transports`",
    ),
    (
        "forget_fd",
        "not asyncio's: a new socket's number, forgotten by the table",
    ),
    (
        "would_block",
        "not asyncio's: level-triggered on edge-triggered epoll",
    ),
    ("read_short", "not asyncio's: the same, after a short read"),
    ("with_scratch", "not asyncio's: the loop's one read buffer"),
];

/// What is wrong with the calls of the loop's methods in `code`, module `module`'s: a call
/// of a method defined in a higher layer than the caller's, and, from outside
/// `event_loop/`, a call of a method that is neither `pub` nor one of
/// [`STAGE5_LOOP_SEAMS`].
fn call_problems(
    module: &str,
    code: &str,
    layers: &BTreeMap<&str, u32>,
    methods: &BTreeMap<String, Method>,
) -> Vec<String> {
    let layer = layers[module];
    let mut problems = Vec::new();
    for name in loop_calls(code, methods) {
        let method = &methods[&name];
        let target = module_of_file(&method.file);
        let above = layers[target.as_str()];
        if target != module && above > layer {
            problems.push(format!(
                "{module} (layer {layer}) calls `{name}` of {target} (layer {above})"
            ));
        }
        let seam = STAGE5_LOOP_SEAMS.iter().any(|(seam, _)| *seam == name);
        if !module.starts_with("event_loop") && method.visibility != "pub" && !seam {
            problems.push(format!(
                "{module} calls `{name}`, {} in {target}: outside event_loop/, call the loop's pub methods (or its seams)",
                method.visibility
            ));
        }
    }
    problems
}

#[test]
fn stage5_calls_of_the_loop_go_downward_and_through_its_public_methods() {
    let layers: BTreeMap<&str, u32> = STAGE5_LAYERS.iter().copied().collect();
    let methods = stage5_methods();
    let modules = stage5_modules();
    let calls: usize = modules
        .iter()
        .map(|(_, code)| loop_calls(code, &methods).len())
        .sum();
    assert!(calls > 100, "the call parser found only {calls} calls");
    for (seam, _) in STAGE5_LOOP_SEAMS {
        let method = methods.get(*seam).map(|m| m.visibility.as_str());
        assert!(
            method.is_some_and(|v| v != "pub"),
            "`{seam}` is no method of the loop that needs a seam: remove it from STAGE5_LOOP_SEAMS"
        );
    }
    let problems: Vec<String> = modules
        .iter()
        .flat_map(|(module, code)| call_problems(module, code, &layers, &methods))
        .collect();
    assert!(
        problems.is_empty(),
        "calls of the loop's methods that go up, or past its public face:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_call_check_refuses_a_call_up_and_one_past_the_public_face() {
    let layers: BTreeMap<&str, u32> = STAGE5_LAYERS.iter().copied().collect();
    let methods = stage5_methods();
    // `call_soon` (layer 5) calling `run_forever` (lifecycle.rs, layer 7): a call up.
    let up = "impl EventLoop {\n    fn f(&self) {\n        self.run_forever(); // x\n    }\n}";
    assert_eq!(
        call_problems("event_loop::scheduling", up, &layers, &methods),
        ["event_loop::scheduling (layer 5) calls `run_forever` of event_loop::lifecycle (layer 7)"]
    );
    // A task running the loop's batch itself: down, but past the loop's public face.
    let past =
        "fn step(lp: &EventLoop) { lp.run_once_inner(); lp.call_soon(f); lp.call_soon_step(s); }";
    assert_eq!(
        call_problems("futures::task", past, &layers, &methods),
        [
            "futures::task calls `run_once_inner`, pub(super) in event_loop::run_once: outside event_loop/, call the loop's pub methods (or its seams)"
        ]
    );
    // What is not a call of the loop's is not seen: a comment, another receiver, a field.
    let not_calls = "// lp.run_forever()\nfn f(t: &T, lp: &L) { t.run_forever(); lp.inner.run_once_inner(); flp.stop(); }";
    assert!(loop_calls(not_calls, &methods).is_empty());
}

/// Stage 5's thread-locals: each is this thread's own (a counter, a flag, the running step,
/// the list of its loops), none a map keyed by a loop's address. What belongs to one loop
/// is a field of that loop, as asyncio's `self._transports` is.
const STAGE5_THREAD_LOCALS: &[&str] = &[
    "crates/stage5-event-loop/src/errors.rs: CATCHING",
    "crates/stage5-event-loop/src/event_loop/running.rs: RUNNING_HERE",
    "crates/stage5-event-loop/src/event_loop/weak.rs: LOOPS",
    "crates/stage5-event-loop/src/parts/current.rs: STEP",
];

#[test]
fn stage5_keeps_no_thread_local_but_the_threads_own() {
    let mut found = Vec::new();
    for file in rust_files(&root().join("crates/stage5-event-loop/src")) {
        let code = fs::read_to_string(&file).unwrap();
        for block in code.split("thread_local! {").skip(1) {
            let block = block.split("\n}").next().unwrap_or_default();
            for line in block.lines().map(str::trim) {
                if let Some(rest) = line.strip_prefix("static ") {
                    let name = rest.split(':').next().unwrap_or_default().trim();
                    found.push(format!("{}: {name}", rel(&file)));
                }
            }
        }
    }
    found.sort();
    assert_eq!(
        found, STAGE5_THREAD_LOCALS,
        "a new thread-local in stage 5: if it belongs to one loop, make it the loop's field"
    );
}
