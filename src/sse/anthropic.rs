//! The Anthropic Messages API stream.
//!
//! - `text_delta` (and the text a `text` block starts with) is response text;
//!   the text blocks of one message are one response text;
//! - a `tool_use` content block is a native call: it starts at
//!   `content_block_start` (its name is known there), its `input_json_delta`
//!   fragments are joined, and it ends at its `content_block_stop` (or at
//!   `message_stop`, or at the end of the stream, if that never came). A
//!   block with no fragments ends with the `input` of its start, if any;
//! - a `thinking` block is reasoning (its `thinking_delta` text, and the
//!   text it starts with); its `signature_delta` is ignored;
//! - the `id` of a `tool_use` block is the action's `call_id`;
//! - `redacted_thinking`, `server_tool_use` (run by the server, not the
//!   client) and other blocks, `ping`, `message_start`, `message_delta` and
//!   event types not known here are ignored;
//! - `error` is a provider error; `message_stop` ends the response.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{error_message, Arguments, Ctx};
use crate::NativeId;

/// The tag of native actions from this provider.
const TAG: &str = "anthropic";

/// One `tool_use` block being read.
#[derive(Debug)]
struct ToolUse {
    id: NativeId,
    name: String,
    call_id: Option<String>,
    arguments: Arguments,
    /// The `input` of `content_block_start`, used when no fragment comes.
    initial: Option<String>,
    fragments: bool,
}

/// The state of an Anthropic stream.
#[derive(Debug, Default)]
pub(super) struct Anthropic {
    /// Open `tool_use` blocks by content index.
    blocks: BTreeMap<u64, ToolUse>,
    /// `message_stop` came.
    stopped: bool,
}

impl Anthropic {
    /// One event; returns whether it was a provider error.
    pub(super) fn event(&mut self, value: &Value, ctx: &mut Ctx<'_>) -> bool {
        let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
        let index = value.get("index").and_then(Value::as_u64);
        match ty {
            "error" => {
                let message = error_message(value, "anthropic")
                    .unwrap_or_else(|| format!("anthropic error: {value}"));
                ctx.error(message);
                return true;
            }
            "content_block_start" => self.block_start(index, value.get("content_block"), ctx),
            "content_block_delta" => self.delta(index, value.get("delta"), ctx),
            "content_block_stop" => {
                if let Some(block) = index.and_then(|i| self.blocks.remove(&i)) {
                    block.end(ctx);
                }
            }
            "message_stop" => {
                self.stopped = true;
                self.end_all(ctx);
            }
            _ => {}
        }
        false
    }

    fn block_start(&mut self, index: Option<u64>, block: Option<&Value>, ctx: &mut Ctx<'_>) {
        let Some(block) = block else {
            ctx.error("content_block_start without a content_block".into());
            return;
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    ctx.text(text);
                }
            }
            Some("thinking") => {
                if let Some(text) = block.get("thinking").and_then(Value::as_str) {
                    ctx.reasoning(text);
                }
            }
            Some("tool_use") => {
                let Some(index) = index else {
                    ctx.error("a tool_use content block without an index".into());
                    return;
                };
                let Some(name) = block.get("name").and_then(Value::as_str) else {
                    ctx.error(format!("the tool_use content block {index} has no name"));
                    return;
                };
                let initial = block
                    .get("input")
                    .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                    .map(Value::to_string);
                let id = ctx.start(name, TAG);
                let previous = self.blocks.insert(
                    index,
                    ToolUse {
                        id,
                        name: name.to_owned(),
                        call_id: block.get("id").and_then(Value::as_str).map(str::to_owned),
                        arguments: Arguments::default(),
                        initial,
                        fragments: false,
                    },
                );
                // A block started twice without a stop: the first ends here.
                if let Some(previous) = previous {
                    previous.end(ctx);
                }
            }
            _ => {}
        }
    }

    fn delta(&mut self, index: Option<u64>, delta: Option<&Value>, ctx: &mut Ctx<'_>) {
        let Some(delta) = delta else {
            return;
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                if let Some(text) = delta.get("text").and_then(Value::as_str) {
                    ctx.text(text);
                }
            }
            Some("thinking_delta") => {
                if let Some(text) = delta.get("thinking").and_then(Value::as_str) {
                    ctx.reasoning(text);
                }
            }
            Some("input_json_delta") => {
                let max = ctx.max_arguments();
                let Some(block) = index.and_then(|i| self.blocks.get_mut(&i)) else {
                    // Input of a block that is not a client tool call
                    // (server_tool_use) is not ours.
                    return;
                };
                if let Some(json) = delta.get("partial_json").and_then(Value::as_str) {
                    block.fragments = true;
                    block.arguments.push(json, max);
                }
            }
            _ => {}
        }
    }

    /// The message is over: the text ends, then open tool calls.
    fn end_all(&mut self, ctx: &mut Ctx<'_>) {
        ctx.finish_text();
        for (_, block) in std::mem::take(&mut self.blocks) {
            block.end(ctx);
        }
    }

    /// The end of the stream; returns whether it ended properly.
    pub(super) fn finish(&mut self, ctx: &mut Ctx<'_>) -> bool {
        self.end_all(ctx);
        self.stopped
    }
}

impl ToolUse {
    fn end(mut self, ctx: &mut Ctx<'_>) {
        if !self.fragments {
            if let Some(initial) = self.initial.take() {
                self.arguments.text = initial;
            }
        }
        self.arguments
            .end(ctx, self.id, &self.name, TAG, self.call_id.as_deref());
    }
}
