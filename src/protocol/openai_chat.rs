//! [`Format::OpenAiChat`](super::Format::OpenAiChat): OpenAI Chat
//! Completions streaming chunks.
//!
//! Every chunk is a whole `chat.completion.chunk` (`id`, `object`,
//! `created`, `model`, one choice with `index`, `delta`, `logprobs`,
//! `finish_reason`). The first carries `role`; text is `delta.content`,
//! reasoning `delta.reasoning_content` (as DeepSeek, vLLM and llama.cpp
//! send it); a call's first delta carries its `index`, `id`, `type` and
//! `function.name` with empty `arguments`, the next ones its `index` and
//! `function.arguments` fragments. Call indexes count from 0 in the order
//! calls go out, as the SDKs' accumulators index them. The last chunk has
//! an empty delta and `finish_reason` (`tool_calls` when a call completed,
//! else `stop`); then `data: [DONE]`. A stream-level error is an
//! `{"error": {...}}` payload in place of that last chunk (the SDKs raise
//! it), then `[DONE]`.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::{data, Call, Meta, Sink, Stop};

pub(crate) struct Chat {
    meta: Meta,
    /// `chatcmpl-<id>`, every chunk's `id`.
    id: String,
    /// Call number → index in `tool_calls`.
    index: HashMap<usize, usize>,
    errors: Vec<String>,
}

/// One `chat.completion.chunk`, written as it is (the same for every
/// chunk but its delta and finish reason, so not built as a `Value`).
#[derive(Serialize)]
struct Chunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: [Choice<'a>; 1],
}

#[derive(Serialize)]
struct Choice<'a> {
    index: u32,
    delta: Value,
    logprobs: (),
    finish_reason: Option<&'a str>,
}

impl Chat {
    pub(crate) fn new(meta: Meta) -> Self {
        Chat {
            id: format!("chatcmpl-{}", meta.id),
            meta,
            index: HashMap::new(),
            errors: Vec::new(),
        }
    }

    fn chunk(&self, delta: Value, finish: Option<&str>, out: &mut String) {
        data(
            out,
            &Chunk {
                id: &self.id,
                object: "chat.completion.chunk",
                created: self.meta.created,
                model: &self.meta.model,
                choices: [Choice {
                    index: 0,
                    delta,
                    logprobs: (),
                    finish_reason: finish,
                }],
            },
        );
    }

    fn index(&self, call: &Call) -> usize {
        self.index.get(&call.n).copied().unwrap_or(0)
    }
}

impl Sink for Chat {
    fn begin(&mut self, out: &mut String) {
        self.chunk(json!({"role": "assistant", "content": ""}), None, out);
    }

    fn text(&mut self, text: &str, out: &mut String) {
        self.chunk(json!({"content": text}), None, out);
    }

    fn reasoning(&mut self, text: &str, out: &mut String) {
        self.chunk(json!({"reasoning_content": text}), None, out);
    }

    fn call_start(&mut self, call: &Call, out: &mut String) {
        let index = self.index.len();
        self.index.insert(call.n, index);
        self.chunk(
            json!({"tool_calls": [{
                "index": index,
                "id": format!("call_{}_{}", self.meta.id, call.n),
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }]}),
            None,
            out,
        );
    }

    fn call_args(&mut self, call: &Call, fragment: &str, out: &mut String) {
        self.chunk(
            json!({"tool_calls": [{"index": self.index(call), "function": {"arguments": fragment}}]}),
            None,
            out,
        );
    }

    fn call_done(&mut self, _call: &Call, _arguments: &Value, _out: &mut String) {}

    fn call_failed(&mut self, _call: &Call, _errors: &str, _raw: &str, _out: &mut String) {}

    fn error(&mut self, message: &str, _out: &mut String) {
        self.errors.push(message.to_owned());
    }

    fn finish(&mut self, stop: Stop, out: &mut String) {
        if self.errors.is_empty() {
            let reason = match stop {
                Stop::ToolCalls => "tool_calls",
                Stop::End => "stop",
            };
            self.chunk(json!({}), Some(reason), out);
        }
        for message in &self.errors {
            data(
                out,
                &json!({"error": {"message": message, "type": "server_error", "param": null, "code": null}}),
            );
        }
        out.push_str("data: [DONE]\n\n");
    }
}
