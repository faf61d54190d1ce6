//! `POST /v1/responses`: OpenAI Responses requests (stateless) translated
//! to one Chat Completions request (contract, section 10), answered through
//! [`answer`](super::answer) in the Responses format.
//!
//! - `instructions` is the first, `system` message; `developer` and
//!   `system` messages are `system` messages (those before the first user
//!   or assistant message are joined into the first one: chat templates
//!   expect one system message, at the start);
//! - `input` is a string (one user message) or items: `message` items
//!   (`input_text` / `output_text` / `refusal` parts as text, `input_image`
//!   parts as `image_url` parts), `function_call` and `custom_tool_call`
//!   items as the assistant's `tool_calls` (consecutive ones in one
//!   message, with the assistant text before them), `function_call_output`
//!   and `custom_tool_call_output` items as `role: "tool"` messages in the
//!   calls' order; `reasoning` items are dropped;
//! - `function` tools are function tools; a freeform `custom` tool is a
//!   function with one string parameter `input` (its grammar, if any, told
//!   in the description), and its call comes back as a `custom_tool_call`;
//!   a `namespace` tool's nested tools are offered as functions under their
//!   own names, and a call to one comes back with its `namespace`; a
//!   server tool (`web_search`, `file_search`, `computer_use_preview`,
//!   `code_interpreter`, `image_generation`, `local_shell`, `mcp`, …) is
//!   left out with a log line;
//! - `tool_choice` (`auto` / `none` / `required` / a named function or
//!   custom tool), `max_output_tokens` (as `max_tokens`), `temperature`,
//!   `top_p`, `parallel_tool_calls`, `model` and `stream` are carried (a
//!   stream asks for `stream_options.include_usage`); other fields
//!   (`store`, `include`, `reasoning`, `text`, `metadata`,
//!   `prompt_cache_key`, …) are dropped.
//!
//! `previous_response_id` (and `conversation`) is a 400: the gateway keeps
//! no state. An item or part type that cannot be carried is a 400 naming
//! it (`input[3].type`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::answer::{answer, Translated};
use super::exchange::Exchange;
use super::messages::model_and_stream;
use super::messages::read_object;
use super::{Api, ApiError, Shared};

fn bad(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::bad_request(message, Some(param)).api(Api::Responses)
}

fn shown(kind: Option<&str>) -> String {
    kind.map_or_else(|| "missing".to_owned(), |k| format!("`{k}`"))
}

/// The parameters of a freeform tool's function.
fn input_parameters() -> Value {
    json!({"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]})
}

/// The messages being built, with the pending assistant message (text and
/// calls gathered until something else comes) and the pending tool
/// results (ordered by the calls when flushed).
#[derive(Default)]
struct History {
    messages: Vec<Value>,
    /// System text before the first user or assistant message.
    leading_system: Vec<String>,
    started: bool,
    text: String,
    calls: Vec<Value>,
    /// The ids of the last assistant message's calls, in order.
    call_order: Vec<String>,
    results: Vec<(String, Value)>,
}

impl History {
    fn flush_assistant(&mut self) {
        if self.text.is_empty() && self.calls.is_empty() {
            return;
        }
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        let text = std::mem::take(&mut self.text);
        message.insert(
            "content".into(),
            if text.is_empty() {
                Value::Null
            } else {
                Value::String(text)
            },
        );
        if !self.calls.is_empty() {
            self.call_order = self
                .calls
                .iter()
                .filter_map(|c| c["id"].as_str().map(str::to_owned))
                .collect();
            message.insert(
                "tool_calls".into(),
                Value::Array(std::mem::take(&mut self.calls)),
            );
        }
        self.push(Value::Object(message));
    }

    fn flush_results(&mut self) {
        if self.results.is_empty() {
            return;
        }
        let order = &self.call_order;
        let rank = |id: &str| order.iter().position(|c| c == id).unwrap_or(order.len());
        let mut results = std::mem::take(&mut self.results);
        results.sort_by_key(|(id, _)| rank(id));
        for (_, m) in results {
            self.push(m);
        }
    }

    fn push(&mut self, message: Value) {
        if !self.started {
            self.started = true;
            if !self.leading_system.is_empty() {
                let text = self.leading_system.join("\n\n");
                self.messages
                    .push(json!({"role": "system", "content": text}));
            }
        }
        self.messages.push(message);
    }

    fn system(&mut self, text: String) {
        if self.started {
            self.push(json!({"role": "system", "content": text}));
        } else {
            self.leading_system.push(text);
        }
    }

    fn finish(mut self) -> Vec<Value> {
        self.flush_assistant();
        self.flush_results();
        if !self.started && !self.leading_system.is_empty() {
            let text = self.leading_system.join("\n\n");
            self.messages
                .push(json!({"role": "system", "content": text}));
        }
        self.messages
    }
}

/// A message item's content as text, or as parts when it has images.
fn message_content(content: &Value, at: &str) -> Result<Value, ApiError> {
    let parts = match content {
        Value::String(s) => return Ok(Value::String(s.clone())),
        Value::Array(parts) => parts,
        _ => {
            return Err(bad(
                format!("`{at}.content` must be a string or an array of parts"),
                &format!("{at}.content"),
            ))
        }
    };
    let mut out = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let here = format!("{at}.content[{k}]");
        match part.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text") => {
                out.push(json!({"type": "text", "text": part["text"].as_str().unwrap_or("")}))
            }
            Some("refusal") => {
                out.push(json!({"type": "text", "text": part["refusal"].as_str().unwrap_or("")}))
            }
            Some("input_image") => match part.get("image_url").and_then(Value::as_str) {
                Some(url) => out.push(json!({"type": "image_url", "image_url": {"url": url}})),
                None => {
                    return Err(bad(
                        format!(
                            "`{here}` has no `image_url`: the gateway cannot fetch files by id"
                        ),
                        &format!("{here}.image_url"),
                    ))
                }
            },
            other => {
                return Err(bad(
                    format!(
                        "`{here}.type` is {}: this part type cannot be carried to the upstream",
                        shown(other)
                    ),
                    &format!("{here}.type"),
                ))
            }
        }
    }
    if out.iter().all(|p| p["type"] == "text") {
        let texts: Vec<&str> = out.iter().filter_map(|p| p["text"].as_str()).collect();
        Ok(Value::String(texts.join("\n\n")))
    } else {
        Ok(Value::Array(out))
    }
}

/// Text of a content value (for system messages and tool outputs).
fn plain(content: Value) -> String {
    match content {
        Value::String(s) => s,
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// Translates a Responses request (the body's JSON object).
pub(crate) fn translate(req: &Map<String, Value>) -> Result<Translated, ApiError> {
    for key in ["previous_response_id", "conversation"] {
        if req.get(key).is_some_and(|v| !v.is_null()) {
            return Err(bad(
                format!(
                    "`{key}` is not supported: the gateway keeps no state; send the whole conversation in `input`"
                ),
                key,
            ));
        }
    }
    let (mut chat, stream) = model_and_stream(req, Api::Responses)?;

    let mut history = History::default();
    if let Some(Value::String(text)) = req.get("instructions") {
        if !text.is_empty() {
            history.system(text.clone());
        }
    }
    match req.get("input") {
        Some(Value::String(text)) => history.push(json!({"role": "user", "content": text})),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                input_item(item, &format!("input[{i}]"), &mut history)?;
            }
        }
        None | Some(Value::Null) => {}
        Some(_) => {
            return Err(bad(
                "`input` must be a string or an array of items",
                "input",
            ))
        }
    }
    chat.insert("messages".into(), Value::Array(history.finish()));

    let mut custom_tools = Vec::new();
    let mut namespaced_tools = Vec::new();
    if let Some(Value::Array(tools)) = req.get("tools") {
        let mut out = Vec::new();
        for (i, tool) in tools.iter().enumerate() {
            let at = format!("tools[{i}]");
            match tool.get("type").and_then(Value::as_str) {
                Some("namespace") => {
                    let namespace = tool["name"].as_str().unwrap_or("");
                    let nested = tool["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                    for (k, inner) in nested.iter().enumerate() {
                        if let Some(name) = function_tool(
                            inner,
                            &format!("{at}.tools[{k}]"),
                            &mut out,
                            &mut custom_tools,
                        )? {
                            namespaced_tools.push((name, namespace.to_owned()));
                        }
                    }
                }
                _ => {
                    function_tool(tool, &at, &mut out, &mut custom_tools)?;
                }
            }
        }
        if !out.is_empty() {
            chat.insert("tools".into(), Value::Array(out));
        }
    }
    if let Some(choice) = req.get("tool_choice").filter(|c| !c.is_null()) {
        let mapped = match choice {
            Value::String(s) if matches!(s.as_str(), "auto" | "none" | "required") => {
                Some(json!(s))
            }
            Value::Object(o) => match (o.get("type").and_then(Value::as_str), o.get("name")) {
                (Some("function" | "custom"), Some(Value::String(name))) => {
                    Some(json!({"type": "function", "function": {"name": name}}))
                }
                (Some("allowed_tools"), _) => o.get("mode").filter(|m| m.is_string()).cloned(),
                _ => None,
            },
            _ => None,
        };
        match mapped {
            Some(m) => {
                if chat.contains_key("tools") || m == "none" {
                    chat.insert("tool_choice".into(), m);
                }
            }
            None => tracing::info!(
                tool_choice = %choice,
                "a tool_choice for a server tool is left out"
            ),
        }
    }
    if let Some(v) = req.get("max_output_tokens").filter(|v| v.is_number()) {
        chat.insert("max_tokens".into(), v.clone());
    }
    for key in ["temperature", "top_p"] {
        if let Some(v) = req.get(key).filter(|v| v.is_number()) {
            chat.insert(key.into(), v.clone());
        }
    }
    if let Some(v @ Value::Bool(_)) = req.get("parallel_tool_calls") {
        if chat.contains_key("tools") {
            chat.insert("parallel_tool_calls".into(), v.clone());
        }
    }
    chat.insert("stream".into(), json!(stream));
    if stream {
        chat.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Translated {
        chat: Value::Object(chat),
        stream,
        custom_tools,
        namespaced_tools,
        thinking: None,
    })
}

/// A `function` or `custom` tool as a Chat function tool (appended to
/// `out`); its name. A server tool is left out (with a log line): `None`.
fn function_tool(
    tool: &Value,
    at: &str,
    out: &mut Vec<Value>,
    custom_tools: &mut Vec<String>,
) -> Result<Option<String>, ApiError> {
    let kind = tool.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("function" | "custom")) {
        tracing::info!(
            tool = kind.unwrap_or("?"),
            "a server tool is left out of the upstream's tools"
        );
        return Ok(None);
    }
    let Some(name) = tool.get("name").and_then(Value::as_str) else {
        return Err(bad(
            format!("`{at}.name` is missing"),
            &format!("{at}.name"),
        ));
    };
    let mut function = Map::new();
    function.insert("name".into(), json!(name));
    let mut description = tool["description"].as_str().unwrap_or("").to_owned();
    let parameters = if kind == Some("custom") {
        custom_tools.push(name.to_owned());
        let format = &tool["format"];
        if let Some(definition) = format["definition"].as_str() {
            if !description.is_empty() {
                description.push_str("\n\n");
            }
            description.push_str(&format!(
                "Its `input` follows this {} grammar:\n{definition}",
                format["syntax"].as_str().unwrap_or("")
            ));
        }
        input_parameters()
    } else {
        tool.get("parameters")
            .filter(|p| p.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"type": "object", "properties": {}}))
    };
    if !description.is_empty() {
        function.insert("description".into(), json!(description));
    }
    function.insert("parameters".into(), parameters);
    out.push(json!({"type": "function", "function": function}));
    Ok(Some(name.to_owned()))
}

/// One `input` item into the history.
fn input_item(item: &Value, at: &str, history: &mut History) -> Result<(), ApiError> {
    let kind = item.get("type").and_then(Value::as_str);
    let kind = match (kind, item.get("role")) {
        (None, Some(_)) => "message",
        (Some(k), _) => k,
        (None, None) => {
            return Err(bad(
                format!("`{at}.type` is missing"),
                &format!("{at}.type"),
            ))
        }
    };
    match kind {
        "message" => {
            let role = item.get("role").and_then(Value::as_str);
            let content = message_content(item.get("content").unwrap_or(&Value::Null), at)?;
            match role {
                Some("user") => {
                    history.flush_assistant();
                    history.flush_results();
                    history.push(json!({"role": "user", "content": content}));
                }
                Some("assistant") => {
                    history.flush_results();
                    if !history.calls.is_empty() {
                        history.flush_assistant();
                    }
                    history.text.push_str(&plain(content));
                }
                Some("system" | "developer") => {
                    history.flush_assistant();
                    history.flush_results();
                    history.system(plain(content));
                }
                other => {
                    return Err(bad(
                        format!(
                        "`{at}.role` is {}: expected `user`, `assistant`, `system` or `developer`",
                        shown(other)
                    ),
                        &format!("{at}.role"),
                    ))
                }
            }
        }
        "function_call" | "custom_tool_call" => {
            history.flush_results();
            let id = item["call_id"].as_str().unwrap_or("").to_owned();
            let arguments = if kind == "custom_tool_call" {
                json!({"input": item["input"].as_str().unwrap_or("")}).to_string()
            } else {
                match &item["arguments"] {
                    Value::String(s) => s.clone(),
                    Value::Null => "{}".to_owned(),
                    other => other.to_string(),
                }
            };
            history.calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": item["name"].as_str().unwrap_or(""), "arguments": arguments},
            }));
        }
        "function_call_output" | "custom_tool_call_output" => {
            history.flush_assistant();
            let id = item["call_id"].as_str().unwrap_or("").to_owned();
            let output = plain(item.get("output").cloned().unwrap_or(Value::Null));
            history.results.push((
                id.clone(),
                json!({"role": "tool", "tool_call_id": id, "content": output}),
            ));
        }
        "reasoning" => {}
        other => {
            return Err(bad(
                format!(
                    "`{at}.type` is `{other}`: this item type cannot be carried to the upstream"
                ),
                &format!("{at}.type"),
            ))
        }
    }
    Ok(())
}

/// `POST /v1/responses`.
pub(super) async fn responses(
    State(shared): State<Arc<Shared>>,
    Extension(exchange): Extension<Exchange>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let result = async {
        let request = translate(&read_object(&body, Api::Responses)?)?;
        answer(shared, exchange, &headers, request, Api::Responses).await
    }
    .await;
    result.unwrap_or_else(|e| {
        tracing::debug!(status = e.status.as_u16(), message = %e.message, "response refused");
        e.into_response()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    fn run(v: Value) -> Result<Translated, ApiError> {
        translate(v.as_object().unwrap())
    }

    /// Codex CLI's request: no `instructions`, `developer` messages,
    /// reasoning items in the history, parallel calls whose outputs come
    /// back in another order, a freeform `apply_patch` call, `web_search`
    /// and a `namespace` tool, `store: false`, `parallel_tool_calls`.
    #[test]
    fn codexs_request_becomes_one_chat_request() {
        let exec = json!({"type": "object", "properties": {"cmd": {"type": "string"}},
                          "required": ["cmd"], "additionalProperties": false});
        let read = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let got = run(json!({
            "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions>"}]},
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Be careful."}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list and patch"}]},
                {"type": "reasoning", "id": "rs_1", "summary": [],
                 "content": [{"type": "reasoning_text", "text": "plan"}], "encrypted_content": null},
                {"type": "message", "role": "assistant", "id": "msg_1",
                 "content": [{"type": "output_text", "text": "Looking.", "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "name": "exec_command", "arguments": "{\"cmd\":\"ls\"}", "call_id": "call_a"},
                {"type": "function_call", "id": "fc_2", "name": "read", "namespace": "mcp__fs",
                 "arguments": "{\"path\":\"x\"}", "call_id": "call_b"},
                {"type": "function_call_output", "call_id": "call_b", "output": "contents of x"},
                {"type": "function_call_output", "call_id": "call_a", "output": "a.txt\nb.txt"},
                {"type": "custom_tool_call", "call_id": "call_c", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch"},
                {"type": "custom_tool_call_output", "call_id": "call_c", "output": "Done!"},
            ],
            "tools": [
                {"type": "function", "name": "exec_command", "description": "Runs a command.", "strict": false, "parameters": exec},
                {"type": "custom", "name": "apply_patch", "description": "Patches files.",
                 "format": {"type": "grammar", "syntax": "lark", "definition": "start: patch"}},
                {"type": "web_search", "external_web_access": false},
                {"type": "namespace", "name": "mcp__fs", "description": "Files.", "tools": [
                    {"type": "function", "name": "read", "description": "Reads a file.", "strict": false, "parameters": read},
                ]},
            ],
            "tool_choice": "auto",
            "parallel_tool_calls": true,
            "reasoning": {"effort": "medium", "summary": "auto"},
            "store": false,
            "stream": true,
            "include": ["reasoning.encrypted_content"],
            "prompt_cache_key": "k",
            "text": {"verbosity": "medium"},
        }))
        .unwrap();
        assert!(got.stream);
        assert_eq!(got.custom_tools, ["apply_patch"]);
        assert_eq!(
            got.namespaced_tools,
            [("read".to_owned(), "mcp__fs".to_owned())]
        );
        assert_eq!(
            got.chat,
            json!({
                "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
                "messages": [
                    {"role": "system", "content": "<permissions>\n\nBe careful."},
                    {"role": "user", "content": "<environment_context>"},
                    {"role": "user", "content": "list and patch"},
                    {"role": "assistant", "content": "Looking.", "tool_calls": [
                        {"id": "call_a", "type": "function", "function": {"name": "exec_command", "arguments": "{\"cmd\":\"ls\"}"}},
                        {"id": "call_b", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"x\"}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_a", "content": "a.txt\nb.txt"},
                    {"role": "tool", "tool_call_id": "call_b", "content": "contents of x"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_c", "type": "function", "function": {"name": "apply_patch",
                         "arguments": "{\"input\":\"*** Begin Patch\\n*** End Patch\"}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_c", "content": "Done!"},
                ],
                "tools": [
                    {"type": "function", "function": {"name": "exec_command", "description": "Runs a command.", "parameters": exec}},
                    {"type": "function", "function": {"name": "apply_patch",
                     "description": "Patches files.\n\nIts `input` follows this lark grammar:\nstart: patch",
                     "parameters": {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}}},
                    {"type": "function", "function": {"name": "read", "description": "Reads a file.", "parameters": read}},
                ],
                "tool_choice": "auto",
                "parallel_tool_calls": true,
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
    }

    #[test]
    fn instructions_strings_and_sampling_are_carried() {
        let got = run(json!({
            "model": "m", "instructions": "Be brief.", "input": "hi",
            "max_output_tokens": 100, "temperature": 0.2, "top_p": 0.9,
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
            "tool_choice": {"type": "function", "name": "f"},
        }))
        .unwrap();
        assert_eq!(
            got.chat,
            json!({
                "model": "m",
                "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
                "tool_choice": {"type": "function", "function": {"name": "f"}},
                "max_tokens": 100, "temperature": 0.2, "top_p": 0.9, "stream": false,
            })
        );
        // A later developer message stays in place, as a system message;
        // an image is an image_url part.
        let got = run(json!({"input": [
            {"role": "user", "content": [{"type": "input_text", "text": "see"},
                                         {"type": "input_image", "image_url": "data:image/png;base64,AA"}]},
            {"role": "developer", "content": "Now be careful."},
        ]}))
        .unwrap();
        assert_eq!(
            got.chat["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "see"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]},
                {"role": "system", "content": "Now be careful."},
            ])
        );
    }

    #[test]
    fn state_and_unknown_items_are_a_400_naming_them() {
        for (body, param) in [
            (
                json!({"input": "hi", "previous_response_id": "resp_1"}),
                "previous_response_id",
            ),
            (
                json!({"input": "hi", "conversation": "conv_1"}),
                "conversation",
            ),
            (
                json!({"input": [{"type": "item_reference", "id": "x"}]}),
                "input[0].type",
            ),
            (
                json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]}),
                "input[0].content[0].type",
            ),
            (
                json!({"input": [{"role": "tool", "content": "x"}]}),
                "input[0].role",
            ),
            (json!({"input": 3}), "input"),
        ] {
            let e = run(body.clone()).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{body}");
            assert_eq!(e.param.as_deref(), Some(param), "{body}");
            assert_eq!(e.body()["error"]["type"], "invalid_request_error");
            assert_eq!(e.body()["error"]["param"], param);
        }
        let e = run(json!({"input": "hi", "previous_response_id": "resp_1"})).unwrap_err();
        assert!(e.message.contains("keeps no state"), "{}", e.message);
    }
}
