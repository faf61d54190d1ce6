//! The streaming core every route shares: one upstream Chat Completions
//! stream read by one [`SseParser`] per choice (`delta.content` through the
//! dialects, reasoning and native calls passed on) and written by one
//! [`Encoder`] per choice in the client's [`Format`], piece by piece as the
//! upstream's chunks arrive.
//!
//! Chat Completions answers may have several choices and the gateway's
//! extension frames; the agent APIs ([`Format::Anthropic`],
//! [`Format::OpenAiResponses`]) have one choice, and the upstream's
//! `usage` and `finish_reason: "length"` are handed to their encoder
//! ([`Encoder::usage`], [`Encoder::truncated`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use futures::{Stream, StreamExt};
use serde_json::{json, Value};

use super::exchange::Exchange;
use crate::event::Event;
use crate::protocol::{Calls, Encoder, Format, Options, Usage};
use crate::sse::{SseItem, SseParser};
use crate::Config;

/// The upstream's body, as it arrives.
pub(super) type Upstream = super::upstream::Body;

/// The identity of one answer: its id, model and creation time.
pub(super) struct AnswerMeta {
    pub(super) id: String,
    pub(super) model: Option<String>,
    pub(super) created: u64,
}

impl AnswerMeta {
    pub(super) fn new(model: Option<String>) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let seed = (now.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32);
        AnswerMeta {
            id: format!("gw{:016x}{:06x}", mix(seed ^ mix(n)), n & 0xff_ffff),
            model,
            created: now.as_secs(),
        }
    }

    /// The encoder options of this answer.
    pub(super) fn options(&self, calls: Calls) -> Options {
        let options = Options::default()
            .id(self.id.clone())
            .created(self.created)
            .calls(calls);
        match &self.model {
            Some(model) => options.model(model.clone()),
            None => options,
        }
    }

    fn copy(&self) -> Self {
        AnswerMeta {
            id: self.id.clone(),
            model: self.model.clone(),
            created: self.created,
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
    chat: bool,
    ext: bool,
    /// Stream-level errors already written (each goes out once, though
    /// every choice's parser reads it).
    errors: Vec<String>,
    /// The upstream's answer stopped early (its error already went out;
    /// the parsers' note that the stream was cut off would say it twice).
    broken: bool,
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

    fn finish(&mut self, usage: Option<&Value>, common: &mut Common, out: &mut String) {
        let reason = self.sse.finish_reason().map(str::to_owned);
        let mut items = std::mem::take(&mut common.items);
        self.sse.finish(&mut items);
        let mut buf = String::new();
        for item in items.drain(..) {
            self.item(item, common, &mut buf);
        }
        common.items = items;
        if !common.chat {
            if let Some(usage) = usage.and_then(Usage::from_openai) {
                self.encoder.usage(usage);
            }
            if reason.as_deref() == Some("length") {
                self.encoder.truncated();
            }
        }
        self.encoder.finish(&mut buf);
        if common.chat {
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
                if !common.broken && !common.errors.contains(&message) {
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

/// What one streaming answer is written as.
pub(super) struct Answer {
    /// The client's format.
    pub(super) format: Format,
    /// The encoder options (ids, model, calls, tool shapes).
    pub(super) options: Options,
    /// How many choices (Chat Completions' `n`; 1 elsewhere).
    pub(super) n: u64,
    /// Whether the gateway's `event: actionstream` frames are written
    /// (Chat Completions only).
    pub(super) ext: bool,
    /// What the log lines call the answer (`chat completion`, …).
    pub(super) label: &'static str,
}

/// One streaming answer: the upstream's chunks in, the client's out.
pub(super) struct Relay {
    upstream: Upstream,
    choices: Vec<Choice>,
    common: Common,
    meta: AnswerMeta,
    label: &'static str,
    phase: Phase,
    started: Instant,
    exchange: Exchange,
}

impl Relay {
    pub(super) fn new(
        answer: Answer,
        meta: &AnswerMeta,
        config: &Config,
        upstream: Upstream,
        exchange: Exchange,
    ) -> Self {
        let started = exchange.started();
        let chat = answer.format == Format::OpenAiChat;
        let choices = (0..answer.n.max(1))
            .map(|index| Choice {
                index,
                sse: SseParser::for_choice(config.clone(), index),
                encoder: Encoder::new(answer.format, answer.options.clone()),
            })
            .collect();
        Relay {
            upstream,
            choices,
            common: Common {
                chat,
                ext: answer.ext && chat,
                errors: Vec::new(),
                broken: false,
                items: Vec::new(),
                calls: 0,
                invalid: 0,
            },
            meta: meta.copy(),
            label: answer.label,
            phase: Phase::Start,
            started,
            exchange,
        }
    }

    /// The whole answer as a byte stream, for a response body.
    pub(super) fn into_stream(
        self,
    ) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + Send {
        futures::stream::unfold(self, |mut relay| async move {
            let chunk = relay.next_chunk().await?;
            Some((Ok(Bytes::from(chunk)), relay))
        })
    }

    /// The whole answer at once (for a client that did not ask to stream).
    pub(super) async fn collect(mut self) -> String {
        let mut out = String::new();
        while let Some(chunk) = self.next_chunk().await {
            out.push_str(&chunk);
        }
        out
    }

    /// The next piece of the answer; `None` once it is all out.
    pub(super) async fn next_chunk(&mut self) -> Option<String> {
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
                        let message = e.0;
                        let mut out = String::new();
                        if let Some(c) = self.choices.first_mut() {
                            let mut buf = String::new();
                            c.item(SseItem::Error(message), &mut self.common, &mut buf);
                            c.emit(buf, &mut out);
                        }
                        self.common.broken = true;
                        out.push_str(&self.finish());
                        return Some(out);
                    }
                    None => return Some(self.finish()),
                }
            },
        }
    }

    /// The end: every choice's last chunks; for Chat Completions the usage
    /// the upstream sent, then `[DONE]`.
    fn finish(&mut self) -> String {
        self.phase = Phase::Done;
        let usage = self.choices.first().and_then(|c| c.sse.usage().cloned());
        let mut out = String::new();
        for c in &mut self.choices {
            c.finish(usage.as_ref(), &mut self.common, &mut out);
        }
        if self.common.chat {
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
        }
        tracing::debug!(
            model = self.meta.model.as_deref().unwrap_or(""),
            calls = self.common.calls,
            invalid = self.common.invalid,
            errors = self.common.errors.len(),
            ms = self.started.elapsed().as_millis() as u64,
            "{} streamed",
            self.label
        );
        out
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.exchange.calls(self.common.calls, self.common.invalid);
        if self.phase != Phase::Done {
            tracing::debug!(
                model = self.meta.model.as_deref().unwrap_or(""),
                ms = self.started.elapsed().as_millis() as u64,
                "the client went away; the upstream request is cancelled"
            );
        }
    }
}
