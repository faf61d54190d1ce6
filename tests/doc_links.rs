//! Every relative link in the documents resolves: README.md,
//! ARCHITECTURE.md, CONTRIBUTING.md, python/README.md and every Markdown
//! page under docs/ (found by walking the directory, so a page added later
//! is checked without a change here).
//!
//! A link's path must name a file or directory that exists, relative to the
//! page; a `#anchor` must name a heading of the page it points to, by
//! GitHub's rules for heading ids (below). Links with a scheme (`https:`,
//! `mailto:`) are not followed: the check runs offline. Text inside code
//! fences and code spans is not read as links.
//!
//! Hand-written rather than `lychee --offline` (crates.io) because CI would
//! then install and pin another tool, and the anchor rules are a few lines.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The pages checked, relative to the crate root.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"]
        .iter()
        .chain(&["python/README.md"])
        .map(|p| root.join(p))
        .filter(|p| p.is_file())
        .collect();
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The lines of `text` that are not inside a fenced code block, with their
/// line numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let mark = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = mark.map_or(0, |c| trimmed.chars().take_while(|&d| d == c).count());
        // A backtick fence's info string holds no backtick (CommonMark), so
        // a line that begins with a code span is no fence.
        let opens = run >= 3 && !(mark == Some('`') && trimmed[run..].contains('`'));
        match (fence, mark) {
            (None, Some(c)) if opens => fence = Some((c, run)),
            (Some((c, n)), Some(d)) if c == d && run >= n && trimmed[run..].trim().is_empty() => {
                fence = None
            }
            (None, _) => out.push((i + 1, line)),
            _ => {}
        }
    }
    out
}

/// `line` with its code spans blanked out, so that a `](` inside backticks
/// is not read as a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let run = rest[start..].bytes().take_while(|&b| b == b'`').count();
        let after = &rest[start + run..];
        let closer = "`".repeat(run);
        match after.find(&closer) {
            Some(end) => {
                out.push_str(&" ".repeat(run * 2 + end));
                rest = &after[end + run..];
            }
            None => {
                out.push_str(&rest[start..start + run]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links and images on `line` (`[text](target)`,
/// `![alt](target "title")`) and of a reference definition (`[x]: target`).
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') {
        if let Some(end) = trimmed.find("]:") {
            if let Some(target) = trimmed[end + 2..].split_whitespace().next() {
                targets.push(target.trim_matches(['<', '>']).to_string());
            }
        }
    }
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let inside = after[..end].trim();
        let target = inside.split_whitespace().next().unwrap_or("");
        targets.push(target.trim_matches(['<', '>']).to_string());
        rest = &after[end.min(after.len())..];
    }
    targets
}

/// GitHub's id for a heading: the text as rendered (markup dropped),
/// lower-cased, every character that is not a letter, a digit, `-`, `_` or
/// a space dropped, and each space made a `-`. A repeated id gets `-1`,
/// `-2`, … in order.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // Links keep their text; images their alt text.
    while let Some(open) = rest.find('[') {
        match rest[open..].find("](").and_then(|m| {
            let close = rest[open + m..].find(')')?;
            Some((open + m, open + m + close))
        }) {
            Some((mid, close)) => {
                text.push_str(&rest[..open]);
                text.push_str(&rest[open + 1..mid]);
                rest = &rest[close + 1..];
            }
            None => break,
        }
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The ids of the headings of a Markdown page (ATX headings `# …`, outside
/// code fences), and of any explicit `id="…"` / `name="…"` anchors.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose_lines(text) {
        let trimmed = line.trim_start();
        let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            let heading = trimmed[hashes..].trim().trim_end_matches('#').trim();
            let base = slug(heading);
            let mut id = base.clone();
            let mut n = 0;
            while seen.contains(&id) {
                n += 1;
                id = format!("{base}-{n}");
            }
            seen.insert(id);
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(attr) {
                let after = &rest[at + attr.len()..];
                let end = after.find('"').unwrap_or(after.len());
                seen.insert(after[..end].to_string());
                rest = &after[end..];
            }
        }
    }
    seen
}

/// Every bad link of `page`, as `file:line: what`.
fn bad_links(root: &Path, page: &Path) -> Vec<String> {
    let text = fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let shown = page
        .strip_prefix(root)
        .unwrap_or(page)
        .display()
        .to_string();
    let dir = page.parent().unwrap_or(root);
    let mut bad = Vec::new();
    for (number, line) in prose_lines(&text) {
        for target in link_targets(line) {
            let scheme = target.split_once(':').is_some_and(|(s, _)| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            });
            if target.is_empty() || scheme {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                page.to_path_buf()
            } else {
                dir.join(path)
            };
            if !file.exists() {
                bad.push(format!(
                    "{shown}:{number}: `{target}`: no file {}",
                    file.display()
                ));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if !file.extension().is_some_and(|e| e == "md") {
                continue;
            }
            let target_text = fs::read_to_string(&file).unwrap_or_default();
            if !anchors(&target_text).contains(anchor) {
                bad.push(format!(
                    "{shown}:{number}: `{target}`: no heading with id `{anchor}` in {}",
                    file.strip_prefix(root).unwrap_or(&file).display()
                ));
            }
        }
    }
    bad
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = pages(root);
    assert!(
        pages.iter().any(|p| p.ends_with("docs/events.md")),
        "the pages under docs/ were not found: {pages:?}"
    );
    let bad: Vec<String> = pages.iter().flat_map(|p| bad_links(root, p)).collect();
    assert!(
        bad.is_empty(),
        "{} broken link(s):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn heading_ids_follow_github() {
    assert_eq!(slug("The event model"), "the-event-model");
    assert_eq!(
        slug("Regenerating docs/performance.md"),
        "regenerating-docsperformancemd"
    );
    assert_eq!(slug("`parse` and `run`"), "parse-and-run");
    assert_eq!(
        slug("Choices where the contract is silent"),
        "choices-where-the-contract-is-silent"
    );
    assert_eq!(slug("Bird's-eye view"), "birds-eye-view");
    assert_eq!(
        slug("Against SGLang's tool-parser 1.10"),
        "against-sglangs-tool-parser-110"
    );
    assert_eq!(slug("See [the page](docs/x.md) now"), "see-the-page-now");
    let ids = anchors("# A\n\n## A\n\n```\n# not a heading\n```\n### A\n");
    let want: HashSet<String> = ["a", "a-1", "a-2"].map(String::from).into();
    assert_eq!(ids, want);
}

#[test]
fn a_broken_link_is_reported_with_its_line() {
    let dir = std::env::temp_dir().join(format!("actionstream-doc-links-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("a temporary directory");
    let page = dir.join("page.md");
    fs::write(
        &page,
        "# Title\n\n[ok](#title) [ok](page.md#title) `[not a link](nowhere.md)`\n\
         [gone](missing.md) and [no heading](#nothing)\n\n```\n[in a fence](nowhere.md)\n```\n\
         ```` ``` ```` is a code span, not a fence: [gone too](missing.md)\n\
         [web](https://example.com/x.md)\n",
    )
    .expect("the page is written");
    let bad = bad_links(&dir, &page);
    fs::remove_dir_all(&dir).ok();
    assert_eq!(bad.len(), 3, "{bad:?}");
    assert!(bad[0].starts_with("page.md:4: `missing.md`"), "{bad:?}");
    assert!(bad[1].starts_with("page.md:4: `#nothing`"), "{bad:?}");
    assert!(bad[2].starts_with("page.md:9: `missing.md`"), "{bad:?}");
}
