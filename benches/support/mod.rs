//! Shared by the criterion bench and `examples/bench_report.rs`: the
//! deterministic corpora, the re-parse-per-chunk baseline, the serde_json
//! floor, the hostile inputs, and the scale section's responses, chunk
//! source and one-after-another baseline (shared with
//! `examples/scale_profile.rs`).
#![allow(dead_code)]

use actionstream::{Config, Event, Parser};
use serde_json::Value;

/// The crate's seeded generator, for deterministic corpora.
pub use actionstream::chunking::Rng;

/// One of `items`, drawn from `rng`.
pub fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

const WORDS: &[&str] = &[
    "the",
    "parser",
    "streams",
    "response",
    "model",
    "action",
    "we",
    "will",
    "create",
    "branch",
    "review",
    "tests",
    "and",
    "then",
    "merge",
    "it",
    "into",
    "main",
    "after",
    "checking",
    "that",
    "every",
    "chunk",
    "is",
    "handled",
    "correctly",
    "because",
    "latency",
    "matters",
    "for",
    "users",
    "of",
    "a",
    "live",
    "chat",
    "interface",
    "so",
    "text",
    "appears",
    "immediately",
    "while",
];

fn sentence(rng: &mut Rng, out: &mut String) {
    let n = 6 + rng.below(14);
    for i in 0..n {
        let w = pick(rng, WORDS);
        if i == 0 {
            let mut c = w.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            out.push(first);
            out.push_str(c.as_str());
        } else {
            out.push(' ');
            if rng.below(25) == 0 {
                out.push('`');
                out.push_str(w);
                out.push('`');
            } else if rng.below(40) == 0 {
                out.push_str("**");
                out.push_str(w);
                out.push_str("**");
            } else {
                out.push_str(w);
            }
        }
    }
    out.push_str(pick(rng, &[".", ".", ".", "!", "?", ":"]));
}

fn paragraph(rng: &mut Rng, out: &mut String) {
    for _ in 0..2 + rng.below(5) {
        sentence(rng, out);
        out.push(' ');
    }
    out.pop();
    out.push_str("\n\n");
}

/// One action object, pretty or compact, of a realistic size.
pub fn action_json(rng: &mut Rng) -> String {
    let name = pick(
        rng,
        &[
            "create_branch",
            "update_plan",
            "search",
            "create_issue",
            "run_tests",
        ],
    );
    let mut body = String::new();
    sentence(rng, &mut body);
    let labels: Vec<String> = (0..rng.below(4))
        .map(|_| pick(rng, WORDS).to_string())
        .collect();
    let value = serde_json::json!({
        "action": name,
        "title": format!("Task {}", rng.below(1000)),
        "body": body,
        "labels": labels,
        "priority": rng.below(5),
        "estimate": rng.below(100) as f64 / 4.0,
        "meta": {"source": "llm", "draft": rng.below(2) == 0, "refs": [rng.below(99), rng.below(99)]},
    });
    if rng.below(2) == 0 {
        serde_json::to_string_pretty(&value).unwrap()
    } else {
        serde_json::to_string(&value).unwrap()
    }
}

/// Mostly prose (lists, headings, inline code, a python block), an action
/// block about every 10 KB.
pub fn narrative_corpus(size: usize) -> String {
    let mut rng = Rng::new(1);
    let mut out = String::with_capacity(size + 4096);
    let mut next_action = 10_000;
    while out.len() < size {
        match rng.below(10) {
            0 => {
                out.push_str("## ");
                sentence(&mut rng, &mut out);
                out.push_str("\n\n");
            }
            1 => {
                for _ in 0..3 {
                    out.push_str("- ");
                    sentence(&mut rng, &mut out);
                    out.push('\n');
                }
                out.push('\n');
            }
            2 if rng.below(4) == 0 => {
                out.push_str("```python\ndef f(x):\n    return x * 2  # not an action\n```\n\n");
            }
            _ => paragraph(&mut rng, &mut out),
        }
        if out.len() >= next_action {
            out.push_str("```json\n");
            out.push_str(&action_json(&mut rng));
            out.push_str("\n```\n\n");
            next_action += 10_000;
        }
    }
    out
}

/// Mostly action blocks (json fences, an actions fence, call tags) with a
/// sentence between them.
pub fn action_corpus(size: usize) -> String {
    let mut rng = Rng::new(2);
    let mut out = String::with_capacity(size + 4096);
    while out.len() < size {
        sentence(&mut rng, &mut out);
        out.push('\n');
        match rng.below(4) {
            0 => {
                out.push_str("<action_call>");
                out.push_str(&action_json(&mut rng));
                out.push_str("</action_call>\n");
            }
            _ => {
                out.push_str("```json\n");
                out.push_str(&action_json(&mut rng));
                out.push_str("\n```\n");
            }
        }
    }
    out
}

/// One action whose one argument is a string of about `size` bytes (a
/// file being written, a long message): what a push inside a long string
/// value costs.
pub fn long_string_corpus(size: usize) -> String {
    let mut rng = Rng::new(3);
    let mut out = String::from("Writing it now.\n```json\n{\"action\": \"write_file\", \"path\": \"notes.md\", \"content\": \"");
    while out.len() < size {
        out.push_str(pick(&mut rng, WORDS));
        out.push(' ');
    }
    out.push_str("\"}\n```\nDone.\n");
    out
}

/// Parses `text` pushed in `chunk`-byte pieces (0: whole); returns the
/// number of events, so the work cannot be optimised away.
pub fn parse_chunked(text: &[u8], chunk: usize) -> usize {
    let mut parser = Parser::new(Config::default());
    let mut events: Vec<Event> = Vec::new();
    let mut n = 0;
    if chunk == 0 {
        parser.push_bytes(text, &mut events);
    } else {
        for c in text.chunks(chunk) {
            parser.push_bytes(c, &mut events);
            n += events.len();
            events.clear();
        }
    }
    parser.finish(&mut events);
    n + events.len()
}

/// [`parse_chunked`] through the borrowing path (`Parser::push_bytes_with`):
/// narrative lent, not allocated. Returns the number of events.
pub fn parse_chunked_borrowed(text: &[u8], chunk: usize) -> usize {
    let mut parser = Parser::new(Config::default());
    let mut n = 0;
    if chunk == 0 {
        parser.push_bytes_with(text, |_| n += 1);
    } else {
        for c in text.chunks(chunk) {
            parser.push_bytes_with(c, |_| n += 1);
        }
    }
    parser.finish_with(|_| n += 1);
    n
}

/// [`parse_chunked_borrowed`] for text that arrives as `&str` pieces (as
/// an SDK's deltas do): `Parser::push_with` on each of `pieces`.
pub fn parse_pieces_borrowed(pieces: &[&str]) -> usize {
    let mut parser = Parser::new(Config::default());
    let mut n = 0;
    for piece in pieces {
        parser.push_with(piece, |_| n += 1);
    }
    parser.finish_with(|_| n += 1);
    n
}

/// `text` cut into pieces of `size` bytes (0: whole), each moved on to the
/// next character boundary.
pub fn str_pieces(text: &str, size: usize) -> Vec<&str> {
    if size == 0 {
        return vec![text];
    }
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
    }
    out
}

/// The baseline: a batch parser (find each ```json, try serde_json at each
/// ``` closer after it) re-run on the accumulated text after every chunk,
/// as a batch parser is used on a stream. Returns the actions of the last
/// run.
pub fn reparse_baseline(text: &str, chunk: usize) -> usize {
    let mut found = 0;
    let mut end = 0;
    while end < text.len() {
        end = (end + chunk).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        found = batch_parse(&text[..end]);
    }
    found
}

/// The batch parser of the baseline.
pub fn batch_parse(text: &str) -> usize {
    let mut actions = 0;
    let mut at = 0;
    while let Some(open) = text[at..].find("```json") {
        let content_start = at + open + "```json".len();
        let mut search = content_start;
        let mut closed = None;
        while let Some(close) = text[search..].find("```") {
            let close = search + close;
            if let Ok(Value::Object(obj)) =
                serde_json::from_str::<Value>(&text[content_start..close])
            {
                if obj.contains_key("action") {
                    actions += 1;
                }
                closed = Some(close + 3);
                break;
            }
            search = close + 3;
        }
        match closed {
            Some(next) => at = next,
            None => break,
        }
    }
    actions
}

/// The JSON of every block of `text` (between the opener line and the
/// closer), as the serde_json floor reads them.
pub fn blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [("```json\n", "\n```"), ("<action_call>", "</action_call>")] {
        let mut at = 0;
        while let Some(i) = text[at..].find(open) {
            let start = at + i + open.len();
            let Some(j) = text[start..].find(close) else {
                break;
            };
            out.push(text[start..start + j].to_string());
            at = start + j + close.len();
        }
    }
    out
}

/// serde_json alone on the blocks: the floor for the JSON work.
pub fn serde_floor(blocks: &[String]) -> usize {
    blocks
        .iter()
        .map(|b| match serde_json::from_str::<Value>(b) {
            Ok(Value::Object(m)) => m.len(),
            _ => 0,
        })
        .sum()
}

/// [`serde_floor`] with every value kept until all are parsed (as a whole
/// push keeps its events until they are used), then dropped.
#[inline(never)]
pub fn serde_kept(blocks: &[String]) -> usize {
    let values: Vec<Value> = blocks
        .iter()
        .map(|b| serde_json::from_str(b).unwrap_or(Value::Null))
        .collect();
    values
        .iter()
        .map(|v| v.as_object().map_or(0, |m| m.len()))
        .sum()
}

/// Hostile inputs of about `n` units, by name.
pub fn hostile(name: &str, n: usize) -> String {
    match name {
        "nested brackets" => format!("```action\n{}\n```\n", "[".repeat(n)),
        "backticks" => format!("a {} <action_call>{{}}</action_call>\n", "`".repeat(n)),
        "tag prefixes" => "<action_cal".repeat(n / 11),
        "unclosed fences" => "```json\n".repeat(n / 8),
        "unclosed tags" => "<action_call>{".repeat(n / 14),
        "fence lines in a string" => format!(
            "```json\n{{\"action\": \"a\", \"s\": \"{}\"}}\n```\n",
            "x\n```\n".repeat(n / 6)
        ),
        other => panic!("no hostile input {other}"),
    }
}

pub const HOSTILE: &[&str] = &[
    "nested brackets",
    "backticks",
    "tag prefixes",
    "unclosed fences",
    "unclosed tags",
    "fence lines in a string",
];

/// The scale section's responses: 16 action-heavy ones of 1.5–3 KB, made
/// once and kept for the run (the tasks that read them are `'static`).
pub fn scale_texts() -> Vec<&'static str> {
    (0..16)
        .map(|i| &*Box::leak(action_corpus(1_500 + 100 * i).into_boxed_str()))
        .collect()
}

/// `streams` of `texts` (in turn) one after another, each with a sibling
/// of `template` in 16-byte chunks; returns the events counted.
pub fn sequential(texts: &[&'static str], streams: usize, template: &Parser) -> usize {
    let mut events = Vec::new();
    let mut n = 0;
    for i in 0..streams {
        let mut parser = template.sibling();
        for c in texts[i % texts.len()].as_bytes().chunks(16) {
            parser.push_bytes(c, &mut events);
            n += events.len();
            events.clear();
        }
        parser.finish(&mut events);
        n += events.len();
        events.clear();
    }
    n
}

/// One response as a stream of 16-byte chunks, each after a `yield_now`:
/// every chunk is a real task wake-up (the task goes back to the end of
/// the runtime's queue, behind the other tasks), as when each chunk comes
/// off the network.
#[cfg(feature = "stream")]
pub fn yielding_chunks(
    bytes: &'static [u8],
) -> impl futures::Stream<Item = std::io::Result<&'static [u8]>> {
    futures::stream::unfold(0usize, move |at| async move {
        if at >= bytes.len() {
            return None;
        }
        tokio::task::yield_now().await;
        let end = (at + 16).min(bytes.len());
        Some((Ok(&bytes[at..end]), end))
    })
}
