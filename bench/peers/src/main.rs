//! actionstream's model dialects against their peer, SGLang's Rust tool-call
//! parser (the `tool-parser` crate, 1.10.0; its repository as the crate
//! gives it, `smg-project/smg`), in one run; prints markdown tables.
//!
//! ```text
//! cargo run --release --manifest-path bench/peers/Cargo.toml [-- speed [DIALECT] | -- splits]
//! ```
//!
//! `-- speed glm` times only that dialect (ours' name for it).
//!
//! This crate is its own workspace, built only by hand: the main build never
//! compiles the peer. A full run takes several minutes, most of it the
//! peer's single runs on the slowest formats.
//!
//! 1. **Speed.** For each dialect the peer has a parser for, one
//!    `write_file` call whose `content` is a 64 KB file body, written in the
//!    dialect's format, fed in 4-byte chunks to ours (a `Parser` with the
//!    dialect, argument deltas off and on) and to the peer's streaming parser
//!    (`parse_incremental` then `get_unstreamed_tool_args`, one fresh parser
//!    per run, on a current-thread tokio runtime; its chunks are cut at the
//!    next character boundary at or after 4 bytes, since it takes `&str`).
//!    Where the peer finds no call in those chunks it is timed again with
//!    chunks that never cut a marker, as a model's special tokens arrive.
//!    Each timing is the fastest of several runs taken in turn; a peer that
//!    needs more than 3 s for one input is run once. Both results are
//!    checked: the call's name and its whole argument.
//! 2. **Correctness at splits.** For each dialect's example response
//!    (`examples/responses/dialects/`) and the peer-format test inputs
//!    (`tests/data/dialects/`): the calls (names and arguments as JSON) of
//!    the whole input (ours: the text pushed in one piece; the peer: its
//!    whole-text `parse_complete`), against those found when the text is
//!    split in two at every byte offset (ours: raw bytes, so a split may cut
//!    a UTF-8 character or a marker; the peer: every character boundary, as
//!    it takes `&str`), in 4-byte and 7-byte chunks (ours raw bytes; the
//!    peer's cut at the next character boundary) and in 1-byte chunks (the
//!    peer: one character at a time).

use std::time::{Duration, Instant};

use actionstream::dialect::BUILTIN;
use actionstream::{Event, Parser};
use openai_protocol::common::Tool;
use serde_json::{json, Value};
use tool_parser::types::ToolCallItem;
use tool_parser::ParserFactory;

/// Each of our dialects the peer has a parser for, with the peer's name for
/// that parser (as its `ParserFactory` registers it): the first 17's, then
/// section 7b's. 1.10.0 is the newest `tool-parser` published; of section
/// 7b it reads DeepSeek V4.1, Kimi K3, MiniMax M3, Gemma 4, Inkling, HY v4
/// (`hunyuan` without `<tool_sep>`, the suffix learned from the opener) and
/// Step-3, and its generic `json` parser reads xLAM's bare leading array.
const PAIRS: [(&str, &str); 20] = [
    ("hermes", "qwen"),
    ("qwen3_coder", "qwen_xml"),
    ("glm", "glm45_moe"),
    ("minimax_m2", "minimax_m2"),
    ("mistral", "mistral"),
    ("llama3", "llama"),
    ("pythonic", "pythonic"),
    ("deepseek_v3", "deepseek"),
    ("deepseek_v31", "deepseek31"),
    ("deepseek_v32", "deepseek32"),
    ("kimi_k2", "kimik2"),
    ("cohere", "cohere"),
    ("deepseek_v41", "deepseek_v41"),
    ("kimi_k3", "kimi_k3"),
    ("minimax_m3", "minimax_m3"),
    ("gemma4", "gemma4"),
    ("inkling", "inkling"),
    ("hunyuan", "hy_v4"),
    ("step3", "step3"),
    ("xlam", "json"),
];

/// A call as found: its name and its arguments. An invalid call of ours,
/// an argument text of the peer's that is not JSON and a peer error are
/// kept as distinct entries so they never compare equal to a good call.
type Call = (String, Value);

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let only = std::env::args().nth(2);
    let peer = Peer::new();
    let lacking: Vec<&str> = BUILTIN
        .iter()
        .copied()
        .filter(|d| !PAIRS.iter().any(|(ours, _)| ours == d))
        .collect();
    println!(
        "Peer: `tool-parser` 1.10.0 (SGLang's Rust tool-call parser). It has no parser for: {}.\n",
        lacking
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if which.is_empty() || which == "speed" {
        speed(&peer, only.as_deref());
    }
    if which.is_empty() || which == "splits" {
        splits();
    }
}

// ---------------------------------------------------------------------------
// Timing and the long argument (shared with examples/bench_report.rs)

// Shared with bench_report, which uses all of it; the peer bench a part.
#[allow(dead_code)]
#[path = "../../../benches/support/report.rs"]
mod report;
use report::{dialect_parser, fastest_of_each, file_body, long_call, mbps};

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1e3)
    } else if ms >= 10.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

// ---------------------------------------------------------------------------
// The two parsers

/// Ours: the calls found in `chunks`, pushed as raw bytes, with a parser
/// sharing `template`'s configuration.
fn ours_calls<'a>(template: &Parser, chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<Call> {
    let mut parser = template.sibling();
    let mut events: Vec<Event> = Vec::new();
    let mut calls = Vec::new();
    let mut take = |events: &mut Vec<Event>| {
        for e in events.drain(..) {
            match e {
                Event::ActionComplete(a) => calls.push((a.name, a.arguments)),
                Event::ActionInvalid(a) => calls.push((
                    format!("(invalid) {}", a.name.unwrap_or_default()),
                    Value::Null,
                )),
                _ => {}
            }
        }
    };
    for c in chunks {
        parser.push_bytes(c, &mut events);
        take(&mut events);
    }
    parser.finish(&mut events);
    take(&mut events);
    calls
}

/// The peer: its parser registry and a current-thread runtime to drive its
/// async streaming API.
struct Peer {
    factory: ParserFactory,
    rt: tokio::runtime::Runtime,
}

impl Peer {
    fn new() -> Peer {
        Peer {
            factory: ParserFactory::new(),
            rt: tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a tokio runtime"),
        }
    }

    /// The peer's streaming items for `chunks`, from a fresh parser
    /// `name`, ending with what it had parsed but not streamed; and the
    /// errors it returned.
    fn items(
        &self,
        name: &str,
        tools: &[Tool],
        chunks: &[&str],
    ) -> (Vec<ToolCallItem>, Vec<String>) {
        let mut parser = self
            .factory
            .registry()
            .create_parser(name)
            .expect("a peer parser");
        let (mut items, errors) = self.rt.block_on(async {
            let mut items = Vec::new();
            let mut errors = Vec::new();
            for c in chunks {
                match parser.parse_incremental(c, tools).await {
                    Ok(r) => items.extend(r.calls),
                    Err(e) => errors.push(e.to_string()),
                }
            }
            (items, errors)
        });
        if let Some(rest) = parser.get_unstreamed_tool_args() {
            items.extend(rest);
        }
        (items, errors)
    }

    /// The peer: the calls found in `chunks`, its streamed pieces joined
    /// per tool index (a name, then argument text).
    fn calls(&self, name: &str, tools: &[Tool], chunks: &[&str]) -> Vec<Call> {
        let (items, errors) = self.items(name, tools, chunks);
        let mut joined: Vec<(usize, String, String)> = Vec::new();
        for item in items {
            let at = match joined.iter().position(|(i, _, _)| *i == item.tool_index) {
                Some(at) => at,
                None => {
                    joined.push((item.tool_index, String::new(), String::new()));
                    joined.len() - 1
                }
            };
            let entry = &mut joined[at];
            if let Some(n) = item.name {
                if entry.1.is_empty() {
                    entry.1 = n;
                } else if entry.1 != n {
                    entry.1.push_str(&format!(" (then {n})"));
                }
            }
            entry.2.push_str(&item.parameters);
        }
        let mut calls: Vec<Call> = joined
            .into_iter()
            .map(|(_, name, args)| {
                let value = serde_json::from_str(&args)
                    .unwrap_or_else(|_| Value::String(format!("(not JSON) {args}")));
                (name, value)
            })
            .collect();
        calls.extend(
            errors
                .into_iter()
                .map(|e| (format!("(error) {e}"), Value::Null)),
        );
        calls
    }

    /// The peer's whole-text parse (`parse_complete`, which needs no
    /// tool list): its calls, arguments read as JSON.
    fn complete(&self, name: &str, text: &str) -> Vec<Call> {
        let parser = self
            .factory
            .registry()
            .create_parser(name)
            .expect("a peer parser");
        match self.rt.block_on(parser.parse_complete(text)) {
            Ok((_, calls)) => calls
                .into_iter()
                .map(|c| {
                    let args = c.function.arguments;
                    let value = serde_json::from_str(&args)
                        .unwrap_or_else(|_| Value::String(format!("(not JSON) {args}")));
                    (c.function.name, value)
                })
                .collect(),
            Err(e) => vec![(format!("(error) {e}"), Value::Null)],
        }
    }
}

/// The tool list the peer checks names against: each name once, with an
/// object schema and no properties (so neither side converts by type).
fn tools(names: &[String]) -> Vec<Tool> {
    let mut seen: Vec<&String> = Vec::new();
    for n in names {
        if !n.is_empty() && !seen.contains(&n) {
            seen.push(n);
        }
    }
    seen.into_iter()
        .map(|n| {
            serde_json::from_value(json!({
                "type": "function",
                "function": {"name": n, "parameters": {"type": "object"}}
            }))
            .expect("a tool")
        })
        .collect()
}

/// `text` in pieces of `size` bytes, each extended to the next character
/// boundary (the peer takes `&str`).
fn str_chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// `text` in pieces of about `size` bytes, as [`str_chunks`], except that
/// no piece ends inside a marker, which a model writes as one special token:
/// a `<…>` of at most 64 bytes with no white space or `<` inside
/// (`<tool_call>`, `<|python_tag|>`, `<｜tool▁sep｜>`, `</arg_value>`), or
/// an upper-case `[…]` (`[TOOL_CALLS]`).
fn token_chunks(text: &str, size: usize) -> Vec<&str> {
    let b = text.as_bytes();
    let mut inside = vec![false; b.len() + 1];
    let mut i = 0;
    while i < b.len() {
        let close = match b[i] {
            b'<' => Some(b'>'),
            b'[' => Some(b']'),
            _ => None,
        };
        if let Some(close) = close {
            let end = b[i + 1..]
                .iter()
                .take(64)
                .position(|&c| c == close || c == b'<' || c.is_ascii_whitespace())
                .map(|p| i + 1 + p);
            if let Some(end) = end.filter(|&e| b[e] == close) {
                let marker = &b[i + 1..end];
                let ok = close == b'>'
                    || (!marker.is_empty()
                        && marker
                            .iter()
                            .all(|c| c.is_ascii_uppercase() || *c == b'_' || *c == b'/'));
                if ok {
                    inside[i + 1..=end].iter_mut().for_each(|x| *x = true);
                    i = end + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while end < text.len() && (inside[end] || !text.is_char_boundary(end)) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

// ---------------------------------------------------------------------------
// 1. Speed

/// Whether `calls` is the one expected call; if not, what came instead.
fn check_long(calls: &[Call], body: &str) -> String {
    let expected = json!({"path": "src/big.rs", "content": body});
    match calls {
        [(name, args)] if name == "write_file" && *args == expected => "yes".into(),
        [(name, args)] if name == "write_file" => {
            let content = args.get("content").and_then(Value::as_str);
            match content {
                Some(c) if c == body.trim() => {
                    "**no**: `content` trimmed of white space at both ends".into()
                }
                Some(c) if body.starts_with(c) => {
                    format!(
                        "**no**: `content` cut to {} of {} bytes",
                        c.len(),
                        body.len()
                    )
                }
                Some(c) => format!("**no**: `content` differs ({} bytes)", c.len()),
                None => format!("**no**: arguments {}", short(&args.to_string())),
            }
        }
        [] => "**no**: no call".into(),
        more => format!(
            "**no**: {} calls ({})",
            more.len(),
            more.iter()
                .map(|(n, _)| short(n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn short(s: &str) -> String {
    const MAX: usize = 100;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

/// Whether `calls` is one call named `write_file`, whatever its arguments.
fn found(calls: &[Call]) -> bool {
    matches!(calls, [(name, _)] if name == "write_file")
}

/// The speed table; with `only`, just that dialect's row.
fn speed(peer: &Peer, only: Option<&str>) {
    const SIZE: usize = 64 * 1024;
    println!("### Speed: one `write_file` call with a 64 KB `content`, in 4-byte chunks\n");
    println!("Ours pushes raw 4-byte pieces. The peer's pieces are cut at the next character boundary; where it finds no call in them, it is timed again with pieces that never cut a marker (\"markers whole\"), as a model's special tokens arrive. A ratio in parentheses compares with a peer that did not find the call. Each time is the fastest of the runs shown, taken in turn; a peer that needs more than 3 s for one input is run once.\n");
    println!(
        "| dialect (peer parser) | input | ours | MB/s | ours, argument deltas on | MB/s | peer | MB/s | peer chunks | peer ÷ ours (deltas on) | runs | ours right | peer right |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|");
    let body = file_body(SIZE);
    let tools = tools(&["write_file".to_string()]);
    let mut notes = Vec::new();
    let mut worst: (f64, &str) = (f64::MAX, "");
    for (ours, theirs) in PAIRS {
        if only.is_some_and(|o| o != ours) {
            continue;
        }
        let text = long_call(ours, &body);
        let plain = dialect_parser(ours, false);
        let deltas = dialect_parser(ours, true);
        let our_chunks: Vec<&[u8]> = text.as_bytes().chunks(4).collect();

        let ours_right = check_long(&ours_calls(&plain, our_chunks.iter().copied()), &body);
        let deltas_right = check_long(&ours_calls(&deltas, our_chunks.iter().copied()), &body);
        if deltas_right != ours_right {
            notes.push(format!("`{ours}` with argument deltas on: {deltas_right}"));
        }

        // A peer whose cost grows with the square of the text takes
        // minutes at 64 KB (DeepSeek V4.1's took 57 to 114 s): each peer
        // is probed at 8 KB first, and one that needs more than 250 ms
        // there (about 16 s at 64 KB, at the square) is not run at 64 KB;
        // its row gives the 8 KB time.
        let probe_body = file_body(SIZE / 8);
        let probe = long_call(ours, &probe_body);
        let t = Instant::now();
        let got = peer.calls(theirs, &tools, &str_chunks(&probe, 4));
        let probe_time = t.elapsed();
        if probe_time > Duration::from_millis(250) {
            let t = fastest_of_each(
                7,
                &mut [
                    &mut || {
                        std::hint::black_box(ours_calls(&plain, our_chunks.iter().copied()));
                    },
                    &mut || {
                        std::hint::black_box(ours_calls(&deltas, our_chunks.iter().copied()));
                    },
                ],
            );
            println!(
                "| `{ours}` (`{theirs}`) | {:.1} KB | {} | {:.1} | {} | {:.1} | not run: {} at 8 KB | {:.3} at 8 KB | 4 B | — | 7 (ours) | {} | at 8 KB: {} |",
                text.len() as f64 / 1024.0,
                ms(t[0]),
                mbps(text.len(), t[0]),
                ms(t[1]),
                mbps(text.len(), t[1]),
                ms(probe_time),
                mbps(probe.len(), probe_time),
                ours_right,
                check_long(&got, &probe_body),
            );
            notes.push(format!(
                "`{ours}`: the peer took {} for the call at 8 KB in 4-byte chunks, so its 64 KB run (about 64 times that, if its cost grows with the square of the text) is left out",
                ms(probe_time)
            ));
            continue;
        }

        let mut peer_chunks = str_chunks(&text, 4);
        let mut chunking = "4 B";
        let t = Instant::now();
        let got = peer.calls(theirs, &tools, &peer_chunks);
        let mut first = t.elapsed();
        let mut peer_found = found(&got);
        let mut peer_right = check_long(&got, &body);
        if !peer_found {
            let whole_markers = token_chunks(&text, 4);
            let t = Instant::now();
            let got = peer.calls(theirs, &tools, &whole_markers);
            let elapsed = t.elapsed();
            peer_right = format!(
                "4 B: {peer_right}; markers whole: {}",
                check_long(&got, &body)
            );
            if found(&got) {
                peer_found = true;
                peer_chunks = whole_markers;
                chunking = "4 B, markers whole";
                first = elapsed;
            }
        }

        let runs = if first > Duration::from_secs(3) {
            1
        } else if first > Duration::from_millis(500) {
            3
        } else {
            7
        };
        let (t_plain, t_deltas, t_peer) = if runs == 1 {
            let t = fastest_of_each(
                7,
                &mut [
                    &mut || {
                        std::hint::black_box(ours_calls(&plain, our_chunks.iter().copied()));
                    },
                    &mut || {
                        std::hint::black_box(ours_calls(&deltas, our_chunks.iter().copied()));
                    },
                ],
            );
            (t[0], t[1], first)
        } else {
            let t = fastest_of_each(
                runs,
                &mut [
                    &mut || {
                        std::hint::black_box(ours_calls(&plain, our_chunks.iter().copied()));
                    },
                    &mut || {
                        std::hint::black_box(ours_calls(&deltas, our_chunks.iter().copied()));
                    },
                    &mut || {
                        std::hint::black_box(peer.calls(theirs, &tools, &peer_chunks));
                    },
                ],
            );
            (t[0], t[1], t[2])
        };
        let ratio = t_peer.as_secs_f64() / t_deltas.as_secs_f64();
        if peer_found && ratio < worst.0 {
            worst = (ratio, ours);
        }
        println!(
            "| `{ours}` (`{theirs}`) | {:.1} KB | {} | {:.1} | {} | {:.1} | {} | {:.2} | {chunking} | {} | {} | {} | {} |",
            text.len() as f64 / 1024.0,
            ms(t_plain),
            mbps(text.len(), t_plain),
            ms(t_deltas),
            mbps(text.len(), t_deltas),
            ms(t_peer),
            mbps(text.len(), t_peer),
            if peer_found {
                format!("{ratio:.0}x")
            } else {
                format!("({ratio:.0}x)")
            },
            if runs == 1 {
                "1 (peer), 7 (ours)".to_string()
            } else {
                runs.to_string()
            },
            ours_right,
            peer_right,
        );
    }
    println!(
        "\nSmallest peer ÷ ours where the peer found the call: {:.0}x (`{}`; target ≥ 100x: {}).",
        worst.0,
        worst.1,
        if worst.0 >= 100.0 {
            "met"
        } else {
            "**not met**"
        }
    );
    for n in notes {
        println!("- {n}");
    }
    println!();
}

// ---------------------------------------------------------------------------
// 2. Correctness at splits

/// One input's results.
struct Outcome {
    label: String,
    bytes: usize,
    ours_whole: Vec<Call>,
    peer_whole: Vec<Call>,
    /// Whether the peer's streaming parser, given the whole text as one
    /// chunk, finds the calls of its whole-text parse.
    peer_one: bool,
    expected: Option<Vec<Call>>,
    ours_splits: (usize, usize),
    peer_splits: (usize, usize),
    ours_4: bool,
    peer_4: bool,
    ours_7: bool,
    peer_7: bool,
    ours_1: bool,
    peer_1: bool,
    /// Ours: the split offsets whose calls differ from the whole input's.
    ours_bad: Vec<usize>,
    /// The peer: the same, at character boundaries.
    peer_bad: Vec<usize>,
    /// What came at the first wrong split of each.
    ours_first_bad: Option<Vec<Call>>,
    peer_first_bad: Option<Vec<Call>>,
}

fn inputs(dialect: &str) -> Vec<(String, String, Option<Vec<Call>>)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let example = format!("{root}/examples/responses/dialects/{dialect}.txt");
    let mut out = vec![(
        "example".to_string(),
        std::fs::read_to_string(&example).expect("the example response"),
        None,
    )];
    let dir = format!("{root}/tests/data/dialects/{dialect}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".txt"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for n in names {
        let stem = n.trim_end_matches(".txt");
        let text = std::fs::read_to_string(format!("{dir}/{n}")).expect("a test input");
        let expected = std::fs::read_to_string(format!("{dir}/{stem}.expected.json"))
            .ok()
            .map(|j| {
                let v: Value = serde_json::from_str(&j).expect("expected JSON");
                v.as_array()
                    .expect("a list of calls")
                    .iter()
                    .map(|c| {
                        (
                            c["name"].as_str().unwrap_or_default().to_string(),
                            c["arguments"].clone(),
                        )
                    })
                    .collect()
            });
        out.push((stem.to_string(), text, expected));
    }
    out
}

/// Every offset is a two-piece split; in quick mode (`QUICK=1`, as
/// `bench/sections/30-peers.sh --quick` runs) every third, to keep the
/// section within its time.
fn split_stride() -> usize {
    if std::env::var("QUICK").is_ok_and(|q| q == "1") {
        3
    } else {
        1
    }
}

fn run_input(
    peer: &Peer,
    ours: &str,
    theirs: &str,
    label: String,
    text: &str,
    expected: Option<Vec<Call>>,
) -> Outcome {
    let template = dialect_parser(ours, false);
    let bytes = text.as_bytes();
    let ours_whole = ours_calls(&template, [bytes]);

    // The peer's whole-input calls are those of its whole-text parse.
    let peer_whole = peer.complete(theirs, text);
    let mut names: Vec<String> = ours_whole.iter().map(|(n, _)| n.clone()).collect();
    names.extend(peer_whole.iter().map(|(n, _)| n.clone()));
    if let Some(e) = &expected {
        names.extend(e.iter().map(|(n, _)| n.clone()));
    }
    let tools = tools(&names);
    let peer_one = peer.calls(theirs, &tools, &[text]) == peer_whole;

    let mut ours_bad = Vec::new();
    let mut ours_first_bad = None;
    let stride = split_stride();
    let mut tried = 0;
    for k in (1..bytes.len()).step_by(stride) {
        tried += 1;
        let got = ours_calls(&template, [&bytes[..k], &bytes[k..]]);
        if got != ours_whole {
            ours_bad.push(k);
            ours_first_bad.get_or_insert(got);
        }
    }
    let mut peer_bad = Vec::new();
    let mut peer_first_bad = None;
    let mut boundaries = 0;
    for k in (1..text.len()).step_by(stride) {
        if !text.is_char_boundary(k) {
            continue;
        }
        boundaries += 1;
        let got = peer.calls(theirs, &tools, &[&text[..k], &text[k..]]);
        if got != peer_whole {
            peer_bad.push(k);
            peer_first_bad.get_or_insert(got);
        }
    }
    let ours_4 = ours_calls(&template, bytes.chunks(4)) == ours_whole;
    let ours_7 = ours_calls(&template, bytes.chunks(7)) == ours_whole;
    let peer_7 = peer.calls(theirs, &tools, &str_chunks(text, 7)) == peer_whole;
    let ours_1 = ours_calls(&template, bytes.chunks(1)) == ours_whole;
    let peer_4 = peer.calls(theirs, &tools, &str_chunks(text, 4)) == peer_whole;
    let peer_1 = peer.calls(theirs, &tools, &str_chunks(text, 1)) == peer_whole;
    Outcome {
        label,
        bytes: bytes.len(),
        ours_splits: (tried - ours_bad.len(), tried),
        peer_splits: (boundaries - peer_bad.len(), boundaries),
        ours_whole,
        peer_whole,
        peer_one,
        expected,
        ours_4,
        peer_4,
        ours_7,
        peer_7,
        ours_1,
        peer_1,
        ours_bad,
        peer_bad,
        ours_first_bad,
        peer_first_bad,
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "**no**"
    }
}

fn frac((good, all): (usize, usize)) -> String {
    if good == all {
        format!("{good} of {all}")
    } else {
        format!("**{good} of {all}**")
    }
}

/// Offsets as ranges, shortened: `3–9, 14, 20–31 …`.
fn ranges(offsets: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < offsets.len() {
        let start = offsets[i];
        let mut end = start;
        while i + 1 < offsets.len() && offsets[i + 1] == end + 1 {
            i += 1;
            end = offsets[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    if parts.len() > 12 {
        format!("{} … ({} ranges)", parts[..12].join(", "), parts.len())
    } else {
        parts.join(", ")
    }
}

fn show_calls(calls: &[Call]) -> String {
    if calls.is_empty() {
        return "no call".into();
    }
    let each = calls
        .iter()
        .map(|(n, a)| {
            let a = a.to_string();
            let a = if a.chars().count() > 70 {
                format!("{}…", a.chars().take(70).collect::<String>())
            } else {
                a
            };
            format!("`{n}` `{a}`")
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "{} call{}: {each}",
        calls.len(),
        if calls.len() == 1 { "" } else { "s" }
    )
}

fn splits() {
    // The dialects are shared among the machine's cores, each thread with
    // a peer of its own (its registry and runtime), in the order of PAIRS.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut all: Vec<(usize, &str, &str, Vec<Outcome>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let peer = Peer::new();
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(ours, theirs)) = PAIRS.get(i) else {
                            break done;
                        };
                        let outcomes = inputs(ours)
                            .into_iter()
                            .map(|(label, text, expected)| {
                                run_input(&peer, ours, theirs, label, &text, expected)
                            })
                            .collect();
                        done.push((i, ours, theirs, outcomes));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a splits thread"))
            .collect()
    });
    all.sort_by_key(|(i, ..)| *i);
    let all: Vec<(&str, &str, Vec<Outcome>)> = all
        .into_iter()
        .map(|(_, ours, theirs, outcomes)| (ours, theirs, outcomes))
        .collect();

    println!("### Correctness at splits: each dialect's example response (`examples/responses/dialects/`)\n");
    println!("The whole-input calls: ours from the text pushed in one piece; the peer's from its whole-text parse (`parse_complete`). \"One chunk\": the peer's streaming parser given the whole text in one `parse_incremental` call finds those calls. Two-piece splits: ours at every byte offset (a split may cut a UTF-8 character or a marker), the peer at every character boundary (it takes `&str`){}; a split counts when it gives exactly the whole-input calls (names and arguments as JSON). Ours takes 4- and 7-byte chunks as raw bytes; the peer's are cut at the next character boundary; its 1-byte chunks are one character each.\n", if split_stride() > 1 { " (quick mode: every third offset)" } else { "" });
    println!("| dialect (peer parser) | bytes | calls whole: ours | peer | same calls | peer, one chunk | splits giving the whole-input calls: ours | peer | 4-byte chunks: ours | peer | 7-byte chunks: ours | peer | 1-byte chunks: ours | peer |");
    println!("|---|---:|---:|---:|---|---|---:|---:|---|---|---|---|---|---|");
    for (ours, theirs, outcomes) in &all {
        let o = &outcomes[0];
        println!(
            "| `{ours}` (`{theirs}`) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            o.bytes,
            o.ours_whole.len(),
            o.peer_whole.len(),
            yes(o.ours_whole == o.peer_whole),
            yes(o.peer_one),
            frac(o.ours_splits),
            frac(o.peer_splits),
            yes(o.ours_4),
            yes(o.peer_4),
            yes(o.ours_7),
            yes(o.peer_7),
            yes(o.ours_1),
            yes(o.peer_1),
        );
    }

    println!("\n### Correctness at splits: the peers' test inputs (`tests/data/dialects/`), summed per dialect\n");
    println!("\"Whole = test's calls\": the inputs whose whole-input calls are the ones the peer project's test asserts (`.expected.json`; no schemas are given here, so a test that converts values by a schema may differ). The other columns as above, counted over the inputs.\n");
    println!("| dialect (peer parser) | inputs | whole = test's calls: ours | peer | peer, one chunk | splits giving the whole-input calls: ours | peer | 4-byte chunks: ours | peer | 7-byte chunks: ours | peer | 1-byte chunks: ours | peer |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (ours, theirs, outcomes) in &all {
        let tests = &outcomes[1..];
        let n = tests.len();
        let count = |f: &dyn Fn(&Outcome) -> bool| tests.iter().filter(|o| f(o)).count();
        let sum = |f: &dyn Fn(&Outcome) -> (usize, usize)| {
            tests
                .iter()
                .map(f)
                .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
        };
        let of = |k: usize| frac((k, n));
        println!(
            "| `{ours}` (`{theirs}`) | {n} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            of(count(&|o| o.expected.as_ref() == Some(&o.ours_whole))),
            of(count(&|o| o.expected.as_ref() == Some(&o.peer_whole))),
            of(count(&|o| o.peer_one)),
            frac(sum(&|o| o.ours_splits)),
            frac(sum(&|o| o.peer_splits)),
            of(count(&|o| o.ours_4)),
            of(count(&|o| o.peer_4)),
            of(count(&|o| o.ours_7)),
            of(count(&|o| o.peer_7)),
            of(count(&|o| o.ours_1)),
            of(count(&|o| o.peer_1)),
        );
    }

    println!("\n### Details\n");
    for (ours, theirs, outcomes) in &all {
        for o in outcomes {
            let mut lines = Vec::new();
            if o.ours_whole != o.peer_whole {
                lines.push(format!(
                    "whole input: ours {}; peer {}",
                    show_calls(&o.ours_whole),
                    show_calls(&o.peer_whole)
                ));
            }
            if let Some(e) = &o.expected {
                if *e != o.ours_whole {
                    lines.push(format!(
                        "ours differs from the test's calls: ours {}; the test {}",
                        show_calls(&o.ours_whole),
                        show_calls(e)
                    ));
                }
                if *e != o.peer_whole {
                    lines.push(format!(
                        "peer differs from the test's calls: peer {}; the test {}",
                        show_calls(&o.peer_whole),
                        show_calls(e)
                    ));
                }
            }
            if !o.peer_one {
                lines.push("peer, streamed in one chunk: not its whole-text calls".into());
            }
            if let (Some(&k), Some(got)) = (o.ours_bad.first(), &o.ours_first_bad) {
                lines.push(format!(
                    "ours wrong at split offsets {}; at {k}: {}",
                    ranges(&o.ours_bad),
                    show_calls(got)
                ));
            }
            if let (Some(&k), Some(got)) = (o.peer_bad.first(), &o.peer_first_bad) {
                lines.push(format!(
                    "peer wrong at split offsets {}; at {k}: {}",
                    ranges(&o.peer_bad),
                    show_calls(got)
                ));
            }
            if !o.ours_4 || !o.ours_7 || !o.ours_1 || !o.peer_4 || !o.peer_7 || !o.peer_1 {
                lines.push(format!(
                    "4-byte chunks: ours {}, peer {}; 7-byte chunks: ours {}, peer {}; 1-byte chunks: ours {}, peer {}",
                    yes(o.ours_4),
                    yes(o.peer_4),
                    yes(o.ours_7),
                    yes(o.peer_7),
                    yes(o.ours_1),
                    yes(o.peer_1)
                ));
            }
            if !lines.is_empty() {
                println!("- `{ours}` (`{theirs}`) {}:", o.label);
                for l in lines {
                    println!("  - {l}");
                }
            }
        }
    }
}
