//! [`Format::AiSdk`](super::Format::AiSdk): the AI SDK's UI message stream,
//! v1 (what `useChat` and `readUIMessageStream` of the `ai` package read; a
//! server sends it with the header `x-vercel-ai-ui-message-stream: v1`, see
//! [`Format::headers`](super::Format::headers)).
//!
//! `start` (with the `messageId`) and `start-step` open the stream. Text is
//! a text part: `text-start`, `text-delta`s, `text-end`; reasoning a
//! reasoning part the same way (`reasoning-start` …); a part ends when
//! something else begins, so the parts keep the order of the response. A
//! call is `tool-input-start` (`toolCallId`, `toolName`),
//! `tool-input-delta` fragments (`inputTextDelta`), then
//! `tool-input-available` with the parsed `input`; a call that ends invalid
//! is `tool-input-error` (its block's raw text as `input`, the errors as
//! `errorText`), and so is an action that ends invalid before its call went
//! out, where its name is known, after its raw text went out as text. Then
//! `finish-step`, `finish` (`finishReason` `tool-calls` when a call
//! completed, else `stop`) and `data: [DONE]`. A stream-level error is an
//! `error` chunk just before `finish-step`, and `finishReason` is then
//! `error`: `useChat` stops reading at an `error` chunk, so it waits until
//! everything else went out.

use serde_json::{json, Value};

use super::{data, Call, Meta, Sink, Stop};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Text,
    Reasoning,
}

pub(crate) struct AiSdk {
    meta: Meta,
    /// The open text or reasoning part and its id.
    open: Option<(Part, String)>,
    /// Parts opened so far (their ids count from 0).
    parts: usize,
    errors: Vec<String>,
}

impl AiSdk {
    pub(crate) fn new(meta: Meta) -> Self {
        AiSdk {
            meta,
            open: None,
            parts: 0,
            errors: Vec::new(),
        }
    }

    fn call_id(&self, call: &Call) -> String {
        format!("call_{}_{}", self.meta.id, call.n)
    }

    fn close(&mut self, out: &mut String) {
        if let Some((part, id)) = self.open.take() {
            let kind = match part {
                Part::Text => "text-end",
                Part::Reasoning => "reasoning-end",
            };
            data(out, &json!({"type": kind, "id": id}));
        }
    }

    fn write(&mut self, part: Part, text: &str, out: &mut String) {
        if self.open.as_ref().is_some_and(|(p, _)| *p != part) {
            self.close(out);
        }
        let (start, delta, prefix) = match part {
            Part::Text => ("text-start", "text-delta", "text"),
            Part::Reasoning => ("reasoning-start", "reasoning-delta", "reasoning"),
        };
        let id = match &self.open {
            Some((_, id)) => id.clone(),
            None => {
                let id = format!("{prefix}-{}", self.parts);
                self.parts += 1;
                data(out, &json!({"type": start, "id": id}));
                self.open = Some((part, id.clone()));
                id
            }
        };
        data(out, &json!({"type": delta, "id": id, "delta": text}));
    }

    fn input_error(&mut self, call: &Call, errors: &str, raw: &str, out: &mut String) {
        data(
            out,
            &json!({
                "type": "tool-input-error",
                "toolCallId": self.call_id(call),
                "toolName": call.name,
                "input": raw,
                "errorText": errors,
            }),
        );
    }
}

impl Sink for AiSdk {
    fn begin(&mut self, out: &mut String) {
        data(
            out,
            &json!({"type": "start", "messageId": format!("msg_{}", self.meta.id)}),
        );
        data(out, &json!({"type": "start-step"}));
    }

    fn text(&mut self, text: &str, out: &mut String) {
        self.write(Part::Text, text, out);
    }

    fn reasoning(&mut self, text: &str, out: &mut String) {
        self.write(Part::Reasoning, text, out);
    }

    fn call_start(&mut self, call: &Call, out: &mut String) {
        self.close(out);
        data(
            out,
            &json!({"type": "tool-input-start", "toolCallId": self.call_id(call), "toolName": call.name}),
        );
    }

    fn call_args(&mut self, call: &Call, fragment: &str, out: &mut String) {
        data(
            out,
            &json!({"type": "tool-input-delta", "toolCallId": self.call_id(call), "inputTextDelta": fragment}),
        );
    }

    fn call_done(&mut self, call: &Call, arguments: &Value, out: &mut String) {
        data(
            out,
            &json!({
                "type": "tool-input-available",
                "toolCallId": self.call_id(call),
                "toolName": call.name,
                "input": arguments,
            }),
        );
    }

    fn call_failed(&mut self, call: &Call, errors: &str, raw: &str, out: &mut String) {
        self.input_error(call, errors, raw, out);
    }

    fn invalid_named(&mut self, call: &Call, errors: &str, raw: &str, out: &mut String) {
        self.close(out);
        self.input_error(call, errors, raw, out);
    }

    fn error(&mut self, message: &str, _out: &mut String) {
        self.errors.push(message.to_owned());
    }

    fn finish(&mut self, stop: Stop, out: &mut String) {
        self.close(out);
        for message in &self.errors {
            data(out, &json!({"type": "error", "errorText": message}));
        }
        let reason = match (!self.errors.is_empty(), stop) {
            (true, _) => "error",
            (false, Stop::ToolCalls) => "tool-calls",
            (false, Stop::End) => "stop",
        };
        data(out, &json!({"type": "finish-step"}));
        data(out, &json!({"type": "finish", "finishReason": reason}));
        out.push_str("data: [DONE]\n\n");
    }
}
