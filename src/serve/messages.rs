//! `POST /v1/messages` and `POST /v1/messages/count_tokens`: Anthropic
//! Messages requests translated to one Chat Completions request (contract,
//! section 10), answered through [`answer`](super::answer) in Anthropic's
//! format.
//!
//! - `system` (a string or text blocks) is the first, `system` message; a
//!   `system` message inside `messages` (Claude Code sends one) joins it;
//! - a user's `text` blocks are its content (a string when all its content
//!   is text, joined with blank lines; else `text` / `image_url` parts),
//!   `image` blocks are `image_url` parts (base64 sources as data URLs);
//! - a user's `tool_result` blocks are `role: "tool"` messages with the
//!   matching `tool_call_id`, put in the order of the calls of the
//!   assistant message before (a result for an unknown id after them, as it
//!   came), before the user's other content; their content (a string or
//!   text blocks, joined) is the tool message's text, prefixed `Error: `
//!   when `is_error`; images in a result follow as user content;
//! - an assistant's `text` blocks are its content, its `tool_use` blocks its
//!   `tool_calls` (same id and name, `input` as JSON text); `thinking` and
//!   `redacted_thinking` blocks are dropped;
//! - `tools` are function tools (`input_schema` as `parameters`); a server
//!   tool (a `type` such as `web_search_20250305` or `bash_20250124`) is
//!   left out with a log line;
//! - `tool_choice` `auto` / `any` / `tool` / `none` is `auto` / `required` /
//!   the named function / `none` (`disable_parallel_tool_use` is
//!   `parallel_tool_calls: false`);
//! - `model`, `max_tokens`, `temperature`, `top_p`, `stop_sequences` (as
//!   `stop`) and `stream` are carried (a stream asks for
//!   `stream_options.include_usage`); `thinking`'s `type` (`enabled` /
//!   `disabled`) says whether a model whose template opens reasoning is
//!   read as opening it, and goes no further; other fields (`metadata`,
//!   `context_management`, `cache_control`, `top_k`, …) are dropped.
//!
//! A block type that cannot be carried (`document`, `search_result`,
//! `server_tool_use`, …) is a 400 naming it and its place
//! (`messages.2.content.0.type`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::answer::{answer, Translated};
use super::exchange::Exchange;
use super::{client_authorization, Api, ApiError, Shared};

/// What a count is estimated with when the upstream has no `/tokenize`:
/// one token per this many bytes of the translated request's JSON text.
pub(crate) const BYTES_PER_TOKEN: usize = 4;

fn bad(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::bad_request(message, Some(param)).api(Api::Messages)
}

/// The Chat Completions request begun with the client's `model`, and
/// whether the client asked to stream: the two fields every agent API
/// reads alike.
pub(crate) fn model_and_stream(
    req: &Map<String, Value>,
    api: Api,
) -> Result<(Map<String, Value>, bool), ApiError> {
    let bad = |message: &str, param: &str| ApiError::bad_request(message, Some(param)).api(api);
    let mut chat = Map::new();
    match req.get("model") {
        Some(Value::String(m)) => {
            chat.insert("model".into(), json!(m));
        }
        None | Some(Value::Null) => {}
        Some(_) => return Err(bad("`model` must be a string", "model")),
    }
    let stream = match req.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("`stream` must be a boolean", "stream")),
    };
    Ok((chat, stream))
}

/// Reads the body as a JSON object.
pub(crate) fn read_object(body: &[u8], api: Api) -> Result<Map<String, Value>, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the request body is not valid JSON: {e}"), None).api(api)
    })?;
    match value {
        Value::Object(obj) => Ok(obj),
        _ => Err(ApiError::bad_request("the request body must be a JSON object", None).api(api)),
    }
}

/// The text of a string or of text blocks (joined with blank lines); any
/// other block is an error naming `at`.
fn text_of(value: &Value, at: &str) -> Result<String, ApiError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok(String::new()),
        Value::Array(blocks) => {
            let mut parts = Vec::new();
            for (i, block) in blocks.iter().enumerate() {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => parts.push(block["text"].as_str().unwrap_or("").to_owned()),
                    other => {
                        return Err(bad(
                            format!(
                                "`{at}.{i}.type` is {}: only text blocks can be carried here",
                                shown(other)
                            ),
                            &format!("{at}.{i}.type"),
                        ))
                    }
                }
            }
            Ok(parts.join("\n\n"))
        }
        _ => Err(bad(
            format!("`{at}` must be a string or an array of blocks"),
            at,
        )),
    }
}

fn shown(kind: Option<&str>) -> String {
    kind.map_or_else(|| "missing".to_owned(), |k| format!("`{k}`"))
}

/// An `image` block as an `image_url` part.
fn image_part(block: &Value, at: &str) -> Result<Value, ApiError> {
    let source = &block["source"];
    let url = match source.get("type").and_then(Value::as_str) {
        Some("base64") => format!(
            "data:{};base64,{}",
            source["media_type"].as_str().unwrap_or("image/png"),
            source["data"].as_str().unwrap_or("")
        ),
        Some("url") => source["url"].as_str().unwrap_or("").to_owned(),
        other => {
            return Err(bad(
                format!(
                    "`{at}.source.type` is {}: an image is carried as base64 or a URL",
                    shown(other)
                ),
                &format!("{at}.source.type"),
            ))
        }
    };
    Ok(json!({"type": "image_url", "image_url": {"url": url}}))
}

/// User content parts as a message's `content`: a string when all are
/// text.
fn content_of(parts: Vec<Value>) -> Value {
    if parts.iter().all(|p| p["type"] == "text") {
        let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        Value::String(texts.join("\n\n"))
    } else {
        Value::Array(parts)
    }
}

/// Translates an Anthropic Messages request (the body's JSON object).
pub(crate) fn translate(req: &Map<String, Value>) -> Result<Translated, ApiError> {
    let (mut chat, stream) = model_and_stream(req, Api::Messages)?;

    let mut messages = Vec::new();
    if let Some(system) = req.get("system") {
        let text = text_of(system, "system")?;
        if !text.is_empty() {
            messages.push(json!({"role": "system", "content": text}));
        }
    }
    let list = match req.get("messages") {
        Some(Value::Array(list)) => list,
        _ => return Err(bad("`messages` must be an array", "messages")),
    };
    // The ids of the last assistant message's calls, in order.
    let mut call_order: Vec<String> = Vec::new();
    // Claude Code (2.1.328) sends its environment as a `system` message
    // inside `messages`, after the first user message. Chat templates
    // (Llama's, Mistral's) reject a system message after the first, so its
    // text joins the leading system message.
    let mut late_system: Vec<String> = Vec::new();
    for (i, message) in list.iter().enumerate() {
        let at = format!("messages.{i}");
        let role = message.get("role").and_then(Value::as_str);
        let content = message.get("content").unwrap_or(&Value::Null);
        match role {
            Some("system") => late_system.push(text_of(content, &format!("{at}.content"))?),
            Some("user") => user(content, &at, &call_order, &mut messages)?,
            Some("assistant") => {
                call_order.clear();
                messages.push(assistant(content, &at, &mut call_order)?);
            }
            other => {
                return Err(bad(
                    format!(
                        "`{at}.role` is {}: expected `user`, `assistant` or `system`",
                        shown(other)
                    ),
                    &format!("{at}.role"),
                ))
            }
        }
    }
    let late_system = late_system.join("\n\n");
    if !late_system.is_empty() {
        match messages.first_mut() {
            Some(first) if first["role"] == "system" => {
                let text = first["content"].as_str().unwrap_or("").to_owned();
                first["content"] = json!(format!("{text}\n\n{late_system}"));
            }
            _ => messages.insert(0, json!({"role": "system", "content": late_system})),
        }
    }
    chat.insert("messages".into(), Value::Array(messages));

    if let Some(Value::Array(tools)) = req.get("tools") {
        let mut out = Vec::new();
        for (i, tool) in tools.iter().enumerate() {
            match tool.get("type").and_then(Value::as_str) {
                None | Some("custom") => {}
                Some(kind) => {
                    tracing::info!(
                        tool = kind,
                        "a server tool is left out of the upstream's tools"
                    );
                    continue;
                }
            }
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                return Err(bad(
                    format!("`tools.{i}.name` is missing"),
                    &format!("tools.{i}.name"),
                ));
            };
            let mut function = Map::new();
            function.insert("name".into(), json!(name));
            if let Some(d) = tool.get("description").filter(|d| d.is_string()) {
                function.insert("description".into(), d.clone());
            }
            let parameters = tool
                .get("input_schema")
                .filter(|s| s.is_object())
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            function.insert("parameters".into(), parameters);
            out.push(json!({"type": "function", "function": function}));
        }
        if !out.is_empty() {
            chat.insert("tools".into(), Value::Array(out));
        }
    }
    if let Some(choice) = req.get("tool_choice").filter(|c| !c.is_null()) {
        let mapped = match choice.get("type").and_then(Value::as_str) {
            Some("auto") => json!("auto"),
            Some("any") => json!("required"),
            Some("none") => json!("none"),
            Some("tool") => match choice.get("name").and_then(Value::as_str) {
                Some(name) => json!({"type": "function", "function": {"name": name}}),
                None => return Err(bad("`tool_choice.name` is missing", "tool_choice.name")),
            },
            other => {
                return Err(bad(
                    format!(
                        "`tool_choice.type` is {}: expected `auto`, `any`, `tool` or `none`",
                        shown(other)
                    ),
                    "tool_choice.type",
                ))
            }
        };
        if chat.contains_key("tools") || mapped == "none" {
            chat.insert("tool_choice".into(), mapped);
        }
        if choice.get("disable_parallel_tool_use") == Some(&Value::Bool(true))
            && chat.contains_key("tools")
        {
            chat.insert("parallel_tool_calls".into(), json!(false));
        }
    }
    for key in ["max_tokens", "temperature", "top_p"] {
        if let Some(v) = req.get(key).filter(|v| v.is_number()) {
            chat.insert(key.into(), v.clone());
        }
    }
    if let Some(Value::Array(stops)) = req.get("stop_sequences") {
        if !stops.is_empty() {
            chat.insert("stop".into(), Value::Array(stops.clone()));
        }
    }
    chat.insert("stream".into(), json!(stream));
    if stream {
        chat.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Translated {
        chat: Value::Object(chat),
        stream,
        custom_tools: Vec::new(),
        namespaced_tools: Vec::new(),
        thinking: thinking_asked(req),
    })
}

/// Whether an Anthropic request turned thinking on or off: `"thinking":
/// {"type": "enabled", …}` is on, `{"type": "disabled"}` off; without the
/// field (or with another type) the request says nothing, and a model whose
/// template opens reasoning is read as opening it (docs/agent-apis.md says
/// why).
fn thinking_asked(req: &Map<String, Value>) -> Option<bool> {
    match req.get("thinking")?.get("type")?.as_str()? {
        "enabled" => Some(true),
        "disabled" => Some(false),
        _ => None,
    }
}

/// A user message: its tool results as tool messages (in the calls'
/// order), then its other content.
fn user(
    content: &Value,
    at: &str,
    call_order: &[String],
    messages: &mut Vec<Value>,
) -> Result<(), ApiError> {
    let blocks = match content {
        Value::String(s) => {
            messages.push(json!({"role": "user", "content": s}));
            return Ok(());
        }
        Value::Array(blocks) => blocks,
        _ => {
            return Err(bad(
                format!("`{at}.content` must be a string or an array of blocks"),
                &format!("{at}.content"),
            ))
        }
    };
    let mut results: Vec<(String, Value)> = Vec::new();
    let mut parts = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        let here = format!("{at}.content.{j}");
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                parts.push(json!({"type": "text", "text": block["text"].as_str().unwrap_or("")}))
            }
            Some("image") => parts.push(image_part(block, &here)?),
            Some("tool_result") => {
                let id = block["tool_use_id"].as_str().unwrap_or("").to_owned();
                let (text, images) = result_content(block.get("content"), &here)?;
                parts.extend(images);
                let text = if block.get("is_error") == Some(&Value::Bool(true)) {
                    format!("Error: {text}")
                } else {
                    text
                };
                results.push((
                    id.clone(),
                    json!({"role": "tool", "tool_call_id": id, "content": text}),
                ));
            }
            Some("thinking" | "redacted_thinking") => {}
            other => {
                return Err(bad(
                    format!(
                        "`{here}.type` is {}: this block type cannot be carried to the upstream",
                        shown(other)
                    ),
                    &format!("{here}.type"),
                ))
            }
        }
    }
    // In the calls' order; results for ids not among them after, as they came.
    let rank = |id: &str| {
        call_order
            .iter()
            .position(|c| c == id)
            .unwrap_or(call_order.len())
    };
    results.sort_by_key(|(id, _)| rank(id));
    messages.extend(results.into_iter().map(|(_, m)| m));
    if !parts.is_empty() {
        messages.push(json!({"role": "user", "content": content_of(parts)}));
    }
    Ok(())
}

/// A `tool_result`'s content: its text (a string or text blocks, joined)
/// and its images as parts.
fn result_content(content: Option<&Value>, at: &str) -> Result<(String, Vec<Value>), ApiError> {
    let Some(Value::Array(blocks)) = content else {
        return Ok((text_of(content.unwrap_or(&Value::Null), at)?, Vec::new()));
    };
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for (k, block) in blocks.iter().enumerate() {
        let here = format!("{at}.content.{k}");
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(block["text"].as_str().unwrap_or("").to_owned()),
            Some("image") => images.push(image_part(block, &here)?),
            other => {
                return Err(bad(
                    format!(
                        "`{here}.type` is {}: a tool result carries text and images",
                        shown(other)
                    ),
                    &format!("{here}.type"),
                ))
            }
        }
    }
    Ok((texts.join("\n\n"), images))
}

/// An assistant message: its text as content, its `tool_use` blocks as
/// `tool_calls` (their ids noted in `call_order`).
fn assistant(content: &Value, at: &str, call_order: &mut Vec<String>) -> Result<Value, ApiError> {
    let blocks = match content {
        Value::String(s) => return Ok(json!({"role": "assistant", "content": s})),
        Value::Array(blocks) => blocks,
        _ => {
            return Err(bad(
                format!("`{at}.content` must be a string or an array of blocks"),
                &format!("{at}.content"),
            ))
        }
    };
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        let here = format!("{at}.content.{j}");
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(block["text"].as_str().unwrap_or("").to_owned()),
            Some("tool_use") => {
                let id = block["id"].as_str().unwrap_or("").to_owned();
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                calls.push(json!({
                    "id": id,
                    "type": "function",
                    "function": {
                        "name": block["name"].as_str().unwrap_or(""),
                        "arguments": input.to_string(),
                    },
                }));
                call_order.push(id);
            }
            Some("thinking" | "redacted_thinking") => {}
            other => {
                return Err(bad(
                    format!(
                        "`{here}.type` is {}: this block type cannot be carried to the upstream",
                        shown(other)
                    ),
                    &format!("{here}.type"),
                ))
            }
        }
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    let text = texts.join("");
    message.insert(
        "content".into(),
        if text.is_empty() && !calls.is_empty() {
            Value::Null
        } else {
            Value::String(text)
        },
    );
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Ok(Value::Object(message))
}

/// `POST /v1/messages`.
pub(super) async fn messages(
    State(shared): State<Arc<Shared>>,
    Extension(exchange): Extension<Exchange>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let result = async {
        let request = translate(&read_object(&body, Api::Messages)?)?;
        answer(shared, exchange, &headers, request, Api::Messages).await
    }
    .await;
    result.unwrap_or_else(|e| {
        tracing::debug!(status = e.status.as_u16(), message = %e.message, "message refused");
        e.into_response()
    })
}

/// `POST /v1/messages/count_tokens`: the upstream's `/tokenize` (vLLM,
/// SGLang, llama.cpp) over the translated messages where it answers, else
/// an estimate ([`BYTES_PER_TOKEN`]).
pub(super) async fn count_tokens(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let result = async {
        let mut req = read_object(&body, Api::Messages)?;
        req.remove("stream");
        let request = translate(&req)?;
        let count = match tokenize(&shared, &headers, &request.chat).await {
            Some(n) => n,
            None => estimate(&request.chat),
        };
        Ok::<_, ApiError>(
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                json!({"input_tokens": count}).to_string(),
            )
                .into_response(),
        )
    }
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

/// The estimate: the translated request's messages and tools as JSON
/// text, one token per [`BYTES_PER_TOKEN`] bytes (rounded up).
pub(crate) fn estimate(chat: &Value) -> u64 {
    let bytes =
        chat["messages"].to_string().len() + chat.get("tools").map_or(0, |t| t.to_string().len());
    bytes.div_ceil(BYTES_PER_TOKEN) as u64
}

/// The upstream's own count: `POST {server}/tokenize` with the messages
/// (vLLM, SGLang: `{"count"}`) and their text as `content` (llama.cpp:
/// `{"tokens"}`). `None` when it has none; then it is not asked again.
async fn tokenize(shared: &Shared, headers: &HeaderMap, chat: &Value) -> Option<u64> {
    if shared.no_tokenize.load(Ordering::Relaxed) {
        return None;
    }
    let url = shared.tokenize_url.clone()?;
    let text: Vec<&str> = chat["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_str())
        .collect();
    let mut body = json!({
        "messages": chat["messages"],
        "content": text.join("\n\n"),
        "add_generation_prompt": true,
    });
    if let Some(model) = chat.get("model") {
        body["model"] = model.clone();
    }
    if let Some(tools) = chat.get("tools") {
        body["tools"] = tools.clone();
    }
    let mut request = shared
        .client
        .post(url)
        .timeout(Duration::from_secs(10))
        .json(&body);
    if let Some(auth) = shared.authorization(client_authorization(headers).as_ref()) {
        request = request.header(header::AUTHORIZATION, auth);
    }
    let answer = match request.send().await {
        Ok(r) if r.status().is_success() => r.json::<Value>().await.ok(),
        Ok(r) => {
            tracing::info!(
                status = r.status().as_u16(),
                "the upstream has no /tokenize; token counts are estimated"
            );
            shared.no_tokenize.store(true, Ordering::Relaxed);
            None
        }
        Err(_) => None,
    }?;
    answer
        .get("count")
        .and_then(Value::as_u64)
        .or_else(|| answer.get("tokens")?.as_array().map(|t| t.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Value) -> Result<Translated, ApiError> {
        translate(v.as_object().unwrap())
    }

    /// Claude Code's request: system text blocks with `cache_control`,
    /// `thinking` / `context_management` / `metadata`, a thinking block
    /// sent back with its signature, parallel calls whose results come back
    /// in another order (one as a string, one as text blocks), `$schema`
    /// in the schemas, a `defer_loading` tool and a server tool.
    #[test]
    fn claude_codes_request_becomes_one_chat_request() {
        let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"], "additionalProperties": false});
        let got = run(json!({
            "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "max_tokens": 32000,
            "stream": true,
            "system": [
                {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "Working directory: /w", "cache_control": {"type": "ephemeral"}},
            ],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
                    {"type": "text", "text": "Write a.txt and b.txt", "cache_control": {"type": "ephemeral"}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "Two files.", "signature": "sig"},
                    {"type": "text", "text": "Writing both."},
                    {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": "a.txt", "content": "A"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {"file_path": "b.txt", "content": "B"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "wrote b.txt"},
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
                     "content": [{"type": "text", "text": "wrote a.txt"}], "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": "Now check."},
                ]},
            ],
            "tools": [
                {"name": "Write", "description": "Writes a file.", "input_schema": schema},
                {"name": "WebFetch", "description": "Fetches.", "defer_loading": true,
                 "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}}},
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
            ],
            "tool_choice": {"type": "auto"},
            "thinking": {"type": "enabled", "budget_tokens": 31999},
            "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
            "metadata": {"user_id": "user_abc"},
            "temperature": 1,
            "top_p": 0.95,
            "top_k": 20,
            "stop_sequences": ["</done>"],
        }))
        .unwrap();
        assert!(got.stream);
        assert_eq!(got.thinking, Some(true));
        assert_eq!(
            got.chat,
            json!({
                "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
                "messages": [
                    {"role": "system", "content": "You are Claude Code.\n\nWorking directory: /w"},
                    {"role": "user", "content": "<system-reminder>ctx</system-reminder>\n\nWrite a.txt and b.txt"},
                    {"role": "assistant", "content": "Writing both.", "tool_calls": [
                        {"id": "toolu_1", "type": "function", "function": {"name": "Write",
                         "arguments": "{\"file_path\":\"a.txt\",\"content\":\"A\"}"}},
                        {"id": "toolu_2", "type": "function", "function": {"name": "Write",
                         "arguments": "{\"file_path\":\"b.txt\",\"content\":\"B\"}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "toolu_1", "content": "wrote a.txt"},
                    {"role": "tool", "tool_call_id": "toolu_2", "content": "wrote b.txt"},
                    {"role": "user", "content": "Now check."},
                ],
                "tools": [
                    {"type": "function", "function": {"name": "Write", "description": "Writes a file.",
                     "parameters": schema}},
                    {"type": "function", "function": {"name": "WebFetch", "description": "Fetches.",
                     "parameters": {"type": "object", "properties": {"url": {"type": "string"}}}}},
                ],
                "tool_choice": "auto",
                "max_tokens": 32000,
                "temperature": 1,
                "top_p": 0.95,
                "stop": ["</done>"],
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
    }

    #[test]
    fn images_errors_choices_and_unknown_results_are_carried() {
        let got = run(json!({
            "model": "m",
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                    {"type": "text", "text": "What is it?"},
                ]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "elsewhere", "content": "?"},
                    {"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": "no such file"},
                ]},
            ],
            "tools": [{"name": "look", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "tool", "name": "look", "disable_parallel_tool_use": true},
        }))
        .unwrap();
        assert!(!got.stream);
        let messages = &got.chat["messages"];
        assert_eq!(
            messages[0],
            json!({"role": "system", "content": "Be brief."})
        );
        assert_eq!(
            messages[1]["content"],
            json!([
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                {"type": "text", "text": "What is it?"},
            ])
        );
        assert_eq!(messages[2]["content"], Value::Null);
        assert_eq!(
            messages[3],
            json!({"role": "tool", "tool_call_id": "t1", "content": "Error: no such file"})
        );
        assert_eq!(
            messages[4],
            json!({"role": "tool", "tool_call_id": "elsewhere", "content": "?"})
        );
        assert_eq!(
            got.chat["tool_choice"],
            json!({"type": "function", "function": {"name": "look"}})
        );
        assert_eq!(got.chat["parallel_tool_calls"], false);
        assert_eq!(got.chat["stream"], false);
        assert!(got.chat.get("stream_options").is_none());

        for (choice, want) in [("any", "required"), ("none", "none"), ("auto", "auto")] {
            let got = run(json!({"messages": [], "tools": [{"name": "f"}],
                                 "tool_choice": {"type": choice}}))
            .unwrap();
            assert_eq!(got.chat["tool_choice"], want);
        }
    }

    #[test]
    fn what_cannot_be_carried_is_a_400_naming_it() {
        for (body, param) in [
            (
                json!({"messages": [{"role": "user", "content": [{"type": "document", "source": {}}]}]}),
                "messages.0.content.0.type",
            ),
            (
                json!({"messages": [{"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [{"type": "server_tool_use", "id": "s"}]}]}),
                "messages.1.content.0.type",
            ),
            (
                json!({"messages": [{"role": "robot", "content": "hi"}]}),
                "messages.0.role",
            ),
            (json!({"messages": "hi"}), "messages"),
            (
                json!({"messages": [], "system": [{"type": "image"}]}),
                "system.0.type",
            ),
            (json!({"messages": [], "stream": "yes"}), "stream"),
        ] {
            let e = run(body.clone()).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{body}");
            assert_eq!(e.param.as_deref(), Some(param), "{body}");
            assert_eq!(e.body()["type"], "error");
            assert_eq!(e.body()["error"]["type"], "invalid_request_error");
            assert!(e.message.contains(param), "{}", e.message);
        }
    }

    #[test]
    fn the_estimate_is_a_token_per_four_bytes() {
        let chat = json!({"messages": [{"role": "user", "content": "abcd"}]});
        let bytes = chat["messages"].to_string().len();
        assert_eq!(estimate(&chat), bytes.div_ceil(4) as u64);
    }
}
