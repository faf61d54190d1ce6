//! The gateway's agent APIs (contract, section 10): Anthropic Messages
//! (`/v1/messages`, `/v1/messages/count_tokens`) and OpenAI Responses
//! (`/v1/responses`) in front of an upstream test server that writes
//! Qwen3-Coder's raw format in small pieces, over loopback HTTP.
#![cfg(feature = "serve")]

mod gateway;

use std::time::Duration;

use actionstream::serve::ServeConfig;
use gateway::{Reply, Script, Upstream};
use serde_json::{json, Value};

const QWEN: &str = "Qwen/Qwen3-Coder-30B-A3B-Instruct";
const LIMIT: Duration = Duration::from_secs(30);

/// The file body the model writes: long, with backticks, quotes, escapes
/// and unicode.
fn body_text() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 20_000 {
        s.push_str(&format!(
            "line {i}: `code` \"quoted\" 'single' \\back\\slash <tag> & naïve café 日本語 🚀\n"
        ));
        i += 1;
    }
    s
}

/// Qwen3-Coder's raw answer: reasoning, prose, one `write_file` call.
fn qwen_output(body: &str) -> String {
    format!(
        "<think>\nThe user wants a file. I will write it.\n</think>\n\nI'll write the file now.\n<tool_call>\n<function=write_file>\n<parameter=path>\nout/notes.txt\n</parameter>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>"
    )
}

fn anthropic_tools() -> Value {
    json!([{
        "name": "write_file",
        "description": "Writes a file.",
        "input_schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
            "additionalProperties": false,
        },
    }])
}

fn responses_tools() -> Value {
    json!([
        {"type": "function", "name": "write_file", "description": "Writes a file.", "strict": false,
         "parameters": {"type": "object",
                        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                        "required": ["path", "content"]}},
        {"type": "web_search"},
    ])
}

fn messages_request(stream: bool) -> Value {
    json!({
        "model": QWEN,
        "max_tokens": 4096,
        "stream": stream,
        "system": [{"type": "text", "text": "You are a coding agent.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Write out/notes.txt."}],
        "tools": anthropic_tools(),
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "metadata": {"user_id": "u"},
    })
}

fn responses_request(stream: bool) -> Value {
    json!({
        "model": QWEN,
        "stream": stream,
        "store": false,
        "parallel_tool_calls": true,
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are a coding agent."}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Write out/notes.txt."}]},
        ],
        "tools": responses_tools(),
        "tool_choice": "auto",
        "reasoning": {"effort": "medium"},
        "include": ["reasoning.encrypted_content"],
    })
}

/// The SSE frames of a body: (event name, data).
fn frames(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .map(|f| {
            let mut event = String::new();
            let mut data = Value::Null;
            for line in f.lines() {
                if let Some(e) = line.strip_prefix("event: ") {
                    event = e.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(d).unwrap_or_else(|e| panic!("{e}: {d}"));
                }
            }
            (event, data)
        })
        .collect()
}

async fn post(url: &str, path: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{url}{path}"))
        .header("x-api-key", "sk-client")
        .header("anthropic-version", "2023-06-01")
        .header(
            "anthropic-beta",
            "interleaved-thinking-2025-05-14,context-management-2025-06-27",
        )
        .json(body)
        .send()
        .await
        .unwrap()
}

/// What an Anthropic stream said, folded as the SDKs fold it.
#[derive(Debug, Default)]
struct Message {
    thinking: String,
    text: String,
    calls: Vec<(String, String, String, usize)>,
    stop_reason: Option<String>,
    usage: Value,
    errors: Vec<String>,
    kinds: Vec<String>,
}

fn fold_message(text: &str) -> Message {
    let mut m = Message::default();
    let mut open: Option<String> = None;
    for (event, data) in frames(text) {
        assert_eq!(event, data["type"], "the event name is the type");
        m.kinds.push(event.clone());
        match event.as_str() {
            "content_block_start" => {
                let block = &data["content_block"];
                open = Some(block["type"].as_str().unwrap().to_owned());
                if block["type"] == "tool_use" {
                    m.calls.push((
                        block["id"].as_str().unwrap().to_owned(),
                        block["name"].as_str().unwrap().to_owned(),
                        String::new(),
                        0,
                    ));
                }
            }
            "content_block_delta" => {
                let d = &data["delta"];
                match d["type"].as_str().unwrap() {
                    "thinking_delta" => m.thinking.push_str(d["thinking"].as_str().unwrap()),
                    "text_delta" => m.text.push_str(d["text"].as_str().unwrap()),
                    "input_json_delta" => {
                        let call = m.calls.last_mut().unwrap();
                        call.2.push_str(d["partial_json"].as_str().unwrap());
                        call.3 += 1;
                    }
                    other => panic!("unexpected delta {other}"),
                }
            }
            "content_block_stop" => open = None,
            "message_delta" => {
                m.stop_reason = data["delta"]["stop_reason"].as_str().map(str::to_owned);
                m.usage = data["usage"].clone();
            }
            "error" => m
                .errors
                .push(data["error"]["message"].as_str().unwrap().to_owned()),
            _ => {}
        }
    }
    assert!(open.is_none(), "every block stopped");
    m
}

/// The chunkings of the upstream's text: whole, one character, a few
/// fixed sizes and seeded random sizes.
fn chunkings(len: usize) -> Vec<Script> {
    let out = qwen_output(&body_text());
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let random: Vec<usize> = (0..512)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            1 + (seed % 40) as usize
        })
        .collect();
    vec![
        Script::new(&out).delta_chars(len),
        Script::new(&out).delta_chars(1),
        Script::new(&out).delta_chars(3),
        Script::new(&out).delta_chars(17),
        Script::new(&out).sizes(random),
    ]
}

/// Claude Code's request shape, streamed, at every chunking: thinking,
/// prose, and the call with its 20 KB argument streamed in pieces; usage
/// from the upstream; the upstream saw the translated Chat request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_stream_the_call_at_every_chunking() {
    let body = body_text();
    for (n, script) in chunkings(usize::MAX).into_iter().enumerate() {
        let script = script.usage();
        let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
        let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
        let response = post(&url, "/v1/messages?beta=true", &messages_request(true)).await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let text = tokio::time::timeout(LIMIT, response.text())
            .await
            .unwrap()
            .unwrap();
        let m = fold_message(&text);
        assert_eq!(m.kinds.first().map(String::as_str), Some("message_start"));
        assert_eq!(
            m.kinds[m.kinds.len() - 2..],
            ["message_delta", "message_stop"]
        );
        assert!(m.errors.is_empty(), "{:?}", m.errors);
        assert_eq!(m.thinking.trim(), "The user wants a file. I will write it.");
        assert_eq!(m.text.trim(), "I'll write the file now.");
        assert_eq!(m.calls.len(), 1);
        let (id, name, args, fragments) = &m.calls[0];
        assert!(id.starts_with("toolu_"), "{id}");
        assert_eq!(name, "write_file");
        let args: Value = serde_json::from_str(args).unwrap();
        assert_eq!(args, json!({"path": "out/notes.txt", "content": body}));
        assert!(n == 0 || *fragments > 1, "the arguments stream in pieces");
        assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(m.usage, json!({"input_tokens": 10, "output_tokens": 20}));

        let received = upstream.received();
        assert_eq!(received.len(), 1);
        assert_eq!(
            received[0].authorization.as_deref(),
            Some("Bearer sk-client")
        );
        assert_eq!(
            received[0].body,
            json!({
                "model": QWEN,
                "messages": [
                    {"role": "system", "content": "You are a coding agent."},
                    {"role": "user", "content": "Write out/notes.txt."},
                ],
                "tools": [{"type": "function", "function": {
                    "name": "write_file", "description": "Writes a file.",
                    "parameters": anthropic_tools()[0]["input_schema"],
                }}],
                "max_tokens": 4096,
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
    }
}

/// Codex CLI's request shape, streamed, at every chunking: a reasoning
/// item, a message, the function call streamed, `response.completed` with
/// the usage; `web_search` left out of what the upstream sees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_stream_the_call_at_every_chunking() {
    let body = body_text();
    for (n, script) in chunkings(usize::MAX).into_iter().enumerate() {
        let script = script.usage();
        let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
        let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
        let response = post(&url, "/v1/responses", &responses_request(true)).await;
        assert_eq!(response.status(), 200);
        let text = tokio::time::timeout(LIMIT, response.text())
            .await
            .unwrap()
            .unwrap();
        let events = frames(&text);
        let kinds: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
        assert_eq!(kinds[0], "response.created");
        assert_eq!(*kinds.last().unwrap(), "response.completed");
        let deltas = kinds
            .iter()
            .filter(|k| **k == "response.function_call_arguments.delta")
            .count();
        assert!(n == 0 || deltas > 1, "the arguments stream in pieces");
        let response = &events.last().unwrap().1["response"];
        assert_eq!(response["status"], "completed");
        let output = response["output"].as_array().unwrap();
        let types: Vec<&str> = output.iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["reasoning", "message", "function_call"]);
        assert_eq!(
            output[0]["content"][0]["text"].as_str().unwrap().trim(),
            "The user wants a file. I will write it."
        );
        assert_eq!(
            output[1]["content"][0]["text"].as_str().unwrap().trim(),
            "I'll write the file now."
        );
        let call = &output[2];
        assert!(call["call_id"].as_str().unwrap().starts_with("call_"));
        assert_eq!(call["name"], "write_file");
        assert_eq!(call["status"], "completed");
        let args: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, json!({"path": "out/notes.txt", "content": body}));
        assert_eq!(response["usage"]["input_tokens"], 10);
        assert_eq!(response["usage"]["output_tokens"], 20);
        assert_eq!(response["usage"]["total_tokens"], 30);

        let received = upstream.received();
        assert_eq!(
            received[0].body,
            json!({
                "model": QWEN,
                "messages": [
                    {"role": "system", "content": "You are a coding agent."},
                    {"role": "user", "content": "Write out/notes.txt."},
                ],
                "tools": [{"type": "function", "function": {
                    "name": "write_file", "description": "Writes a file.",
                    "parameters": responses_tools()[0]["parameters"],
                }}],
                "tool_choice": "auto",
                "parallel_tool_calls": true,
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
    }
}

/// Reads a streaming body until the argument fragments so far contain
/// `marker`; the text.
async fn read_until_arguments(response: &mut reqwest::Response, marker: &str) -> String {
    let mut text = String::new();
    let mut done = 0;
    let mut arguments = String::new();
    while !arguments.contains(marker) {
        let chunk = tokio::time::timeout(LIMIT, response.chunk())
            .await
            .unwrap_or_else(|_| {
                panic!("the gateway answered in time; arguments so far: {arguments}")
            })
            .unwrap()
            .expect("the body did not end first");
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        if let Some(end) = text.rfind("\n\n") {
            if end > done {
                for (event, data) in frames(&text[done..end]) {
                    let fragment = match event.as_str() {
                        "content_block_delta" => data["delta"]["partial_json"].as_str(),
                        "response.function_call_arguments.delta" => data["delta"].as_str(),
                        _ => None,
                    };
                    arguments.push_str(fragment.unwrap_or(""));
                }
                done = end;
            }
        }
    }
    text
}

/// The call's start and its first argument pieces reach the client while
/// the upstream is held inside the long parameter: the answer streams as
/// it is read, in both APIs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_streams_while_the_upstream_is_still_writing_it() {
    let output = qwen_output(&body_text());
    let middle = output.find("line 150:").unwrap();
    let script = Script::new(&output).delta_chars(9).hold_at(middle);
    let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    for (path, body, marker) in [
        ("/v1/messages", messages_request(true), "line 149:"),
        ("/v1/responses", responses_request(true), "line 149:"),
    ] {
        let before = upstream.finished();
        let mut response = post(&url, path, &body).await;
        let text = read_until_arguments(&mut response, marker).await;
        assert_eq!(upstream.finished(), before, "the upstream is still held");
        assert!(!text.contains("message_stop") && !text.contains("response.completed"));
        upstream.release(1);
        let rest = tokio::time::timeout(LIMIT, response.text())
            .await
            .unwrap()
            .unwrap();
        assert!(rest.contains("message_stop") || rest.contains("response.completed"));
        upstream.release(0);
    }
}

/// A whole answer (`stream: false`) is the same content as one object; the
/// upstream is asked without streaming.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_answers_are_one_object() {
    let output = qwen_output("short body `x` \"y\" é");
    let upstream = Upstream::start(move |_| {
        Reply::Json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": QWEN,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": output}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46},
        }))
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;

    let response = post(&url, "/v1/messages", &messages_request(false)).await;
    assert_eq!(response.status(), 200);
    let m: Value = response.json().await.unwrap();
    assert_eq!(m["type"], "message");
    assert_eq!(m["role"], "assistant");
    assert!(m["id"].as_str().unwrap().starts_with("msg_"));
    let content = m["content"].as_array().unwrap();
    let kinds: Vec<&str> = content
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["thinking", "text", "tool_use"]);
    assert!(content[2]["id"].as_str().unwrap().starts_with("toolu_"));
    assert_eq!(
        content[2]["input"],
        json!({"path": "out/notes.txt", "content": "short body `x` \"y\" é"})
    );
    assert_eq!(m["stop_reason"], "tool_use");
    assert_eq!(m["usage"]["input_tokens"], 12);
    assert_eq!(m["usage"]["output_tokens"], 34);
    assert_eq!(upstream.received()[0].body["stream"], false);

    let response = post(&url, "/v1/responses", &responses_request(false)).await;
    assert_eq!(response.status(), 200);
    let r: Value = response.json().await.unwrap();
    assert_eq!(r["object"], "response");
    assert_eq!(r["status"], "completed");
    let types: Vec<&str> = r["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["reasoning", "message", "function_call"]);
    assert_eq!(r["usage"]["total_tokens"], 46);
}

/// Anthropic's `thinking` decides how the answer of a model whose template
/// opens reasoning (DeepSeek-R1) is read: omitted or `enabled`, the text up
/// to `</think>` is a thinking block; `disabled`, the reasoning-open default
/// is off and no thinking block is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_thinking_says_whether_reasoning_opens() {
    let upstream = Upstream::start(|_| {
        Reply::Json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "r1",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant",
                                     "content": "Weighing it.\n</think>\n\nThe answer."}}],
        }))
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    for (thinking, opens) in [
        (None, true),
        (
            Some(json!({"type": "enabled", "budget_tokens": 1024})),
            true,
        ),
        (Some(json!({"type": "disabled"})), false),
    ] {
        let mut request = json!({
            "model": "deepseek-ai/DeepSeek-R1",
            "max_tokens": 256,
            "messages": [{"role": "user", "content": "Which?"}],
        });
        if let Some(t) = &thinking {
            request["thinking"] = t.clone();
        }
        let response = post(&url, "/v1/messages", &request).await;
        assert_eq!(response.status(), 200, "thinking {thinking:?}");
        let m: Value = response.json().await.unwrap();
        let blocks = m["content"].as_array().unwrap();
        let of = |kind: &str| -> String {
            blocks
                .iter()
                .filter(|b| b["type"] == kind)
                .map(|b| b[kind].as_str().unwrap_or_default().to_owned())
                .collect()
        };
        if opens {
            assert_eq!(
                of("thinking").trim(),
                "Weighing it.",
                "thinking {thinking:?}: {m}"
            );
            assert_eq!(
                of("text").trim(),
                "The answer.",
                "thinking {thinking:?}: {m}"
            );
        } else {
            assert_eq!(of("thinking"), "", "thinking {thinking:?}: {m}");
            assert!(
                of("text").starts_with("Weighing it."),
                "thinking {thinking:?}: {m}"
            );
        }
    }
    // The field is read, not sent on.
    assert!(upstream
        .received()
        .iter()
        .all(|r| r.body.get("thinking").is_none()));
}

/// An upstream that breaks off mid-call: the API's error event, then a
/// proper end (`message_stop`; `response.failed`), the open call stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_breaks_off_ends_each_stream_properly() {
    let output = qwen_output(&body_text());
    let at = output.find("line 40:").unwrap();
    let script = Script::new(&output).delta_chars(11).break_at(at);
    let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;

    let response = post(&url, "/v1/messages", &messages_request(true)).await;
    assert_eq!(response.status(), 200);
    let text = tokio::time::timeout(LIMIT, response.text())
        .await
        .unwrap()
        .unwrap();
    let m = fold_message(&text);
    assert_eq!(m.kinds[m.kinds.len() - 2..], ["error", "message_stop"]);
    assert!(!m.kinds.contains(&"message_delta".to_owned()));
    assert!(m.errors[0].contains("broke off"), "{:?}", m.errors);
    assert_eq!(m.calls.len(), 1, "the call had gone out");

    let response = post(&url, "/v1/responses", &responses_request(true)).await;
    let text = tokio::time::timeout(LIMIT, response.text())
        .await
        .unwrap()
        .unwrap();
    let events = frames(&text);
    let (last, data) = events.last().unwrap();
    assert_eq!(last, "response.failed");
    assert!(data["response"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("broke off"));
    assert!(events.iter().any(|(e, _)| e == "error"));
    let call = data["response"]["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call")
        .unwrap();
    assert_eq!(call["status"], "incomplete");
}

/// An answer cut at the upstream's token limit: `max_tokens`;
/// `response.incomplete`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_length_finish_is_max_tokens_and_incomplete() {
    let script = Script::new("A long story that").finish("length").usage();
    let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let response = post(&url, "/v1/messages", &messages_request(true)).await;
    let m = fold_message(&response.text().await.unwrap());
    assert_eq!(m.text, "A long story that");
    assert_eq!(m.stop_reason.as_deref(), Some("max_tokens"));
    let response = post(&url, "/v1/responses", &responses_request(true)).await;
    let events = frames(&response.text().await.unwrap());
    let (last, data) = events.last().unwrap();
    assert_eq!(last, "response.incomplete");
    assert_eq!(data["response"]["status"], "incomplete");
    assert_eq!(
        data["response"]["incomplete_details"]["reason"],
        "max_output_tokens"
    );
}

/// A freeform tool's call is a `custom_tool_call` with its text as
/// `input`; a namespaced tool's call carries its `namespace`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_and_namespaced_calls_come_back_in_their_shapes() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+say \"hi\" `now`\n*** End Patch";
    let output = format!(
        "<tool_call>\n<function=apply_patch>\n<parameter=input>\n{patch}\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=path>\nx.txt\n</parameter>\n</function>\n</tool_call>"
    );
    let script = Script::new(&output).delta_chars(5);
    let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let mut request = responses_request(true);
    request["tools"] = json!([
        {"type": "custom", "name": "apply_patch", "description": "Patches.",
         "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"}},
        {"type": "namespace", "name": "mcp__fs", "description": "Files.", "tools": [
            {"type": "function", "name": "read", "parameters": {"type": "object",
             "properties": {"path": {"type": "string"}}}},
        ]},
    ]);
    let response = post(&url, "/v1/responses", &request).await;
    let events = frames(&response.text().await.unwrap());
    let kinds: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert!(kinds.contains(&"response.custom_tool_call_input.done"));
    let (last, data) = events.last().unwrap();
    assert_eq!(last, "response.completed");
    let output = data["response"]["output"].as_array().unwrap();
    let calls: Vec<&Value> = output.iter().filter(|i| i["type"] != "message").collect();
    assert_eq!(calls[0]["type"], "custom_tool_call");
    assert_eq!(calls[0]["name"], "apply_patch");
    assert_eq!(calls[0]["input"], patch);
    assert!(calls[0]["call_id"].as_str().unwrap().starts_with("call_"));
    assert_eq!(calls[1]["type"], "function_call");
    assert_eq!(calls[1]["name"], "read");
    assert_eq!(calls[1]["namespace"], "mcp__fs");
    assert_eq!(calls[1]["arguments"], r#"{"path":"x.txt"}"#);
}

/// `count_tokens` asks the upstream's `/tokenize` with the translated
/// messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn count_tokens_asks_the_upstreams_tokenizer() {
    let upstream = Upstream::start(|_| Reply::Json(json!({}))).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let mut request = messages_request(false);
    request.as_object_mut().unwrap().remove("max_tokens");
    let response = post(&url, "/v1/messages/count_tokens?beta=true", &request).await;
    assert_eq!(response.status(), 200);
    let v: Value = response.json().await.unwrap();
    assert_eq!(v, json!({"input_tokens": 2}));
    let received = upstream.received();
    assert_eq!(received[0].path, "/tokenize");
    assert_eq!(
        received[0].body["messages"][1]["content"],
        "Write out/notes.txt."
    );
}

/// Errors in each API's own shape: bad JSON 400, an untranslatable block
/// or `previous_response_id` 400 naming the field, an upstream error
/// status passed on, an unreachable upstream 502.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_come_in_each_apis_shape() {
    let upstream = Upstream::start(|_| {
        Reply::Status(
            429,
            r#"{"error":{"message":"slow down","type":"rate_limit"}}"#.into(),
            "application/json",
        )
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let client = reqwest::Client::new();

    for path in ["/v1/messages", "/v1/responses"] {
        let r = client
            .post(format!("{url}{path}"))
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let v: Value = r.json().await.unwrap();
        if path == "/v1/messages" {
            assert_eq!(v["type"], "error");
            assert_eq!(v["error"]["type"], "invalid_request_error");
        } else {
            assert_eq!(v["error"]["type"], "invalid_request_error");
        }
    }

    let mut request = messages_request(true);
    request["messages"][0]["content"] = json!([{"type": "video", "url": "x"}]);
    let r = post(&url, "/v1/messages", &request).await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["type"], "error");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("messages.0.content.0.type") && message.contains("video"),
        "{message}"
    );

    let mut request = responses_request(true);
    request["previous_response_id"] = json!("resp_123");
    let r = post(&url, "/v1/responses", &request).await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["param"], "previous_response_id");
    assert!(v["error"]["message"].as_str().unwrap().contains("no state"));
    assert!(upstream.received().is_empty(), "nothing went upstream");

    let r = post(&url, "/v1/messages", &messages_request(true)).await;
    assert_eq!(r.status(), 429);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["type"], "rate_limit_error");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("slow down"));
    let r = post(&url, "/v1/responses", &responses_request(false)).await;
    assert_eq!(r.status(), 429);
    let v: Value = r.json().await.unwrap();
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("slow down"));

    let url = gateway::gateway(ServeConfig::new("http://127.0.0.1:1/v1")).await;
    let r = post(&url, "/v1/messages", &messages_request(true)).await;
    assert_eq!(r.status(), 502);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["error"]["type"], "api_error");
    let r = post(&url, "/v1/responses", &responses_request(true)).await;
    assert_eq!(r.status(), 502);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "upstream_unreachable");
}

fn python_has_sdks() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import anthropic, openai"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn line<'a>(lines: &'a [Value], event: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["event"] == event)
        .unwrap_or_else(|| panic!("no {event} line in {lines:?}"))
}

/// The real `anthropic` and `openai` Python SDKs read every answer through
/// their typed accumulators (`messages.stream(...).get_final_message()`,
/// `responses.stream(...).get_final_response()`), their non-streaming
/// calls, `count_tokens`, and raise the gateway's errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdks_read_every_answer() {
    if !gateway::have(
        "python3 with anthropic and openai",
        python_has_sdks(),
        "pip install -r tests/clients/requirements.txt",
    ) {
        return;
    }
    let body = body_text();
    let output = qwen_output(&body);
    let broken_at = output.find("line 30:").unwrap();
    let upstream = Upstream::start(move |request| {
        let text = request["messages"].to_string();
        if request["stream"] != true {
            return Reply::Json(json!({
                "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": QWEN,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": output}}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46},
            }));
        }
        let script = Script::new(&output).delta_chars(7).usage();
        Reply::Stream(if text.contains("break") {
            script.break_at(broken_at)
        } else {
            script
        })
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients/gateway/agent_apis.py");
    let run = tokio::process::Command::new("python3")
        .arg(&script)
        .args([&url, QWEN])
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the SDK script finished in time")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the SDK script failed:\n{stderr}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let write = json!({"path": "out/notes.txt", "content": body});

    for event in ["messages_stream", "messages_whole"] {
        let m = line(&lines, event);
        let blocks = m["blocks"].as_array().unwrap();
        let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["thinking", "text", "tool_use"], "{event}");
        assert_eq!(blocks[2]["name"], "write_file");
        assert_eq!(blocks[2]["input"], write, "{event}");
        assert!(blocks[2]["id"].as_str().unwrap().starts_with("toolu_"));
        assert_eq!(m["stop_reason"], "tool_use");
    }
    let m = line(&lines, "messages_stream");
    assert!(m["input_json_deltas"].as_u64().unwrap() > 1);
    assert_eq!(m["usage"], json!({"input_tokens": 10, "output_tokens": 20}));
    assert_eq!(
        line(&lines, "messages_whole")["usage"],
        json!({"input_tokens": 12, "output_tokens": 34})
    );
    assert_eq!(line(&lines, "count_tokens")["input_tokens"], 1);
    let bad = line(&lines, "messages_bad_block");
    assert_eq!(bad["raised"], "BadRequestError");
    assert!(bad["message"]
        .as_str()
        .unwrap()
        .contains("messages.0.content.0.type"));
    let broken = line(&lines, "messages_broken");
    assert_eq!(broken["raised"], "APIStatusError", "{broken}");
    assert!(broken["message"].as_str().unwrap().contains("broke off"));

    for event in ["responses_stream", "responses_whole"] {
        let r = line(&lines, event);
        assert_eq!(r["status"], "completed", "{event}");
        let items = r["items"].as_array().unwrap();
        let kinds: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["reasoning", "message", "function_call"], "{event}");
        assert_eq!(items[2]["arguments"], write, "{event}");
        assert!(items[2]["call_id"].as_str().unwrap().starts_with("call_"));
    }
    let r = line(&lines, "responses_stream");
    assert!(r["kinds"]
        .as_array()
        .unwrap()
        .contains(&json!("response.function_call_arguments.delta")));
    assert_eq!(r["usage"], json!({"input_tokens": 10, "output_tokens": 20}));
    let stateful = line(&lines, "responses_stateful");
    assert_eq!(stateful["raised"], "BadRequestError");
    assert!(stateful["message"].as_str().unwrap().contains("no state"));
    let broken = line(&lines, "responses_broken");
    assert_eq!(broken["error_event"], true, "{broken}");
    assert_eq!(broken["last"], "response.failed", "{broken}");
}
