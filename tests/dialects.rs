//! Every model dialect on the peers' own test outputs (`tests/data/dialects`),
//! at every chunking: the calls they expect, and the invariants.

mod common;

use std::path::Path;

use actionstream::dialect::{Dialect, BUILTIN};
use actionstream::{Config, Event};
use serde_json::Value;

fn config(dialect: &str) -> Config {
    Config::default().dialect(
        Dialect::builtin(dialect).unwrap_or_else(|| panic!("{dialect} is no built-in dialect")),
    )
}

/// `(name, arguments)` of each complete call, and the names of invalid ones.
fn calls(events: &[Event]) -> (Vec<Value>, Vec<String>) {
    let mut complete = Vec::new();
    let mut invalid = Vec::new();
    for e in events {
        match e {
            Event::ActionComplete(a) => {
                complete.push(serde_json::json!({"name": a.name, "arguments": a.arguments}))
            }
            Event::ActionInvalid(a) => invalid.push(format!(
                "{}: {}",
                a.name.as_deref().unwrap_or("-"),
                a.errors.first().map(|e| e.to_string()).unwrap_or_default()
            )),
            _ => {}
        }
    }
    (complete, invalid)
}

/// Outputs where the contract decides otherwise than the peer's test, with
/// what we give and why.
const DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "muse_glimmer/sglang_parallel_tool_calls.txt",
        r#"[{"name":"get_weather.get_weather","arguments":{"city":"Paris"}},{"name":"get_weather.get_weather","arguments":{"city":"Tokyo"}}]"#,
        "a name is kept as the invoke writes it (as vLLM keeps `read.read`); SGLang folds a doubled `X.X` to `X`",
    ),
    (
        "muse_glimmer/sglang_preamble_before_tool_call.txt",
        r#"[{"name":"get_weather.get_weather","arguments":{"city":"Paris"}}]"#,
        "a name is kept as the invoke writes it (as vLLM keeps `read.read`); SGLang folds a doubled `X.X` to `X`",
    ),
    (
        "minimax_m2/vllm_multiple_params.txt",
        r#"[{"name":"get_weather","arguments":{"city":"Seattle","days":5}}]"#,
        "without a schema a raw value is JSON where the whole value reads as JSON (section 7); vLLM keeps `5` a string",
    ),
    (
        "minimax_m3/vllm_nested_tool_call.txt",
        r#"[{"name":"create_order","arguments":{"user_id":42,"urgent":true,"note":"Please leave at front desk.","shipping":{"city":"Singapore","zip":"018956"},"items":[{"sku":"book-001","qty":2},{"sku":"pen-007","qty":5}],"metadata":{"source":"mobile","campaign":"may-launch"},"duplicate_demo":{"tag":["a","b"]}}}]"#,
        "an integer is a value that reads as a JSON number (section 7); `018956` does not, so it stays a string and the schema check reports it; vLLM strips the leading zero",
    ),
    (
        "llama3/vllm_multiple_json_surrounding_text.txt",
        "[]",
        "Llama 3 writes its JSON call as the whole response (or after <|python_tag|>); vLLM's parser also finds objects after prose, which section 7 leaves narrative",
    ),
];

/// What a peer's test says beside its output (`<name>.options.json`): the
/// tools it passes (their schemas type the values), whether the response
/// starts inside reasoning (the prompt opened it), and the narrative and
/// reasoning it asserts.
#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default)]
    tools: Vec<Value>,
    #[serde(default)]
    reasoning_open: bool,
    narrative: Option<String>,
    reasoning: Option<String>,
}

impl Options {
    fn of(file: &Path) -> Options {
        let path = file.with_extension("options.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            }
            Err(_) => Options::default(),
        }
    }

    fn apply(&self, mut config: Config) -> Config {
        if !self.tools.is_empty() {
            let tools = self
                .tools
                .iter()
                .map(|t| {
                    let f = t.get("function").unwrap_or(t);
                    (
                        f["name"].as_str().unwrap_or_default().to_owned(),
                        f.get("parameters").cloned().unwrap_or(Value::Null),
                    )
                })
                .collect();
            config = config.tools(tools);
        }
        config.reasoning_open(self.reasoning_open)
    }

    /// What differs from the narrative and reasoning the test asserts.
    fn text_differs(&self, events: &[Event]) -> Option<String> {
        let reasoning: String = events
            .iter()
            .filter_map(|e| match e {
                Event::Reasoning(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let narrative = actionstream::narrative(events);
        let mut out = Vec::new();
        if let Some(want) = self.narrative.as_deref().filter(|w| *w != narrative.trim()) {
            out.push(format!("narrative {narrative:?}, want {want:?}"));
        }
        if let Some(want) = self.reasoning.as_deref().filter(|w| *w != reasoning.trim()) {
            out.push(format!("reasoning {reasoning:?}, want {want:?}"));
        }
        (!out.is_empty()).then(|| out.join("; "))
    }
}

#[test]
fn every_dialect_reads_the_peers_outputs_at_every_chunking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dialects");
    let mut failures = Vec::new();
    let mut seen = 0;
    for dialect in BUILTIN {
        let dir = root.join(dialect);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no outputs for {dialect}");
        for file in files {
            seen += 1;
            let text = std::fs::read_to_string(&file).unwrap();
            let name = format!("{dialect}/{}", file.file_name().unwrap().to_string_lossy());
            let want: Value = match DIFFERENCES.iter().find(|d| d.0 == name) {
                Some((_, ours, _)) => serde_json::from_str(ours).unwrap(),
                None => serde_json::from_str(
                    &std::fs::read_to_string(file.with_extension("expected.json")).unwrap(),
                )
                .unwrap(),
            };
            let options = Options::of(&file);
            // The tool list the peer's test passes, where it passes one.
            let tools = std::fs::read_to_string(file.with_extension("tools.json"))
                .ok()
                .map(|t| {
                    let list: Value = serde_json::from_str(&t).unwrap();
                    actionstream::dialect::tools::tool_schemas(&list).unwrap()
                });
            // Without and with argument deltas (the oracle then checks
            // that each call's pieces make its arguments).
            for deltas in [false, true] {
                let how = if deltas { " (argument deltas)" } else { "" };
                let mut cfg = options.apply(config(dialect).argument_deltas(deltas));
                if let Some(tools) = &tools {
                    cfg = cfg.tools(tools.clone());
                }
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    common::parse_with(&cfg, &text)
                }));
                let events = match got {
                    Ok(ev) => ev,
                    Err(e) => {
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.push(format!("{name}{how}: invariant broken: {msg}"));
                        continue;
                    }
                };
                let (complete, invalid) = calls(&events);
                if let Some(text) = options.text_differs(&events) {
                    failures.push(format!("{name}{how}: {text}"));
                }
                if Value::Array(complete.clone()) != want || !invalid.is_empty() {
                    failures.push(format!(
                        "{name}{how}:\n  want {want}\n  got  {}\n  invalid {invalid:?}\n  events {:?}",
                        Value::Array(complete),
                        common::summary(&events)
                    ));
                }
            }
        }
    }
    assert!(seen >= 50);
    assert!(
        failures.is_empty(),
        "{} of {seen} outputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn actions_and_a_model_dialect_combine() {
    let config = config("qwen3_coder").actions(true);
    let text = "Hi <think>plan</think>\n```json\n{\"action\": \"a\", \"q\": \"<tool_call>\"}\n```\nthen <tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call> and <action_call name=\"g\">{}</action_call> end";
    let events = common::parse_with(&config, text);
    assert_eq!(
        common::summary(&events),
        [
            "N:Hi ",
            "R:plan",
            "N:\n",
            "S0:a",
            "C0:a:{\"q\":\"<tool_call>\"}",
            "N:then ",
            "S1:f",
            "C1:f:{\"x\":1}",
            "N: and ",
            "S2:g",
            "C2:g:{}",
            "N: end",
        ]
    );
}

#[test]
fn a_model_dialect_alone_leaves_fences_narrative() {
    let text = "```json\n{\"action\": \"a\"}\n```\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
    let events = common::parse_with(&config("hermes"), text);
    assert_eq!(
        common::summary(&events),
        ["N:```json\n{\"action\": \"a\"}\n```\n", "S0:f", "C0:f:{}"]
    );
}

/// A Qwen3-Coder model behind an OpenAI-compatible server with no tool
/// parser: its markers arrive as `delta.content` in small pieces (here the
/// peer's output cut into 3-character deltas, as a server streams tokens),
/// and the calls come out of the SSE stream at every chunking of its bytes.
#[test]
fn provider_text_goes_through_the_dialects() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/dialects/qwen3_coder/vllm_parallel_tools.txt"),
    )
    .unwrap();
    let chars: Vec<char> = text.chars().collect();
    let mut sse = String::new();
    for piece in chars.chunks(3) {
        let content: String = piece.iter().collect();
        let chunk = serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}],
        });
        sse.push_str(&format!("data: {chunk}\n\n"));
    }
    sse.push_str("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"q\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let items = common::sse::check_with(&config("qwen3_coder"), sse.as_bytes());
    let events: Vec<Event> = items
        .into_iter()
        .filter_map(|i| match i {
            actionstream::sse::SseItem::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let (complete, invalid) = calls(&events);
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/dialects/qwen3_coder/vllm_parallel_tools.expected.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(Value::Array(complete), want);
    assert!(invalid.is_empty());
}

/// Argument pieces concatenate to the arguments, for dialect calls (streamed)
/// and for fences (one piece before the end).
#[test]
fn argument_deltas_concatenate_to_the_arguments() {
    let cases = [
        (config("qwen3_coder").actions(true).argument_deltas(true), "<tool_call>\n<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=body>\nline one\nline \"two\"\n</parameter>\n</function>\n</tool_call>\n```json\n{\"action\": \"note\", \"text\": \"hi\"}\n```\n"),
        (config("hermes").argument_deltas(true), "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2, {\"b\": \"c d\"}], \"e\": 'py'}}\n</tool_call>"),
        (config("pythonic").argument_deltas(true), "[f(a='x\\ny', b=[1, 2.5, None]), g()]"),
        (config("kimi_k2").argument_deltas(true), "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0 <|tool_call_argument_begin|>{\"q\": \"x\"}<|tool_call_end|><|tool_calls_section_end|>"),
    ];
    for (config, text) in cases {
        let events = common::parse_with(&config, text);
        let mut pieces: std::collections::BTreeMap<u64, String> = Default::default();
        let mut checked = 0;
        for e in &events {
            match e {
                Event::ArgumentsDelta { id, json } => {
                    pieces.entry(id.0).or_default().push_str(json)
                }
                Event::ActionComplete(a) => {
                    let joined = pieces.get(&a.id.0).cloned().unwrap_or_default();
                    let parsed: Value = serde_json::from_str(&joined)
                        .unwrap_or_else(|e| panic!("{joined:?} is not JSON: {e}"));
                    assert_eq!(parsed, a.arguments, "{text}");
                    checked += 1;
                }
                Event::ActionInvalid(a) => panic!("invalid: {:?}", a.errors),
                _ => {}
            }
        }
        assert!(checked > 0);
    }
}

/// A 20 KB file body with quotes, backslashes, tabs, line endings and
/// non-ASCII text.
fn file_body() -> String {
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 20 << 10 {
        body.push_str(&format!(
            "line {i:05}: say \"hi\" \\ to ünïcödé ✓\tand {{braces}} [x]\n"
        ));
        i += 1;
    }
    body
}

#[test]
fn a_20kb_string_parameter_streams_in_pieces_in_every_dialect() {
    use common::dialects::{call, calls_text};
    let body = file_body();
    for dialect in BUILTIN {
        let args = serde_json::json!({"path": "notes.txt", "content": body});
        let text = format!(
            "Writing the file.\n{}",
            calls_text(dialect, &[call("write_file", args.clone())])
        );
        let at = text.find("line 00000").expect("the body is in the text");
        let cfg = config(dialect).argument_deltas(true);
        let mut parser = actionstream::Parser::new(cfg.clone());
        let mut events = Vec::new();
        let (mut first_delta, mut before_end, mut ended) = (None, 0, false);
        let mut pushed = 0;
        let mut all = Vec::new();
        for chunk in text.as_bytes().chunks(4) {
            parser.push_bytes(chunk, &mut events);
            pushed += chunk.len();
            for e in events.drain(..) {
                match &e {
                    Event::ArgumentsDelta { .. } if !ended => {
                        first_delta.get_or_insert(pushed);
                        before_end += 1;
                    }
                    Event::ActionComplete(_) | Event::ActionInvalid(_) => ended = true,
                    _ => {}
                }
                all.push(e);
            }
        }
        parser.finish(&mut events);
        all.append(&mut events);
        let all = actionstream::oracle::merge(all);
        actionstream::oracle::assert_argument_deltas(&all);
        assert_eq!(
            all,
            actionstream::oracle::run_chunks(&cfg, [text.as_bytes()]),
            "{dialect}: 4-byte pushes give the events of the whole text"
        );
        let complete: Vec<_> = all
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => Some((a.name.clone(), a.arguments.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            complete,
            [("write_file".to_owned(), args)],
            "{dialect}: the call"
        );
        assert!(
            before_end > 100,
            "{dialect}: only {before_end} argument deltas before the call ended"
        );
        let first = first_delta.expect("a delta");
        assert!(
            first < at + body.len() / 4,
            "{dialect}: the first delta came after {} of {} bytes of the value",
            first.saturating_sub(at),
            body.len()
        );
    }
}

/// A long raw value whose text has what ends a fast run through it: a `<`,
/// prefixes of every raw dialect's value end marker, the section closer,
/// line endings (`\r\n` too), non-ASCII text; read alike at every
/// chunking, argument deltas on and off, and with the block limit falling
/// inside the value, just before its end, at it and just after.
#[test]
fn long_raw_values_read_alike_at_every_chunking() {
    use common::dialects::{call, calls_text, RAW};
    let mut value = String::from("\n");
    for i in 0..6 {
        value.push_str(&format!(
            "line {i}: a < b && c </param </arg_val </｜DSML｜para x;\r\n  // </tool_call> ünï ✓ \"q\" \\ \t{{}}\n"
        ));
    }
    for dialect in RAW {
        let args = serde_json::json!({"path": "a.rs", "content": value, "n": 3});
        let text = format!(
            "Writing.\n{}\nDone.",
            calls_text(dialect, &[call("write_file", args)])
        );
        let opener = text.find('<').expect("a section opener");
        let section = text.rfind("Done.").expect("the end") - opener;
        for deltas in [false, true] {
            let cfg = config(dialect).argument_deltas(deltas);
            let events = actionstream::oracle::check(&cfg, &text);
            let (complete, invalid) = calls(&events);
            assert_eq!((complete.len(), invalid.len()), (1, 0), "{dialect}");
            for limit in [section / 2, section - 40, section - 1, section, section + 1] {
                actionstream::oracle::check(&cfg.clone().max_block_bytes(limit), &text);
            }
        }
    }
}

/// Each dialect's example response (`examples/responses/dialects/`), with
/// argument deltas off and on: the events lent by the borrowing path merge
/// to the collected ones at every chunking (the oracle's runs), and at
/// every small fixed piece size, where the pushes inside a long value
/// take the fast lane whole (the collecting path then writes the delta
/// straight to its output, the borrowing one lends it from one reused
/// event).
#[test]
fn borrowed_events_merge_to_the_collected_ones_for_every_dialect_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/responses/dialects");
    let mut seen = 0;
    for dialect in BUILTIN {
        let path = dir.join(format!("{dialect}.txt"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        seen += 1;
        for deltas in [false, true] {
            let cfg = config(dialect).argument_deltas(deltas);
            let whole = actionstream::oracle::check(&cfg, &text);
            assert!(
                whole.iter().any(|e| matches!(e, Event::ActionComplete(_))),
                "{dialect}: a call"
            );
            for size in 1..=9 {
                let pieces = || text.as_bytes().chunks(size);
                let collected = actionstream::oracle::run_chunks(&cfg, pieces());
                let lent = actionstream::oracle::run_chunks_borrowed(&cfg, pieces());
                assert_eq!(
                    collected, whole,
                    "{dialect}, deltas {deltas}, {size}-byte pieces"
                );
                assert_eq!(
                    lent, whole,
                    "{dialect}, deltas {deltas}, {size}-byte pieces, lent"
                );
            }
        }
    }
    assert!(seen >= 10, "only {seen} dialect examples");
}
