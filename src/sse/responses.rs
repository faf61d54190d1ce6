//! The OpenAI Responses API stream (`event:` + `data:` pairs, each payload's
//! `type` starting with `response.`; no `[DONE]`).
//!
//! - `response.output_text.delta` (and `response.refusal.delta`) is response
//!   text; the message items of one response are one response text;
//! - `response.reasoning_text.delta` and `response.reasoning_summary_text.delta`
//!   are reasoning;
//! - a `function_call` item is a native call keyed by its `output_index`: it
//!   starts at `response.output_item.added` (its name is known there), its
//!   `response.function_call_arguments.delta` fragments are joined, and it
//!   ends at `response.function_call_arguments.done` or
//!   `response.output_item.done` (whichever comes first; a call with no
//!   fragments takes the arguments these carry). Its `call_id` is the
//!   action's `call_id`;
//! - a `custom_tool_call` item (free-text input, not JSON) is a native call
//!   whose arguments are `{"input": <the text>}`;
//! - `response.completed`, `response.incomplete` and `response.failed` end
//!   the response (a failed one is a provider error, quoting its message
//!   unless an `error` event already did); `error` is a provider error;
//! - other events (`response.created`, `response.in_progress`,
//!   `response.content_part.*`, `*.done` of text, `sequence_number`s) carry
//!   nothing more.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{error_message, Arguments, Ctx};
use crate::NativeId;

/// The tag of native actions from this provider.
const TAG: &str = "openai";

/// One call item being read.
#[derive(Debug)]
struct Call {
    id: NativeId,
    name: String,
    call_id: Option<String>,
    arguments: Arguments,
    /// Free-text input (`custom_tool_call`), wrapped as `{"input": …}`.
    custom: bool,
    fragments: bool,
}

/// The state of a Responses stream.
#[derive(Debug, Default)]
pub(super) struct Responses {
    /// Open call items by `output_index`.
    calls: BTreeMap<u64, Call>,
    /// The response ended (`completed`, `incomplete` or `failed`).
    ended: bool,
    /// An `error` event came (a following `response.failed` adds no line).
    errored: bool,
}

impl Responses {
    /// One event; returns whether it was a provider error.
    pub(super) fn event(&mut self, value: &Value, ctx: &mut Ctx<'_>) -> bool {
        let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
        let index = value.get("output_index").and_then(Value::as_u64);
        let str_of = |key: &str| value.get(key).and_then(Value::as_str);
        match ty {
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(text) = str_of("delta") {
                    ctx.text(text);
                }
            }
            "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                if let Some(text) = str_of("delta") {
                    ctx.reasoning(text);
                }
            }
            "response.output_item.added" => self.item_added(index, value.get("item"), ctx),
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                let max = ctx.max_arguments();
                if let (Some(call), Some(delta)) =
                    (index.and_then(|i| self.calls.get_mut(&i)), str_of("delta"))
                {
                    call.fragments = true;
                    call.arguments.push(delta, max);
                }
            }
            "response.function_call_arguments.done" => {
                self.end_call(index, str_of("arguments"), ctx);
            }
            "response.custom_tool_call_input.done" => {
                self.end_call(index, str_of("input"), ctx);
            }
            "response.output_item.done" => {
                let item = value.get("item");
                let field = if item.and_then(|i| i.get("type")).and_then(Value::as_str)
                    == Some("custom_tool_call")
                {
                    "input"
                } else {
                    "arguments"
                };
                let whole = item.and_then(|i| i.get(field)).and_then(Value::as_str);
                self.end_call(index, whole, ctx);
            }
            "response.completed" | "response.incomplete" => self.end_all(ctx),
            "response.failed" => {
                self.end_all(ctx);
                if !self.errored {
                    let message = value
                        .get("response")
                        .and_then(|r| error_message(r, "openai"))
                        .unwrap_or_else(|| "openai error: the response failed".to_owned());
                    ctx.error(message);
                }
                return true;
            }
            "error" => {
                self.errored = true;
                let message = error_message(value, "openai").unwrap_or_else(|| {
                    // The older shape: code and message at the top level.
                    let message =
                        str_of("message").map_or_else(|| value.to_string(), str::to_owned);
                    match str_of("code").or_else(|| str_of("type").filter(|t| *t != "error")) {
                        Some(code) => format!("openai error ({code}): {message}"),
                        None => format!("openai error: {message}"),
                    }
                });
                ctx.error(message);
                return true;
            }
            _ => {}
        }
        false
    }

    fn item_added(&mut self, index: Option<u64>, item: Option<&Value>, ctx: &mut Ctx<'_>) {
        let Some(item) = item else {
            return;
        };
        let custom = match item.get("type").and_then(Value::as_str) {
            Some("function_call") => false,
            Some("custom_tool_call") => true,
            _ => return,
        };
        let Some(index) = index else {
            ctx.error("a function_call item without an output_index".into());
            return;
        };
        let Some(name) = item
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            ctx.error(format!(
                "the function_call item at output_index {index} has no name"
            ));
            return;
        };
        let max = ctx.max_arguments();
        let id = ctx.start(name, TAG);
        let mut arguments = Arguments::default();
        let initial = item.get(if custom { "input" } else { "arguments" });
        let initial = initial.and_then(Value::as_str).unwrap_or("");
        arguments.push(initial, max);
        let call = Call {
            id,
            name: name.to_owned(),
            call_id: item
                .get("call_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            arguments,
            custom,
            fragments: !initial.is_empty(),
        };
        // An item added twice without its end: the first ends here.
        if let Some(previous) = self.calls.insert(index, call) {
            previous.end(None, ctx);
        }
    }

    /// The call at `index` ends; `whole` is the complete arguments text the
    /// end event carries.
    fn end_call(&mut self, index: Option<u64>, whole: Option<&str>, ctx: &mut Ctx<'_>) {
        if let Some(call) = index.and_then(|i| self.calls.remove(&i)) {
            call.end(whole, ctx);
        }
    }

    /// The response is over: the text ends, then open calls.
    fn end_all(&mut self, ctx: &mut Ctx<'_>) {
        self.ended = true;
        ctx.finish_text();
        for (_, call) in std::mem::take(&mut self.calls) {
            call.end(None, ctx);
        }
    }

    /// The end of the stream; returns whether it ended properly.
    pub(super) fn finish(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let ended = self.ended;
        self.end_all(ctx);
        ended
    }
}

impl Call {
    fn end(mut self, whole: Option<&str>, ctx: &mut Ctx<'_>) {
        if !self.fragments {
            if let Some(whole) = whole {
                let max = ctx.max_arguments();
                self.arguments.push(whole, max);
            }
        }
        if self.custom && self.arguments.dropped == 0 {
            let input = std::mem::take(&mut self.arguments.text);
            self.arguments.text = serde_json::json!({ "input": input }).to_string();
        }
        self.arguments
            .end(ctx, self.id, &self.name, TAG, self.call_id.as_deref());
    }
}
