//! Code blocks, artifacts, sections and the balance check: the seed's
//! examples and edge cases, each at every chunking.

use actionstream::artifacts::{
    check_balance, check_balance_with, normalize_path, path_in_line, Artifact, ArtifactError,
    ArtifactOptions, Artifacts, CodeBlock, CodeBlocks, Dialect, Imbalance, PathError, Refused,
    Section, Sections, Unterminated,
};
use actionstream::{oracle, Config, Parser};

/// Parses `chunks` (as bytes) and tracks code blocks and sections.
fn run(config: &Config, chunks: &[&[u8]]) -> (Vec<CodeBlock>, Vec<Section>) {
    let mut parser = Parser::new(config.clone());
    let mut tracker = CodeBlocks::new().with_sections(true);
    let (mut events, mut blocks) = (Vec::new(), Vec::new());
    for chunk in chunks {
        parser.push_bytes(chunk, &mut events);
        for e in events.drain(..) {
            tracker.push_event(&e, &mut blocks);
        }
    }
    parser.finish(&mut events);
    for e in events.drain(..) {
        tracker.push_event(&e, &mut blocks);
    }
    tracker.finish(&mut blocks);
    (blocks, tracker.take_sections())
}

/// Runs `text` whole, one byte at a time, at every two-way split and at
/// random splits; all must agree. Also keeps the parser's invariants
/// (`oracle::check`) and checks each block's lines against its span.
fn check_with(config: &Config, text: &str) -> (Vec<CodeBlock>, Vec<Section>) {
    oracle::check(config, text);
    let bytes = text.as_bytes();
    let whole = run(config, &[bytes]);
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(run(config, &bytewise), whole, "one byte at a time");
    let splits: Vec<usize> = if bytes.len() <= 1500 {
        (1..bytes.len()).collect()
    } else {
        (1..bytes.len()).step_by(bytes.len() / 200 + 1).collect()
    };
    for at in splits {
        let (a, b) = bytes.split_at(at);
        assert_eq!(run(config, &[a, b]), whole, "split at {at}");
    }
    for seed in 0..8u64 {
        let chunks =
            actionstream::chunking::random_chunks(bytes, seed, 1 + (seed as usize * 9) % 64);
        assert_eq!(run(config, &chunks), whole, "random chunks, seed {seed}");
    }
    for b in &whole.0 {
        let before = &text[..b.span.start];
        assert_eq!(
            b.start_line,
            1 + before.matches('\n').count(),
            "start line of {b:?}"
        );
        let inside = &text[b.span.range()];
        let last = inside.strip_suffix('\n').unwrap_or(inside);
        assert_eq!(
            b.end_line,
            b.start_line + last.matches('\n').count(),
            "end line of {b:?}"
        );
        assert!(
            inside.trim_start().starts_with(['`', '~']),
            "span starts at the fence: {inside:?}"
        );
    }
    whole
}

fn check(text: &str) -> Vec<CodeBlock> {
    check_with(&Config::default(), text).0
}

fn sections_of(text: &str) -> Sections {
    Sections::new(check_with(&Config::default(), text).1)
}

fn artifacts_of(text: &str) -> Vec<Result<Artifact, Refused>> {
    artifacts_with(ArtifactOptions::default(), text)
}

fn artifacts_with(options: ArtifactOptions, text: &str) -> Vec<Result<Artifact, Refused>> {
    let options_default = options == ArtifactOptions::default();
    let mut a = Artifacts::with_options(options);
    for b in &check(text) {
        a.add(b);
    }
    let got = a.finish();
    if options_default {
        assert_eq!(
            got,
            actionstream::artifacts::artifacts(text),
            "the convenience function agrees"
        );
    }
    got
}

fn ok(entries: &[Result<Artifact, Refused>]) -> Vec<(&str, &str)> {
    entries
        .iter()
        .filter_map(|e| e.as_ref().ok())
        .map(|a| (a.path.as_str(), a.content.as_str()))
        .collect()
}

// -- the seed's examples --------------------------------------------------------

#[test]
fn seed_extracts_code_block_with_file_path() {
    let response = "\nHere's the implementation:\n\n```typescript\n// src/utils/helper.ts\nexport function helper() {\n  return true;\n}\n```\n      ";
    let blocks = check(response);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].language, "typescript");
    assert_eq!(blocks[0].path.as_deref(), Some("src/utils/helper.ts"));
    assert!(blocks[0].content.contains("export function helper"));
    assert_eq!(
        blocks[0].content,
        "export function helper() {\n  return true;\n}"
    );
    assert_eq!(
        (
            blocks[0].start_line,
            blocks[0].content_line,
            blocks[0].end_line
        ),
        (4, 6, 9)
    );
    assert!(blocks[0].closed);
}

#[test]
fn seed_code_block_without_file_path() {
    let blocks = check("\n```typescript\nconst x = 1;\n```\n      ");
    assert_eq!(blocks[0].path, None);
    assert_eq!(blocks[0].content, "const x = 1;");
    assert_eq!(blocks[0].content_line, 3);
}

#[test]
fn seed_multiple_code_blocks() {
    let blocks = check("\n```typescript\n// src/a.ts\nconst a = 1;\n```\n\n```typescript\n// src/b.ts\nconst b = 2;\n```\n      ");
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].path.as_deref(), Some("src/a.ts"));
    assert_eq!(blocks[1].path.as_deref(), Some("src/b.ts"));
}

#[test]
fn seed_combines_multiple_blocks_for_same_file() {
    let response = "\n```typescript\n// src/test.ts\n// Test 1\nit('test 1', () => {});\n```\n\n```typescript\n// src/test.ts\n// Test 2\nit('test 2', () => {});\n```\n      ";
    let artifacts = artifacts_of(response);
    assert_eq!(artifacts.len(), 1);
    let a = artifacts[0].as_ref().unwrap();
    assert!(a.content.contains("test 1"));
    assert!(a.content.contains("test 2"));
    assert_eq!(
        a.content,
        "// Test 1\nit('test 1', () => {});\n\n// Test 2\nit('test 2', () => {});\n"
    );
    assert_eq!(
        (a.blocks, a.line, a.language.as_str()),
        (2, 2, "typescript")
    );
}

#[test]
fn seed_format_example_in_a_longer_fence_is_one_block() {
    // The seed's "Format" example: a ````markdown fence around a ```typescript one.
    let response = "````markdown\n```typescript\n// src/features/auth/types.ts\nexport interface User {\n  id: string;\n}\n```\n````\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 1, "the inner fence is content");
    assert_eq!(blocks[0].language, "markdown");
    assert_eq!(blocks[0].path, None);
    assert!(blocks[0]
        .content
        .starts_with("```typescript\n// src/features/auth/types.ts"));
    assert!(
        artifacts_of(response).is_empty(),
        "nested fences give no artifact"
    );
}

#[test]
fn seed_nested_code_blocks_with_equal_fences_follow_commonmark() {
    // The seed's "Nested Code Blocks" example, as written: with equal
    // fences, the inner ```typescript is content, the first ``` closes the
    // outer block, and the last ``` opens a block that runs to the end.
    let response =
        "Here's how to write a code block:\n\n```markdown\n```typescript\nconst x = 1;\n```\n```\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].language, "markdown");
    assert_eq!(blocks[0].content, "```typescript\nconst x = 1;");
    assert!(blocks[0].closed);
    assert_eq!((blocks[1].content.as_str(), blocks[1].closed), ("", false));
    assert_eq!((blocks[1].start_line, blocks[1].end_line), (7, 7));
}

#[test]
fn seed_code_block_in_implementation_notes_label() {
    // The seed's example: a bold label, a list item, an indented block.
    let response = "```typescript\n// src/cache.ts\nexport const cache = new Map<string, number>();\n```\n\n**Implementation notes:**\n- We use `Map<string, number>` for O(1) lookups:\n  ```typescript\n  // src/cache.ts\n  const cache = new Map<string, number>();\n  ```\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[1].label.as_deref(), Some("Implementation notes"));
    assert_eq!(
        blocks[1].content, "const cache = new Map<string, number>();",
        "list indentation removed"
    );
    let artifacts = artifacts_of(response);
    assert_eq!(
        ok(&artifacts),
        [(
            "src/cache.ts",
            "export const cache = new Map<string, number>();\n"
        )]
    );
}

#[test]
fn blocks_under_excluded_headings_are_left_out() {
    let response = "# Implementation\n\n## src\n```ts\n// src/a.ts\na();\n```\n\n## Notes\nLike this:\n### Example\n```ts\n// src/example.ts\nexample();\n```\n\n## EXPLANATION:\n```ts\n// src/b.ts\n```\n# Files\n```ts\n// src/c.ts\nc();\n```\n";
    let blocks = check(response);
    assert_eq!(blocks[1].headings, ["Implementation", "Notes", "Example"]);
    assert_eq!(
        ok(&artifacts_of(response)),
        [("src/a.ts", "a();\n"), ("src/c.ts", "c();\n")]
    );
    // The list is configurable.
    let keep_all = ArtifactOptions {
        excluded_sections: Vec::new(),
        ..ArtifactOptions::default()
    };
    assert_eq!(artifacts_with(keep_all, response).len(), 4);
    let more = ArtifactOptions::default().exclude_section("files");
    assert_eq!(
        ok(&artifacts_with(more, response)),
        [("src/a.ts", "a();\n")]
    );
}

#[test]
fn seed_empty_code_blocks() {
    let blocks = check("```ts\n```\n\n```ts\n// src/empty.ts\n```\n");
    assert_eq!(blocks.len(), 2);
    assert_eq!(
        (blocks[0].content.as_str(), blocks[0].path.as_deref()),
        ("", None)
    );
    assert_eq!(
        (blocks[1].content.as_str(), blocks[1].path.as_deref()),
        ("", Some("src/empty.ts"))
    );
    let a = artifacts_of("```ts\n// src/empty.ts\n```\n");
    assert_eq!(ok(&a), [("src/empty.ts", "")]);
}

#[test]
fn seed_missing_file_path_gives_no_artifact() {
    assert!(artifacts_of("```typescript\nconst x = 1;\n```\n").is_empty());
}

#[test]
fn seed_validate_typescript_is_not_fooled_by_strings() {
    // The seed counts braces blindly: `}` in a string breaks it.
    let code = "export function f() {\n  const s = \"}\";\n  return s;\n}\n";
    assert_eq!(check_balance(code), Ok(()));
}

#[test]
fn seed_sections_and_find_section() {
    let response = "Intro.\n\n## Implementation notes\nUse a map.\n\n### Detail\nMore.\n## Suggested Order\n1. a\n2. b\n";
    let sections = sections_of(response);
    assert_eq!(sections.len(), 3);
    let notes = sections.find("implementation NOTES").unwrap();
    assert_eq!((notes.level, notes.content.as_str()), (2, "Use a map."));
    assert_eq!((notes.line, notes.end_line), (3, 5));
    assert_eq!(
        sections.find("Detail").map(|s| s.content.as_str()),
        Some("More.")
    );
    assert_eq!(
        sections.find("suggested order").map(|s| s.content.as_str()),
        Some("1. a\n2. b")
    );
    assert_eq!(sections.find("Missing"), None);
}

// -- paths ------------------------------------------------------------------------

#[test]
fn path_line_forms() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("// src/a.ts", "ts", Some("src/a.ts")),
        ("// File: src/a.ts", "ts", Some("src/a.ts")),
        ("//   file:   lib/x.js  ", "js", Some("lib/x.js")),
        ("# docs/guide.md", "markdown", Some("docs/guide.md")),
        ("# README.md", "markdown", Some("README.md")),
        ("# Title", "markdown", None),
        ("# Node.js", "markdown", None),
        ("# Getting started", "md", None),
        ("# utils.py", "python", Some("utils.py")),
        ("# scripts/run", "sh", Some("scripts/run")),
        (
            "<!-- templates/index.html -->",
            "html",
            Some("templates/index.html"),
        ),
        ("<!-- File: a.vue -->", "vue", Some("a.vue")),
        (
            "-- migrations/001_init.sql",
            "sql",
            Some("migrations/001_init.sql"),
        ),
        ("/* styles/main.css */", "css", Some("styles/main.css")),
        ("// `src/q.ts`", "ts", Some("src/q.ts")),
        ("// .env", "", Some(".env")),
        ("// add two numbers", "ts", None),
        ("// TODO", "ts", None),
        ("// v1.2.3", "ts", None),
        ("// https://example.com/a.js", "js", None),
        ("#!/usr/bin/env python", "python", None),
        ("//src/a.ts", "ts", None),
        ("const a = 1; // a.ts", "ts", None),
        ("// src/a.ts:", "ts", None),
    ];
    for (line, lang, want) in cases {
        assert_eq!(path_in_line(line, lang), *want, "{line:?} in {lang}");
    }
}

#[test]
fn path_patterns_in_blocks() {
    let response = "```markdown\n# Title\nText\n```\n```md\n# docs/a.md\n# Heading\n```\n```sql\n-- db/q.sql\nselect 1;\n```\n```html\n<!-- web/i.html -->\n<p>x</p>\n```\n";
    let blocks = check(response);
    let paths: Vec<_> = blocks.iter().map(|b| b.path.as_deref()).collect();
    assert_eq!(
        paths,
        [
            None,
            Some("docs/a.md"),
            Some("db/q.sql"),
            Some("web/i.html")
        ]
    );
    assert_eq!(blocks[0].content, "# Title\nText");
    assert_eq!(blocks[1].content, "# Heading");
}

#[test]
fn path_escapes_are_refused() {
    let cases: &[(&str, PathError)] = &[
        ("../x", PathError::Parent),
        ("/etc/passwd", PathError::Absolute),
        ("a/../../b", PathError::Parent),
        ("a/..", PathError::Parent),
        ("C:\\x", PathError::Drive),
        ("C:/x", PathError::Drive),
        ("c:x", PathError::Drive),
        ("\\\\srv\\x", PathError::Absolute),
        ("//srv/x", PathError::Absolute),
        ("\\x", PathError::Absolute),
        ("..\\x", PathError::Parent),
        ("a\u{0}b", PathError::ControlCharacter),
        ("a\nb", PathError::ControlCharacter),
        ("a\u{7f}b", PathError::ControlCharacter),
        ("", PathError::Empty),
        ("./", PathError::Empty),
        (".", PathError::Empty),
        ("src/", PathError::Directory),
    ];
    for (path, want) in cases {
        assert_eq!(normalize_path(path), Err(want.clone()), "{path:?}");
    }
    assert_eq!(normalize_path(&"a/".repeat(3000)), Err(PathError::TooLong));
    assert_eq!(normalize_path(&"a".repeat(300)), Err(PathError::TooLong));
}

#[test]
fn paths_are_normalised() {
    for (path, want) in [
        ("./src/a.ts", "src/a.ts"),
        ("src//a.ts", "src/a.ts"),
        ("src/./a.ts", "src/a.ts"),
        ("src\\lib\\a.rs", "src/lib/a.rs"),
        (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
        ("a..b/c", "a..b/c"),
    ] {
        assert_eq!(normalize_path(path).as_deref(), Ok(want), "{path:?}");
    }
}

#[test]
fn refused_paths_give_error_entries_in_order() {
    let response = "```ts\n// ../x.ts\nx\n```\n```ts\n// ./ok//a.ts\na\n```\n```sh\n# /etc/passwd.sh\nrm\n```\n```ts\n// a/../../b.ts\n```\n```ts\n// ok/a.ts\nmore\n```\n```ts\n// ../x.ts\nagain\n```\n";
    let entries = artifacts_of(response);
    let summary: Vec<String> = entries
        .iter()
        .map(|e| match e {
            Ok(a) => format!("ok {} {:?}", a.path, a.content),
            Err(r) => format!("refused {} {}", r.path, r.error),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "refused ../x.ts the path has a '..' component",
            "ok ok/a.ts \"a\\n\\nmore\\n\"",
            "refused /etc/passwd.sh the path is absolute; only relative paths are written",
            "refused a/../../b.ts the path has a '..' component",
        ]
    );
}

// -- fences and lines --------------------------------------------------------------

#[test]
fn nested_fences_produce_no_artifacts() {
    let response = "`````markdown\n# docs/x.md\n````ts\n// src/inner.ts\n```js\n// src/deeper.js\n```\n````\n`````\n~~~\n```\n// src/not.ts\n```\n~~~\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].path.as_deref(), Some("docs/x.md"));
    assert!(blocks[0].content.contains("// src/inner.ts"));
    assert_eq!(blocks[1].content, "```\n// src/not.ts\n```");
    assert_eq!(ok(&artifacts_of(response)).len(), 1);
}

#[test]
fn line_numbers_count_action_blocks() {
    let response = "Let me act.\n```json\n{\"action\": \"a\"}\n{\"action\": \"b\"}\n```\n<action_call name=\"x\">\n{\"q\": 1}\n</action_call> then\n```ts\n// src/a.ts\nlet a;\n```\n<tool_call>{\"name\": \"t\", \"arguments\": {}}</tool_call>\n```py\n# b.py\n```\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 2);
    assert_eq!((blocks[0].start_line, blocks[0].end_line), (9, 12));
    assert_eq!((blocks[1].start_line, blocks[1].end_line), (14, 16));
}

#[test]
fn generic_json_blocks_without_actions_are_code_blocks() {
    let response =
        "```json\n// package.json\n{\"name\": \"x\"}\n```\n```json\n{\"action\": \"go\"}\n```\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].path.as_deref(), Some("package.json"));
    assert_eq!(blocks[0].content, "{\"name\": \"x\"}");
}

#[test]
fn fence_lines_inside_action_json_do_not_confuse_lines() {
    // A closing fence inside a JSON string does not close the action block.
    let response = "```action\n{\"action\": \"write\", \"text\": \"\n```\n\"}\n```\n```rs\n// src/m.rs\nfn m() {}\n```\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 1);
    assert_eq!(
        (blocks[0].start_line, blocks[0].path.as_deref()),
        (6, Some("src/m.rs"))
    );
}

#[test]
fn broken_action_block_ends_at_its_first_closer() {
    let response =
        "```action\n{\"action\": \"x\", \"a\": [1,,]}\n```\n```ts\n// src/z.ts\nz\n```\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].start_line, 4);
}

#[test]
fn oversize_action_blocks_keep_lines_right() {
    let config = Config::default().max_block_bytes(24);
    let response = "```action\n{\"action\": \"write\", \"text\": \"a long string that is far too big\"}\n```\n```ts\n// src/a.ts\na\n```\n<action_call>{\"action\": \"w\", \"t\": \"far too long for it\n```\n\"}</action_call>\n```ts\n// src/b.ts\nb\n```\n";
    let (blocks, _) = check_with(&config, response);
    let got: Vec<_> = blocks
        .iter()
        .map(|b| (b.start_line, b.path.as_deref()))
        .collect();
    assert_eq!(got, [(4, Some("src/a.ts")), (11, Some("src/b.ts"))]);
}

#[test]
fn list_items_and_indentation() {
    let response = "1. Create the file:\n\n   ```ts\n   // src/list.ts\n   export const a = 1;\n     indented();\n   ```\n2. Done.\n";
    let blocks = check(response);
    assert_eq!(blocks[0].path.as_deref(), Some("src/list.ts"));
    assert_eq!(blocks[0].content, "export const a = 1;\n  indented();");
}

#[test]
fn crlf_and_tilde_fences() {
    let response = "Text\r\n~~~python\r\n# app/main.py\r\nprint('hi')\r\n~~~\r\n";
    let blocks = check(response);
    assert_eq!(blocks[0].path.as_deref(), Some("app/main.py"));
    assert_eq!(blocks[0].content, "print('hi')");
    assert_eq!((blocks[0].start_line, blocks[0].end_line), (2, 5));
}

#[test]
fn unclosed_block_runs_to_the_end() {
    let response = "```ts\n// src/cut.ts\nexport function f() {\n";
    let blocks = check(response);
    assert_eq!(blocks.len(), 1);
    assert!(!blocks[0].closed);
    assert_eq!(blocks[0].content, "export function f() {");
    assert_eq!((blocks[0].start_line, blocks[0].end_line), (1, 3));
    let entries = artifacts_of(response);
    assert_eq!(
        entries[0].as_ref().unwrap_err().error,
        ArtifactError::Unclosed { line: 1 }
    );
    let lenient = ArtifactOptions {
        include_unclosed: true,
        ..ArtifactOptions::default()
    };
    assert_eq!(
        ok(&artifacts_with(lenient, response)),
        [("src/cut.ts", "export function f() {\n")]
    );
    // A closing fence without its line ending closes.
    let blocks = check("```ts\nx\n```");
    assert!(blocks[0].closed);
    assert_eq!(blocks[0].end_line, 3);
    // An opener at the very end.
    let blocks = check("text\n```sh");
    assert_eq!(
        (
            blocks[0].closed,
            blocks[0].start_line,
            blocks[0].language.as_str()
        ),
        (false, 2, "sh")
    );
}

#[test]
fn plain_markdown_push_matches() {
    let text = "# A\n```ts\n// src/a.ts\nx\n```\n";
    let mut t = CodeBlocks::new();
    let mut out = Vec::new();
    for c in text.split_inclusive(['\n', 't']) {
        t.push(c, &mut out);
    }
    t.finish(&mut out);
    assert_eq!(out, check(text));
}

// -- sections ------------------------------------------------------------------------

#[test]
fn sections_ignore_headings_in_code_blocks() {
    let response = "# Plan ##\nStep.\n```py\n# not a heading\n```\n    # indented code, no heading\n#nospace\n####### seven\n## Next #\ndone";
    let sections = sections_of(response);
    let heads: Vec<_> = sections
        .iter()
        .map(|s| (s.level, s.heading.as_str(), s.line, s.end_line))
        .collect();
    assert_eq!(heads, [(1, "Plan", 1, 8), (2, "Next", 9, 10)]);
    assert!(sections[0].content.contains("# not a heading"));
    assert_eq!(sections[1].content, "done");
}

#[test]
fn sections_hold_action_blocks_as_written() {
    let response = "## Do\n<action_call name=\"a\">{}</action_call>\n## After\n";
    let sections = sections_of(response);
    assert_eq!(
        sections[0].content,
        "<action_call name=\"a\">{}</action_call>"
    );
    assert_eq!(sections[1].content, "");
}

// -- balance -------------------------------------------------------------------------

#[test]
fn balance_ignores_strings_comments_and_templates() {
    for code in [
        "const a = '}';",
        "const a = \"{\\\"}\";",
        "// }\nf();",
        "/* { ( [ */ g();",
        "const t = `}${ {a: 1}.a }{`;",
        "const n = `a ${`b ${c({})}`} d`;",
        "const r = /[)}]/.test(x);",
        "const s = 'it\\'s }';",
        "if (a) { b[0] = (c); }",
    ] {
        assert_eq!(check_balance(code), Ok(()), "{code}");
    }
}

#[test]
fn balance_reports_the_first_problem() {
    assert_eq!(
        check_balance("f(a, b));"),
        Err(Imbalance::Unexpected {
            found: ')',
            line: 1,
            column: 8
        })
    );
    assert_eq!(
        check_balance("function f() {\n  return [1, 2);\n}"),
        Err(Imbalance::Mismatched {
            found: ')',
            line: 2,
            column: 15,
            open: "[",
            open_line: 2,
            open_column: 10
        })
    );
    assert_eq!(
        check_balance("class A {\n  m() {\n  }\n"),
        Err(Imbalance::Unclosed {
            open: "{",
            line: 1,
            column: 9
        })
    );
    assert_eq!(
        check_balance("const s = `a ${b`;"), // the inner template at column 17 never ends
        Err(Imbalance::Unterminated {
            what: Unterminated::TemplateLiteral,
            line: 1,
            column: 17
        })
    );
    assert_eq!(
        check_balance("const s = `a ${b) }`;"),
        Err(Imbalance::Mismatched {
            found: ')',
            line: 1,
            column: 17,
            open: "${",
            open_line: 1,
            open_column: 14
        })
    );
    assert_eq!(
        check_balance("x(); /* {"),
        Err(Imbalance::Unterminated {
            what: Unterminated::BlockComment,
            line: 1,
            column: 6
        })
    );
    assert_eq!(
        check_balance("const a = \"}\nb"),
        Err(Imbalance::Unterminated {
            what: Unterminated::String,
            line: 1,
            column: 11
        })
    );
    let e = check_balance("}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unexpected '}' at line 1, column 1: nothing is open"
    );
}

#[test]
fn balance_in_c_dialect() {
    assert_eq!(
        Dialect::for_language("typescript"),
        Some(Dialect::JavaScript)
    );
    let rust =
        "impl<'a> X<'a> {\n    fn f(&'a self) -> char { if true { '}' } else { '\\'' } }\n}\n";
    assert_eq!(check_balance_with(rust, Dialect::C), Ok(()));
    let go = "s := `}`\nf(s)";
    assert_eq!(check_balance_with(go, Dialect::C), Ok(()));
    assert!(check_balance_with("int main() { return 0;", Dialect::C).is_err());
}

#[test]
fn balance_of_code_blocks() {
    let response =
        "```ts\n// src/ok.ts\nconst s = \"}\";\n```\n```ts\n// src/bad.ts\nfunction f() {\n```\n";
    let results: Vec<_> = check(response)
        .iter()
        .map(|b| check_balance(&b.content).is_ok())
        .collect();
    assert_eq!(results, [true, false]);
}
