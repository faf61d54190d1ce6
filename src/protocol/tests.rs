//! The encoders on hand-made event sequences: ordering, invalid actions
//! before and after their start, append-only fragments, finish reasons.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{Calls, Encoder, Format, Options};
use crate::event::{Action, ActionError, ActionId, ErrorKind, Event, InvalidAction, Span, Syntax};

/// A dialect's action starts (its arguments stream: its call goes out with
/// their first fragment).
fn started(id: u64, name: Option<&str>) -> Event {
    started_as(id, name, Syntax::Dialect)
}

fn started_as(id: u64, name: Option<&str>, syntax: Syntax) -> Event {
    Event::ActionStarted {
        id: ActionId(id),
        name: name.map(str::to_owned),
        syntax,
        tag: "tool_call".into(),
    }
}

fn fragment(id: u64, json: &str) -> Event {
    Event::ArgumentsDelta {
        id: ActionId(id),
        json: json.into(),
    }
}

fn complete(id: u64, name: &str, arguments: Value, raw: &str, span: Span) -> Event {
    Event::ActionComplete(Box::new(Action {
        id: ActionId(id),
        name: name.into(),
        arguments,
        syntax: Syntax::Tag,
        tag: "tool_call".into(),
        attributes: Vec::new(),
        raw: Arc::from(raw),
        span: Some(span),
        repairs: Arc::from(Vec::new()),
    }))
}

fn invalid(id: u64, name: Option<&str>, raw: &str, span: Span) -> Event {
    Event::ActionInvalid(Box::new(InvalidAction {
        id: ActionId(id),
        name: name.map(str::to_owned),
        errors: vec![ActionError::new(ErrorKind::Syntax, "", "broken")],
        syntax: Syntax::Tag,
        tag: "tool_call".into(),
        raw: Arc::from(raw),
        span: Some(span),
    }))
}

fn span(start: usize, end: usize) -> Span {
    Span { start, end }
}

fn encode(format: Format, calls: Calls, events: &[Event]) -> String {
    let mut encoder = Encoder::new(format, Options::default().id("t").created(7).calls(calls));
    let mut out = String::new();
    for e in events {
        encoder.event(e, &mut out);
    }
    encoder.finish(&mut out);
    out
}

/// The frames of an SSE text: (event name, data as JSON, or the string
/// `[DONE]`). Asserts each frame is one optional `event:` line and one
/// `data:` line.
fn frames(out: &str) -> Vec<(Option<String>, Value)> {
    assert!(out.ends_with("\n\n"), "frames end with a blank line");
    out.trim_end_matches('\n')
        .split("\n\n")
        .map(|frame| {
            let mut name = None;
            let mut payload = None;
            for line in frame.split('\n') {
                if let Some(n) = line.strip_prefix("event: ") {
                    assert!(name.is_none() && payload.is_none(), "{frame}");
                    name = Some(n.to_owned());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    assert!(payload.is_none(), "{frame}");
                    payload = Some(if d == "[DONE]" {
                        Value::String("[DONE]".into())
                    } else {
                        serde_json::from_str(d).expect("data is JSON")
                    });
                } else {
                    panic!("unexpected line {line:?}");
                }
            }
            (name, payload.expect("a data line"))
        })
        .collect()
}

fn data(out: &str) -> Vec<Value> {
    frames(out).into_iter().map(|(_, v)| v).collect()
}

/// The `type` of each payload.
fn types(out: &str) -> Vec<String> {
    data(out)
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            v => v["type"].as_str().unwrap_or("?").to_owned(),
        })
        .collect()
}

/// A narrative, a call streamed in three fragments, more narrative.
fn streamed_call() -> Vec<Event> {
    vec![
        Event::Narrative("Héllo ".into()),
        Event::Narrative("wörld 🚀\n".into()),
        started(0, Some("search")),
        fragment(0, "{\"q\":"),
        fragment(0, "\"ru"),
        fragment(0, "st\"}"),
        complete(
            0,
            "search",
            json!({"q": "rust"}),
            "<tool_call>…</tool_call>",
            span(13, 40),
        ),
        Event::Narrative("Done.".into()),
    ]
}

#[test]
fn formats_by_name() {
    for f in Format::ALL {
        assert_eq!(f.as_str().parse::<Format>(), Ok(f));
        assert_eq!(f.to_string(), f.as_str());
    }
    let err = "openai".parse::<Format>().unwrap_err();
    assert!(err.to_string().contains("openai-chat, openai-responses"));
    assert!(Format::AiSdk
        .headers()
        .contains(&("x-vercel-ai-ui-message-stream", "v1")));
    assert!(Format::AgUi
        .headers()
        .contains(&("content-type", "text/event-stream")));
}

#[test]
fn events_format_is_the_wire_lines() {
    let events = streamed_call();
    let out = encode(Format::Events, Calls::Live, &events);
    let expected: String = events
        .iter()
        .filter_map(crate::wire::event_line)
        .map(|v| format!("{v}\n"))
        .collect();
    assert_eq!(out, expected);
    let mut e = Encoder::new(Format::Events, Options::default());
    let mut out = String::new();
    e.error("cut off", &mut out);
    assert_eq!(out, "{\"event\":\"error\",\"message\":\"cut off\"}\n");
}

#[test]
fn openai_chat_chunks() {
    let out = encode(Format::OpenAiChat, Calls::Live, &streamed_call());
    let chunks = data(&out);
    assert_eq!(chunks.last().unwrap(), "[DONE]");
    for c in &chunks[..chunks.len() - 1] {
        assert_eq!(c["id"], "chatcmpl-t");
        assert_eq!(c["object"], "chat.completion.chunk");
        assert_eq!(c["created"], 7);
        assert_eq!(c["model"], "actionstream");
        assert_eq!(c["choices"][0]["index"], 0);
    }
    let deltas: Vec<&Value> = chunks[..chunks.len() - 1]
        .iter()
        .map(|c| &c["choices"][0]["delta"])
        .collect();
    assert_eq!(deltas[0], &json!({"role": "assistant", "content": ""}));
    assert_eq!(deltas[1], &json!({"content": "Héllo "}));
    assert_eq!(deltas[2], &json!({"content": "wörld 🚀\n"}));
    assert_eq!(
        deltas[3],
        &json!({"tool_calls": [{"index": 0, "id": "call_t_0", "type": "function",
                                "function": {"name": "search", "arguments": ""}}]})
    );
    let args: String = deltas[4..7]
        .iter()
        .map(|d| {
            d["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(args, "{\"q\":\"rust\"}");
    assert_eq!(deltas[7], &json!({"content": "Done."}));
    let last = &chunks[chunks.len() - 2]["choices"][0];
    assert_eq!(last["delta"], json!({}));
    assert_eq!(last["finish_reason"], "tool_calls");
    assert!(chunks[..chunks.len() - 2]
        .iter()
        .all(|c| c["choices"][0]["finish_reason"].is_null()));
}

#[test]
fn arguments_without_fragments_go_out_whole_at_completion() {
    let events = [
        started(0, Some("f")),
        complete(0, "f", json!({"a": [1, 2], "b": "é"}), "raw", span(0, 3)),
    ];
    for format in [Format::OpenAiChat, Format::AiSdk, Format::AgUi] {
        let out = encode(format, Calls::Live, &events);
        assert_eq!(
            out.matches(r#"{\"a\":[1,2],\"b\":\"é\"}"#).count(),
            1,
            "{format}: {out}"
        );
    }
}

#[test]
fn invalid_before_its_start_goes_out_as_text_once_per_block() {
    // Two actions of one block, neither ever named: one raw text.
    let raw = "<tool_call>[1, 2]</tool_call>";
    let events = [
        Event::Narrative("a ".into()),
        started(0, None),
        started(1, None),
        invalid(0, None, raw, span(2, 31)),
        invalid(1, None, raw, span(2, 31)),
        Event::Narrative(" b".into()),
    ];
    let chat = data(&encode(Format::OpenAiChat, Calls::Live, &events));
    let text: String = chat
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, format!("a {raw} b"));
    assert!(!chat
        .iter()
        .any(|c| c["choices"][0]["delta"].get("tool_calls").is_some()));
    assert_eq!(chat[chat.len() - 2]["choices"][0]["finish_reason"], "stop");

    let anthropic = encode(Format::Anthropic, Calls::Live, &events);
    assert!(!anthropic.contains("tool_use"));
    assert!(anthropic.contains(r#""stop_reason":"end_turn""#));
    assert_eq!(anthropic.matches("<tool_call>").count(), 1);

    for (format, delta) in [
        (Format::OpenAiResponses, "response.output_text.delta"),
        (Format::AiSdk, "text-delta"),
        (Format::AgUi, "TEXT_MESSAGE_CONTENT"),
    ] {
        let out = encode(format, Calls::Live, &events);
        let text: String = data(&out)
            .iter()
            .filter(|v| v["type"] == delta)
            .filter_map(|v| v["delta"].as_str())
            .collect();
        assert_eq!(text, format!("a {raw} b"), "{format}");
        assert!(!out.to_lowercase().contains("function_call"), "{format}");
        assert!(!out.contains("tool-input"), "{format}");
        assert!(!out.contains("TOOL_CALL"), "{format}");
    }
}

/// A call that starts, sends a fragment, then ends invalid; nothing else
/// completes.
fn failed_call() -> Vec<Event> {
    vec![
        Event::Narrative("Try:\n".into()),
        started(0, Some("escalate")),
        fragment(0, "{\"to\":"),
        invalid(
            0,
            Some("escalate"),
            "<tool_call>{\"name\": \"escalate\", \"arguments\": {\"to\": }}</tool_call>",
            span(5, 50),
        ),
    ]
}

#[test]
fn a_started_call_that_ends_invalid_fails_in_each_protocol() {
    let events = failed_call();

    let chat = data(&encode(Format::OpenAiChat, Calls::Live, &events));
    assert_eq!(chat[chat.len() - 2]["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        chat[3]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"],
        "{\"to\":"
    );

    let responses = data(&encode(Format::OpenAiResponses, Calls::Live, &events));
    let done: Vec<&Value> = responses
        .iter()
        .filter(|e| e["type"] == "response.output_item.done")
        .collect();
    let call = &done.last().unwrap()["item"];
    assert_eq!(call["type"], "function_call");
    assert_eq!(call["status"], "incomplete");
    assert_eq!(call["arguments"], "{\"to\":");
    assert!(!responses
        .iter()
        .any(|e| e["type"] == "response.function_call_arguments.done"));
    let completed = responses.last().unwrap();
    assert_eq!(completed["type"], "response.completed");
    assert_eq!(completed["response"]["output"][1]["status"], "incomplete");

    let anthropic = data(&encode(Format::Anthropic, Calls::Live, &events));
    let kinds: Vec<&str> = anthropic
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(anthropic[7]["delta"]["stop_reason"], "end_turn");

    let ai = data(&encode(Format::AiSdk, Calls::Live, &events));
    let error = ai.iter().find(|c| c["type"] == "tool-input-error").unwrap();
    assert_eq!(error["toolName"], "escalate");
    assert_eq!(error["toolCallId"], "call_t_0");
    assert_eq!(error["errorText"], "broken");
    assert!(error["input"].as_str().unwrap().starts_with("<tool_call>"));
    assert_eq!(ai[ai.len() - 2]["finishReason"], "stop");

    let ag = types(&encode(Format::AgUi, Calls::Live, &events));
    assert_eq!(
        ag,
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED"
        ]
    );
}

#[test]
fn calls_complete_holds_each_call_and_never_shows_a_failed_one() {
    let mut events = failed_call();
    events.extend(streamed_call());
    for format in [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::AiSdk,
        Format::AgUi,
    ] {
        let out = encode(format, Calls::Complete, &events);
        // The invalid action is text; the good one is a call, whole.
        assert!(
            out.contains(r#"\"escalate\", \"arguments\": {\"to\": }"#),
            "{format}"
        );
        assert!(!out.contains(r#""name":"escalate""#), "{format}");
        assert!(!out.contains(r#""toolCallName":"escalate""#), "{format}");
        assert_eq!(
            out.matches(r#"{\"q\":\"rust\"}"#).count().min(1),
            1,
            "{format}"
        );
        assert!(!out.contains(r#"\"ru""#), "{format}: no held fragments");
    }
    // The AI SDK also reports the named invalid action as an input error.
    let ai = data(&encode(Format::AiSdk, Calls::Complete, &events));
    let kinds: Vec<&str> = ai.iter().filter_map(|c| c["type"].as_str()).collect();
    let error_at = kinds.iter().position(|k| *k == "tool-input-error").unwrap();
    assert_eq!(kinds[error_at - 1], "text-end", "the raw text first");
    assert!(!kinds[..error_at].contains(&"tool-input-start"));
    assert_eq!(ai[ai.len() - 2]["finishReason"], "tool-calls");
}

#[test]
fn anthropic_blocks_never_interleave() {
    // Two calls of one block: both start before either ends; narrative
    // after the block.
    let events = [
        started(0, Some("a")),
        fragment(0, "{\"x\":1}"),
        started(1, Some("b")),
        fragment(1, "{}"),
        complete(0, "a", json!({"x": 1}), "raw", span(0, 3)),
        complete(1, "b", json!({}), "raw", span(0, 3)),
        Event::Narrative("after".into()),
    ];
    let out = data(&encode(Format::Anthropic, Calls::Live, &events));
    let lines: Vec<String> = out
        .iter()
        .map(|e| match e["type"].as_str().unwrap() {
            "content_block_start" => format!(
                "start {} {}",
                e["index"],
                e["content_block"]["name"].as_str().unwrap_or("text")
            ),
            "content_block_delta" => format!("delta {}", e["index"]),
            "content_block_stop" => format!("stop {}", e["index"]),
            other => other.to_owned(),
        })
        .collect();
    assert_eq!(
        lines,
        [
            "message_start",
            "start 0 a",
            "delta 0",
            "stop 0",
            "start 1 b",
            "delta 1",
            "stop 1",
            "start 2 text",
            "delta 2",
            "stop 2",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(out[10]["delta"]["stop_reason"], "tool_use");
    // Every frame is named by its type, as the SDKs read it.
    for (name, v) in frames(&encode(Format::Anthropic, Calls::Live, &events)) {
        assert_eq!(name.as_deref(), v["type"].as_str());
    }
}

#[test]
fn other_protocols_keep_calls_live_and_interleaved() {
    let events = [
        started(0, Some("a")),
        fragment(0, "{\"x\":"),
        started(1, Some("b")),
        fragment(1, "{"),
        fragment(0, "1}"),
        fragment(1, "}"),
        complete(0, "a", json!({"x": 1}), "raw", span(0, 3)),
        complete(1, "b", json!({}), "raw", span(0, 3)),
    ];
    let kinds = types(&encode(Format::AiSdk, Calls::Live, &events));
    assert_eq!(
        kinds,
        [
            "start",
            "start-step",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-delta",
            "tool-input-delta",
            "tool-input-available",
            "tool-input-available",
            "finish-step",
            "finish",
            "[DONE]"
        ]
    );
    let chat = data(&encode(Format::OpenAiChat, Calls::Live, &events));
    let indexes: Vec<u64> = chat
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["index"].as_u64())
        .collect();
    assert_eq!(indexes, [0, 0, 1, 1, 0, 1]);
}

#[test]
fn chat_call_indexes_count_the_calls_that_went_out() {
    // Action 0 never goes out (no name); action 1 is the first call.
    let events = [
        started(0, None),
        invalid(0, None, "x", span(0, 1)),
        started(1, Some("f")),
        complete(1, "f", json!({}), "y", span(1, 2)),
    ];
    let chat = data(&encode(Format::OpenAiChat, Calls::Live, &events));
    let calls: Vec<&Value> = chat
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert_eq!(calls[0]["index"], 0);
    assert_eq!(calls[0]["function"]["name"], "f");
}

#[test]
fn responses_events_and_the_final_response() {
    let mut events = vec![
        Event::Reasoning("think ".into()),
        Event::Reasoning("more".into()),
    ];
    events.extend(streamed_call());
    let out = encode(Format::OpenAiResponses, Calls::Live, &events);
    let frames = frames(&out);
    for (i, (name, v)) in frames.iter().enumerate() {
        assert_eq!(name.as_deref(), v["type"].as_str());
        assert_eq!(v["sequence_number"], i, "sequence numbers count from 0");
    }
    let kinds: Vec<&str> = frames
        .iter()
        .map(|(_, v)| v["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.reasoning_text.delta",
            "response.reasoning_text.delta",
            "response.reasoning_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let response = &frames.last().unwrap().1["response"];
    assert_eq!(response["id"], "resp_t");
    assert_eq!(response["status"], "completed");
    let output = response["output"].as_array().unwrap();
    assert_eq!(output.len(), 4);
    assert_eq!(output[0]["content"][0]["text"], "think more");
    assert_eq!(output[1]["content"][0]["text"], "Héllo wörld 🚀\n");
    assert_eq!(output[2]["arguments"], "{\"q\":\"rust\"}");
    assert_eq!(output[2]["name"], "search");
    assert_eq!(output[2]["status"], "completed");
    assert_eq!(output[3]["content"][0]["text"], "Done.");
}

#[test]
fn errors_in_each_protocol() {
    let run = |format| {
        let mut e = Encoder::new(format, Options::default().id("t").created(0));
        let mut out = String::new();
        e.event(&Event::Narrative("hi".into()), &mut out);
        e.error("the response is cut off", &mut out);
        e.finish(&mut out);
        // Nothing after the end.
        let len = out.len();
        e.event(&Event::Narrative("late".into()), &mut out);
        e.finish(&mut out);
        assert_eq!(out.len(), len);
        out
    };
    let chat = data(&run(Format::OpenAiChat));
    assert_eq!(
        chat[chat.len() - 2]["error"]["message"],
        "the response is cut off"
    );
    assert!(!chat
        .iter()
        .any(|c| c["choices"][0]["finish_reason"].is_string()));

    let responses = data(&run(Format::OpenAiResponses));
    assert!(responses.iter().any(|e| e["type"] == "error"));
    let last = responses.last().unwrap();
    assert_eq!(last["type"], "response.failed");
    assert_eq!(
        last["response"]["error"]["message"],
        "the response is cut off"
    );

    let anthropic = types(&run(Format::Anthropic));
    assert_eq!(anthropic[anthropic.len() - 2..], ["error", "message_stop"]);
    assert!(!anthropic.contains(&"message_delta".to_owned()));

    let ai = data(&run(Format::AiSdk));
    assert!(ai.iter().any(|c| c["type"] == "error"));
    assert_eq!(ai[ai.len() - 2]["finishReason"], "error");

    let ag = types(&run(Format::AgUi));
    assert_eq!(ag.last().unwrap(), "RUN_ERROR");
    assert!(!ag.contains(&"RUN_FINISHED".to_owned()));
}

#[test]
fn a_call_still_open_at_the_end_fails_and_what_waited_goes_out() {
    let events = [
        started(0, Some("a")),
        fragment(0, "{\"x\""),
        Event::Narrative("later".into()),
    ];
    let anthropic = encode(Format::Anthropic, Calls::Live, &events);
    assert!(anthropic.contains("later"));
    assert!(anthropic.contains(r#""stop_reason":"end_turn""#));
    let ai = data(&encode(Format::AiSdk, Calls::Live, &events));
    assert!(ai.iter().any(|c| c["type"] == "tool-input-error"));
}

#[test]
fn empty_text_and_deltas_write_nothing() {
    let events = [
        Event::Narrative(String::new()),
        Event::Reasoning(String::new()),
        Event::ActionDelta {
            id: ActionId(0),
            text: "raw".into(),
        },
    ];
    for format in [
        Format::OpenAiChat,
        Format::Anthropic,
        Format::AiSdk,
        Format::AgUi,
    ] {
        let mut e = Encoder::new(format, Options::default().id("t"));
        let mut start = String::new();
        e.start(&mut start);
        let mut out = String::new();
        for ev in &events {
            e.event(ev, &mut out);
        }
        assert_eq!(out, "", "{format}");
    }
}

#[test]
fn default_ids_differ_between_encoders() {
    let run = || {
        let mut e = Encoder::new(Format::OpenAiChat, Options::default());
        let mut out = String::new();
        e.start(&mut out);
        data(&out)[0]["id"].as_str().unwrap().to_owned()
    };
    assert_ne!(run(), run());
}

#[test]
#[should_panic(expected = "do not join to its arguments")]
fn fragments_that_do_not_join_to_the_arguments_are_caught_in_tests() {
    let events = [
        started(0, Some("f")),
        fragment(0, "{\"a\":1}"),
        complete(0, "f", json!({"a": 2}), "raw", span(0, 3)),
    ];
    encode(Format::OpenAiChat, Calls::Live, &events);
}

/// Whether `out` holds a tool call's start in `format`.
fn has_call(format: Format, out: &str) -> bool {
    match format {
        Format::Events => out.contains("action_complete"),
        Format::OpenAiChat => out.contains("tool_calls"),
        Format::OpenAiResponses => out.contains("function_call"),
        Format::Anthropic => out.contains("tool_use"),
        Format::AiSdk => out.contains("tool-input-start"),
        Format::AgUi => out.contains("TOOL_CALL_START"),
    }
}

/// Feeds `events` one at a time; returns what each wrote.
fn outputs(format: Format, events: &[Event]) -> Vec<String> {
    let mut encoder = Encoder::new(format, Options::default().id("t").created(7));
    let mut start = String::new();
    encoder.start(&mut start);
    let mut outs: Vec<String> = events
        .iter()
        .map(|e| {
            let mut out = String::new();
            encoder.event(e, &mut out);
            out
        })
        .collect();
    let mut out = String::new();
    encoder.finish(&mut out);
    outs.push(out);
    outs
}

const PROTOCOLS: [Format; 5] = [
    Format::OpenAiChat,
    Format::OpenAiResponses,
    Format::Anthropic,
    Format::AiSdk,
    Format::AgUi,
];

#[test]
fn a_dialect_call_goes_out_with_its_first_fragment_not_at_its_start() {
    let events = [
        started(0, Some("search")),
        Event::Reasoning("still thinking".into()),
        fragment(0, "{\"q\":"),
        fragment(0, "\"rust\"}"),
        complete(0, "search", json!({"q": "rust"}), "raw", span(0, 3)),
    ];
    for format in PROTOCOLS {
        let outs = outputs(format, &events);
        assert_eq!(outs[0], "", "{format}: nothing on the name alone");
        assert!(!has_call(format, &outs[1]), "{format}: {}", outs[1]);
        assert!(has_call(format, &outs[2]), "{format}: {}", outs[2]);
        assert!(
            outs[2].contains("search"),
            "{format}: the name goes with it"
        );
        assert!(outs[2].contains(r#"{\"q\":"#), "{format}: and the fragment");
    }
    let mut encoder = Encoder::new(Format::OpenAiChat, Options::default());
    let mut out = String::new();
    encoder.event(&events[0], &mut out);
    assert_eq!(encoder.call_index(ActionId(0)), None);
    encoder.event(&events[2], &mut out);
    assert_eq!(encoder.call_index(ActionId(0)), Some(0));
}

#[test]
fn a_dialect_call_without_arguments_goes_out_when_it_completes() {
    let events = [
        Event::Narrative("Now.".into()),
        started(0, Some("now")),
        complete(0, "now", json!({}), "raw", span(4, 7)),
    ];
    for format in PROTOCOLS {
        let outs = outputs(format, &events);
        assert_eq!(outs[1], "", "{format}");
        assert!(has_call(format, &outs[2]), "{format}: {}", outs[2]);
        assert!(outs[2].contains("now"), "{format}");
        assert!(outs[2].contains("{}"), "{format}: empty arguments, whole");
    }
    // The same, ending invalid: never a call.
    let events = [
        started(0, Some("now")),
        invalid(0, Some("now"), "<tool_call>now</tool_call>", span(0, 26)),
    ];
    for format in PROTOCOLS {
        let out = encode(format, Calls::Live, &events);
        assert!(!has_call(format, &out), "{format}: {out}");
        assert!(out.contains("<tool_call>now</tool_call>"), "{format}");
    }
}

#[test]
fn a_fence_or_tag_call_goes_out_only_when_it_completes() {
    for syntax in [Syntax::Fence, Syntax::Tag] {
        let events = [
            started_as(0, Some("f"), syntax),
            fragment(0, "{\"a\":1}"),
            complete(0, "f", json!({"a": 1}), "raw", span(0, 3)),
        ];
        for format in PROTOCOLS {
            let outs = outputs(format, &events);
            assert_eq!(outs[0], "", "{format} {syntax:?}");
            assert_eq!(outs[1], "", "{format} {syntax:?}: its one fragment waits");
            assert!(has_call(format, &outs[2]), "{format} {syntax:?}");
            assert_eq!(outs[2].matches(r#"{\"a\":1}"#).count().min(1), 1);
        }
        // Its arguments whole, then invalid (a schema refused them): text.
        let raw = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>";
        let events = [
            started_as(0, Some("f"), syntax),
            fragment(0, "{\"a\":1}"),
            invalid(0, Some("f"), raw, span(0, raw.len())),
        ];
        for format in PROTOCOLS {
            let out = encode(format, Calls::Live, &events);
            assert!(!has_call(format, &out), "{format} {syntax:?}: {out}");
            assert!(!out.contains("tool_use") && !out.contains("\"tool_calls\""));
        }
    }
}
