//! Helpers for the SSE tests: every stream is parsed at every chunking of
//! its bytes.

use actionstream::chunking::random_chunks;
use actionstream::oracle;
use actionstream::sse::{SseItem, SseParser};
use actionstream::{Config, Event, Syntax};
use serde_json::Value;

/// Parses `chunks` in turn; adjacent narrative (and reasoning) is merged.
pub fn run(config: &Config, chunks: &[&[u8]]) -> Vec<SseItem> {
    let mut parser = SseParser::new(config.clone());
    let mut items = Vec::new();
    for chunk in chunks {
        parser.push(chunk, &mut items);
    }
    parser.finish(&mut items);
    merge(items)
}

pub fn merge(items: Vec<SseItem>) -> Vec<SseItem> {
    let mut out: Vec<SseItem> = Vec::new();
    for item in items {
        match (&item, out.last_mut()) {
            (SseItem::Event(Event::Narrative(t) | Event::Reasoning(t)), _) if t.is_empty() => {
                continue
            }
            (SseItem::Event(Event::Narrative(t)), Some(SseItem::Event(Event::Narrative(prev))))
            | (SseItem::Event(Event::Reasoning(t)), Some(SseItem::Event(Event::Reasoning(prev)))) =>
            {
                prev.push_str(t);
                continue;
            }
            _ => {}
        }
        out.push(item);
    }
    out
}

/// Parses `bytes` whole, one byte at a time, at every two-way split (see
/// [`splits`]) and at random splits; asserts all runs agree, and returns the
/// items.
pub fn check_with(config: &Config, bytes: &[u8]) -> Vec<SseItem> {
    let whole = run(config, &[bytes]);
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_same(&whole, &run(config, &bytewise), "one byte at a time");
    for at in splits(bytes) {
        let (a, b) = bytes.split_at(at);
        assert_same(
            &whole,
            &run(config, &[a, b]),
            &format!("split at byte {at}"),
        );
    }
    for seed in 0..16u64 {
        let chunks = random_chunks(bytes, seed, 1 + (seed as usize * 13) % 97);
        assert_same(
            &whole,
            &run(config, &chunks),
            &format!("random chunks, seed {seed}"),
        );
    }
    let events: Vec<Event> = whole
        .iter()
        .filter_map(|i| match i {
            SseItem::Event(e) => Some(e.clone()),
            SseItem::Error(_) => None,
        })
        .collect();
    oracle::assert_ids(&events);
    whole
}

/// Streams up to this size are split at every byte; longer ones around
/// every line ending (where the frame decoder's state changes) and at a
/// spread of other points, to keep the debug test run short.
const ALL_SPLITS_UP_TO: usize = 8192;

/// The two-way split points [`check_with`] tries.
pub fn splits(bytes: &[u8]) -> Vec<usize> {
    let n = bytes.len();
    if n <= ALL_SPLITS_UP_TO {
        return (1..n).collect();
    }
    let mut at: Vec<usize> = (1..n).step_by(n / 500 + 1).collect();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' || *b == b'\r' {
            at.extend((i.saturating_sub(2)..=i + 2).filter(|&p| p > 0 && p < n));
        }
    }
    at.sort_unstable();
    at.dedup();
    at
}

pub fn check(bytes: &[u8]) -> Vec<SseItem> {
    check_with(&Config::default(), bytes)
}

pub fn assert_same(want: &[SseItem], got: &[SseItem], how: &str) {
    assert!(
        want == got,
        "items differ ({how}):\n whole: {want:#?}\n   got: {got:#?}"
    );
}

pub fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The data payloads of a stream that read as JSON, read independently of
/// the parser (one `data:` line per event, as the recorded files are).
pub fn payloads(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|p| serde_json::from_str::<Value>(p.strip_prefix(' ').unwrap_or(p)).ok())
        .collect()
}

/// The response text of a recorded stream, read independently of the
/// parser: chat-completions `choices[0].delta.content` (and `refusal`),
/// Anthropic `text_delta`, Responses `response.output_text.delta`, Gemini
/// `text` parts that are not thoughts.
pub fn text_of(bytes: &[u8]) -> String {
    let mut text = String::new();
    for v in payloads(bytes) {
        let choice = &v["choices"][0];
        if choice["index"].as_u64().unwrap_or(0) == 0 {
            for key in ["content", "refusal"] {
                if let Some(t) = choice["delta"][key].as_str() {
                    text.push_str(t);
                }
            }
        }
        if v["delta"]["type"] == "text_delta" {
            text.push_str(v["delta"]["text"].as_str().unwrap_or_default());
        }
        if v["type"] == "response.output_text.delta" {
            text.push_str(v["delta"].as_str().unwrap_or_default());
        }
        for part in v["candidates"][0]["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if part["thought"] != true {
                text.push_str(part["text"].as_str().unwrap_or_default());
            }
        }
    }
    text
}

/// The reasoning of a recorded stream, read independently of the parser:
/// chat-completions `delta.reasoning_content` or `delta.reasoning`,
/// Anthropic `thinking_delta`, Responses reasoning deltas, Gemini thought
/// parts.
pub fn reasoning_of(bytes: &[u8]) -> String {
    let mut text = String::new();
    for v in payloads(bytes) {
        let delta = &v["choices"][0]["delta"];
        if let Some(t) = delta["reasoning_content"]
            .as_str()
            .filter(|t| !t.is_empty())
            .or_else(|| delta["reasoning"].as_str())
        {
            text.push_str(t);
        }
        if v["delta"]["type"] == "thinking_delta" {
            text.push_str(v["delta"]["thinking"].as_str().unwrap_or_default());
        }
        if v["type"] == "response.reasoning_text.delta"
            || v["type"] == "response.reasoning_summary_text.delta"
        {
            text.push_str(v["delta"].as_str().unwrap_or_default());
        }
        for part in v["candidates"][0]["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if part["thought"] == true {
                text.push_str(part["text"].as_str().unwrap_or_default());
            }
        }
    }
    text
}

/// The reasoning events joined.
pub fn reasoning(items: &[SseItem]) -> String {
    items
        .iter()
        .filter_map(|i| match i {
            SseItem::Event(Event::Reasoning(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Checks that the text events give back the text deltas (native actions,
/// with no span, and reasoning, which is not response text, aside).
pub fn assert_text_lossless(items: &[SseItem], text: &str) {
    let events: Vec<Event> = items
        .iter()
        .filter_map(|i| match i {
            SseItem::Event(Event::Reasoning(_)) | SseItem::Error(_) => None,
            SseItem::Event(e) => Some(e.clone()),
        })
        .collect();
    oracle::assert_lossless(&events, text);
}

/// The error items.
pub fn errors(items: &[SseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            SseItem::Error(m) => Some(m.clone()),
            SseItem::Event(_) => None,
        })
        .collect()
}

/// One short line per item: `N:text`, `R:reasoning`, `S0:name:syntax:tag`, `C0:name:{args}`,
/// `I0:name:first error`, `E:message`.
pub fn summary(items: &[SseItem]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            SseItem::Error(m) => format!("E:{m}"),
            SseItem::Event(Event::ActionStarted {
                id,
                name,
                syntax,
                tag,
            }) => format!(
                "S{id}:{}:{}:{tag}",
                name.as_deref().unwrap_or("-"),
                syntax.as_str()
            ),
            SseItem::Event(e) => super::line(e),
        })
        .collect()
}

pub fn to_crlf(bytes: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(bytes)
        .replace('\n', "\r\n")
        .into_bytes()
}

pub fn to_cr(bytes: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(bytes)
        .replace('\n', "\r")
        .into_bytes()
}

pub fn native(items: &[SseItem]) -> Vec<(String, Option<actionstream::Span>, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            SseItem::Event(Event::ActionComplete(a)) if a.syntax == Syntax::Native => {
                Some((a.raw.to_string(), a.span, a.tag.clone()))
            }
            _ => None,
        })
        .collect()
}
