//! Tidy checks: the conventions that keep the book and the crates readable side by side.
//!
//! - every `.rs` file under `crates/` opens with a `//!` module doc;
//! - every stage crate's lib doc names its book chapter and the public source it retraces
//!   (Beazley's talk, linked, or CPython's asyncio);
//! - every stage ships the three examples every learner can run in any stage;
//! - every crate's lib doc links its chapter of the built book, and the chapter exists;
//! - every `{{#include path:anchor}}` in `docs/` names a file that exists and an anchor
//!   (`// ANCHOR: name` … `// ANCHOR_END: name`) that exists in it;
//! - every picture in `docs/` (`![alt](path)`) names a file that exists, and has an alt text;
//! - every timeline picture has its run as a stepper beneath it (`docs/theme/stepper.js`);
//! - the introduction's map lists every page of `docs/src/SUMMARY.md`, in its order and
//!   under its title.
//!
//! (`scripts/check-book.sh` checks the built book in a browser as well; these are the
//! checks a plain `cargo test` can make.)

use std::fs;

#[path = "support/tree.rs"]
mod tree;

use tree::{files, includes, module_doc, root, stages};

#[test]
fn every_rust_file_under_crates_opens_with_a_module_doc() {
    let rs = files(&root().join("crates"), "rs");
    assert!(rs.len() > 5, "found only {rs:?}");
    let offenders: Vec<_> = rs
        .iter()
        .filter(|path| !fs::read_to_string(path).unwrap().starts_with("//!"))
        .collect();
    assert!(
        offenders.is_empty(),
        "files without a leading //! doc: {offenders:#?}"
    );
}

#[test]
fn every_stage_names_its_chapter_and_public_source() {
    let stages = stages();
    assert!(!stages.is_empty());
    for (stage, dir) in &stages {
        // Stage 5 holds chapters 5 to 9; stage 6 is chapter 10.
        let n = if *stage == 6 { 10 } else { *stage };
        let lib = fs::read_to_string(dir.join("src/lib.rs")).unwrap();
        let doc: String = lib
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            doc.contains(&format!("Book chapter {n}"))
                || doc.contains(&format!("Book chapters {n}")),
            "{}: the lib doc must name book chapter {n}",
            dir.display()
        );
        let talk =
            doc.contains("Beazley") && doc.contains("https://www.youtube.com/watch?v=Y4Gt3Xjd7G8");
        assert!(
            talk || doc.contains("asyncio"),
            "{}: the lib doc must name the public source it retraces (Beazley's talk, linked, or asyncio)",
            dir.display()
        );
    }
}

#[test]
fn every_stage_ships_the_three_examples() {
    for (_, dir) in stages() {
        for example in ["countdown", "producer_consumer", "echo_server"] {
            let path = dir.join("examples").join(format!("{example}.rs"));
            assert!(path.is_file(), "missing {}", path.display());
        }
    }
}

#[test]
fn every_book_include_names_a_file_and_anchor_that_exist() {
    let md = files(&root().join("docs/src"), "md");
    assert!(!md.is_empty(), "no book chapters found");
    let mut problems = Vec::new();
    let mut count = 0;
    for chapter in &md {
        let text = fs::read_to_string(chapter).unwrap();
        for (path, anchor) in includes(&text) {
            count += 1;
            let file = chapter.parent().unwrap().join(&path);
            let Ok(source) = fs::read_to_string(&file) else {
                problems.push(format!("{}: no file {path}", chapter.display()));
                continue;
            };
            if let Some(anchor) = anchor {
                let has = |marker: &str| {
                    source.lines().any(|line| {
                        line.trim_start()
                            .strip_prefix(marker)
                            .is_some_and(|rest| rest.trim() == anchor)
                    })
                };
                if !has("// ANCHOR:") || !has("// ANCHOR_END:") {
                    problems.push(format!(
                        "{}: no anchor {anchor} in {path}",
                        chapter.display()
                    ));
                }
            }
        }
    }
    assert!(count > 0, "the book includes no code at all");
    assert!(
        problems.is_empty(),
        "broken includes:\n{}",
        problems.join("\n")
    );
}

/// The `![alt](path)` pictures of a Markdown text: (alt, path).
fn pictures(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("![") {
        let after = &rest[start + 2..];
        let Some(close) = after.find("](") else { break };
        let Some(end) = after[close + 2..].find(')') else {
            break;
        };
        found.push((
            after[..close].to_owned(),
            after[close + 2..close + 2 + end].to_owned(),
        ));
        rest = &after[close + 2 + end..];
    }
    found
}

#[test]
fn every_book_picture_exists_and_says_what_it_shows() {
    let md = files(&root().join("docs/src"), "md");
    let mut problems = Vec::new();
    let mut count = 0;
    for chapter in &md {
        for (alt, path) in pictures(&fs::read_to_string(chapter).unwrap()) {
            count += 1;
            if !chapter.parent().unwrap().join(&path).is_file() {
                problems.push(format!("{}: no picture {path}", chapter.display()));
            }
            if alt.trim().is_empty() {
                problems.push(format!("{}: {path} has no alt text", chapter.display()));
            }
        }
    }
    assert!(count > 0, "the book shows no picture at all");
    assert!(
        problems.is_empty(),
        "broken pictures:\n{}",
        problems.join("\n")
    );
}

/// What follows a timeline picture `timelines/{stem}.svg` in the book: its recorded run,
/// embedded in the page, and the stepper that shows it.
fn stepper_for(stem: &str) -> String {
    format!(
        "<script type=\"application/json\" class=\"stepper-run\" \
         data-timeline=\"timelines/{stem}.svg\">\n\
         {{{{#include steps/{stem}.json}}}}\n</script>\n<div class=\"stepper\"></div>"
    )
}

/// True if `stem` names a picture of two runs: two stages before the program's name.
fn is_pair(stem: &str) -> bool {
    let mut parts = stem.splitn(3, '-');
    let stage = |part: Option<&str>| {
        part.and_then(|p| p.strip_prefix("stage"))
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    stage(parts.next()) && stage(parts.next()) && parts.next().is_some()
}

#[test]
fn a_pair_is_two_stages_then_a_name() {
    assert!(is_pair("stage5-stage6-protocol_echo"));
    assert!(!is_pair("stage6-protocol_echo") && !is_pair("stage5-stage6"));
}

#[test]
fn every_timeline_picture_has_its_stepper() {
    let mut problems = Vec::new();
    let mut count = 0;
    for chapter in files(&root().join("docs/src"), "md") {
        let text = fs::read_to_string(&chapter).unwrap();
        for (_, path) in pictures(&text) {
            let Some(stem) = path
                .strip_prefix("timelines/")
                .and_then(|p| p.strip_suffix(".svg"))
            else {
                continue;
            };
            // A picture of two runs (`stage5-stage6-NAME`, `tests/timelines.rs`' pairs) has
            // no stepper of its own: each of its runs has its own picture, and stepper.
            if is_pair(stem) {
                continue;
            }
            count += 1;
            // The picture's own paragraph, a blank line, then the stepper.
            let picture = format!("]({path})\n\n");
            let follows = text
                .split(&picture)
                .skip(1)
                .all(|after| after.starts_with(&stepper_for(stem)));
            if !follows {
                problems.push(format!(
                    "{}: {path} has no stepper beneath it",
                    chapter.display()
                ));
            }
        }
    }
    assert!(count > 0, "the book shows no timeline at all");
    assert!(
        problems.is_empty(),
        "timelines without their stepper (add, after a blank line):\n{}",
        problems.join("\n")
    );
}

#[test]
fn picture_parsing() {
    assert_eq!(
        pictures("a ![one](x.svg) b ![](y/z.svg) [not](a picture)"),
        [
            ("one".to_owned(), "x.svg".to_owned()),
            (String::new(), "y/z.svg".to_owned())
        ]
    );
}

#[test]
fn include_parsing() {
    let found = includes(
        "a {{#include ../x.rs:run}} b {{#include y.rs}} {{#include z.rs:3:9}} \\{{#include no}}",
    );
    assert_eq!(
        found,
        [
            ("../x.rs".to_owned(), Some("run".to_owned())),
            ("y.rs".to_owned(), None),
            ("z.rs".to_owned(), None),
        ]
    );
}

/// Where a crate's API docs find the book. rustdoc writes a crate's page to
/// `target/doc/CRATE/index.html`, and the book is built to `docs/book/`; the published
/// site keeps the same layout, so one relative link works there and in a local checkout.
const BOOK_FROM_API: &str = "../../../docs/book/";

/// Crates whose lib doc does not link a chapter yet (each must exist and have no link).
const NOT_YET_LINKED: &[&str] = &[];

/// The chapters (`NAME` of `docs/src/NAME.md`) that a lib doc links through
/// [`BOOK_FROM_API`].
fn chapter_links(doc: &str) -> Vec<String> {
    doc.split(&format!("]({BOOK_FROM_API}"))
        .skip(1)
        .map(|rest| {
            let target = rest.split(')').next().unwrap_or_default();
            target.strip_suffix(".html").unwrap_or(target).to_owned()
        })
        .collect()
}

#[test]
fn every_crate_doc_links_its_chapter_and_the_chapter_exists() {
    let mut libs = vec![("async-from-scratch".to_owned(), root().join("src/lib.rs"))];
    for entry in fs::read_dir(root().join("crates")).unwrap().flatten() {
        let lib = entry.path().join("src/lib.rs");
        if lib.is_file() {
            libs.push((entry.file_name().to_string_lossy().into_owned(), lib));
        }
    }
    assert!(libs.len() > 5, "found only {libs:?}");
    let mut problems = Vec::new();
    for (name, lib) in &libs {
        let links = chapter_links(&module_doc(&fs::read_to_string(lib).unwrap()));
        let exempt = NOT_YET_LINKED.contains(&name.as_str());
        match (links.is_empty(), exempt) {
            (true, false) => problems.push(format!("{name}: its lib doc links no chapter")),
            (false, true) => problems.push(format!("{name}: links a chapter now; unlist it")),
            _ => {}
        }
        for chapter in links {
            if !root().join(format!("docs/src/{chapter}.md")).is_file() {
                problems.push(format!("{name}: no chapter docs/src/{chapter}.md"));
            }
        }
    }
    for name in NOT_YET_LINKED {
        assert!(
            libs.iter().any(|(n, _)| n == name),
            "{name} is listed but no such crate"
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn chapter_link_parsing() {
    assert_eq!(
        chapter_links(
            "[a](../../../docs/book/ch01-x.html) [b](other.html) [c](../../../docs/book/y.html)"
        ),
        ["ch01-x", "y"]
    );
}

/// The `[title](page.md)` links of `text`, in order.
fn page_links(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find("](") else { break };
        let title = &rest[..close];
        let after = &rest[close + 2..];
        let Some(end) = after.find(')') else { break };
        let target = &after[..end];
        if target.ends_with(".md") && !target.contains('/') && !title.contains('[') {
            out.push((title.to_owned(), target.to_owned()));
        }
        rest = after;
    }
    out
}

/// What is wrong with the introduction's map (the table under its "## The map"), against
/// the pages of `summary` but the introduction: a page left out, one added, or another
/// order or title.
fn map_problems(summary: &str, introduction: &str) -> Vec<String> {
    let pages: Vec<_> = page_links(summary)
        .into_iter()
        .filter(|(_, page)| page != "introduction.md")
        .collect();
    let Some(start) = introduction.find("\n## The map\n") else {
        return vec!["the introduction has no \"## The map\" section".to_owned()];
    };
    let rows: String = introduction[start..]
        .lines()
        .skip(2)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1))
        .collect::<Vec<_>>()
        .join("\n");
    let map = page_links(&rows);
    let mut problems = Vec::new();
    for (title, page) in &pages {
        if !map.iter().any(|(_, p)| p == page) {
            problems.push(format!("the map leaves out [{title}]({page})"));
        }
    }
    for (title, page) in &map {
        if !pages.iter().any(|(_, p)| p == page) {
            problems.push(format!(
                "the map has [{title}]({page}), which SUMMARY.md does not"
            ));
        }
    }
    if problems.is_empty() && map != pages {
        problems.push(format!(
            "the map's pages and titles are not SUMMARY.md's, in its order:\n  map:     {map:?}\n  SUMMARY: {pages:?}"
        ));
    }
    problems
}

#[test]
fn the_introduction_s_map_lists_every_page_of_the_summary_in_order() {
    let read = |page: &str| fs::read_to_string(root().join("docs/src").join(page)).unwrap();
    let problems = map_problems(&read("SUMMARY.md"), &read("introduction.md"));
    assert!(
        problems.is_empty(),
        "introduction.md: {}",
        problems.join("\n")
    );
}

#[test]
fn the_map_check_catches_a_page_left_out_added_or_out_of_order() {
    let summary = "# Summary\n\n[Introduction](introduction.md)\n\n- [One](ch01.md)\n  - [Aside](aside.md)\n- [Two](ch02.md)\n";
    let intro = |rows: &str| {
        format!("# Introduction\n\n## The map\n\n| page | what |\n| --- | --- |\n{rows}\n## Next\n")
    };
    let right =
        intro("| [One](ch01.md) | a |\n| [Aside](aside.md) | b |\n| [Two](ch02.md) | c |\n");
    assert!(map_problems(summary, &right).is_empty());
    let missing = intro(
        "| [One](ch01.md) | a, see [Two](ch02.md) |\n| [Aside](aside.md) | b |\n| [Three](ch03.md) | c |\n",
    );
    assert_eq!(
        map_problems(summary, &missing),
        [
            "the map leaves out [Two](ch02.md)",
            "the map has [Three](ch03.md), which SUMMARY.md does not",
        ]
    );
    let swapped =
        intro("| [One](ch01.md) | a |\n| [Two](ch02.md) | c |\n| [Aside](aside.md) | b |\n");
    assert_eq!(map_problems(summary, &swapped).len(), 1);
}
