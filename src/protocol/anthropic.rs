//! [`Format::Anthropic`](super::Format::Anthropic): Anthropic Messages
//! streaming events, each with its `event:` line (the SDKs read events by
//! that name).
//!
//! `message_start` carries a whole message object (`id`, `type`, `role`,
//! `model`, empty `content`, `stop_reason: null`, `usage`). Content comes as
//! blocks, one open at a time, indexed from 0: `text` blocks with
//! `text_delta`s, `thinking` blocks with `thinking_delta`s (their
//! `signature` is empty: this stream has none to give), and `tool_use`
//! blocks (`id`, `name`, `input: {}`) with `input_json_delta` fragments,
//! each closed by `content_block_stop`. A call that ends invalid just has
//! its block stopped where its fragments were. Since blocks do not
//! interleave, what comes while a call's block is open (text, other calls)
//! waits until it ends. Then `message_delta` (`stop_reason` `tool_use` when
//! a call completed, else `max_tokens` when the answer was
//! [truncated](super::Encoder::truncated), else `end_turn`; `usage`) and
//! `message_stop`. Token counts are 0 (the parser sees text, not tokens)
//! unless the model's server told them ([`super::Encoder::usage`]). After a
//! stream-level error the stream ends with an `error` event in place of
//! `message_delta`, then `message_stop` (the SDKs raise at the `error`;
//! other clients still see the stream end).

use serde_json::{json, Value};

use super::{named, Call, Meta, Sink, Stop, Usage};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    ToolUse,
}

pub(crate) struct Anthropic {
    meta: Meta,
    /// The next block's index.
    next: usize,
    /// The open block and its index.
    open: Option<(Block, usize)>,
    errors: Vec<String>,
    usage: Option<Usage>,
    truncated: bool,
}

impl Anthropic {
    pub(crate) fn new(meta: Meta) -> Self {
        Anthropic {
            meta,
            next: 0,
            open: None,
            errors: Vec::new(),
            usage: None,
            truncated: false,
        }
    }

    fn emit(kind: &str, v: Value, out: &mut String) {
        named(out, kind, &v);
    }

    fn close(&mut self, out: &mut String) {
        if let Some((_, index)) = self.open.take() {
            Self::emit(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
                out,
            );
        }
    }

    /// Opens a block of `kind` unless one is open; its index.
    fn block(&mut self, kind: Block, content: Value, out: &mut String) -> usize {
        match self.open {
            Some((open, index)) if open == kind && kind != Block::ToolUse => return index,
            Some(_) => self.close(out),
            None => {}
        }
        let index = self.next;
        self.next += 1;
        Self::emit(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": content}),
            out,
        );
        self.open = Some((kind, index));
        index
    }
}

impl Sink for Anthropic {
    fn begin(&mut self, out: &mut String) {
        Self::emit(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": format!("msg_{}", self.meta.id),
                "type": "message",
                "role": "assistant",
                "model": self.meta.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }}),
            out,
        );
    }

    fn text(&mut self, text: &str, out: &mut String) {
        let index = self.block(Block::Text, json!({"type": "text", "text": ""}), out);
        Self::emit(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                   "delta": {"type": "text_delta", "text": text}}),
            out,
        );
    }

    fn reasoning(&mut self, text: &str, out: &mut String) {
        let index = self.block(
            Block::Thinking,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            out,
        );
        Self::emit(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                   "delta": {"type": "thinking_delta", "thinking": text}}),
            out,
        );
    }

    fn call_start(&mut self, call: &Call, out: &mut String) {
        self.block(
            Block::ToolUse,
            json!({
                "type": "tool_use",
                "id": format!("toolu_{}_{}", self.meta.id, call.n),
                "name": call.name,
                "input": {},
            }),
            out,
        );
    }

    fn call_args(&mut self, _call: &Call, fragment: &str, out: &mut String) {
        if let Some((Block::ToolUse, index)) = self.open {
            Self::emit(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": fragment}}),
                out,
            );
        }
    }

    fn call_done(&mut self, _call: &Call, _arguments: &Value, out: &mut String) {
        self.close(out);
    }

    fn call_failed(&mut self, _call: &Call, _errors: &str, _raw: &str, out: &mut String) {
        self.close(out);
    }

    fn error(&mut self, message: &str, _out: &mut String) {
        self.errors.push(message.to_owned());
    }

    fn finish(&mut self, stop: Stop, out: &mut String) {
        self.close(out);
        if !self.errors.is_empty() {
            for message in &self.errors {
                Self::emit(
                    "error",
                    json!({"type": "error", "error": {"type": "api_error", "message": message}}),
                    out,
                );
            }
            Self::emit("message_stop", json!({"type": "message_stop"}), out);
            return;
        }
        let reason = match stop {
            Stop::ToolCalls => "tool_use",
            Stop::End if self.truncated => "max_tokens",
            Stop::End => "end_turn",
        };
        let usage = match self.usage {
            Some(u) => json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}),
            None => json!({"output_tokens": 0}),
        };
        Self::emit(
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": reason, "stop_sequence": null},
                   "usage": usage}),
            out,
        );
        Self::emit("message_stop", json!({"type": "message_stop"}), out);
    }

    fn sequential(&self) -> bool {
        true
    }

    fn usage(&mut self, usage: Usage) {
        self.usage = Some(usage);
    }

    fn truncated(&mut self) {
        self.truncated = true;
    }
}
