//! OpenAI-compatible chat completions (`object: chat.completion.chunk`).
//!
//! - `choices[0].delta.content` (and `delta.refusal`, which a chat UI shows
//!   as the model's words) is response text; other choices (`n > 1`) are
//!   ignored, as is `reasoning_content`;
//! - `delta.tool_calls` fragments are gathered by `index`: the call starts
//!   (`ActionStarted`) when a fragment carries its name, its `arguments`
//!   fragments are joined, and it ends when the choice finishes
//!   (`finish_reason`), at `[DONE]`, or at the end of the stream, calls in
//!   order of index. The legacy `delta.function_call` is one more call;
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
    arguments: Arguments,
}

/// The state of an OpenAI stream.
#[derive(Debug, Default)]
pub(super) struct OpenAi {
    calls: BTreeMap<u64, Call>,
    /// The choice finished (`finish_reason`).
    finished: bool,
    /// `[DONE]` came.
    done: bool,
}

impl OpenAi {
    /// One chunk; returns whether it was a provider error.
    pub(super) fn chunk(&mut self, value: &Value, ctx: &mut Ctx<'_>) -> bool {
        if let Some(message) = error_message(value, "openai") {
            ctx.error(message);
            return true;
        }
        let Some(choices) = value.get("choices").and_then(Value::as_array) else {
            return false;
        };
        for choice in choices {
            match choice.get("index") {
                None | Some(Value::Null) => {}
                Some(index) if index.as_u64() == Some(0) => {}
                Some(_) => continue,
            }
            self.choice(choice, ctx);
        }
        false
    }

    fn choice(&mut self, choice: &Value, ctx: &mut Ctx<'_>) {
        let delta = choice.get("delta");
        let field = |key: &str| delta.and_then(|d| d.get(key));
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
                self.fragment(index, call.get("function"), ctx);
            }
        }
        if let Some(call) = field("function_call").filter(|c| c.is_object()) {
            self.fragment(LEGACY, Some(call), ctx);
        }
        if choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
            self.end_choice(ctx);
        }
    }

    /// A fragment of the call at `index`: `function` holds `name` and
    /// `arguments` pieces.
    fn fragment(&mut self, index: u64, function: Option<&Value>, ctx: &mut Ctx<'_>) {
        let max = ctx.max_arguments();
        let call = self.calls.entry(index).or_default();
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

    /// The choice is over: the text ends, then the calls, in index order.
    fn end_choice(&mut self, ctx: &mut Ctx<'_>) {
        self.finished = true;
        ctx.finish_text();
        for (index, call) in std::mem::take(&mut self.calls) {
            match call.started {
                Some((id, name)) => call.arguments.end(ctx, id, &name, TAG),
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
