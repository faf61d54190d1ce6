//! `POST /v1/chat/completions` (streaming and not) and `GET /v1/models`.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use serde_json::{json, Value};

use super::{ApiError, Shared};
use crate::dialect::tools::tool_schemas;
use crate::event::{Event, Span};
use crate::protocol::{Calls, Encoder, Format, Options};
use crate::sse::{SseItem, SseParser};
use crate::{Config, Parser};

/// The request header with which a client (the live page) asks for the
/// gateway's `event: actionstream` frames.
const EVENTS_HEADER: &str = "x-actionstream-events";

/// The response header that names the dialects the answer was read with.
const DIALECTS_HEADER: &str = "x-actionstream-dialects";

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
        let thinking = obj.get("chat_template_kwargs").and_then(|k| {
            ["enable_thinking", "thinking"]
                .iter()
                .find_map(|key| k.get(*key).and_then(Value::as_bool))
        });
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
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match handle(shared, headers, body).await {
        Ok(response) => response,
        Err(e) => {
            tracing::info!(
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
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let started = Instant::now();
    let request = Request::read(&body)?;
    let dialects = shared.dialects_for(request.model.as_deref());
    let open = shared.reasoning_open_for(request.model.as_deref(), request.thinking);
    let config = shared.config_for(&dialects, request.tools.as_ref(), open)?;
    tracing::debug!(
        model = request.model.as_deref().unwrap_or(""),
        stream = request.stream,
        n = request.n,
        dialects = %dialects.join(","),
        "chat completion"
    );

    let accept = if request.stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    let mut upstream = shared
        .client
        .post(shared.chat_url.clone())
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, accept)
        .body(body);
    if let Some(auth) = shared.authorization(headers.get(header::AUTHORIZATION)) {
        upstream = upstream.header(header::AUTHORIZATION, auth);
    }
    let response = upstream.send().await.map_err(|e| {
        ApiError::bad_gateway(
            format!("the upstream could not be reached: {}", describe(e)),
            "upstream_unreachable",
        )
    })?;
    let status = response.status();
    if !status.is_success() {
        tracing::info!(
            status = status.as_u16(),
            "the upstream answered an error status; passed on"
        );
        return Ok(pass_on(response));
    }

    let meta = ChunkMeta::new(request.model.clone());
    if request.stream {
        let ext = headers
            .get(EVENTS_HEADER)
            .is_some_and(|v| matches!(v.as_bytes(), b"1" | b"true"));
        let relay = Relay::new(
            &meta,
            shared.calls,
            &config,
            request.n,
            ext,
            Box::pin(response.bytes_stream()),
            started,
        );
        let stream = futures::stream::unfold(relay, |mut relay| async move {
            let chunk = relay.next_chunk().await?;
            Some((Ok::<Bytes, Infallible>(Bytes::from(chunk)), relay))
        });
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
        tracing::info!(
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
pub(super) async fn models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let mut upstream = shared.client.get(shared.models_url.clone());
    if let Some(auth) = shared.authorization(headers.get(header::AUTHORIZATION)) {
        upstream = upstream.header(header::AUTHORIZATION, auth);
    }
    match upstream.send().await {
        Ok(response) => pass_on(response),
        Err(e) => ApiError::bad_gateway(
            format!("the upstream could not be reached: {}", describe(e)),
            "upstream_unreachable",
        )
        .into_response(),
    }
}

/// The upstream's answer as it is: status, content type, body (streamed).
fn pass_on(response: reqwest::Response) -> Response {
    let mut builder = Response::builder().status(response.status());
    if let Some(ct) = response.headers().get(header::CONTENT_TYPE) {
        builder = builder.header(header::CONTENT_TYPE, ct.clone());
    }
    builder
        .body(Body::from_stream(response.bytes_stream()))
        .unwrap_or_else(|e| ApiError::internal(e.to_string()).into_response())
}

/// An HTTP client error with its causes, without the URL (which could
/// carry credentials).
fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// The identity of one answer: its id, model and creation time.
struct ChunkMeta {
    id: String,
    model: Option<String>,
    created: u64,
}

impl ChunkMeta {
    fn new(model: Option<String>) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let seed = (now.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32);
        ChunkMeta {
            id: format!("gw{:016x}{:06x}", mix(seed ^ mix(n)), n & 0xff_ffff),
            model,
            created: now.as_secs(),
        }
    }

    fn options(&self, calls: Calls) -> Options {
        let options = Options::default()
            .id(self.id.clone())
            .created(self.created)
            .calls(calls);
        match &self.model {
            Some(model) => options.model(model.clone()),
            None => options,
        }
    }
}

/// splitmix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

type Upstream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing written yet: the opening chunks go first.
    Start,
    /// Reading the upstream.
    Streaming,
    /// Everything written.
    Done,
}

/// What the choices of one answer share.
struct Common {
    ext: bool,
    /// Stream-level errors already written (each goes out once, though
    /// every choice's parser reads it).
    errors: Vec<String>,
    items: Vec<SseItem>,
    calls: usize,
    invalid: usize,
}

/// One choice: its parser over the upstream's stream and its encoder (which
/// also tells the `tool_calls` index of each action that went out as a
/// call, for the extension frames).
struct Choice {
    index: u64,
    sse: SseParser,
    encoder: Encoder,
}

impl Choice {
    fn push(&mut self, bytes: &[u8], common: &mut Common, out: &mut String) {
        let mut items = std::mem::take(&mut common.items);
        self.sse.push(bytes, &mut items);
        let mut buf = String::new();
        for item in items.drain(..) {
            self.item(item, common, &mut buf);
        }
        common.items = items;
        self.emit(buf, out);
    }

    fn finish(&mut self, common: &mut Common, out: &mut String) {
        let reason = self.sse.finish_reason().map(str::to_owned);
        let mut items = std::mem::take(&mut common.items);
        self.sse.finish(&mut items);
        let mut buf = String::new();
        for item in items.drain(..) {
            self.item(item, common, &mut buf);
        }
        common.items = items;
        self.encoder.finish(&mut buf);
        if let Some(at) = buf.rfind("data: [DONE]\n\n") {
            buf.truncate(at);
        }
        // A reason the parsed calls do not explain is passed on.
        if let Some(reason @ ("length" | "content_filter")) = reason.as_deref() {
            buf = buf.replace(
                r#""finish_reason":"stop""#,
                &format!(r#""finish_reason":"{reason}""#),
            );
        }
        self.emit(buf, out);
    }

    /// Appends `buf`, its chunks renumbered to this choice.
    fn emit(&self, buf: String, out: &mut String) {
        if self.index == 0 {
            out.push_str(&buf);
        } else {
            // The encoder writes choice 0; a quote inside a JSON string is
            // escaped, so this text is only ever the structure.
            out.push_str(&buf.replace(
                r#""choices":[{"index":0,"#,
                &format!(r#""choices":[{{"index":{},"#, self.index),
            ));
        }
    }

    fn item(&mut self, item: SseItem, common: &mut Common, buf: &mut String) {
        match item {
            SseItem::Event(event) => self.event(&event, common, buf),
            SseItem::Error(message) => {
                if !common.errors.contains(&message) {
                    tracing::info!(%message, "the upstream stream");
                    self.encoder.error(&message, buf);
                    common.errors.push(message);
                }
            }
        }
    }

    fn event(&mut self, event: &Event, common: &mut Common, buf: &mut String) {
        self.encoder.event(event, buf);
        match event {
            Event::ActionComplete(a) => {
                common.calls += 1;
                let index = self.encoder.call_index(a.id);
                if common.ext {
                    frame(
                        buf,
                        &json!({
                            "choice": self.index,
                            "index": index,
                            "name": a.name,
                            "state": "complete",
                            "arguments": a.arguments,
                        }),
                    );
                }
            }
            Event::ActionInvalid(a) => {
                common.invalid += 1;
                // `None` unless its call went out before it failed.
                let index = self.encoder.call_index(a.id);
                if common.ext {
                    let errors: Vec<String> = a.errors.iter().map(ToString::to_string).collect();
                    frame(
                        buf,
                        &json!({
                            "choice": self.index,
                            "index": index,
                            "name": a.name,
                            "state": "invalid",
                            "errors": errors,
                            "raw": &*a.raw,
                        }),
                    );
                }
            }
            _ => {}
        }
    }
}

/// An `event: actionstream` frame.
fn frame(out: &mut String, data: &Value) {
    out.push_str("event: actionstream\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// One streaming answer: the upstream's chunks in, the gateway's out.
struct Relay {
    upstream: Upstream,
    choices: Vec<Choice>,
    common: Common,
    meta: ChunkMeta,
    phase: Phase,
    started: Instant,
}

impl Relay {
    fn new(
        meta: &ChunkMeta,
        calls: Calls,
        config: &Config,
        n: u64,
        ext: bool,
        upstream: Upstream,
        started: Instant,
    ) -> Self {
        let choices = (0..n)
            .map(|index| Choice {
                index,
                sse: SseParser::for_choice(config.clone(), index),
                encoder: Encoder::new(Format::OpenAiChat, meta.options(calls)),
            })
            .collect();
        Relay {
            upstream,
            choices,
            common: Common {
                ext,
                errors: Vec::new(),
                items: Vec::new(),
                calls: 0,
                invalid: 0,
            },
            meta: ChunkMeta {
                id: meta.id.clone(),
                model: meta.model.clone(),
                created: meta.created,
            },
            phase: Phase::Start,
            started,
        }
    }

    /// The next piece of the answer; `None` once it is all out.
    async fn next_chunk(&mut self) -> Option<String> {
        match self.phase {
            Phase::Done => None,
            Phase::Start => {
                self.phase = Phase::Streaming;
                let mut out = String::new();
                for c in &mut self.choices {
                    let mut buf = String::new();
                    c.encoder.start(&mut buf);
                    c.emit(buf, &mut out);
                }
                Some(out)
            }
            Phase::Streaming => loop {
                match self.upstream.next().await {
                    Some(Ok(bytes)) => {
                        let mut out = String::new();
                        for c in &mut self.choices {
                            c.push(&bytes, &mut self.common, &mut out);
                        }
                        if !out.is_empty() {
                            return Some(out);
                        }
                    }
                    Some(Err(e)) => {
                        let message = format!("the upstream stream broke off: {}", describe(e));
                        let mut out = String::new();
                        if let Some(c) = self.choices.first_mut() {
                            let mut buf = String::new();
                            c.item(SseItem::Error(message), &mut self.common, &mut buf);
                            c.emit(buf, &mut out);
                        }
                        out.push_str(&self.finish());
                        return Some(out);
                    }
                    None => return Some(self.finish()),
                }
            },
        }
    }

    /// The end: every choice's last chunks, the usage the upstream sent,
    /// then `[DONE]`.
    fn finish(&mut self) -> String {
        self.phase = Phase::Done;
        let usage = self.choices.first().and_then(|c| c.sse.usage().cloned());
        let mut out = String::new();
        for c in &mut self.choices {
            c.finish(&mut self.common, &mut out);
        }
        if let Some(usage) = usage {
            let chunk = json!({
                "id": format!("chatcmpl-{}", self.meta.id),
                "object": "chat.completion.chunk",
                "created": self.meta.created,
                "model": self.meta.model.as_deref().unwrap_or("actionstream"),
                "choices": [],
                "usage": usage,
            });
            out.push_str("data: ");
            out.push_str(&chunk.to_string());
            out.push_str("\n\n");
        }
        out.push_str("data: [DONE]\n\n");
        tracing::info!(
            model = self.meta.model.as_deref().unwrap_or(""),
            calls = self.common.calls,
            invalid = self.common.invalid,
            ms = self.started.elapsed().as_millis() as u64,
            "chat completion streamed"
        );
        out
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if self.phase != Phase::Done {
            tracing::info!(
                model = self.meta.model.as_deref().unwrap_or(""),
                ms = self.started.elapsed().as_millis() as u64,
                "the client went away; the upstream request is cancelled"
            );
        }
    }
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
            assert_eq!(e.param, param, "{}", String::from_utf8_lossy(body));
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
