//! The catalog against what it names (book introduction, "Exercises"; the project's own):
//! every `#[ignore = "exercise N.M: ..."]` test is a row and every row's test is there;
//! every file and item a row names exists, in the stub and in the solution; every section
//! is a heading of its chapter and holds the exercise's box; and every box in the chapters
//! (`> **Try it: N.M, title.**`, or `Build it`) is a row, numbered in reading order, with
//! the runner's command to run it. Plain file reading: no test here runs an exercise.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use exercises::catalog::{CATALOG, Exercise};

/// The kinds of box a chapter asks for an exercise with.
const BOX_KINDS: [&str; 2] = ["Try it", "Build it"];

fn krate() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn docs() -> PathBuf {
    krate().join("../../docs/src")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A box: its kind, number, title, text (the `>` lines joined), and the heading above it.
#[derive(Debug)]
struct ExerciseBox {
    id: String,
    title: String,
    text: String,
    section: String,
}

/// The boxes of a chapter, in reading order.
fn boxes(chapter: &str) -> Vec<ExerciseBox> {
    let mut found = Vec::new();
    let mut section = String::new();
    let lines: Vec<&str> = chapter.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(heading) = line.strip_prefix("## ").or(line.strip_prefix("### ")) {
            section = heading.to_owned();
        }
        let Some(rest) = BOX_KINDS
            .iter()
            .find_map(|kind| line.strip_prefix(&format!("> **{kind}: ")))
        else {
            continue;
        };
        let (id, rest) = rest.split_once(", ").expect("a box reads `N.M, title.`");
        let (title, _) = rest
            .split_once(".**")
            .expect("a box's title ends with `.**`");
        let text: Vec<&str> = lines[i..]
            .iter()
            .map_while(|l| l.strip_prefix('>'))
            .map(str::trim)
            .collect();
        found.push(ExerciseBox {
            id: id.to_owned(),
            title: title.to_owned(),
            text: text.join(" "),
            section: section.clone(),
        });
    }
    found
}

/// The chapters' files (`chNN-*.md`), in order.
fn chapter_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(docs())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("ch") && name.ends_with(".md")
        })
        .collect();
    files.sort();
    files
}

/// `(binary, test, id)` of every test marked `#[ignore = "exercise ID: ..."]`.
fn ignored_exercise_tests() -> BTreeSet<(String, String, String)> {
    let mut found = BTreeSet::new();
    for entry in fs::read_dir(krate().join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let binary = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = read(&path);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(reason) = line.trim().strip_prefix("#[ignore = \"exercise ") else {
                continue;
            };
            let id = reason.split(':').next().unwrap().to_owned();
            let name = lines[i..]
                .iter()
                .find_map(|l| l.trim().strip_prefix("fn "))
                .and_then(|f| f.split('(').next())
                .unwrap_or_else(|| panic!("{binary}: no fn after {line}"));
            found.insert((binary.clone(), name.to_owned(), id));
        }
    }
    found
}

#[test]
fn every_ignored_exercise_test_is_a_row_and_every_row_has_its_test() {
    let tests = ignored_exercise_tests();
    let rows: BTreeSet<(String, String, String)> = CATALOG
        .iter()
        .map(|e| (e.binary.into(), e.test.into(), e.id.into()))
        .collect();
    assert_eq!(rows.len(), CATALOG.len(), "a row is there twice");
    let missing: Vec<_> = tests.difference(&rows).collect();
    let extra: Vec<_> = rows.difference(&tests).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "(binary, test, id) of tests not in the catalog: {missing:#?}\n\
         of rows whose test is not there, or not `#[ignore = \"exercise ID: ...\"]`: {extra:#?}"
    );
}

#[test]
fn every_exercise_test_says_which_side_is_yours() {
    // `assert_eq!` says `left` and `right`; the learner must not have to guess which is
    // theirs. An exercise test compares with `assert_yours!` (or `assert_same_run`).
    for binary in CATALOG.iter().map(|e| e.binary).collect::<BTreeSet<_>>() {
        let text = read(&krate().join(format!("tests/{binary}.rs")));
        for test in text.split("\n#[test]\n").skip(1) {
            if !test.starts_with("#[ignore = \"exercise ") {
                continue;
            }
            let name = test
                .lines()
                .find_map(|l| l.strip_prefix("fn ")?.split('(').next())
                .unwrap_or(test);
            for bare in ["assert_eq!(", "assert_ne!("] {
                assert!(
                    !test.contains(bare),
                    "tests/{binary}.rs, {name}: `{bare}` does not say which side is yours \
                     (use `assert_yours!(yours, expected)`)"
                );
            }
        }
    }
}

#[test]
fn ids_are_unique_and_name_their_chapter() {
    let ids: BTreeSet<&str> = CATALOG.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), CATALOG.len(), "an id is used twice");
    for exercise in CATALOG {
        let (chapter, number) = exercise.id.split_once('.').expect("an id is N.M");
        assert_eq!(chapter, exercise.chapter.number.to_string(), "{exercise:?}");
        assert!(number.parse::<u32>().is_ok_and(|n| n > 0), "{exercise:?}");
    }
}

/// True if `text` defines `item`: a type (`struct`, `enum`, `type`, `trait`) if it begins
/// with a capital, else a function.
fn defines(text: &str, item: &str) -> bool {
    let keywords: &[&str] = if item.starts_with(char::is_uppercase) {
        &["struct", "enum", "type", "trait"]
    } else {
        &["fn"]
    };
    keywords.iter().any(|keyword| {
        let definition = format!("{keyword} {item}");
        text.match_indices(&definition).any(|(i, _)| {
            let after = text[i + definition.len()..].chars().next();
            matches!(after, Some('<' | '(' | ' ' | ';' | '{'))
        })
    })
}

#[test]
fn every_file_and_item_named_exists_in_the_stub_and_the_solution() {
    let mut problems = Vec::new();
    for exercise in CATALOG {
        for file in [exercise.file.to_owned(), exercise.solution()] {
            let path = krate().join(&file);
            let Ok(text) = fs::read_to_string(&path) else {
                problems.push(format!("{}: no file {file}", exercise.id));
                continue;
            };
            for part in exercise.item.split("::") {
                if !defines(&text, part) {
                    problems.push(format!("{}: {file} defines no `{part}`", exercise.id));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_section_is_a_heading_of_its_chapter_and_holds_the_box() {
    let mut problems = Vec::new();
    for exercise in CATALOG {
        let chapter = read(&docs().join(exercise.chapter.file));
        let title = format!("# {}", exercise.chapter.title);
        if chapter.lines().next() != Some(title.as_str()) {
            problems.push(format!(
                "{}: the chapter does not open with {title}",
                exercise.id
            ));
        }
        let headings = ["## ", "### "].map(|level| format!("{level}{}", exercise.section));
        if !chapter
            .lines()
            .any(|line| headings.contains(&line.to_owned()))
        {
            problems.push(format!(
                "{}: no heading \"{}\"",
                exercise.id, exercise.section
            ));
        }
        match boxes(&chapter).iter().find(|b| b.id == exercise.id) {
            None => problems.push(format!(
                "{}: no box in {}",
                exercise.id, exercise.chapter.file
            )),
            Some(found) => {
                if found.section != exercise.section {
                    problems.push(format!(
                        "{}: its box is in \"{}\"",
                        exercise.id, found.section
                    ));
                }
                if found.title != exercise.title {
                    problems.push(format!(
                        "{}: its box's title is {:?}",
                        exercise.id, found.title
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_box_is_a_row_numbered_in_reading_order_and_says_how_to_run_it() {
    let mut problems = Vec::new();
    let mut in_the_book = Vec::new();
    for file in chapter_files() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (n, found) in boxes(&read(&file)).into_iter().enumerate() {
            let row: Option<&Exercise> = CATALOG.iter().find(|e| e.id == found.id);
            match row {
                None => problems.push(format!("{name}: box {} is no row", found.id)),
                Some(row) if row.chapter.file != name => problems.push(format!(
                    "{name}: box {} is chapter {}'s",
                    found.id, row.chapter.number
                )),
                Some(row) => {
                    let expected = format!("{}.{}", row.chapter.number, n + 1);
                    if found.id != expected {
                        problems.push(format!(
                            "{name}: box {} comes where {expected} should",
                            found.id
                        ));
                    }
                }
            }
            let command = format!("`cargo run -p exercises -- run {}`", found.id);
            if !found.text.contains(&command) {
                problems.push(format!("{name}: box {} does not say {command}", found.id));
            }
            in_the_book.push(found.id);
        }
    }
    let catalog: Vec<&str> = CATALOG.iter().map(|e| e.id).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(
        catalog, in_the_book,
        "the catalog is in the book's order, box for box"
    );
}

#[test]
fn the_box_reader_reads_a_box() {
    let chapter = "# Title\n\n## A section\n\ntext\n\n> **Try it: 1.2, `call_at`.** Do it.\n> \
                   Check with `cargo run -p exercises -- run 1.2`.\n\nafter\n";
    let found = boxes(chapter);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (
            found[0].id.as_str(),
            found[0].title.as_str(),
            found[0].section.as_str()
        ),
        ("1.2", "`call_at`", "A section")
    );
    assert!(
        found[0]
            .text
            .ends_with("Check with `cargo run -p exercises -- run 1.2`.")
    );
    assert!(defines("pub fn call_at(", "call_at") && !defines("fn call_at_x(", "call_at"));
    assert!(defines("pub struct CallbackQueue<T> {", "CallbackQueue"));
}
