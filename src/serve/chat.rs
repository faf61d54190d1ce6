//! `POST /v1/chat/completions` (streaming and not) and `GET /v1/models`.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Extension, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::exchange::Exchange;
use super::relay::{Answer, AnswerMeta, Relay};
use super::upstream::{self, describe};
use super::{client_authorization, ApiError, Shared, DIALECTS_HEADER};
use crate::dialect::tools::tool_schemas;
use crate::event::{Event, Span};
use crate::protocol::Format;
use crate::{Config, Parser};

/// The request header with which a client (the live page) asks for the
/// gateway's `event: actionstream` frames.
const EVENTS_HEADER: &str = "x-actionstream-events";

/// The largest `n` read.
const MAX_CHOICES: u64 = 128;

/// What the gateway reads of a request; the body itself is forwarded as
/// it came.
#[derive(Debug)]
pub(super) struct Request {
    stream: bool,
    model: Option<String>,
    n: u64,
    /// The `tools` array as JSON text (the cache key) and its schemas.
    tools: Option<(String, Vec<(String, Value)>)>,
    /// Whether the request turned thinking on or off
    /// (`chat_template_kwargs` `enable_thinking` or `thinking`, as vLLM
    /// and SGLang read them).
    thinking: Option<bool>,
}

impl Request {
    pub(super) fn read(body: &[u8]) -> Result<Request, ApiError> {
        let value: Value = serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("the request body is not valid JSON: {e}"), None)
        })?;
        let Value::Object(obj) = value else {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
                None,
            ));
        };
        let stream = match obj.get("stream") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(ApiError::bad_request(
                    "`stream` must be a boolean",
                    Some("stream"),
                ))
            }
        };
        let model = match obj.get("model") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(ApiError::bad_request(
                    "`model` must be a string",
                    Some("model"),
                ))
            }
        };
        let n = match obj.get("n") {
            None | Some(Value::Null) => 1,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=MAX_CHOICES).contains(n))
                .ok_or_else(|| {
                    ApiError::bad_request(
                        format!("`n` must be an integer from 1 to {MAX_CHOICES}"),
                        Some("n"),
                    )
                })?,
        };
        let tools = match obj.get("tools") {
            None | Some(Value::Null) => None,
            Some(list @ Value::Array(_)) => {
                let schemas = tool_schemas(list).map_err(|e| {
                    ApiError::bad_request(format!("`tools` cannot be read: {e}"), Some("tools"))
                })?;
                Some((list.to_string(), schemas))
            }
            Some(_) => {
                return Err(ApiError::bad_request(
                    "`tools` must be an array",
                    Some("tools"),
                ))
            }
        };
        let thinking = super::thinking_asked(&obj);
        Ok(Request {
            stream,
            model,
            n,
            tools,
            thinking,
        })
    }
}

pub(super) async fn completions(
    State(shared): State<Arc<Shared>>,
    Extension(exchange): Extension<Exchange>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match handle(shared, exchange, headers, body).await {
        Ok(response) => response,
        Err(e) => {
            tracing::debug!(
                status = e.status.as_u16(),
                message = %e.message,
                "chat completion refused"
            );
            e.into_response()
        }
    }
}

async fn handle(
    shared: Arc<Shared>,
    exchange: Exchange,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let started = exchange.started();
    let request = Request::read(&body)?;
    let plan = shared.plan(
        &exchange,
        request.model.as_deref(),
        request.tools.as_ref(),
        request.thinking,
    )?;
    let body = match plan.route.upstream_model.as_deref() {
        Some(model) => with_model(&body, model)?,
        None => body,
    };
    let (dialects, config) = (plan.dialects.clone(), plan.config.clone());
    tracing::debug!(
        model = request.model.as_deref().unwrap_or(""),
        stream = request.stream,
        n = request.n,
        dialects = %dialects.join(","),
        "chat completion"
    );

    let response = shared
        .send(
            &exchange,
            plan.route,
            body,
            request.stream,
            client_authorization(&headers).as_ref(),
        )
        .await?;
    let status = response.status();
    if !status.is_success() {
        tracing::debug!(
            status = status.as_u16(),
            "the upstream answered an error status; passed on"
        );
        return Ok(pass_on(response));
    }

    let meta = AnswerMeta::new(request.model.clone());
    if request.stream {
        let ext = headers
            .get(EVENTS_HEADER)
            .is_some_and(|v| matches!(v.as_bytes(), b"1" | b"true"));
        let answer = Answer {
            format: Format::OpenAiChat,
            options: meta.options(shared.calls),
            n: request.n,
            ext,
            label: "chat completion",
        };
        let relay = Relay::new(
            answer,
            &meta,
            &config,
            upstream::body(&shared, response),
            exchange,
        );
        let stream = relay.into_stream();
        let mut builder = Response::builder().status(StatusCode::OK);
        for (name, value) in Format::OpenAiChat.headers() {
            builder = builder.header(*name, *value);
        }
        builder
            .header("x-accel-buffering", "no")
            .header(DIALECTS_HEADER, dialects.join(","))
            .body(Body::from_stream(stream))
            .map_err(|e| ApiError::internal(e.to_string()))
    } else {
        let bytes = response.bytes().await.map_err(|e| {
            ApiError::bad_gateway(
                format!("the upstream's answer broke off: {}", describe(e)),
                "upstream_broken",
            )
        })?;
        let mut value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::bad_gateway(
                format!("the upstream's answer is not JSON: {e}"),
                "upstream_invalid",
            )
        })?;
        let (calls, invalid) = complete_message(&mut value, &config, &meta.id);
        exchange.calls(calls, invalid);
        tracing::debug!(
            model = request.model.as_deref().unwrap_or(""),
            calls,
            invalid,
            ms = started.elapsed().as_millis() as u64,
            "chat completion answered"
        );
        Ok((
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/json".to_owned()),
                (
                    header::HeaderName::from_static(DIALECTS_HEADER),
                    dialects.join(","),
                ),
            ],
            value.to_string(),
        )
            .into_response())
    }
}

/// `GET /v1/models`, passed on.
pub(super) async fn models(
    State(shared): State<Arc<Shared>>,
    Extension(exchange): Extension<Exchange>,
    headers: HeaderMap,
) -> Response {
    let route = shared.models_route();
    exchange.route(&route.name, None, &[]);
    let auth = route.authorization(client_authorization(&headers).as_ref());
    let sent = upstream::send(&shared, route, &exchange, |target| {
        let request = shared.client.get(target.models_url.clone());
        match &auth {
            Some(auth) => request.header(header::AUTHORIZATION, auth.clone()),
            None => request,
        }
    })
    .await;
    match sent {
        Ok(response) => pass_on(response),
        Err(e) => e.into_response(),
    }
}

/// The request body with its `model` replaced (a route's
/// `upstream_model`).
fn with_model(body: &[u8], model: &str) -> Result<Bytes, ApiError> {
    let mut value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the request body is not valid JSON: {e}"), None)
    })?;
    if let Some(obj) = value.as_object_mut() {
        obj.insert("model".into(), Value::String(model.to_owned()));
    }
    Ok(Bytes::from(value.to_string()))
}

/// The upstream's answer as it is: status, content type, body (streamed).
pub(super) fn pass_on(response: reqwest::Response) -> Response {
    let mut builder = Response::builder().status(response.status());
    if let Some(ct) = response.headers().get(header::CONTENT_TYPE) {
        builder = builder.header(header::CONTENT_TYPE, ct.clone());
    }
    builder
        .body(Body::from_stream(response.bytes_stream()))
        .unwrap_or_else(|e| ApiError::internal(e.to_string()).into_response())
}

/// Parses each choice's `message.content` of a non-streaming answer and
/// rewrites the message: the narrative as `content` (null when it is empty
/// and there are calls), the reasoning as `reasoning_content` (after the
/// upstream's own), the complete calls as `tool_calls` (after the
/// upstream's own), `finish_reason` `tool_calls` when there is one. An
/// invalid action's raw text stays in `content`. Returns the counts of
/// complete and invalid actions.
pub(super) fn complete_message(value: &mut Value, config: &Config, id: &str) -> (usize, usize) {
    let Some(choices) = value.get_mut("choices").and_then(Value::as_array_mut) else {
        return (0, 0);
    };
    let (mut complete, mut invalid) = (0, 0);
    let mut next_call = 0usize;
    for choice in choices {
        let Some(message) = choice.get_mut("message").and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(text) = message.get("content").and_then(Value::as_str) else {
            continue;
        };
        let mut parser = Parser::new(config.clone());
        let mut events = Vec::new();
        parser.push(text, &mut events);
        parser.finish(&mut events);

        let mut content = String::new();
        let mut reasoning = String::new();
        let mut calls = Vec::new();
        let mut last_raw: Option<Span> = None;
        for event in events {
            match event {
                Event::Narrative(t) => content.push_str(&t),
                Event::Reasoning(t) => reasoning.push_str(&t),
                Event::ActionComplete(a) => {
                    complete += 1;
                    calls.push(json!({
                        "id": format!("call_{id}_{next_call}"),
                        "type": "function",
                        "function": {"name": a.name, "arguments": a.arguments.to_string()},
                    }));
                    next_call += 1;
                }
                Event::ActionInvalid(a) => {
                    invalid += 1;
                    if a.span.is_none() || a.span != last_raw {
                        content.push_str(&a.raw);
                    }
                    last_raw = a.span;
                }
                _ => {}
            }
        }
        if !reasoning.is_empty() {
            let before = ["reasoning_content", "reasoning"]
                .iter()
                .find_map(|k| message.get(*k).and_then(Value::as_str))
                .unwrap_or("");
            let joined = format!("{before}{reasoning}");
            message.insert("reasoning_content".into(), Value::String(joined));
        }
        let mut tool_calls = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        tool_calls.extend(calls);
        let has_calls = !tool_calls.is_empty();
        message.insert(
            "content".into(),
            if content.is_empty() && has_calls {
                Value::Null
            } else {
                Value::String(content)
            },
        );
        if has_calls {
            message.insert("tool_calls".into(), Value::Array(tool_calls));
            choice["finish_reason"] = Value::String("tool_calls".into());
        }
    }
    (complete, invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_or_refused_with_the_field() {
        let ok = Request::read(br#"{"model":"m","stream":true,"n":2,"tools":[]}"#).unwrap();
        assert!(ok.stream && ok.n == 2 && ok.model.as_deref() == Some("m"));
        for (body, param) in [
            (&b"{"[..], None),
            (b"[1]", None),
            (br#"{"stream":"yes"}"#, Some("stream")),
            (br#"{"model":3}"#, Some("model")),
            (br#"{"n":0}"#, Some("n")),
            (br#"{"tools":{}}"#, Some("tools")),
            (br#"{"tools":[{"parameters":{}}]}"#, Some("tools")),
        ] {
            let e = Request::read(body).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST);
            assert_eq!(
                e.param.as_deref(),
                param,
                "{}",
                String::from_utf8_lossy(body)
            );
            assert_eq!(e.body()["error"]["type"], "invalid_request_error");
        }
    }

    #[test]
    fn a_whole_answer_gets_its_calls_typed() {
        let config = Config::default()
            .dialect_named("qwen3_coder")
            .unwrap()
            .tools(vec![(
                "f".into(),
                json!({"type":"object","properties":{"n":{"type":"integer"}}}),
            )]);
        let mut value = json!({"id": "x", "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "reasoning_content": "Hm. ",
            "content": "<think>ok</think>Sure.\n<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>",
        }}]});
        assert_eq!(complete_message(&mut value, &config, "t"), (1, 0));
        let message = &value["choices"][0]["message"];
        assert_eq!(message["content"], "Sure.\n");
        assert_eq!(message["reasoning_content"], "Hm. ok");
        assert_eq!(message["tool_calls"][0]["function"]["name"], "f");
        assert_eq!(
            message["tool_calls"][0]["function"]["arguments"],
            r#"{"n":5}"#
        );
        assert_eq!(message["tool_calls"][0]["id"], "call_t_0");
        assert_eq!(value["choices"][0]["finish_reason"], "tool_calls");
    }
}
