//! [`Format::OpenAiResponses`](super::Format::OpenAiResponses): OpenAI
//! Responses API streaming events.
//!
//! `response.created` and `response.in_progress` open the stream (the
//! response object with `status: in_progress` and no output). Text is a
//! `message` output item: `response.output_item.added`,
//! `response.content_part.added` (an empty `output_text` part), then
//! `response.output_text.delta` events, closed by `.output_text.done`,
//! `.content_part.done` and `.output_item.done`. Reasoning is a `reasoning`
//! item the same way, with a `reasoning_text` part and
//! `response.reasoning_text.delta` events. A call is a `function_call` item:
//! added with empty `arguments`, then `response.function_call_arguments.delta`
//! fragments, `.function_call_arguments.done` and `.output_item.done`
//! (`status: completed`); a call that ends invalid is done with
//! `status: incomplete` and the arguments sent so far. Text after a call is a
//! new message item, so the items keep the order of the response. The last
//! event is `response.completed` with the whole response, every output item
//! in it; after a stream-level error (an `error` event, sent at once) it is
//! `response.failed` with the first error's message. Every event carries its
//! `sequence_number`, from 0.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::{named, Call, Meta, Sink, Stop};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    Reasoning,
}

/// An open message or reasoning item.
struct Open {
    kind: Kind,
    index: usize,
    id: String,
    text: String,
}

/// A function call item that went out.
struct FnCall {
    index: usize,
    id: String,
    call_id: String,
    arguments: String,
}

pub(crate) struct Responses {
    meta: Meta,
    sequence: u64,
    /// Output items by output index; `Null` until done.
    items: Vec<Value>,
    open: Option<Open>,
    calls: HashMap<usize, FnCall>,
    error: Option<String>,
}

impl Responses {
    pub(crate) fn new(meta: Meta) -> Self {
        Responses {
            meta,
            sequence: 0,
            items: Vec::new(),
            open: None,
            calls: HashMap::new(),
            error: None,
        }
    }

    /// One event: `type`, `sequence_number`, then `fields`.
    fn emit(&mut self, kind: &str, fields: Value, out: &mut String) {
        let mut v = Map::new();
        v.insert("type".into(), kind.into());
        v.insert("sequence_number".into(), self.sequence.into());
        if let Value::Object(fields) = fields {
            v.extend(fields);
        }
        self.sequence += 1;
        named(out, kind, &Value::Object(v));
    }

    /// The response object.
    fn response(&self, status: &str) -> Value {
        let output: Vec<Value> = if status == "in_progress" {
            Vec::new()
        } else {
            self.items
                .iter()
                .filter(|item| !item.is_null())
                .cloned()
                .collect()
        };
        let error = match (&self.error, status) {
            (Some(message), "failed") => json!({"code": "server_error", "message": message}),
            _ => Value::Null,
        };
        json!({
            "id": format!("resp_{}", self.meta.id),
            "object": "response",
            "created_at": self.meta.created,
            "status": status,
            "background": false,
            "error": error,
            "incomplete_details": null,
            "instructions": null,
            "max_output_tokens": null,
            "model": self.meta.model,
            "output": output,
            "parallel_tool_calls": true,
            "previous_response_id": null,
            "reasoning": null,
            "temperature": null,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "top_p": null,
            "truncation": "disabled",
            "usage": null,
            "metadata": {},
        })
    }

    fn new_item(&mut self) -> usize {
        self.items.push(Value::Null);
        self.items.len() - 1
    }

    fn part(kind: Kind, text: &str) -> Value {
        match kind {
            Kind::Message => {
                json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
            }
            Kind::Reasoning => json!({"type": "reasoning_text", "text": text}),
        }
    }

    fn item(&self, open: &Open, status: &str, content: Vec<Value>) -> Value {
        match open.kind {
            Kind::Message => json!({
                "id": open.id, "type": "message", "status": status,
                "role": "assistant", "content": content,
            }),
            Kind::Reasoning => json!({
                "id": open.id, "type": "reasoning", "status": status,
                "summary": [], "content": content,
            }),
        }
    }

    /// Text of `kind`: into the open item of that kind, or a new one.
    fn write(&mut self, kind: Kind, text: &str, out: &mut String) {
        if self.open.as_ref().is_some_and(|o| o.kind != kind) {
            self.close(out);
        }
        if self.open.is_none() {
            let index = self.new_item();
            let prefix = match kind {
                Kind::Message => "msg",
                Kind::Reasoning => "rs",
            };
            let open = Open {
                kind,
                index,
                id: format!("{prefix}_{}_{index}", self.meta.id),
                text: String::new(),
            };
            let item = self.item(&open, "in_progress", Vec::new());
            self.emit(
                "response.output_item.added",
                json!({"output_index": index, "item": item}),
                out,
            );
            self.emit(
                "response.content_part.added",
                json!({
                    "item_id": open.id, "output_index": index, "content_index": 0,
                    "part": Self::part(kind, ""),
                }),
                out,
            );
            self.open = Some(open);
        }
        let Some(open) = self.open.as_mut() else {
            return;
        };
        open.text.push_str(text);
        let (id, index) = (open.id.clone(), open.index);
        match kind {
            Kind::Message => self.emit(
                "response.output_text.delta",
                json!({
                    "item_id": id, "output_index": index, "content_index": 0,
                    "delta": text, "logprobs": [],
                }),
                out,
            ),
            Kind::Reasoning => self.emit(
                "response.reasoning_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": text}),
                out,
            ),
        }
    }

    /// Closes the open message or reasoning item.
    fn close(&mut self, out: &mut String) {
        let Some(open) = self.open.take() else {
            return;
        };
        let (id, index) = (open.id.clone(), open.index);
        match open.kind {
            Kind::Message => self.emit(
                "response.output_text.done",
                json!({
                    "item_id": id, "output_index": index, "content_index": 0,
                    "text": open.text, "logprobs": [],
                }),
                out,
            ),
            Kind::Reasoning => self.emit(
                "response.reasoning_text.done",
                json!({"item_id": id, "output_index": index, "content_index": 0, "text": open.text}),
                out,
            ),
        }
        let part = Self::part(open.kind, &open.text);
        self.emit(
            "response.content_part.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
            out,
        );
        let item = self.item(&open, "completed", vec![part]);
        self.items[index] = item.clone();
        self.emit(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
            out,
        );
    }

    fn fn_item(&self, f: &FnCall, name: &str, status: &str) -> Value {
        json!({
            "id": f.id, "type": "function_call", "status": status,
            "arguments": f.arguments, "call_id": f.call_id, "name": name,
        })
    }

    /// Ends a call's item with `status`.
    fn end_call(&mut self, call: &Call, status: &str, out: &mut String) {
        let Some(f) = self.calls.remove(&call.n) else {
            return;
        };
        if status == "completed" {
            self.emit(
                "response.function_call_arguments.done",
                json!({"item_id": f.id, "output_index": f.index, "arguments": f.arguments}),
                out,
            );
        }
        let item = self.fn_item(&f, &call.name, status);
        self.items[f.index] = item.clone();
        self.emit(
            "response.output_item.done",
            json!({"output_index": f.index, "item": item}),
            out,
        );
    }
}

impl Sink for Responses {
    fn begin(&mut self, out: &mut String) {
        let response = self.response("in_progress");
        self.emit(
            "response.created",
            json!({"response": response.clone()}),
            out,
        );
        self.emit("response.in_progress", json!({"response": response}), out);
    }

    fn text(&mut self, text: &str, out: &mut String) {
        self.write(Kind::Message, text, out);
    }

    fn reasoning(&mut self, text: &str, out: &mut String) {
        self.write(Kind::Reasoning, text, out);
    }

    fn call_start(&mut self, call: &Call, out: &mut String) {
        self.close(out);
        let index = self.new_item();
        let f = FnCall {
            index,
            id: format!("fc_{}_{index}", self.meta.id),
            call_id: format!("call_{}_{}", self.meta.id, call.n),
            arguments: String::new(),
        };
        let item = self.fn_item(&f, &call.name, "in_progress");
        self.calls.insert(call.n, f);
        self.emit(
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
            out,
        );
    }

    fn call_args(&mut self, call: &Call, fragment: &str, out: &mut String) {
        let Some(f) = self.calls.get_mut(&call.n) else {
            return;
        };
        f.arguments.push_str(fragment);
        let (id, index) = (f.id.clone(), f.index);
        self.emit(
            "response.function_call_arguments.delta",
            json!({"item_id": id, "output_index": index, "delta": fragment}),
            out,
        );
    }

    fn call_done(&mut self, call: &Call, _arguments: &Value, out: &mut String) {
        self.end_call(call, "completed", out);
    }

    fn call_failed(&mut self, call: &Call, _errors: &str, _raw: &str, out: &mut String) {
        self.end_call(call, "incomplete", out);
    }

    fn error(&mut self, message: &str, out: &mut String) {
        self.emit(
            "error",
            json!({"code": null, "message": message, "param": null}),
            out,
        );
        if self.error.is_none() {
            self.error = Some(message.to_owned());
        }
    }

    fn finish(&mut self, _stop: Stop, out: &mut String) {
        self.close(out);
        let (kind, status) = match self.error {
            Some(_) => ("response.failed", "failed"),
            None => ("response.completed", "completed"),
        };
        let response = self.response(status);
        self.emit(kind, json!({"response": response}), out);
    }
}
