//! Fenced blocks against pulldown-cmark, on Markdown without lists, block
//! quotes or HTML.
//!
//! A document is generated line by line from a small grammar: prose (no
//! quotes, no `<`, no list or quote markers), blank lines, indented lines,
//! fence lines of backticks or tildes with 0-5 spaces of indentation and
//! assorted info strings (`json`, `JSON`, `json extra`, `jsonx`, `python`,
//! `json\``, none), action lines `{"action":"aN"}` and non-action objects.
//!
//! pulldown-cmark's fenced code blocks whose info string's first word is
//! `json` (any case) and whose first non-blank content line is an action
//! line are the action blocks the contract asks for: ours must be exactly
//! those, over the same lines; each of their actions completes when every
//! non-blank content line is an action line (with the repair `missing
//! closer` when the block runs to the end), else they are all invalid.
//! No json action block we report may lie anywhere else.
#![no_main]

use std::ops::Range;

use actionstream::{Config, Event, Syntax};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use pulldown_cmark::{CodeBlockKind, Event as Md, Parser as MdParser, Tag};

mod common;

#[derive(Debug, Arbitrary)]
enum Line {
    Prose(Vec<ProseChar>),
    Blank,
    Indented(u8),
    Fence {
        indent: u8,
        tilde: bool,
        len: u8,
        info: u8,
        trail: bool,
    },
    Action,
    Object,
}

#[derive(Debug, Arbitrary)]
enum ProseChar {
    A,
    X,
    Space,
    Backtick,
    Tilde,
    Colon,
}

const INFOS: [&str; 9] = [
    "json",
    "JSON",
    "json extra",
    "jsonx",
    "python",
    "",
    " json",
    "json`",
    "Json {",
];

fn render(lines: &[Line], crlf: bool) -> String {
    let mut out = String::new();
    let mut n = 0;
    for line in lines {
        match line {
            Line::Prose(chars) => {
                out.push('p');
                for c in chars.iter().take(12) {
                    out.push(match c {
                        ProseChar::A => 'a',
                        ProseChar::X => 'x',
                        ProseChar::Space => ' ',
                        ProseChar::Backtick => '`',
                        ProseChar::Tilde => '~',
                        ProseChar::Colon => ':',
                    });
                }
            }
            Line::Blank => {}
            Line::Indented(k) => {
                out.push_str("    ");
                out.push_str(&"`".repeat(*k as usize % 5));
                out.push_str("code");
            }
            Line::Fence {
                indent,
                tilde,
                len,
                info,
                trail,
            } => {
                out.push_str(&" ".repeat(*indent as usize % 6));
                let c = if *tilde { "~" } else { "`" };
                out.push_str(&c.repeat(3 + *len as usize % 3));
                out.push_str(INFOS[*info as usize % INFOS.len()]);
                if *trail {
                    out.push_str("  ");
                }
            }
            Line::Action => {
                out.push_str(&format!("{{\"action\":\"a{n}\"}}"));
                n += 1;
            }
            Line::Object => out.push_str("{\"k\":1}"),
        }
        out.push_str(if crlf { "\r\n" } else { "\n" });
    }
    out
}

/// The line index of each byte offset's line.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

#[derive(Debug, PartialEq, Eq)]
struct Block {
    /// First and last line (inclusive).
    lines: (usize, usize),
    /// The block's actions in order, `Some(name)` complete, `None` invalid;
    /// `None` for a broken block (every action invalid).
    complete: Option<Vec<Option<String>>>,
    missing_closer: bool,
}

fn expected(doc: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(Range<usize>, String, bool)> = None;
    for (ev, range) in MdParser::new(doc).into_offset_iter() {
        match ev {
            Md::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let json = info
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w.eq_ignore_ascii_case("json"));
                open = Some((range, String::new(), json));
            }
            Md::Text(t) => {
                if let Some((_, content, _)) = open.as_mut() {
                    content.push_str(&t);
                }
            }
            Md::End(pulldown_cmark::TagEnd::CodeBlock) => {
                let Some((range, content, json)) = open.take() else {
                    continue;
                };
                let lines: Vec<&str> = content
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect();
                let is_action = |l: &str| l.starts_with("{\"action\"");
                if !json || !lines.first().is_some_and(|l| is_action(l)) {
                    continue;
                }
                // Action lines complete, `{"k":1}` lines are nameless
                // (invalid) actions, any other line breaks the JSON.
                let complete = lines
                    .iter()
                    .all(|l| is_action(l) || *l == "{\"k\":1}")
                    .then(|| {
                        lines
                            .iter()
                            .map(|l| {
                                is_action(l).then(|| {
                                    l.trim_start_matches("{\"action\":\"")
                                        .trim_end_matches("\"}")
                                        .to_string()
                                })
                            })
                            .collect()
                    });
                // The block ends at the end of its closing line, or runs to
                // the end of the document.
                let last = doc[range.clone()].trim_end_matches(['\n', '\r']);
                let last_line = doc[range.start..range.start + last.len()]
                    .rsplit('\n')
                    .next()
                    .unwrap_or("")
                    .trim();
                let opener = doc[range.start..].trim_start_matches(' ');
                let ch = opener.chars().next().unwrap_or('`');
                let n = opener.chars().take_while(|&c| c == ch).count();
                let closed = line_of(doc, range.start) != line_of(doc, range.start + last.len())
                    && last_line.chars().all(|c| c == ch)
                    && last_line.len() >= n;
                let start_line = line_of(doc, range.start);
                let end_line = if closed {
                    line_of(doc, range.start + last.len())
                } else {
                    line_of(doc, doc.trim_end_matches(['\n', '\r']).len())
                };
                // Only a complete action lists repairs.
                let missing_closer = !closed && complete.is_some();
                out.push(Block {
                    lines: (start_line, end_line),
                    complete,
                    missing_closer,
                });
            }
            _ => {}
        }
    }
    out
}

fn ours(doc: &str, events: &[Event]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut last_span = None;
    for e in events {
        let (span, syntax, tag, name, missing) = match e {
            Event::ActionComplete(a) => (
                a.span,
                a.syntax,
                &a.tag,
                Some(a.name.clone()),
                a.repairs
                    .iter()
                    .any(|r| r.kind == actionstream::RepairKind::MissingCloser),
            ),
            Event::ActionInvalid(a) => (a.span, a.syntax, &a.tag, None, false),
            _ => continue,
        };
        if syntax != Syntax::Fence || !tag.eq_ignore_ascii_case("json") {
            continue;
        }
        let span = span.expect("fence blocks have spans");
        if last_span != Some(span) {
            last_span = Some(span);
            let body_end = doc[..span.end].trim_end_matches(['\n', '\r']).len();
            out.push(Block {
                lines: (line_of(doc, span.start), line_of(doc, body_end)),
                complete: Some(Vec::new()),
                missing_closer: missing,
            });
        }
        if let Some(names) = out.last_mut().unwrap().complete.as_mut() {
            names.push(name);
        }
    }
    // A block with no complete action is broken (the generator never makes
    // one of nameless objects only: its first line names an action).
    for block in &mut out {
        if block
            .complete
            .as_ref()
            .is_some_and(|n| n.iter().all(Option::is_none))
        {
            block.complete = None;
        }
    }
    out
}

#[derive(Debug, Arbitrary)]
struct Input {
    lines: Vec<Line>,
    crlf: bool,
    points: Vec<u16>,
}

fuzz_target!(|input: Input| {
    if input.lines.len() > 60 {
        return;
    }
    let doc = render(&input.lines, input.crlf);
    let events = common::check_chunkings(&Config::default(), doc.as_bytes(), &input.points);
    let want = expected(&doc);
    let got = ours(&doc, &events);
    assert_eq!(
        got, want,
        "json action blocks differ from CommonMark in:\n{doc}"
    );
});
