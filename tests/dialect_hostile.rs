//! Hostile inputs for the model dialects, per family of markers: a million
//! marker prefixes, huge sections that never close, deep nesting in JSON
//! and Python values, a million empty reasoning blocks, a harmony header
//! that never ends. Each must finish (a quadratic path would not, at these
//! sizes), keep ids and lengths straight, and hold little: at most a marker
//! prefix, or one block limit while a section is read (contract 4.5, 4.6,
//! section 7). Sizes are scaled down in debug builds; the shapes stay the
//! same. Smaller copies of each shape go through the every-chunking oracle.

mod common;

use actionstream::{oracle, Config, Event, Parser};
use common::dialects::config;

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

/// What a run came to.
#[derive(Debug, Default)]
struct Outcome {
    narrative: usize,
    reasoning: usize,
    complete: Vec<String>,
    invalid: Vec<String>,
    deltas: usize,
    max_buffered: usize,
}

/// Pushes `chunks`, dropping events after each push but counting them, and
/// asserting after every push that the parser holds at most `bound` bytes.
/// Also checks ids, and that narrative, reasoning and distinct block raws
/// add up to at most the input length (markers outside blocks are in no
/// event) and to exactly it where `markers_dropped` is 0.
fn run<'a>(
    config: &Config,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    bound: usize,
    markers_dropped: Option<usize>,
) -> Outcome {
    let mut parser = Parser::new(config.clone());
    let mut out = Outcome::default();
    let mut events = Vec::new();
    let (mut total, mut raw) = (0, 0);
    let mut last_span = None;
    let mut open = std::collections::BTreeSet::new();
    let mut tally = |events: &mut Vec<Event>, out: &mut Outcome| {
        for e in events.drain(..) {
            let block = match &e {
                Event::Narrative(t) => {
                    out.narrative += t.len();
                    None
                }
                Event::Reasoning(t) => {
                    out.reasoning += t.len();
                    None
                }
                Event::ActionStarted { id, .. } => {
                    assert!(open.insert(id.0), "id {id} started twice");
                    None
                }
                Event::ArgumentsDelta { id, .. } => {
                    assert!(open.contains(&id.0), "a delta of id {id} out of its call");
                    out.deltas += 1;
                    None
                }
                Event::ActionComplete(a) => {
                    assert!(open.remove(&a.id.0), "id {} ended unstarted", a.id);
                    out.complete.push(a.name.clone());
                    a.span.map(|s| (s, a.raw.len()))
                }
                Event::ActionInvalid(a) => {
                    assert!(open.remove(&a.id.0), "id {} ended unstarted", a.id);
                    out.invalid
                        .push(a.errors.first().map(|e| e.to_string()).unwrap_or_default());
                    a.span.map(|s| (s, a.raw.len()))
                }
                _ => None,
            };
            if let Some((span, len)) = block {
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
    let given = out.narrative + out.reasoning + raw;
    match markers_dropped {
        Some(n) => assert_eq!(given + n, total, "events and markers give back the input"),
        None => assert!(given <= total, "the events hold more than the input"),
    }
    out
}

/// `text` in pieces of `size` bytes.
fn pieces(text: &[u8], size: usize) -> impl Iterator<Item = &[u8]> {
    text.chunks(size)
}

#[test]
fn a_million_marker_prefixes_stay_linear_and_hold_a_prefix() {
    let n = scaled(1_000_000, 60_000);
    for (dialect, unit) in [
        ("hermes", "<tool_ca"),
        ("qwen3_coder", "<tool_ca"),
        ("glm", "<tool_ca"),
        ("deepseek_v3", "<｜tool▁call"),
        ("deepseek_v31", "<｜tool▁call"),
        ("deepseek_v32", "<｜DSML｜invok"),
        ("mistral", "[TOOL_CALL"),
        ("kimi_k2", "<|tool_calls_sect"),
        ("gpt_oss", "<|channe"),
        ("cohere", "<|START_ACTIO"),
        ("pythonic", "<|python_star"),
        ("llama3", "<|python_ta"),
        ("phi4_mini", "functool"),
        ("seed_oss", "<seed:tool_cal"),
        ("minimax_m2", "<minimax:tool_cal"),
        ("granite", "<|tool_cal"),
        ("jamba", "<tool_call"),
        ("deepseek_v41", "<｜DSML｜ call"),
        ("hunyuan_a13b", "<tool_call"),
        ("step3", "<｜tool_calls_begi"),
        ("ernie45", "<tool_ca"),
        ("internlm", "<|plugi"),
        ("gigachat3", "function cal"),
        ("gigachat35", "<｜GCML｜tool_cal"),
        ("longcat", "<longcat_tool_cal"),
        ("dots", "<dots_function_cal"),
        ("k2_horizon", "<ifm|tool_cal"),
        ("iquest_q1", "<iquest_tool_cal"),
        ("granite_20b_fc", "<function_cal"),
        // A token suffix cut short by the next marker's `<`.
        ("hunyuan", "<tool_calls:opensourc"),
        ("muse_glimmer", "<|star"),
    ] {
        // Small copies at every chunking first.
        oracle::check(&config(dialect), &unit.repeat(40));
        let input = unit.repeat(n);
        for size in [1 << 16, 7] {
            let take = if size == 7 {
                scaled(input.len(), 200_000)
            } else {
                input.len()
            };
            let out = run(
                &config(dialect),
                pieces(&input.as_bytes()[..take], size),
                size + 64,
                Some(0),
            );
            assert_eq!(out.narrative, take, "{dialect}: all of it is narrative");
            assert!(
                out.max_buffered <= size + 64,
                "{dialect}: held {} bytes",
                out.max_buffered
            );
        }
        // Held after each push: at most the longest marker prefix.
        let mut parser = Parser::new(config(dialect));
        let mut events = Vec::new();
        for piece in pieces(&input.as_bytes()[..scaled(input.len(), 100_000)], 4096) {
            parser.push_bytes(piece, &mut events);
            events.clear();
            assert!(parser.buffered() <= 32, "{dialect}: {}", parser.buffered());
        }
    }
}

/// A section that never closes: `(dialect, opener, fill unit)`.
const UNCLOSED: &[(&str, &str, &str)] = &[
    (
        "hermes",
        "<tool_call>{\"name\": \"write\", \"arguments\": {\"content\": \"",
        "abcdefgh",
    ),
    (
        "qwen3_coder",
        "<tool_call>\n<function=write>\n<parameter=content>\n",
        "line of a file\n",
    ),
    (
        "minimax_m2",
        "<minimax:tool_call>\n<invoke name=\"write\">\n<parameter name=\"content\">",
        "text ",
    ),
    ("pythonic", "<|python_start|>[write(content='", "abcdefgh"),
    (
        "deepseek_v31",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>{\"content\": \"",
        "abcdefgh",
    ),
    (
        "gpt_oss",
        "<|start|>assistant<|channel|>commentary to=functions.write <|constrain|>json<|message|>{\"content\": \"",
        "abcdefgh",
    ),
    ("mistral", "[TOOL_CALLS]write[ARGS]{\"content\": \"", "abcdefgh"),
    (
        "cohere",
        "<|START_ACTION|>[{\"tool_name\": \"write\", \"parameters\": {\"content\": [",
        "1, ",
    ),
    (
        "deepseek_v41",
        "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"write\">\n<｜DSML｜ parameter name=\"content\" string=\"true\">",
        "text ",
    ),
    (
        "step3",
        "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"write\"><steptml:parameter name=\"content\">",
        "text ",
    ),
    (
        "k2_horizon",
        "<ifm|tool_call>write<ifm|arg_key>content</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>",
        "text ",
    ),
    (
        "iquest_q1",
        "<iquest_tool_call>write\n<arg_key>content</arg_key><arg_value>",
        "line\n",
    ),
    (
        "internlm",
        "<|plugin|>{\"name\": \"write\", \"parameters\": {\"content\": \"",
        "abcdefgh",
    ),
    (
        "granite_20b_fc",
        "<function_call> {\"name\": \"write\", \"arguments\": {\"content\": \"",
        "abcdefgh",
    ),
    (
        "hunyuan",
        "<tool_calls:os><tool_call:os>write<arg_key:os>content</arg_key:os><arg_value:os>",
        "text ",
    ),
    (
        "gpt_oss",
        "<|start|>assistant<|channel|>analysis to=python code<|message|>",
        "print(1)\n",
    ),
];

#[test]
fn a_64_mib_unclosed_section_ends_invalid_at_the_block_limit() {
    let size = scaled(64 << 20, 4 << 20);
    let chunk = 64 << 10;
    for &(dialect, opener, unit) in UNCLOSED {
        let mut fill = unit.repeat(chunk / unit.len() + 1);
        fill.truncate(chunk - chunk % unit.len());
        for deltas in [false, true] {
            let cfg = config(dialect).argument_deltas(deltas);
            let chunks = std::iter::once(opener.as_bytes())
                .chain(std::iter::repeat(fill.as_bytes()).take(size / fill.len()));
            // The section up to the limit, one chunk over it, a little slack.
            let out = run(&cfg, chunks, LIMIT + chunk + 64, Some(0));
            assert!(out.complete.is_empty(), "{dialect}");
            assert_eq!(out.invalid.len(), 1, "{dialect}: {:?}", out.invalid);
            assert!(
                out.invalid[0].contains("larger than the block limit"),
                "{dialect}: {}",
                out.invalid[0]
            );
            assert!(
                out.narrative >= size - LIMIT - chunk,
                "{dialect}: the rest is narrative"
            );
            if deltas {
                assert!(out.deltas > 10, "{dialect}: the value streamed");
            }
        }
        // The same shape with a small limit, at every chunking.
        let limit = opener.len() + 40;
        let cfg = config(dialect).max_block_bytes(limit).argument_deltas(true);
        let events = oracle::check(&cfg, &format!("{opener}{}", unit.repeat(200 / unit.len())));
        let want = format!("larger than the block limit of {limit} bytes");
        assert!(
            common::summary(&events).iter().any(|l| l.contains(&want)),
            "{dialect}: {:?}",
            common::summary(&events)
        );
    }
}

#[test]
fn an_unclosed_section_one_byte_at_a_time() {
    let limit = 64 << 10;
    let size = scaled(2 << 20, 200 << 10);
    for &(dialect, opener, unit) in UNCLOSED {
        let cfg = config(dialect).max_block_bytes(limit);
        let mut input = opener.as_bytes().to_vec();
        while input.len() < size {
            input.extend_from_slice(unit.as_bytes());
        }
        let out = run(&cfg, pieces(&input, 1), limit + 64, Some(0));
        assert_eq!(out.invalid.len(), 1, "{dialect}");
        assert_eq!(
            out.narrative + limit,
            input.len(),
            "{dialect}: the section is cut at the limit exactly"
        );
    }
}

/// Peak resident memory while a 64 MiB section (4 MiB in debug) streams
/// through with argument deltas, measured in a child process (this test
/// binary re-run) so that no other test's allocations count.
#[cfg(target_os = "linux")]
#[test]
fn peak_rss_stays_near_the_block_limit() {
    if common::rss::in_child() {
        common::rss::report(|| {
            let size = scaled(64 << 20, 4 << 20);
            let fill = vec![b'a'; 64 << 10];
            for &(dialect, opener, _) in UNCLOSED {
                let chunks = std::iter::once(opener.as_bytes())
                    .chain(std::iter::repeat(fill.as_slice()).take(size / fill.len()));
                run(
                    &config(dialect).argument_deltas(true),
                    chunks,
                    usize::MAX,
                    None,
                );
            }
        });
        return;
    }
    let growth = common::rss::growth_kib("peak_rss_stays_near_the_block_limit");
    // The section (1 MiB), a JSON scanner's repaired copy (1 MiB), one
    // chunk, the allocator's slack: a few block limits, not the input.
    assert!(growth < 12 << 10, "peak RSS grew by {growth} KiB");
}

#[test]
fn deep_python_nesting_is_an_error_not_a_crash() {
    let n = 100_000;
    for (text, starts_inside) in [
        (format!("[f(a={}", "[".repeat(n)), false),
        (
            format!("<|python_start|>[f(a={}]<|python_end|>after", "[".repeat(n)),
            false,
        ),
        (format!("[f(a={}", "{'k': ".repeat(n / 4)), false),
        // A built-in tool call (any other Python is code_interpreter's).
        (
            format!("<|python_tag|>brave_search.call(b={}", "[".repeat(n)),
            true,
        ),
    ] {
        let dialect = if starts_inside { "llama3" } else { "pythonic" };
        let out = run(
            &config(dialect),
            pieces(text.as_bytes(), 4096),
            2 * LIMIT,
            None,
        );
        assert_eq!(out.invalid.len(), 1, "{dialect}: {:?}", out.invalid);
        assert!(
            out.invalid[0].contains("deep") || out.invalid[0].contains("nest"),
            "{dialect}: {}",
            out.invalid[0]
        );
    }
    // A small copy at every chunking, with a shallow limit.
    let cfg = config("pythonic").max_depth(3);
    let events = oracle::check(&cfg, "[f(a=[[[[1]]]]), g()] after");
    assert!(common::invalid(&events)[0].starts_with("f:"), "{events:?}");
}

#[test]
fn deep_json_nesting_in_a_hermes_call() {
    let n = 100_000;
    for (dialect, text) in [
        (
            "hermes",
            format!(
                "<tool_call>{{\"name\": \"f\", \"arguments\": {{\"a\": {}}}}}</tool_call> and <tool_call>{{\"name\": \"g\", \"arguments\": {{}}}}</tool_call>",
                "[".repeat(n)
            ),
        ),
        (
            "hermes",
            format!(
                "<tool_call>{{\"name\": \"f\", \"arguments\": {}</tool_call> and <tool_call>{{\"name\": \"g\", \"arguments\": {{}}}}</tool_call>",
                "{\"a\": ".repeat(n / 5)
            ),
        ),
        (
            "kimi_k2",
            format!(
                "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{{}}<|tool_call_end|><|tool_calls_section_end|>",
                "[".repeat(n)
            ),
        ),
        (
            "internlm",
            format!(
                "<|action_start|><|plugin|>{{\"name\": \"f\", \"parameters\": {{\"a\": {}<|action_end|> and <|action_start|><|plugin|>{{\"name\": \"g\", \"parameters\": {{}}}}<|action_end|>",
                "[".repeat(n)
            ),
        ),
        (
            "longcat",
            format!(
                "<longcat_tool_call>{{\"name\": \"f\", \"arguments\": {}</longcat_tool_call>\n<longcat_tool_call>{{\"name\": \"g\", \"arguments\": {{}}}}</longcat_tool_call>",
                "{\"a\": ".repeat(n / 5)
            ),
        ),
        (
            "hunyuan_a13b",
            format!(
                "<tool_calls>[{{\"name\": \"f\", \"arguments\": {{\"a\": {}</tool_calls> then <tool_calls>[{{\"name\": \"g\", \"arguments\": {{}}}}]</tool_calls>",
                "[".repeat(n)
            ),
        ),
    ] {
        for deltas in [false, true] {
            let cfg = config(dialect).argument_deltas(deltas);
            let out = run(&cfg, pieces(text.as_bytes(), 4096), 2 * LIMIT, None);
            assert_eq!(out.invalid.len(), 1, "{dialect}: {:?}", out.invalid);
            assert!(out.invalid[0].contains("deep"), "{}", out.invalid[0]);
            assert_eq!(out.complete, ["g"], "{dialect}: the next call is read");
        }
    }
    let cfg = config("hermes").max_depth(4).argument_deltas(true);
    let events = oracle::check(
        &cfg,
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [[[[[1]]]]]}}</tool_call><tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>",
    );
    assert_eq!(common::completed(&events), ["g:{}"]);
}

#[test]
fn a_million_empty_reasoning_blocks() {
    let n = scaled(1_000_000, 60_000);
    for (dialect, unit, marker_bytes) in [
        ("hermes", "<think></think>", 15),
        ("seed_oss", "<seed:think></seed:think>", 25),
        ("mistral", "[THINK][/THINK]", 15),
        ("cohere", "<|START_THINKING|><|END_THINKING|>", 34),
        ("gpt_oss", "<|channel|>analysis<|message|><|end|>", 37),
    ] {
        oracle::check(&config(dialect), &unit.repeat(30));
        let input = format!("{}answer", unit.repeat(n));
        let out = run(
            &config(dialect),
            pieces(input.as_bytes(), 1 << 16),
            (1 << 16) + 64,
            Some(marker_bytes * n),
        );
        assert_eq!(out.narrative, "answer".len(), "{dialect}");
        assert_eq!(out.reasoning, 0, "{dialect}");
        // Reasoning that is open at the start, closed a million times.
        let out = run(
            &config(dialect).reasoning_open(true),
            pieces(input.as_bytes(), 4093),
            4093 + 64,
            None,
        );
        assert!(out.narrative <= input.len(), "{dialect}");
    }
}

#[test]
fn a_harmony_header_that_never_ends() {
    let size = scaled(64 << 20, 4 << 20);
    let chunk = 64 << 10;
    let fill = "x".repeat(chunk);
    let opener = "Hello.<|start|>assistant<|channel|>commentary to=functions.f ";
    let chunks = std::iter::once(opener.as_bytes())
        .chain(std::iter::repeat(fill.as_bytes()).take(size / chunk));
    let out = run(&config("gpt_oss"), chunks, LIMIT + chunk + 64, None);
    assert!(out.complete.is_empty() && out.invalid.is_empty());
    // The header is dropped at the block limit; the rest is narrative.
    let total = opener.len() + size / chunk * chunk;
    assert_eq!(out.narrative, total - LIMIT);

    // A small copy at every chunking: a header longer than the limit.
    let cfg = config("gpt_oss").max_block_bytes(32);
    let events = oracle::check(
        &cfg,
        "<|start|>assistant<|channel|>commentary to=functions.a_long_name_here <|constrain|>json<|message|>{}<|call|>ok",
    );
    assert!(common::completed(&events).is_empty(), "{events:?}");
    // Headers cut short a million times.
    let input = "<|start|>assistant<|start|>".repeat(scaled(1_000_000, 50_000) / 2);
    let out = run(
        &config("gpt_oss"),
        pieces(input.as_bytes(), 1 << 16),
        (1 << 16) + 64,
        None,
    );
    assert!(out.complete.is_empty());
}

/// A value the tool's schema cannot take, in each new raw-value dialect, and
/// broken JSON in each new JSON dialect: the call is invalid, and the error
/// names the argument (or says where the JSON broke); the next call is read.
#[test]
fn malformed_values_in_the_new_dialects_name_the_argument() {
    let tools = vec![
        (
            "f".to_owned(),
            serde_json::json!({"type": "object", "properties": {"days": {"type": "integer"}}}),
        ),
        ("g".to_owned(), serde_json::json!({"type": "object"})),
    ];
    for (dialect, text) in [
        ("deepseek_v41", "<｜DSML｜ calls><｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"days\" string=\"false\">three</｜DSML｜ parameter></｜DSML｜ invoke><｜DSML｜ invoke name=\"g\"></｜DSML｜ invoke></｜DSML｜ calls>"),
        ("step3", "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"f\"><steptml:parameter name=\"days\">three</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜><steptml:invoke name=\"g\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"),
        ("gigachat35", "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"days\" string=\"true\">3</｜GCML｜parameter></｜GCML｜invoke><｜GCML｜invoke name=\"g\"></｜GCML｜invoke></｜GCML｜tool_calls>"),
        ("dots", "<dots_function_call><invoke name=\"f\"><parameter name=\"days\">three</parameter></invoke><invoke name=\"g\"></invoke></dots_function_call>"),
        ("k2_horizon", "<ifm|tool_call>f<ifm|arg_key>days</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>3</ifm|arg_value></ifm|tool_call><ifm|tool_call>g</ifm|tool_call>"),
        ("iquest_q1", "<iquest_tool_call>f<arg_key>days</arg_key><arg_value>three</arg_value></iquest_tool_call><iquest_tool_call>g</iquest_tool_call>"),
    ] {
        let cfg = config(dialect).tools(tools.clone());
        let events = oracle::check(&cfg, text);
        let invalid = common::invalid(&events);
        assert_eq!(invalid.len(), 1, "{dialect}: {invalid:?}");
        assert!(invalid[0].starts_with("f:") && invalid[0].contains("days"), "{dialect}: {}", invalid[0]);
        assert_eq!(common::completed(&events), ["g:{}"], "{dialect}");
    }
    for (dialect, text) in [
        ("hunyuan_a13b", "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"days\": 3,,}}]</tool_calls><tool_calls>[{\"name\": \"g\", \"arguments\": {}}]</tool_calls>"),
        ("ernie45", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"days\": 3 4}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>"),
        ("internlm", "<|action_start|><|plugin|>{\"name\": \"f\", \"parameters\": {\"days\": ]}}<|action_end|><|action_start|><|plugin|>{\"name\": \"g\", \"parameters\": {}}<|action_end|>"),
        ("longcat", "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"days\": tree}}</longcat_tool_call><longcat_tool_call>{\"name\": \"g\", \"arguments\": {}}</longcat_tool_call>"),
        ("gigachat3", "<|function_call|>{\"name\": \"f\", \"arguments\": {\"days\": 3 4}}</s><|function_call|>{\"name\": \"g\", \"arguments\": {}}"),
        ("granite_20b_fc", "<function_call> {\"name\": \"f\", \"arguments\": {\"days\": ]}}\n<function_call> {\"name\": \"g\", \"arguments\": {}}"),
    ] {
        let events = oracle::check(&config(dialect), text);
        let invalid = common::invalid(&events);
        assert_eq!(invalid.len(), 1, "{dialect}: {invalid:?}");
        assert!(
            invalid[0].starts_with("f:the JSON cannot be read") && invalid[0].contains("column"),
            "{dialect}: {}",
            invalid[0]
        );
        assert_eq!(common::completed(&events), ["g:{}"], "{dialect}");
    }
}
