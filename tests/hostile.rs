//! Hostile inputs: huge blocks, deep nesting, long runs of the characters
//! that drive the parser, whole and one byte at a time. Each must finish
//! (a quadratic path would not, at these sizes), keep the invariants and
//! hold at most about one block limit of text (contract 4.5, 4.6).
//! Sizes are scaled down in debug builds; the shapes stay the same.

mod common;

use actionstream::{oracle, Config, Event, Parser};

/// `release` or `debug` size.
fn scaled(release: usize, debug: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// The default block limit.
const LIMIT: usize = 1 << 20;

/// What a run of a hostile input came to.
#[derive(Debug, Default)]
struct Outcome {
    narrative: usize,
    complete: Vec<String>,
    invalid: usize,
    max_buffered: usize,
}

/// Pushes `chunks` (bytes), dropping events after each push but counting
/// them, and asserting after every push that the parser holds at most
/// `bound` bytes. Also checks ids and that narrative plus distinct block
/// raws add up to the input length.
fn run<'a>(config: &Config, chunks: impl IntoIterator<Item = &'a [u8]>, bound: usize) -> Outcome {
    let mut parser = Parser::new(config.clone());
    let mut out = Outcome::default();
    let mut events = Vec::new();
    let mut total = 0;
    let mut raw = 0;
    let mut last_span = None;
    let mut open = std::collections::BTreeSet::new();
    let mut tally = |events: &mut Vec<Event>, out: &mut Outcome| {
        for e in events.drain(..) {
            let span = match &e {
                Event::Narrative(t) => {
                    out.narrative += t.len();
                    None
                }
                Event::ActionStarted { id, .. } => {
                    assert!(open.insert(id.0), "id {id} started twice");
                    None
                }
                Event::ActionComplete(a) => {
                    assert!(open.remove(&a.id.0), "id {} ended unstarted", a.id);
                    out.complete.push(a.name.clone());
                    a.span.map(|s| (s, a.raw.len()))
                }
                Event::ActionInvalid(a) => {
                    assert!(open.remove(&a.id.0), "id {} ended unstarted", a.id);
                    out.invalid += 1;
                    a.span.map(|s| (s, a.raw.len()))
                }
                _ => None,
            };
            if let Some((span, len)) = span {
                assert_eq!(span.end - span.start, len, "span and raw agree");
                if last_span != Some(span) {
                    last_span = Some(span);
                    raw += len;
                }
            }
        }
    };
    for chunk in chunks {
        total += chunk.len();
        parser.push_bytes(chunk, &mut events);
        tally(&mut events, &mut out);
        let held = parser.buffered();
        out.max_buffered = out.max_buffered.max(held);
        assert!(
            held <= bound,
            "holds {held} bytes after {total} (bound {bound})"
        );
    }
    parser.finish(&mut events);
    tally(&mut events, &mut out);
    assert!(open.is_empty(), "started and never ended: {open:?}");
    assert_eq!(
        out.narrative + raw,
        total,
        "narrative and raws give back the input length"
    );
    out
}

/// `input` whole (checked lossless against the text), then in one-byte
/// chunks of its first `bytewise` bytes; the two must agree.
fn whole_and_bytewise(input: &str, bytewise: usize, bound: usize) -> Outcome {
    let config = Config::default();
    let events = oracle::run_chunks(&config, [input.as_bytes()]);
    oracle::assert_lossless(&events, input);
    oracle::assert_ids(&events);
    let out = run(&config, [input.as_bytes()], bound + input.len());
    let prefix = &input.as_bytes()[..bytewise.min(input.len())];
    let whole_prefix = oracle::run_chunks(&config, [prefix]);
    let bytes = run(&config, prefix.chunks(1), bound);
    assert_eq!(
        oracle::run_chunks(&config, prefix.chunks(1)),
        whole_prefix,
        "one byte at a time"
    );
    let _ = bytes;
    out
}

#[test]
fn huge_unclosed_block_holds_about_one_block_limit() {
    let size = scaled(50 << 20, 5 << 20);
    let fill = vec![b'a'; 64 << 10];
    // An action block whose string never ends, and a generic block that is
    // never decided (its first key is not `action`, its object never closes).
    // An action block whose string never ends, a call tag likewise, and a
    // generic block that is never decided (its first key is not `action`,
    // its object never closes): `true` where the block is one of actions.
    for (opener, actions) in [
        ("```json\n{\"action\": \"x\", \"data\": \"", true),
        ("<action_call>{\"action\": \"x\", \"d\": \"", true),
        ("```json\n{\"data\": \"", false),
    ] {
        let chunks = std::iter::once(opener.as_bytes())
            .chain(std::iter::repeat(fill.as_slice()).take(size / fill.len()));
        // The block (1 MiB), its repaired copy (1 MiB), one chunk, slack.
        let out = run(
            &Config::default(),
            chunks,
            2 * LIMIT + 2 * fill.len() + 4096,
        );
        assert!(out.complete.is_empty());
        if actions {
            assert_eq!(
                out.invalid, 1,
                "{opener}: the block ends invalid at the limit"
            );
            assert!(
                out.narrative >= size - 2 * LIMIT,
                "{opener}: the rest is narrative"
            );
        } else {
            // Never known to hold actions: all of it is narrative.
            assert_eq!(out.invalid, 0, "{opener}");
            assert_eq!(out.narrative, opener.len() + size / fill.len() * fill.len());
        }
    }
}

#[test]
fn huge_unclosed_block_one_byte_at_a_time() {
    let size = scaled(4 << 20, 300 << 10);
    let mut input = b"```json\n{\"action\": \"x\", \"data\": \"".to_vec();
    input.resize(size, b'a');
    let config = Config::default().max_block_bytes(64 << 10);
    let out = run(&config, input.chunks(1), 2 * (64 << 10) + 4096);
    assert_eq!(out.invalid, 1);
    assert_eq!(out.narrative + (64 << 10), size);
}

/// Peak resident memory while 50 MB (5 MB in debug) of one unclosed block
/// streams through, measured in a child process (this test binary re-run)
/// so that no other test's allocations count.
#[cfg(target_os = "linux")]
#[test]
fn peak_rss_stays_near_block_limit() {
    if common::rss::in_child() {
        common::rss::report(|| {
            let size = scaled(50 << 20, 5 << 20);
            let fill = vec![b'a'; 64 << 10];
            let chunks = std::iter::once(&b"```json\n{\"action\": \"x\", \"data\": \""[..])
                .chain(std::iter::repeat(fill.as_slice()).take(size / fill.len()));
            run(&Config::default(), chunks, usize::MAX);
        });
        return;
    }
    let growth = common::rss::growth_kib("peak_rss_stays_near_block_limit");
    // Holding the whole block would take the input size at least (5 MiB in
    // debug, 50 MiB in release); a bounded parser needs a few block limits.
    assert!(growth < 8 << 10, "peak RSS grew by {growth} KiB");
}

#[test]
fn a_million_nested_brackets() {
    let n = 1_000_000;
    let input = format!(
        "```action\n{}\n```\nafter\n```json\n{{\"action\": \"ok\"}}\n```\n",
        "[".repeat(n)
    );
    let out = whole_and_bytewise(&input, scaled(n + 100, 100_000), 2 * LIMIT + 4096);
    assert_eq!(out.invalid, 1, "too deep: invalid, never a crash");
    assert_eq!(out.complete, ["ok"], "the next block is read as usual");

    let objects = format!("<action_call>{}</action_call> ok", "{\"a\":".repeat(n / 5));
    let out = whole_and_bytewise(&objects, scaled(n, 100_000), 2 * LIMIT + 4096);
    assert_eq!(out.invalid, 1);
}

#[test]
fn a_million_backticks() {
    let n = 1_000_000;
    for input in [
        format!(
            "{}\n<action_call>{{\"action\": \"x\"}}</action_call>\n",
            "`".repeat(n)
        ),
        format!(
            "text {} <action_call>{{\"action\": \"x\"}}</action_call>\n",
            "`".repeat(n)
        ),
        format!("a {}\n", "` ".repeat(n / 2)),
        format!(
            "```json\n{{\"action\": \"x\", \"s\": \"{}\"}}\n```\n",
            "`".repeat(n)
        ),
    ] {
        let out = whole_and_bytewise(&input, scaled(input.len(), 100_000), 2 * LIMIT + 4096);
        assert!(out.complete.len() <= 1);
    }
}

#[test]
fn a_million_tag_prefixes() {
    let n = scaled(1_000_000, 100_000);
    let input = "<action_cal".repeat(n);
    let out = whole_and_bytewise(&input, scaled(input.len(), 200_000), 4096 * 2);
    assert_eq!(out.narrative, input.len());
    assert!(
        out.max_buffered <= 64,
        "a dead prefix is let go at once: held {}",
        out.max_buffered
    );
    let input = "<action_call ".repeat(n / 2);
    whole_and_bytewise(&input, scaled(input.len(), 200_000), 2 * LIMIT + 8192);
}

#[test]
fn a_million_unclosed_openers() {
    let n = scaled(1_000_000, 100_000);
    for unit in [
        "```json\n",
        "<action_call>{",
        "```action\n{\"action\": \"a\", \"b\": [",
        "~~~json\n{",
        "\n```json\n{\"action\": \"x\"}",
    ] {
        let input = unit.repeat(n);
        let out = whole_and_bytewise(&input, scaled(input.len(), 200_000), 2 * LIMIT + 8192);
        assert!(out.complete.len() <= n, "{unit:?}");
    }
}

/// `<tool_call>` a million times: a call tag whose content is XML elements
/// that never close. The block must end invalid at the block limit; it
/// holds everything instead when the limit falls just after a `<` (as the
/// default 1 MiB limit does here). See `regressions::limit_after_a_lt`.
#[test]
fn a_million_unclosed_xml_tags() {
    let input = "<tool_call>".repeat(scaled(1_000_000, 100_000));
    // Long enough to pass the limit one byte at a time, in debug too.
    // XML content keeps no repaired copy: one limit's worth, and a little.
    let out = whole_and_bytewise(&input, LIMIT + 100_000, LIMIT + 8192);
    assert_eq!(out.invalid, 1);
    assert!(
        out.narrative >= input.len() - LIMIT,
        "the rest after the limit is narrative"
    );
}

#[test]
fn a_fence_line_longer_than_any_opener_is_let_go() {
    // A line that begins as a fence opener and runs on: once it is longer
    // than any opener it is narrative, and the parser holds no more of it,
    // in pieces of any size (the guard of the line-start probe).
    let info = "x".repeat(scaled(100_000, 20_000));
    let input = format!("```json{info}\n{{\"action\": \"x\"}}\n```\n");
    for size in [1, 16, 4096] {
        let out = run(
            &Config::default(),
            input.as_bytes().chunks(size),
            2 * 4096 + size,
        );
        assert!(out.complete.is_empty());
        assert_eq!(out.invalid, 0);
    }
}
