//! OpenAI-compatible chat completions (`object: chat.completion.chunk`).
//!
//! - `choices[0].delta.content` (and `delta.refusal`, which a chat UI shows
//!   as the model's words) is response text; other choices (`n > 1`) are
//!   ignored ([`SseParser::for_choice`](super::SseParser::for_choice) follows
//!   another one instead);
//! - `delta.reasoning_content` (DeepSeek, vLLM) or else `delta.reasoning`
//!   (vLLM, Groq, xAI, OpenRouter) is reasoning;
//! - `delta.tool_calls` fragments are gathered by `index`: the call starts
//!   (`ActionStarted`) when a fragment carries its name, its `arguments`
//!   fragments are joined, and it ends when a call with a higher index
//!   begins (servers stream calls one after another; the open calls below
//!   it end, in index order), when the choice finishes (`finish_reason`), at
//!   `[DONE]`, or at the end of the stream, calls in order of index. A
//!   fragment for a call that has ended is reported. The call's `id` is the
//!   action's `call_id`. The legacy `delta.function_call` is one more call;
//! - a name is taken from the first fragment that carries one (OpenAI sends
//!   it whole); name fragments after the call started are ignored;
//! - usage-only chunks and `"choices": null` carry nothing;
//! - `{"error": …}` is a provider error.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{error_message, Arguments, Ctx};
use crate::NativeId;

/// The tag of native actions from this provider.
const TAG: &str = "openai";

/// The key of the legacy `function_call`, after every tool call index.
const LEGACY: u64 = u64::MAX;

/// One tool call being gathered.
#[derive(Debug, Default)]
struct Call {
    started: Option<(NativeId, String)>,
    call_id: Option<String>,
    arguments: Arguments,
}

/// The state of an OpenAI stream.
#[derive(Debug, Default)]
pub(super) struct OpenAi {
    calls: BTreeMap<u64, Call>,
    /// Tool calls with an index below this have ended (a call with a higher
    /// index began).
    ended_below: u64,
    /// The choice finished (`finish_reason`).
    finished: bool,
    /// `[DONE]` came.
    done: bool,
    /// The choice followed (`choices[].index`; a choice without an index is
    /// choice 0).
    pub(super) choice: u64,
    /// The choice's `finish_reason`, once it came.
    pub(super) finish_reason: Option<String>,
    /// The last `usage` object the stream sent.
    pub(super) usage: Option<Value>,
}

impl OpenAi {
    /// One chunk; returns whether it was a provider error.
    pub(super) fn chunk(&mut self, value: &Value, ctx: &mut Ctx<'_>) -> bool {
        if let Some(message) = error_message(value, "openai") {
            ctx.error(message);
            return true;
        }
        if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let Some(choices) = value.get("choices").and_then(Value::as_array) else {
            return false;
        };
        for choice in choices {
            let index = match choice.get("index") {
                None | Some(Value::Null) => Some(0),
                Some(index) => index.as_u64(),
            };
            if index == Some(self.choice) {
                self.choice(choice, ctx);
            }
        }
        false
    }

    fn choice(&mut self, choice: &Value, ctx: &mut Ctx<'_>) {
        let delta = choice.get("delta");
        let field = |key: &str| delta.and_then(|d| d.get(key));
        let reasoning = ["reasoning_content", "reasoning"]
            .into_iter()
            .find_map(|key| field(key).and_then(Value::as_str).filter(|t| !t.is_empty()));
        if let Some(text) = reasoning {
            ctx.reasoning(text);
        }
        for key in ["content", "refusal"] {
            if let Some(text) = field(key).and_then(Value::as_str) {
                ctx.text(text);
            }
        }
        if let Some(calls) = field("tool_calls").and_then(Value::as_array) {
            for (at, call) in calls.iter().enumerate() {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(at as u64);
                if index != LEGACY {
                    if index < self.ended_below {
                        ctx.error(format!(
                            "a fragment of the tool call at index {index} came after a call \
                             with a higher index began; it is dropped"
                        ));
                        continue;
                    }
                    self.end_below(index, ctx);
                }
                let id = call.get("id").and_then(Value::as_str);
                self.fragment(index, id, call.get("function"), ctx);
            }
        }
        if let Some(call) = field("function_call").filter(|c| c.is_object()) {
            self.fragment(LEGACY, None, Some(call), ctx);
        }
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            if let Some(reason) = reason.as_str() {
                self.finish_reason = Some(reason.to_owned());
            }
            self.end_choice(ctx);
        }
    }

    /// A fragment of the call at `index`: `function` holds `name` and
    /// `arguments` pieces.
    fn fragment(
        &mut self,
        index: u64,
        call_id: Option<&str>,
        function: Option<&Value>,
        ctx: &mut Ctx<'_>,
    ) {
        let max = ctx.max_arguments();
        let call = self.calls.entry(index).or_default();
        if let (None, Some(id)) = (&call.call_id, call_id.filter(|i| !i.is_empty())) {
            call.call_id = Some(id.to_owned());
        }
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        if let (None, Some(name)) = (&call.started, name) {
            call.started = Some((ctx.start(name, TAG), name.to_owned()));
        }
        if let Some(arguments) = function
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
        {
            call.arguments.push(arguments, max);
        }
    }

    /// A fragment of the tool call at `index` came: if it is a new call,
    /// the open calls below it end, in index order.
    fn end_below(&mut self, index: u64, ctx: &mut Ctx<'_>) {
        if self.calls.contains_key(&index) {
            return;
        }
        while let Some(entry) = self.calls.first_entry() {
            if *entry.key() >= index {
                break;
            }
            let (below, call) = entry.remove_entry();
            end_call(below, call, ctx);
            self.ended_below = below + 1;
        }
    }

    /// The choice is over: the text ends, then the calls, in index order.
    fn end_choice(&mut self, ctx: &mut Ctx<'_>) {
        self.finished = true;
        ctx.finish_text();
        for (index, call) in std::mem::take(&mut self.calls) {
            end_call(index, call, ctx);
        }
    }

    /// How many calls are held (open), for tests.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.calls.len()
    }

    /// `data: [DONE]`.
    pub(super) fn done(&mut self, ctx: &mut Ctx<'_>) {
        self.done = true;
        self.end_choice(ctx);
    }

    /// The end of the stream; returns whether the stream ended properly.
    pub(super) fn finish(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let complete = self.finished || self.done;
        self.end_choice(ctx);
        complete
    }
}

/// Ends one call: an action if it has a name, else an error.
fn end_call(index: u64, call: Call, ctx: &mut Ctx<'_>) {
    match call.started {
        Some((id, name)) => call
            .arguments
            .end(ctx, id, &name, TAG, call.call_id.as_deref()),
        None => {
            let which = if index == LEGACY {
                "the function call".to_owned()
            } else {
                format!("the tool call at index {index}")
            };
            ctx.error(format!(
                "{which} ended without a name; its arguments were: {}",
                super::snippet(&call.arguments.text)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::SseItem;
    use crate::{Config, Event, Parser};

    /// 200,000 small calls one after another: each ends when the next
    /// begins, so the decoder never holds more than the one being written.
    #[test]
    fn sequential_calls_end_early_and_are_not_held() {
        let mut parser = Parser::new(Config::default());
        let mut events = Vec::new();
        let mut out = Vec::new();
        let mut state = OpenAi::default();
        let mut complete = 0usize;
        for index in 0..200_000u64 {
            let chunk = serde_json::json!({
                "choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": index, "id": format!("c{index}"), "type": "function",
                    "function": {"name": "f", "arguments": "{\"n\": 1}"}
                }]}}]
            });
            let mut ctx = Ctx {
                parser: &mut parser,
                events: &mut events,
                out: &mut out,
            };
            state.chunk(&chunk, &mut ctx);
            assert!(state.held() <= 1);
            // The call before this one has ended already.
            complete += out
                .drain(..)
                .filter(|i| matches!(i, SseItem::Event(Event::ActionComplete(_))))
                .count();
            assert_eq!(complete as u64, index);
        }
        let mut ctx = Ctx {
            parser: &mut parser,
            events: &mut events,
            out: &mut out,
        };
        // No finish_reason came: the stream is cut off, the last call ends.
        assert!(!state.finish(&mut ctx));
        assert_eq!(out.len(), 1);
        assert_eq!(state.held(), 0);
        assert_eq!(parser.buffered(), 0);
    }
}
