//! The every-chunking oracle: the checks that the test suite, the property
//! tests and the fuzz targets share.
//!
//! [`check`] parses one input whole, one byte at a time, in token-sized
//! pieces (3 and 4 bytes), at every two-way split (or a spread of them,
//! for long inputs) and at random splits,
//! through both push paths (collecting and borrowing); it
//! merges adjacent narrative (and reasoning) and asserts that every run gives
//! the same events, that narrative, reasoning and block raws give back the
//! input, and that every started id ends exactly once, ids counting from 0.
//!
//! ```
//! let events = actionstream::oracle::check(
//!     &actionstream::Config::default(),
//!     "Hi.\n```json\n{\"action\": \"wave\"}\n```\n",
//! );
//! assert_eq!(events.len(), 3);
//! ```

use std::collections::BTreeSet;

use crate::chunking::random_chunks;
use crate::event::push_merged;
use crate::{Config, Event, Parser};

/// Inputs longer than this are split at a spread of points, not all.
const ALL_SPLITS_UP_TO: usize = 1500;

/// Parses `chunks` in turn (as bytes) and returns the merged events.
pub fn run_chunks<'a>(config: &Config, chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<Event> {
    let mut parser = Parser::new(config.clone());
    let mut events = Vec::new();
    for chunk in chunks {
        parser.push_bytes(chunk, &mut events);
    }
    parser.finish(&mut events);
    merge(events)
}

/// [`run_chunks`] through the borrowing path ([`Parser::push_bytes_with`]):
/// the events lent, owned and merged.
pub fn run_chunks_borrowed<'a>(
    config: &Config,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<Event> {
    let mut parser = Parser::new(config.clone());
    let mut events = Vec::new();
    for chunk in chunks {
        parser.push_bytes_with(chunk, |e| events.push(e.to_event()));
    }
    parser.finish_with(|e| events.push(e.to_event()));
    merge(events)
}

/// Merges adjacent narrative events, adjacent reasoning events, and adjacent
/// deltas of one action, and drops empty ones: what is left does not depend on the chunking.
pub fn merge(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    for e in events {
        match e {
            Event::Narrative(_) | Event::Reasoning(_) => push_merged(&mut out, e),
            Event::ActionDelta { text, .. } if text.is_empty() => {}
            Event::ActionDelta { id, text } => match out.last_mut() {
                Some(Event::ActionDelta {
                    id: prev_id,
                    text: prev,
                }) if *prev_id == id => prev.push_str(&text),
                _ => out.push(Event::ActionDelta { id, text }),
            },
            Event::ArgumentsDelta { json, .. } if json.is_empty() => {}
            Event::ArgumentsDelta { id, json } => match out.last_mut() {
                Some(Event::ArgumentsDelta {
                    id: prev_id,
                    json: prev,
                }) if *prev_id == id => prev.push_str(&json),
                _ => out.push(Event::ArgumentsDelta { id, json }),
            },
            e => out.push(e),
        }
    }
    out
}

/// Checks the invariants on `input` at every chunking; returns the events.
///
/// # Panics
///
/// When an invariant fails, with the chunking that broke it.
pub fn check(config: &Config, input: &str) -> Vec<Event> {
    check_bytes(config, input.as_bytes())
}

/// [`check`] for bytes that may not be UTF-8 (losslessness is then checked
/// against the lossy decoding).
pub fn check_bytes(config: &Config, bytes: &[u8]) -> Vec<Event> {
    let whole = run_chunks(config, [bytes]);
    let text = String::from_utf8_lossy(bytes);
    if config.dialect_names().is_empty() {
        assert_lossless(&whole, &text);
    } else {
        assert_lossless_dialects(config, &whole, &text);
    }
    assert_ids(&whole);
    if config.get_argument_deltas() {
        assert_argument_deltas(&whole);
    }

    let bytewise = run_chunks(config, bytes.chunks(1));
    assert_same(&whole, &bytewise, "one byte at a time");
    let borrowed = run_chunks_borrowed(config, bytes.chunks(1));
    assert_same(&whole, &borrowed, "one byte at a time, borrowing path");
    let borrowed = run_chunks_borrowed(config, [bytes]);
    assert_same(&whole, &borrowed, "whole, borrowing path");
    // Token-sized pieces, as a model streams them: a piece that holds a
    // special byte and more (a line end and the next line's first bytes,
    // a backtick inside a word) is read by the short-push paths, which one
    // byte at a time never reaches.
    let tokens = run_chunks_borrowed(config, bytes.chunks(4));
    assert_same(&whole, &tokens, "4-byte pieces, borrowing path");
    let tokens = run_chunks(config, bytes.chunks(3));
    assert_same(&whole, &tokens, "3-byte pieces");

    let splits: Vec<usize> = if bytes.len() <= ALL_SPLITS_UP_TO {
        (1..bytes.len()).collect()
    } else {
        let step = bytes.len() / 200 + 1;
        (1..bytes.len()).step_by(step).collect()
    };
    // Odd splits and seeds go through the borrowing path, even ones
    // through the collecting one: both paths see every kind of cut.
    for at in splits {
        let (a, b) = bytes.split_at(at);
        let (got, path) = if at % 2 == 1 {
            (run_chunks_borrowed(config, [a, b]), ", borrowing path")
        } else {
            (run_chunks(config, [a, b]), "")
        };
        assert_same(&whole, &got, &format!("split at byte {at}{path}"));
    }
    for seed in 0..8u64 {
        let chunks = random_chunks(bytes, seed, 1 + (seed as usize * 9) % 64);
        let (got, path) = if seed % 2 == 1 {
            (run_chunks_borrowed(config, chunks), ", borrowing path")
        } else {
            (run_chunks(config, chunks), "")
        };
        assert_same(&whole, &got, &format!("random chunks, seed {seed}{path}"));
    }
    whole
}

fn assert_same(want: &[Event], got: &[Event], how: &str) {
    if want != got {
        let at = want
            .iter()
            .zip(got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        panic!(
            "events differ ({how}) at event {at}:\n whole: {:?}\n   got: {:?}",
            want.get(at),
            got.get(at)
        );
    }
}

/// Narrative, reasoning and the raw text of each distinct block, in order,
/// give back `text`.
pub fn assert_lossless(events: &[Event], text: &str) {
    let mut rebuilt = String::with_capacity(text.len());
    let mut seen = BTreeSet::new();
    for e in events {
        if let Event::Narrative(t) | Event::Reasoning(t) = e {
            rebuilt.push_str(t);
        } else if let Some((raw, span)) = e.block() {
            if seen.insert((span.start, span.end)) {
                assert_eq!(
                    span.start,
                    rebuilt.len(),
                    "block span starts where text left off"
                );
                rebuilt.push_str(raw);
            }
        }
    }
    assert!(
        rebuilt == text,
        "lossless reconstruction failed:\n want: {text:?}\n  got: {rebuilt:?}"
    );
}

/// Invariant 2 for model dialects: narrative, reasoning and the raw of each
/// block, in order, give back `text` less markers that stand outside blocks
/// (the dialects' reasoning and ignored markers, harmony headers).
pub fn assert_lossless_dialects(config: &Config, events: &[Event], text: &str) {
    // The text is cut by the blocks' spans: each block's raw is the text its
    // span covers, and between blocks the narrative and reasoning give back
    // the text less the markers dropped there.
    let mut between = String::new();
    let mut at = 0;
    let mut seen = BTreeSet::new();
    for e in events {
        if let Event::Narrative(t) | Event::Reasoning(t) = e {
            between.push_str(t);
        } else if let Some((raw, span)) = e.block() {
            if seen.insert((span.start, span.end)) {
                assert!(
                    span.start >= at,
                    "blocks come in order and do not overlap: {span:?} after {at}"
                );
                assert!(
                    text.get(span.range()) == Some(raw),
                    "a block's raw is the text its span covers"
                );
                assert_gap(config, &text[at..span.start], at, &between);
                between.clear();
                at = span.end;
            }
        }
    }
    assert_gap(config, &text[at..], at, &between);
}

/// Text outside blocks (from offset `from`) against the narrative and
/// reasoning told for it: the same, but for markers that may be dropped.
fn assert_gap(config: &Config, text: &str, from: usize, told: &str) {
    let markers = config.outer_markers();
    let envelope = config.dialects.iter().find_map(|d| d.recipient_envelope());
    // Leads of token suffixes the markers may carry.
    let leads: Vec<&str> = config
        .dialects
        .iter()
        .filter_map(|d| d.token_suffix.as_deref())
        .collect();
    let (t, r) = (text.as_bytes(), told.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < t.len() {
        let rest = &text[i..];
        // What could be dropped here: a marker, or a harmony header (to its
        // `<|message|>`, or to the marker that cuts it short).
        let header = envelope.as_ref().and_then(|env| {
            if env.header.iter().any(|m| rest.starts_with(m.as_str())) {
                return Some(env.header_len(rest, config.max_block_bytes));
            }
            // A header with no opener, first in the response.
            let first = from == 0 && text[..i].bytes().all(|b| b.is_ascii_whitespace());
            match crate::dialect::bare_header(rest, &env.header_ends()) {
                Some(Ok((_, len, _))) if first && env.bare_first => Some(len),
                _ => None,
            }
        });
        let droppable = if let Some(len) = header {
            len
        } else {
            markers
                .iter()
                .flat_map(|m| {
                    std::iter::once(None)
                        .chain(leads.iter().map(|l| Some(*l)))
                        .filter_map(|l| crate::dialect::suffix::marker_len(m, l, rest))
                })
                .max()
                .unwrap_or(0)
        };
        // It is dropped unless the events hold it (narrative that happens
        // to contain a marker).
        let kept = droppable > 0 && r[j.min(r.len())..].starts_with(&t[i..i + droppable]);
        if droppable > 0 && !kept {
            i += droppable;
            continue;
        }
        let ch = rest.chars().next().map_or(1, char::len_utf8);
        assert!(
            r.get(j..j + ch) == t.get(i..i + ch),
            "lossless reconstruction failed at byte {}: the text has {:?}, the events {:?}",
            from + i,
            rest.chars().take(40).collect::<String>(),
            String::from_utf8_lossy(&r[j.min(r.len())..r.len().min(j + 40)])
        );
        i += ch;
        j += ch;
    }
    assert!(
        j == r.len(),
        "the events hold text the input does not, before byte {}: {:?}",
        from + t.len(),
        String::from_utf8_lossy(&r[j.min(r.len())..])
    );
}

/// Argument deltas: the pieces of each completed action, concatenated, are
/// a JSON text of exactly its arguments, and no piece of an id comes after
/// its end event. A dialect action must have pieces; an action of another
/// syntax is checked where it has any.
pub fn assert_argument_deltas(events: &[Event]) {
    use std::collections::BTreeMap;
    let mut pieces: BTreeMap<u64, String> = BTreeMap::new();
    let mut ended = BTreeSet::new();
    for e in events {
        match e {
            Event::ArgumentsDelta { id, json } => {
                assert!(
                    !ended.contains(&id.0),
                    "an argument delta of id {id} after its end event: {json:?}"
                );
                pieces.entry(id.0).or_default().push_str(json);
            }
            Event::ActionComplete(a) => {
                ended.insert(a.id.0);
                let text = pieces.get(&a.id.0).map(String::as_str);
                if text.is_none() && a.syntax != crate::event::Syntax::Dialect {
                    continue;
                }
                let text = text.unwrap_or("");
                let parsed: Result<serde_json::Value, _> = serde_json::from_str(text);
                let same = parsed.as_ref().is_ok_and(|v| {
                    // Equal, keys in the same order too.
                    v == &a.arguments
                        && serde_json::to_string(v).ok() == serde_json::to_string(&a.arguments).ok()
                });
                assert!(
                    same,
                    "the argument deltas of id {} do not make its arguments:\n deltas: {text:?}\n  parse: {parsed:?}\n   args: {}",
                    a.id,
                    a.arguments
                );
            }
            Event::ActionInvalid(a) => {
                ended.insert(a.id.0);
            }
            _ => {}
        }
    }
}

/// Every started id ends once; ids count from 0 in order of start.
pub fn assert_ids(events: &[Event]) {
    let mut next = 0u64;
    let mut open = BTreeSet::new();
    for e in events {
        match e {
            Event::ActionStarted { id, .. } => {
                assert_eq!(id.0, next, "ids count from 0 in order of ActionStarted");
                next += 1;
                open.insert(id.0);
            }
            Event::ActionComplete(a) => assert!(
                open.remove(&a.id.0),
                "id {} ended without start, or twice",
                a.id
            ),
            Event::ActionInvalid(a) => assert!(
                open.remove(&a.id.0),
                "id {} ended without start, or twice",
                a.id
            ),
            Event::ActionDelta { id, .. } | Event::ArgumentsDelta { id, .. } => {
                assert!(
                    open.contains(&id.0),
                    "a delta of id {id} outside its start and end"
                )
            }
            Event::Narrative(_) | Event::Reasoning(_) => {}
        }
    }
    assert!(open.is_empty(), "ids started and never ended: {open:?}");
}
