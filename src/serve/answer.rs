//! One answer to an agent API request (Anthropic Messages, OpenAI
//! Responses): its translated Chat Completions request sent upstream, and
//! the upstream's answer written back in the client's [`Format`] through
//! the shared [`Relay`], streamed as it is read, or, for a client that did
//! not ask to stream, collected and folded into the API's one object (the
//! same content the stream carries).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::exchange::Exchange;
use super::relay::{Answer, AnswerMeta, Relay};
use super::upstream::{self, describe, Break};
use super::{client_authorization, Api, ApiError, Shared, DIALECTS_HEADER};
use crate::dialect::tools::tool_schemas;
use crate::protocol::{Format, Options};

/// A client request translated to one Chat Completions request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Translated {
    /// The Chat Completions request body for the upstream.
    pub chat: Value,
    /// Whether the client asked to stream.
    pub stream: bool,
    /// Freeform tools (their calls come back as `custom_tool_call`s).
    pub custom_tools: Vec<String>,
    /// Tools offered inside a namespace: (tool name, namespace).
    pub namespaced_tools: Vec<(String, String)>,
    /// Whether the client turned the model's thinking on or off in its own
    /// API's terms (Anthropic's `thinking`); `None` when it said nothing
    /// there, and then the Chat body's `chat_template_kwargs` decide.
    pub thinking: Option<bool>,
}

impl Translated {
    /// The request's `model`.
    fn model(&self) -> Option<String> {
        self.chat
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

/// Sends `request` upstream and answers it in `api`'s format.
pub(crate) async fn answer(
    shared: Arc<Shared>,
    exchange: Exchange,
    headers: &HeaderMap,
    mut request: Translated,
    api: Api,
) -> Result<Response, ApiError> {
    let (format, label) = match api {
        Api::Messages => (Format::Anthropic, "message"),
        Api::Responses => (Format::OpenAiResponses, "response"),
        Api::Chat => (Format::OpenAiChat, "chat completion"),
    };
    let model = request.model();
    let tools = match request.chat.get("tools") {
        Some(list @ Value::Array(_)) => {
            let schemas = tool_schemas(list).map_err(|e| {
                ApiError::bad_request(format!("`tools` cannot be read: {e}"), Some("tools"))
                    .api(api)
            })?;
            Some((list.to_string(), schemas))
        }
        _ => None,
    };
    let thinking = request
        .thinking
        .or_else(|| request.chat.as_object().and_then(super::thinking_asked));
    let plan = shared
        .plan(&exchange, model.as_deref(), tools.as_ref(), thinking)
        .map_err(|e| e.api(api))?;
    let (dialects, config) = (&plan.dialects, &plan.config);
    if let (Some(upstream_model), Some(obj)) = (
        plan.route.upstream_model.as_deref(),
        request.chat.as_object_mut(),
    ) {
        obj.insert("model".into(), Value::String(upstream_model.to_owned()));
    }
    tracing::debug!(
        model = model.as_deref().unwrap_or(""),
        stream = request.stream,
        dialects = %dialects.join(","),
        "{label}"
    );
    let body = serde_json::to_vec(&request.chat).map_err(|e| ApiError::internal(e.to_string()))?;
    let response = shared
        .send(
            &exchange,
            plan.route,
            body,
            request.stream,
            client_authorization(headers).as_ref(),
        )
        .await
        .map_err(|e| e.api(api))?;
    let status = response.status();
    if !status.is_success() {
        tracing::debug!(
            status = status.as_u16(),
            "the upstream answered an error status; passed on"
        );
        let bytes = response.bytes().await.unwrap_or_default();
        return Err(ApiError::upstream(status, &bytes, api));
    }

    let meta = AnswerMeta::new(model.clone());
    let mut options: Options = meta.options(shared.calls);
    for name in &request.custom_tools {
        options = options.custom_tool(name.clone());
    }
    for (name, namespace) in &request.namespaced_tools {
        options = options.namespaced_tool(name.clone(), namespace.clone());
    }
    let answer = Answer {
        format,
        options,
        n: 1,
        ext: false,
        label,
    };
    if request.stream {
        let relay = Relay::new(
            answer,
            &meta,
            config,
            upstream::body(&shared, response),
            exchange,
        );
        let mut builder = Response::builder().status(StatusCode::OK);
        for (name, value) in format.headers() {
            builder = builder.header(*name, *value);
        }
        return builder
            .header("x-accel-buffering", "no")
            .header(DIALECTS_HEADER, dialects.join(","))
            .body(Body::from_stream(relay.into_stream()))
            .map_err(|e| ApiError::internal(e.to_string()).api(api));
    }

    let bytes = response.bytes().await.map_err(|e| {
        ApiError::bad_gateway(
            format!("the upstream's answer broke off: {}", describe(e)),
            "upstream_broken",
        )
        .api(api)
    })?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::bad_gateway(
            format!("the upstream's answer is not JSON: {e}"),
            "upstream_invalid",
        )
        .api(api)
    })?;
    let chunks = as_chunks(&value);
    let whole = futures::stream::iter([Ok::<Bytes, Break>(Bytes::from(chunks))]);
    let relay = Relay::new(answer, &meta, config, Box::pin(whole), exchange);
    let text = relay.collect().await;
    let object = match api {
        Api::Messages => fold_messages(&text),
        _ => fold_responses(&text),
    }
    .map_err(|message| ApiError::bad_gateway(message, "upstream_invalid").api(api))?;
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (
                header::HeaderName::from_static(DIALECTS_HEADER),
                dialects.join(","),
            ),
        ],
        object.to_string(),
    )
        .into_response())
}

/// A whole (non-streaming) Chat Completions answer as the stream that
/// carries the same: one chunk with its first choice's message as the
/// delta (native `tool_calls` numbered), its usage, then `[DONE]`.
pub(crate) fn as_chunks(answer: &Value) -> String {
    let choice = answer.pointer("/choices/0");
    let message = choice.and_then(|c| c.get("message"));
    let mut delta = Map::new();
    delta.insert("role".into(), json!("assistant"));
    if let Some(message) = message.and_then(Value::as_object) {
        for key in ["content", "reasoning_content", "reasoning", "refusal"] {
            if let Some(v @ Value::String(_)) = message.get(key) {
                delta.insert(key.into(), v.clone());
            }
        }
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
            let calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, call)| {
                    let mut call = call.clone();
                    if let Some(obj) = call.as_object_mut() {
                        obj.insert("index".into(), json!(i));
                    }
                    call
                })
                .collect();
            delta.insert("tool_calls".into(), Value::Array(calls));
        }
    }
    let finish = choice
        .and_then(|c| c.get("finish_reason"))
        .cloned()
        .filter(|r| !r.is_null())
        .unwrap_or_else(|| json!("stop"));
    let mut chunk = json!({
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    if let Some(usage) = answer.get("usage").filter(|u| u.is_object()) {
        chunk["usage"] = usage.clone();
    }
    format!("data: {chunk}\n\ndata: [DONE]\n\n")
}

/// The `data:` payloads of an SSE text written by an encoder.
fn payloads(text: &str) -> impl Iterator<Item = Value> + '_ {
    text.split("\n\n").filter_map(|frame| {
        frame
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .and_then(|data| serde_json::from_str(data).ok())
    })
}

/// An Anthropic message stream folded into its message object; an `error`
/// event is the error's message.
pub(crate) fn fold_messages(text: &str) -> Result<Value, String> {
    let mut message = Value::Null;
    let mut content: Vec<Value> = Vec::new();
    let mut json_parts: Vec<String> = Vec::new();
    for event in payloads(text) {
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => message = event["message"].clone(),
            Some("content_block_start") => {
                content.push(event["content_block"].clone());
                json_parts.push(String::new());
            }
            Some("content_block_delta") => {
                let (Some(block), Some(part)) = (content.last_mut(), json_parts.last_mut()) else {
                    continue;
                };
                let delta = &event["delta"];
                for (kind, field) in [("text_delta", "text"), ("thinking_delta", "thinking")] {
                    if delta["type"] == kind {
                        let add = delta[field].as_str().unwrap_or("");
                        let joined = format!("{}{add}", block[field].as_str().unwrap_or(""));
                        block[field] = Value::String(joined);
                    }
                }
                if delta["type"] == "input_json_delta" {
                    part.push_str(delta["partial_json"].as_str().unwrap_or(""));
                }
            }
            Some("content_block_stop") => {
                if let (Some(block), Some(part)) = (content.last_mut(), json_parts.last()) {
                    if block["type"] == "tool_use" && !part.is_empty() {
                        block["input"] = serde_json::from_str(part).unwrap_or_else(|_| json!({}));
                    }
                }
            }
            Some("message_delta") => {
                for key in ["stop_reason", "stop_sequence"] {
                    if let Some(v) = event["delta"].get(key) {
                        message[key] = v.clone();
                    }
                }
                if let Some(usage) = event.get("usage").and_then(Value::as_object) {
                    for (k, v) in usage {
                        message["usage"][k] = v.clone();
                    }
                }
            }
            Some("error") => {
                return Err(event["error"]["message"]
                    .as_str()
                    .unwrap_or("the upstream's answer failed")
                    .to_owned())
            }
            _ => {}
        }
    }
    if !message.is_object() {
        return Err("the answer has no message".to_owned());
    }
    message["content"] = Value::Array(content);
    Ok(message)
}

/// A Responses stream folded into its last response object; a failed
/// response is its error's message.
pub(crate) fn fold_responses(text: &str) -> Result<Value, String> {
    let last = payloads(text)
        .filter(|e| {
            matches!(
                e.get("type").and_then(Value::as_str),
                Some("response.completed" | "response.incomplete" | "response.failed")
            )
        })
        .last()
        .ok_or_else(|| "the answer has no response".to_owned())?;
    let response = last["response"].clone();
    if response["status"] == "failed" {
        return Err(response["error"]["message"]
            .as_str()
            .unwrap_or("the upstream's answer failed")
            .to_owned());
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_answer_is_one_chunk() {
        let answer = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Hi", "reasoning_content": "hm",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2}});
        let text = as_chunks(&answer);
        let chunk: Value = serde_json::from_str(
            text.strip_prefix("data: ")
                .unwrap()
                .split("\n\n")
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(chunk["choices"][0]["delta"]["tool_calls"][0]["index"], 0);
        assert_eq!(chunk["choices"][0]["delta"]["content"], "Hi");
        assert_eq!(chunk["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(chunk["usage"]["prompt_tokens"], 3);
        assert!(text.ends_with("data: [DONE]\n\n"));
    }
}
