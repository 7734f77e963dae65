//! The book's references to CPython stay true (no public source: the references are the
//! book's own, and the introduction's table of sources says what they point at). Two kinds
//! are checked, against the asyncio of the `python3` on the `PATH`:
//!
//! - **Names.** A name in backticks that the book gives as asyncio's must exist there. A
//!   code span counts as such a name when, once a leading `self.` is dropped, it starts with
//!   a dotted Python name that (a) begins with `_` (`_run_once`, `_fut_waiter`, `__wakeup`,
//!   `self._ready.clear()`), or (b) is written `Class.member` with a capitalised class
//!   (`Task.__step`, `TimerHandle.__lt__`), or (c) starts with `asyncio.`, with one of
//!   asyncio's module names (`base_events.logger`), or with `loop.`; file names
//!   (`run_once.rs`) do not count. `ASYNCIO_NAMES` adds the public names the book uses as
//!   asyncio's without such a mark (`call_soon_threadsafe`, `MAXIMUM_SELECT_TIMEOUT`), and
//!   `NOT_ASYNCIO` lists the few spans of that shape that are someone else's, with the
//!   reason. A name is found if it is a module-level name of an asyncio module or an
//!   attribute of one of its classes, looked up on the pure-Python classes (`_PyTask` for
//!   `Task`), private names mangled as Python mangles them (`Task.__step` is
//!   `_Task__step`), and attributes set in a method (`self._ready = ...`) found in the
//!   class's source. For a dotted name that begins with `_`, only its first part is looked
//!   up (`_selector.select` is `_selector`). The modules that do not import on Linux
//!   (`windows_events.py`, whose `IocpProactor` chapter 10 retells) are read from their
//!   source: their names, their classes' methods and `self.X` attributes.
//! - **Links.** Every link into `github.com/python/cpython` names the tag `v3.11.7`, whose
//!   line numbers the book counts. A link to `Lib/asyncio/FILE.py` names a file that
//!   exists, and a line anchor `#La-Lb` lies inside a function or class of that file
//!   (nested ones: the innermost) whose name the sentence around the link mentions: the
//!   paragraph, list item or table row the link is in.
//!
//! Each test runs one `python3` process, which answers every question at once. With no
//! `python3`, or one that is not 3.11, the tests print a note and pass (the tag check
//! needs no Python, and always runs); a 3.11 other than 3.11.7 checks the names and not
//! the line numbers. CI's machines have Python 3.11.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

#[allow(dead_code)]
#[path = "support/tree.rs"]
mod tree;

use tree::{files, root};

/// The CPython release whose line numbers the book's links count.
const TAG: &str = "v3.11.7";

/// Where every link into CPython's repository starts.
const CPYTHON: &str = "https://github.com/python/cpython/";

/// Public names the book gives as asyncio's that carry no mark of it (no `_`, no class):
/// each must be in asyncio, and in the book.
const ASYNCIO_NAMES: &[&str] = &[
    "call_soon",
    "call_later",
    "call_at",
    "call_soon_threadsafe",
    "run_forever",
    "run_until_complete",
    "add_reader",
    "add_writer",
    "remove_reader",
    "remove_writer",
    "sock_recv",
    "sock_recv_into",
    "sock_sendall",
    "sock_accept",
    "sock_connect",
    "add_signal_handler",
    "add_done_callback",
    "remove_done_callback",
    "set_exception_handler",
    "call_exception_handler",
    "default_exception_handler",
    "slow_callback_duration",
    "MAXIMUM_SELECT_TIMEOUT",
    "ACCEPT_RETRY_DELAY",
];

/// Spans that look like asyncio's names and are not, with whose they are. Each must still
/// be in the book.
const NOT_ASYNCIO: &[(&str, &str)] = &[
    ("_restore", "stage 1's guard in scheduler.rs (chapter 1)"),
    (
        "_core.Fast",
        "scratchloop's Rust class for call_soon, call_later and call_at (chapter 9)",
    ),
    (
        "__traverse__",
        "pyo3's hook for Python's garbage collector, tp_traverse (chapter 9)",
    ),
    (
        "_read_waiting",
        "Beazley's scheduler's dict of readers (chapter 4)",
    ),
    (
        "_write_waiting",
        "Beazley's scheduler's dict of writers (chapter 4)",
    ),
    (
        "Task.__call__",
        "Beazley's Task, a callback (chapter 3); asyncio's Task is not callable",
    ),
];

/// asyncio's modules, as a span may start with one (`base_events.logger`).
const MODULES: &[&str] = &[
    "base_events",
    "base_futures",
    "base_tasks",
    "constants",
    "coroutines",
    "events",
    "exceptions",
    "format_helpers",
    "futures",
    "locks",
    "queues",
    "runners",
    "selector_events",
    "streams",
    "taskgroups",
    "tasks",
    "timeouts",
    "unix_events",
];

/// Answers one question a line: `name NAME` with `ok` or `missing`; `range FILE A B` with
/// the functions and classes around lines A to B, innermost first (`-`: none; `nofile`).
/// The first line of the answer is the version.
const SCRIPT: &str = r#"
import ast, importlib, inspect, os, pkgutil, re, sys, warnings
warnings.simplefilter("ignore")
import asyncio
print("version\t%d.%d.%d" % sys.version_info[:3])
modules = {}
unimported = []
for info in pkgutil.iter_modules(asyncio.__path__):
    if info.name.startswith("__"):
        continue  # asyncio.__main__ would start a REPL
    try:
        modules[info.name] = importlib.import_module("asyncio." + info.name)
    except Exception:
        unimported.append(info.name)  # the Windows modules: read from their source below
classes = {}
for module in modules.values():
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__.startswith("asyncio."):
            classes.setdefault(cls.__name__, {})[id(cls)] = cls
sources = {}
def source(cls):
    if cls not in sources:
        try:
            sources[cls] = inspect.getsource(cls)
        except (OSError, TypeError):
            sources[cls] = ""
    return sources[cls]
def has(cls, name):
    for c in inspect.getmro(cls):
        mangled = name
        if name.startswith("__") and not name.endswith("__"):
            mangled = "_" + c.__name__.lstrip("_") + name
        if c is not object and (mangled in vars(c) or name in vars(c)):
            return True
    return False
def sets(cls, name):
    pattern = r"\bself\.%s\s*(=(?!=)|:)" % re.escape(name)
    return any(re.search(pattern, source(c)) for c in inspect.getmro(cls) if c is not object)
def on_class(cls, name):
    return has(cls, name) or sets(cls, name)
# The modules that do not import here (windows_events.py needs Windows): their names,
# and their classes' members and `self.X` attributes, from their source.
source_names, source_classes = set(), {}
for name in unimported:
    path = os.path.join(os.path.dirname(asyncio.__file__), name + ".py")
    if not os.path.isfile(path):
        continue
    with open(path, encoding="utf-8") as f:
        module = ast.parse(f.read())
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            source_names.add(node.name)
        elif isinstance(node, ast.Assign):
            source_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, ast.ClassDef):
            members = source_classes.setdefault(node.name, set())
            for sub in ast.walk(node):
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(sub.name)
                elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    if isinstance(sub.value, ast.Name) and sub.value.id == "self":
                        members.add(sub.attr)
def anywhere(name):
    if any(name in vars(m) for m in modules.values()):
        return True
    if name in source_names or any(name in m for m in source_classes.values()):
        return True
    every = [c for group in classes.values() for c in group.values()]
    return any(has(c, name) for c in every) or any(sets(c, name) for c in every)
def resolve(obj, parts):
    for part in parts:
        if inspect.isclass(obj):
            return on_class(obj, part)
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True
def lookup(path):
    parts = path.split(".")
    head, rest = parts[0], parts[1:]
    if not rest or head.startswith("_"):
        return anywhere(head)
    if head == "asyncio":
        return resolve(asyncio, rest)
    if head in modules:
        return resolve(modules[head], rest)
    if head == "loop":
        return resolve(modules["unix_events"]._UnixSelectorEventLoop, rest)
    if len(rest) == 1 and rest[0] in source_classes.get(head, ()):
        return True
    return any(resolve(c, rest) for c in classes.get(head, {}).values())
root = os.path.dirname(asyncio.__file__)
def around(file, a, b):
    path = os.path.join(root, file)
    if not os.path.isfile(path):
        return "nofile"
    if a == 0:
        return "-"
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, kinds):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start <= a and b <= node.end_lineno:
                found.append((node.end_lineno - start, node.name))
    return ",".join(name for _, name in sorted(found)) or "-"
tests_dir = os.path.join(os.path.dirname(root), "test", "test_asyncio")
test_names = None
def cpython_test(name):
    global test_names
    if not os.path.isdir(tests_dir):
        return "nodir"
    if test_names is None:
        test_names = set()
        for file in os.listdir(tests_dir):
            if not file.endswith(".py"):
                continue
            test_names.add(file[:-3])
            with open(os.path.join(tests_dir, file), encoding="utf-8") as f:
                test_names.update(re.findall(r"^\s*(?:async\s+)?def\s+(test_\w+)\s*\(", f.read(), re.M))
    if name.endswith("*"):
        found = any(t.startswith(name[:-1]) for t in test_names)
    else:
        found = name in test_names
    return "ok" if found else "missing"
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "name":
        print("name\t%s\t%s" % (words[1], "ok" if lookup(words[1]) else "missing"))
    elif words[0] == "range":
        print("range\t%s" % around(words[1], int(words[2]), int(words[3])))
    elif words[0] == "test":
        print("test\t%s\t%s" % (words[1], cpython_test(words[1])))
"#;

/// A book page: its file name and its text.
struct Page {
    name: String,
    text: String,
}

/// Every page of the book.
fn book() -> Vec<Page> {
    let pages: Vec<Page> = files(&root().join("docs/src"), "md")
        .into_iter()
        .map(|path| Page {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            text: fs::read_to_string(&path).unwrap(),
        })
        .collect();
    assert!(pages.len() > 5, "found only {} pages", pages.len());
    pages
}

/// Whether a trimmed line starts a list item: `- `, `* `, `12. `.
fn is_list_item(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    line.starts_with("- ")
        || line.starts_with("* ")
        || (digits > 0 && line[digits..].starts_with(". "))
}

/// A page's text in the units a reference is read in (a paragraph, a list item, a table
/// row or a heading), each with the line it starts on, joined into one line; fenced code
/// is left out.
fn units(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("```") {
            fenced = !fenced;
            out.extend(current.take());
            continue;
        }
        let one_line = line.starts_with('|') || line.starts_with('#');
        if fenced || line.is_empty() || one_line || is_list_item(line) {
            out.extend(current.take());
        }
        if fenced || line.is_empty() {
            continue;
        }
        match &mut current {
            Some((_, unit)) => {
                unit.push(' ');
                unit.push_str(line);
            }
            None => current = Some((i + 1, line.to_owned())),
        }
        if one_line {
            out.extend(current.take());
        }
    }
    out.extend(current);
    out
}

/// The code spans of a unit: what stands between a backtick and the next.
fn code_spans(unit: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = unit.split('`').collect();
    if parts.len().is_multiple_of(2) {
        parts.pop(); // an unpaired backtick: its text is no span
    }
    parts.into_iter().skip(1).step_by(2).collect()
}

/// Whether `s` can be a Python identifier.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The asyncio name a code span gives, if the rules of this file's doc say it gives one.
fn cpython_name(span: &str) -> Option<String> {
    let span = span.strip_prefix("self.").unwrap_or(span);
    let end = span
        .find(|c: char| !(c == '_' || c == '.' || c.is_ascii_alphanumeric()))
        .unwrap_or(span.len());
    let path = span[..end].trim_end_matches('.');
    let parts: Vec<&str> = path.split('.').collect();
    if !parts.iter().all(|p| is_identifier(p)) {
        return None;
    }
    let last = parts[parts.len() - 1];
    let file = ["rs", "py", "md", "toml", "sh", "env", "svg", "json", "txt"];
    if parts.len() > 1 && file.contains(&last) {
        return None;
    }
    let head = parts[0];
    let marked = head.starts_with('_')
        || (parts.len() > 1
            && (head == "asyncio"
                || head == "loop"
                || MODULES.contains(&head)
                || head.starts_with(|c: char| c.is_ascii_uppercase())));
    marked.then(|| path.to_owned())
}

/// The links into CPython's repository in a unit.
fn cpython_links(unit: &str) -> Vec<&str> {
    unit.match_indices(CPYTHON)
        .map(|(i, _)| {
            let rest = &unit[i..];
            let end = rest
                .find(|c: char| c == ')' || c == '>' || c.is_whitespace())
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

/// A link into `Lib/asyncio/`: the file, and the lines it points at (`None`: the file).
#[derive(Debug, PartialEq)]
struct SourceLink {
    file: String,
    lines: Option<(u32, u32)>,
}

/// The tag a CPython link names, and what it points at in `Lib/asyncio/`, if anything.
fn parse_link(link: &str) -> (String, Option<SourceLink>) {
    let rest = link.strip_prefix(CPYTHON).unwrap_or(link);
    let mut parts = rest.splitn(3, '/');
    let kind = parts.next().unwrap_or_default();
    let tag = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default();
    let (path, anchor) = path.split_once('#').unwrap_or((path, ""));
    let file = path
        .strip_prefix("Lib/asyncio/")
        .filter(|f| kind == "blob" && f.ends_with(".py"));
    let Some(file) = file else {
        return (tag, None);
    };
    let line = |s: &str| s.strip_prefix('L').and_then(|n| n.parse().ok());
    let lines = match anchor.split_once('-') {
        Some((a, b)) => line(a).zip(line(b)),
        None => line(anchor).map(|a| (a, a)),
    };
    let lines = if anchor.is_empty() {
        None
    } else {
        Some(lines.unwrap_or((0, 0))) // an anchor that is no line range: caught below
    };
    let file = file.to_owned();
    (tag, Some(SourceLink { file, lines }))
}

/// Whether `text` mentions `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c == '_' || c.is_ascii_alphanumeric();
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// What `python3` answered: its version, and one line per question.
struct Answers {
    version: (u32, u32, u32),
    lines: Vec<String>,
}

/// Ask `python3` the questions, all in one process; `None` (after a note) if there is no
/// Python 3.11 to ask.
fn ask_python(questions: &[String]) -> Option<Answers> {
    let child = Command::new("python3")
        .args(["-I", "-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("note: no python3 on the PATH; CPython's names and lines not checked");
        return None;
    };
    let mut input = questions.join("\n");
    input.push('\n');
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines = stdout.lines().map(str::to_owned);
    let first = lines.next().unwrap_or_default();
    let Some(given) = first.strip_prefix("version\t") else {
        panic!(
            "python3 gave no version; the lookup script failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let version: Vec<u32> = given.split('.').filter_map(|n| n.parse().ok()).collect();
    if version.get(..2) != Some(&[3, 11][..]) {
        eprintln!("note: python3 is {given}, not 3.11; CPython's names and lines not checked");
        return None;
    }
    assert!(
        output.status.success(),
        "the lookup script failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<String> = lines.collect();
    assert_eq!(lines.len(), questions.len(), "one answer per question");
    Some(Answers {
        version: (version[0], version[1], version[2]),
        lines,
    })
}

/// What `check` found: the problems, and the Python it asked (`None`: nobody to ask).
struct Checked {
    problems: Vec<String>,
    python: Option<(u32, u32, u32)>,
}

/// Check the CPython names and links of `pages`, with `explicit` names that must be
/// asyncio's too, in one `python3` process. The tags are checked without Python; the names
/// and files only if `python3` is 3.11, the line numbers only if it is 3.11.7.
fn check(pages: &[Page], explicit: &[&str]) -> Checked {
    let mut problems = Vec::new();
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut links = Vec::new(); // (where, unit, link, source)
    for page in pages {
        for (line, unit) in units(&page.text) {
            let at = format!("{}:{line}", page.name);
            for name in code_spans(&unit).into_iter().filter_map(cpython_name) {
                if !NOT_ASYNCIO.iter().any(|(n, _)| *n == name) {
                    names.entry(name).or_default().push(at.clone());
                }
            }
            for link in cpython_links(&unit) {
                let (tag, source) = parse_link(link);
                if tag != TAG {
                    problems.push(format!("{at}: {link} names {tag:?}, not {TAG}"));
                } else if let Some(source) = source {
                    links.push((at.clone(), unit.clone(), link.to_owned(), source));
                }
            }
        }
    }
    for name in explicit {
        let at = "ASYNCIO_NAMES".to_owned();
        names.entry((*name).to_owned()).or_default().push(at);
    }
    let mut questions: Vec<String> = names.keys().map(|n| format!("name {n}")).collect();
    questions.extend(links.iter().map(|(_, _, _, s)| {
        let (a, b) = s.lines.unwrap_or((0, 0));
        format!("range {} {a} {b}", s.file)
    }));
    let Some(answers) = ask_python(&questions) else {
        return Checked {
            problems,
            python: None,
        };
    };
    let (name_answers, range_answers) = answers.lines.split_at(names.len());
    for ((name, at), answer) in names.iter().zip(name_answers) {
        if !answer.ends_with("\tok") {
            let at = at.join(", ");
            problems.push(format!("`{name}` is not in asyncio (at {at})"));
        }
    }
    let lines_too = answers.version == (3, 11, 7);
    if !lines_too {
        eprintln!("note: python3 is not 3.11.7; the book's line numbers not checked");
    }
    for ((at, unit, link, source), answer) in links.iter().zip(range_answers) {
        let around = answer.strip_prefix("range\t").unwrap_or(answer);
        if around == "nofile" {
            problems.push(format!("{at}: {link}: no file Lib/asyncio/{}", source.file));
            continue;
        }
        let Some((a, b)) = source.lines else { continue };
        if !lines_too {
            continue;
        }
        if a == 0 || a > b {
            problems.push(format!("{at}: {link}: the anchor is no line range"));
        } else if around == "-" {
            problems.push(format!(
                "{at}: {link}: lines {a} to {b} are in no function or class"
            ));
        } else {
            let innermost = around.split(',').next().unwrap();
            if !mentions(unit, innermost) {
                problems.push(format!(
                    "{at}: {link}: lines {a} to {b} are in `{around}`, \
                     and the sentence does not name `{innermost}`"
                ));
            }
        }
    }
    Checked {
        problems,
        python: Some(answers.version),
    }
}

/// The conformance scenarios whose names are ours: CPython 3.11.7's `Lib/test/test_asyncio`
/// has no test of that name (each is named for what it checks). Every other scenario is
/// named after the CPython test that checks the same thing, and must be one; the book names
/// every one of these in a paragraph that says they are ours.
const OUR_SCENARIOS: &[&str] = &[
    "test_call_later_zero_after_ready",
    "test__run_once_logging",
    "test_default_exc_handler_lines",
    "test_gather",
    "test_gather_cancel",
    "test_gather_wait_for_other_loop",
    "test_queue_ping_pong",
    "test_wait_for_timeout",
    "test_wait_for_edges",
    "test_timeout_edges",
    "test_task_cancel",
    "test_cancel_awaited",
    "test_task_awaits_itself",
    "test_await_future_of_other_loop",
    "test_future_edges",
    "test_run_until_complete_edges",
    "test_run_while_another_loop_runs",
    "test_transport_order",
    "test_transport_water_marks",
    "test_transport_close_full_buffer",
    "test_transport_abort",
    "test_transport_half_close",
    "test_stream_readuntil_limit",
];

/// The files of the conformance scenarios: each `fn test_*` in them is one.
const SCENARIO_FILES: &[&str] = &[
    "crates/stage5-event-loop/tests/conformance.rs",
    "crates/stage5-event-loop/tests/conformance_transports.rs",
];

/// The conformance scenarios: the `fn test_*` of `SCENARIO_FILES`.
fn scenarios() -> Vec<String> {
    let names: Vec<String> = SCENARIO_FILES
        .iter()
        .flat_map(|file| {
            let text = fs::read_to_string(root().join(file)).unwrap();
            text.lines()
                .filter_map(|l| l.strip_prefix("fn test_"))
                .map(|rest| {
                    let end = rest.find('(').unwrap_or(rest.len());
                    format!("test_{}", &rest[..end])
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(names.len() > 30, "found only {} scenarios", names.len());
    names
}

/// The CPython test a code span names, if it names one: `test_close`, a module
/// (`test_events`), or a prefix (`test_asyncio_run_*`).
fn test_name(span: &str) -> Option<&str> {
    let name = span.strip_prefix("test_")?;
    let name = name.strip_suffix('*').unwrap_or(name);
    let ok = name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
    ok.then_some(span)
}

/// Check that every test name given as CPython's (a code span `test_...` in `pages` and a
/// scenario in `scenarios`, unless `ours` has it) is a test or a module of CPython 3.11.7's
/// `test_asyncio`; that `ours` are scenarios, none of them CPython's; and that one paragraph
/// of `pages` says "ours" and names every one of `ours`.
fn check_tests(pages: &[Page], scenarios: &[String], ours: &[&str]) -> Checked {
    let mut problems = Vec::new();
    let mut given: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in scenarios.iter().filter(|n| !ours.contains(&n.as_str())) {
        given
            .entry(name.clone())
            .or_default()
            .push("a scenario".to_owned());
    }
    let mut said = false;
    for page in pages {
        for (line, unit) in units(&page.text) {
            let spans: Vec<&str> = code_spans(&unit)
                .into_iter()
                .filter_map(test_name)
                .collect();
            let names_all = ours.iter().all(|o| spans.contains(o));
            said |= !ours.is_empty() && names_all && mentions(&unit, "ours");
            for span in spans.into_iter().filter(|s| !ours.contains(s)) {
                let at = format!("{}:{line}", page.name);
                given.entry(span.to_owned()).or_default().push(at);
            }
        }
    }
    for name in ours {
        if !scenarios.iter().any(|s| s == name) {
            problems.push(format!(
                "OUR_SCENARIOS: `{name}` is no conformance scenario"
            ));
        }
    }
    if !said {
        problems.push(
            "no paragraph of the book says \"ours\" and names every one of OUR_SCENARIOS"
                .to_owned(),
        );
    }
    let mut questions: Vec<String> = given.keys().map(|n| format!("test {n}")).collect();
    questions.extend(ours.iter().map(|n| format!("test {n}")));
    let Some(answers) = ask_python(&questions) else {
        return Checked {
            problems,
            python: None,
        };
    };
    let python = Some(answers.version);
    if answers.version != (3, 11, 7) {
        eprintln!("note: python3 is not 3.11.7; CPython's test names not checked");
        return Checked { problems, python };
    }
    if answers.lines.iter().any(|a| a.ends_with("\tnodir")) {
        eprintln!(
            "note: CPython's Lib/test/test_asyncio is not installed; its test names not checked"
        );
        return Checked { problems, python };
    }
    let (given_answers, our_answers) = answers.lines.split_at(given.len());
    for ((name, at), answer) in given.iter().zip(given_answers) {
        if !answer.ends_with("\tok") {
            problems.push(format!(
                "`{name}` is given as CPython's test (at {}), and 3.11.7's test_asyncio has \
                 none of that name: a scenario of ours goes in OUR_SCENARIOS, and the book says so",
                at.join(", ")
            ));
        }
    }
    for (name, answer) in ours.iter().zip(our_answers) {
        if answer.ends_with("\tok") {
            problems.push(format!(
                "OUR_SCENARIOS: CPython's test_asyncio has a `{name}`: the scenario is named after it"
            ));
        }
    }
    Checked { problems, python }
}

#[test]
fn every_test_name_given_as_cpython_s_is_in_its_test_asyncio() {
    let checked = check_tests(&book(), &scenarios(), OUR_SCENARIOS);
    assert!(
        checked.problems.is_empty(),
        "{}",
        checked.problems.join("\n")
    );
}

#[test]
fn the_test_name_check_catches_a_name_of_ours_given_as_cpython_s() {
    let page = Page {
        name: "wrong.md".to_owned(),
        text: "`test_close`, `test_asyncio_run_*` and `test_events`; `test_gather`.\n\n\
               Ours: `test_sleep_zero`.\n"
            .to_owned(),
    };
    let scenarios = [
        "test_close",
        "test_gather",
        "test_sleep_zero",
        "test_timeout_edges",
    ]
    .map(str::to_owned);
    let ours = ["test_sleep_zero", "test_not_a_scenario"];
    let checked = check_tests(&[page], &scenarios, &ours);
    let mut expected = vec![
        "OUR_SCENARIOS: `test_not_a_scenario` is no conformance scenario".to_owned(),
        "no paragraph of the book says \"ours\" and names every one of OUR_SCENARIOS".to_owned(),
    ];
    if checked.python == Some((3, 11, 7)) && checked.problems.len() > 2 {
        let cpython = |name: &str, at: &str| {
            format!(
                "`{name}` is given as CPython's test (at {at}), and 3.11.7's test_asyncio has \
                 none of that name: a scenario of ours goes in OUR_SCENARIOS, and the book says so"
            )
        };
        expected.extend([
            cpython("test_gather", "a scenario, wrong.md:1"),
            cpython("test_timeout_edges", "a scenario"),
            "OUR_SCENARIOS: CPython's test_asyncio has a `test_sleep_zero`: the scenario is named after it".to_owned(),
        ]);
    }
    assert_eq!(checked.problems, expected);
}

#[test]
fn every_cpython_name_and_line_the_book_gives_is_asyncio_s() {
    let pages = book();
    let spans: BTreeSet<String> = pages
        .iter()
        .flat_map(|p| units(&p.text))
        .flat_map(|(_, unit)| {
            code_spans(&unit)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let marked = spans.iter().filter_map(|s| cpython_name(s)).count();
    assert!(marked > 20, "found only {marked} CPython names");
    let links = pages
        .iter()
        .map(|p| p.text.matches(CPYTHON).count())
        .sum::<usize>();
    assert!(links > 10, "found only {links} links into CPython");
    // The lists in this file stay true too: every name they hold is in the book.
    for name in ASYNCIO_NAMES {
        assert!(
            spans.contains(*name),
            "ASYNCIO_NAMES: `{name}` is not in the book"
        );
    }
    for (name, _) in NOT_ASYNCIO {
        let used = spans
            .iter()
            .any(|s| cpython_name(s).as_deref() == Some(name));
        assert!(used, "NOT_ASYNCIO: `{name}` is not in the book");
    }
    let checked = check(&pages, ASYNCIO_NAMES);
    assert!(
        checked.problems.is_empty(),
        "{}",
        checked.problems.join("\n")
    );
}

/// A page with one mistake of each kind, and the right forms beside them.
const WRONG: &str = "\
# A page with mistakes

The loop's `_run_twice`, its `_ready` and `_fut_waiting`; `Task.__stride` beside
`Task.__step`; `Futur.cancel`, `asyncio.run` and `asyncio.walk`; `loop.call_soon`.

- [`_run_once`](https://github.com/python/cpython/blob/v3.11.7/Lib/asyncio/base_events.py#L780-L785)
  points at the wrong lines.
- [`_call_soon`](https://github.com/python/cpython/blob/v3.11.7/Lib/asyncio/base_events.py#L780-L785)
  is right.
- [the imports](https://github.com/python/cpython/blob/v3.11.7/Lib/asyncio/base_events.py#L16-L20)
  are in no function.
- [`sleep`](https://github.com/python/cpython/blob/3.11/Lib/asyncio/tasks.py#L637-L651) moves with the branch.
- [`_run_once`](https://github.com/python/cpython/blob/v3.11.7/Lib/asyncio/base_event.py#L1-L2) has no file.
";

#[test]
fn the_checks_catch_a_wrong_name_a_wrong_range_and_a_wrong_tag() {
    let pages = [Page {
        name: "wrong.md".to_owned(),
        text: WRONG.to_owned(),
    }];
    let checked = check(&pages, &[]);
    let base = "https://github.com/python/cpython/blob/v3.11.7/Lib/asyncio/";
    let tag = "wrong.md:12: https://github.com/python/cpython/blob/3.11/Lib/asyncio/tasks.py\
               #L637-L651 names \"3.11\", not v3.11.7"
        .to_owned();
    let mut expected = vec![tag];
    if checked.python.is_some() {
        expected.extend(
            [
                "`Futur.cancel` is not in asyncio (at wrong.md:3)",
                "`Task.__stride` is not in asyncio (at wrong.md:3)",
                "`_fut_waiting` is not in asyncio (at wrong.md:3)",
                "`_run_twice` is not in asyncio (at wrong.md:3)",
                "`asyncio.walk` is not in asyncio (at wrong.md:3)",
            ]
            .map(str::to_owned),
        );
    }
    if checked.python == Some((3, 11, 7)) {
        expected.extend([
            format!(
                "wrong.md:6: {base}base_events.py#L780-L785: lines 780 to 785 are in \
                 `_call_soon,BaseEventLoop`, and the sentence does not name `_call_soon`"
            ),
            format!(
                "wrong.md:10: {base}base_events.py#L16-L20: lines 16 to 20 are in no function \
                 or class"
            ),
            format!("wrong.md:13: {base}base_event.py#L1-L2: no file Lib/asyncio/base_event.py"),
        ]);
    }
    assert_eq!(checked.problems, expected);
}

#[test]
fn parsing() {
    assert_eq!(
        units("a\nb `x`\n\n- c\n  d\n- e\n| f |\n```\ng\n```\nh"),
        [
            (1, "a b `x`".to_owned()),
            (4, "- c d".to_owned()),
            (6, "- e".to_owned()),
            (7, "| f |".to_owned()),
            (11, "h".to_owned()),
        ]
    );
    assert_eq!(code_spans("a `b` c `d` e `f"), ["b", "d"]);
    let names: Vec<_> = [
        "_run_once",
        "self._ready.clear()",
        "Task.__step",
        "base_events.logger",
        "loop.call_soon(f)",
        "asyncio.run(main())",
        "run_once.rs",
        "Cargo.toml",
        "Error::Panic",
        "time.sleep",
        "sched.current = None",
        "call_soon",
        "T: Clone",
    ]
    .into_iter()
    .map(cpython_name)
    .collect();
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        names,
        [
            some("_run_once"),
            some("_ready.clear"),
            some("Task.__step"),
            some("base_events.logger"),
            some("loop.call_soon"),
            some("asyncio.run"),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        ]
    );
    assert_eq!(
        parse_link("https://github.com/python/cpython/blob/v3.11.7/Lib/asyncio/tasks.py#L1-L9"),
        (
            "v3.11.7".to_owned(),
            Some(SourceLink {
                file: "tasks.py".to_owned(),
                lines: Some((1, 9))
            })
        )
    );
    assert_eq!(
        parse_link("https://github.com/python/cpython/tree/3.11/Lib/test/test_asyncio"),
        ("3.11".to_owned(), None)
    );
    assert!(mentions("its `close()` clears", "close"));
    assert!(mentions("`Task.__step`", "__step"));
    assert!(!mentions("`_close_self_pipe`", "close"));
}
