//! [`Format::AgUi`](super::Format::AgUi): AG-UI events (protocol 1.0 of
//! `@ag-ui/core`), camelCase, one `data:` frame each.
//!
//! `RUN_STARTED` (`threadId`, `runId`) opens the run. Text is an assistant
//! text message: `TEXT_MESSAGE_START` (`messageId`, `role: assistant`),
//! `TEXT_MESSAGE_CONTENT` deltas, `TEXT_MESSAGE_END`. Reasoning is a
//! reasoning span: `REASONING_START`, `REASONING_MESSAGE_START`
//! (`role: reasoning`), `REASONING_MESSAGE_CONTENT` deltas,
//! `REASONING_MESSAGE_END`, `REASONING_END`. A message ends when something
//! else begins. A call is `TOOL_CALL_START` (`toolCallId`, `toolCallName`,
//! and `parentMessageId`: the text message just before it, so the calls
//! belong to the assistant message that announced them), `TOOL_CALL_ARGS`
//! deltas and `TOOL_CALL_END`; AG-UI has no failed call, so a call that ends
//! invalid just ends where its fragments were. `RUN_FINISHED` closes the
//! run; after a stream-level error, `RUN_ERROR` closes it in its place (it
//! ends a run, so it waits for the end).

use serde_json::{json, Value};

use super::{data, Call, Meta, Sink, Stop};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Message {
    Text,
    Reasoning,
}

pub(crate) struct AgUi {
    meta: Meta,
    /// The open text message or reasoning span, and its id.
    open: Option<(Message, String)>,
    /// Messages opened so far (their ids count from 0).
    messages: usize,
    /// The last text message, the parent of the calls after it.
    parent: Option<String>,
    errors: Vec<String>,
}

impl AgUi {
    pub(crate) fn new(meta: Meta) -> Self {
        AgUi {
            meta,
            open: None,
            messages: 0,
            parent: None,
            errors: Vec::new(),
        }
    }

    fn call_id(&self, call: &Call) -> String {
        format!("call_{}_{}", self.meta.id, call.n)
    }

    fn close(&mut self, out: &mut String) {
        match self.open.take() {
            Some((Message::Text, id)) => {
                data(out, &json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
            }
            Some((Message::Reasoning, id)) => {
                data(
                    out,
                    &json!({"type": "REASONING_MESSAGE_END", "messageId": id}),
                );
                data(out, &json!({"type": "REASONING_END", "messageId": id}));
            }
            None => {}
        }
    }

    fn write(&mut self, kind: Message, text: &str, out: &mut String) {
        if self.open.as_ref().is_some_and(|(k, _)| *k != kind) {
            self.close(out);
        }
        let id = match &self.open {
            Some((_, id)) => id.clone(),
            None => {
                let id = format!("msg_{}_{}", self.meta.id, self.messages);
                self.messages += 1;
                match kind {
                    Message::Text => {
                        data(
                            out,
                            &json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}),
                        );
                        self.parent = Some(id.clone());
                    }
                    Message::Reasoning => {
                        data(out, &json!({"type": "REASONING_START", "messageId": id}));
                        data(
                            out,
                            &json!({"type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning"}),
                        );
                    }
                }
                self.open = Some((kind, id.clone()));
                id
            }
        };
        let kind = match kind {
            Message::Text => "TEXT_MESSAGE_CONTENT",
            Message::Reasoning => "REASONING_MESSAGE_CONTENT",
        };
        data(out, &json!({"type": kind, "messageId": id, "delta": text}));
    }
}

impl Sink for AgUi {
    fn begin(&mut self, out: &mut String) {
        data(
            out,
            &json!({
                "type": "RUN_STARTED",
                "threadId": format!("thread_{}", self.meta.id),
                "runId": format!("run_{}", self.meta.id),
            }),
        );
    }

    fn text(&mut self, text: &str, out: &mut String) {
        self.write(Message::Text, text, out);
    }

    fn reasoning(&mut self, text: &str, out: &mut String) {
        self.write(Message::Reasoning, text, out);
    }

    fn call_start(&mut self, call: &Call, out: &mut String) {
        self.close(out);
        let mut v = json!({
            "type": "TOOL_CALL_START",
            "toolCallId": self.call_id(call),
            "toolCallName": call.name,
        });
        if let Some(parent) = &self.parent {
            v["parentMessageId"] = parent.clone().into();
        }
        data(out, &v);
    }

    fn call_args(&mut self, call: &Call, fragment: &str, out: &mut String) {
        data(
            out,
            &json!({"type": "TOOL_CALL_ARGS", "toolCallId": self.call_id(call), "delta": fragment}),
        );
    }

    fn call_done(&mut self, call: &Call, _arguments: &Value, out: &mut String) {
        data(
            out,
            &json!({"type": "TOOL_CALL_END", "toolCallId": self.call_id(call)}),
        );
    }

    fn call_failed(&mut self, call: &Call, _errors: &str, _raw: &str, out: &mut String) {
        data(
            out,
            &json!({"type": "TOOL_CALL_END", "toolCallId": self.call_id(call)}),
        );
    }

    fn error(&mut self, message: &str, _out: &mut String) {
        self.errors.push(message.to_owned());
    }

    fn finish(&mut self, _stop: Stop, out: &mut String) {
        self.close(out);
        if self.errors.is_empty() {
            data(
                out,
                &json!({
                    "type": "RUN_FINISHED",
                    "threadId": format!("thread_{}", self.meta.id),
                    "runId": format!("run_{}", self.meta.id),
                }),
            );
        } else {
            data(
                out,
                &json!({"type": "RUN_ERROR", "message": self.errors.join("; ")}),
            );
        }
    }
}
