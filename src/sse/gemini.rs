//! Gemini `streamGenerateContent?alt=sse` (Google AI and Vertex AI): each
//! `data:` payload is a whole `GenerateContentResponse`; no `[DONE]`.
//!
//! - in the first candidate (`index` 0 or absent; others are ignored),
//!   `text` parts are response text, and parts with `"thought": true` are
//!   reasoning;
//! - a `functionCall` part with its `args` (or none) is a whole native call:
//!   it starts and ends at once (parallel calls are several parts). Its `id`,
//!   where sent, is the action's `call_id`;
//! - Vertex streams a call's arguments in pieces: a part
//!   `{"functionCall": {"name": N, "willContinue": true}}` opens the call,
//!   parts `{"functionCall": {"partialArgs": [{"jsonPath": "$.k",
//!   "stringValue": "…"}, …], "willContinue": true}}` carry the values
//!   (string pieces of one path are joined; `numberValue`, `boolValue` and
//!   `nullValue` are set whole), and an empty `{"functionCall": {}}` closes
//!   it; the pieces are joined into one call;
//! - a candidate's `finishReason` ends the response; a prompt blocked
//!   (`promptFeedback.blockReason`, no candidates) and `{"error": …}` are
//!   provider errors.

use serde_json::{Map, Value};

use super::{error_message, Arguments, Ctx};
use crate::NativeId;

/// The tag of native actions from this provider.
const TAG: &str = "gemini";

/// A call whose arguments come in `partialArgs` pieces.
#[derive(Debug)]
struct Streamed {
    id: NativeId,
    name: String,
    call_id: Option<String>,
    args: Value,
    /// Bytes of the values held (against the block limit).
    bytes: usize,
    /// Bytes dropped past the limit.
    dropped: usize,
}

/// The state of a Gemini stream.
#[derive(Debug, Default)]
pub(super) struct Gemini {
    /// The call being streamed in pieces, if any.
    open: Option<Streamed>,
    /// A candidate finished (`finishReason`).
    finished: bool,
}

impl Gemini {
    /// One response chunk; returns whether it was a provider error.
    pub(super) fn chunk(&mut self, value: &Value, ctx: &mut Ctx<'_>) -> bool {
        if let Some(message) = error_message(value, "gemini") {
            ctx.error(message);
            return true;
        }
        let candidates = value.get("candidates").and_then(Value::as_array);
        let first = candidates.and_then(|c| {
            c.iter().find(|c| match c.get("index") {
                None | Some(Value::Null) => true,
                Some(i) => i.as_u64() == Some(0),
            })
        });
        let Some(candidate) = first else {
            if let Some(reason) = value
                .get("promptFeedback")
                .and_then(|f| f.get("blockReason"))
                .and_then(Value::as_str)
            {
                ctx.error(format!("gemini error: the prompt was blocked ({reason})"));
                self.end_all(ctx);
                return true;
            }
            return false;
        };
        let parts = candidate
            .get("content")
            .and_then(|c| c.get("parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            self.part(part, ctx);
        }
        if candidate
            .get("finishReason")
            .and_then(Value::as_str)
            .is_some_and(|r| !r.is_empty())
        {
            self.finished = true;
            self.end_all(ctx);
        }
        false
    }

    fn part(&mut self, part: &Value, ctx: &mut Ctx<'_>) {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                ctx.reasoning(text);
            } else {
                ctx.text(text);
            }
        }
        if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
            self.call(call, ctx);
        }
    }

    fn call(&mut self, call: &Value, ctx: &mut Ctx<'_>) {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        let call_id = call.get("id").and_then(Value::as_str).map(str::to_owned);
        let continues = call.get("willContinue").and_then(Value::as_bool) == Some(true);
        let pieces = call.get("partialArgs").and_then(Value::as_array);
        if let Some(name) = name {
            // A new call: one streamed before it is over.
            self.end_open(ctx);
            let id = ctx.start(name, TAG);
            let mut streamed = Streamed {
                id,
                name: name.to_owned(),
                call_id,
                args: call
                    .get("args")
                    .filter(|a| a.is_object())
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
                bytes: 0,
                dropped: 0,
            };
            let max = ctx.max_arguments();
            streamed.bytes = streamed.args.to_string().len();
            if streamed.bytes > max {
                streamed.dropped = streamed.bytes;
                streamed.args = Value::Object(Map::new());
            }
            for piece in pieces.into_iter().flatten() {
                streamed.piece(piece, ctx);
            }
            if continues {
                self.open = Some(streamed);
            } else {
                streamed.end(ctx);
            }
            return;
        }
        let Some(open) = self.open.as_mut() else {
            if pieces.is_some() || continues {
                ctx.error("a functionCall part continues a call that was never opened".into());
            }
            return;
        };
        for piece in pieces.into_iter().flatten() {
            open.piece(piece, ctx);
        }
        if !continues {
            self.end_open(ctx);
        }
    }

    fn end_open(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(open) = self.open.take() {
            open.end(ctx);
        }
    }

    /// The response is over: the text ends, then an open call.
    fn end_all(&mut self, ctx: &mut Ctx<'_>) {
        ctx.finish_text();
        self.end_open(ctx);
    }

    /// The end of the stream; returns whether it ended properly.
    pub(super) fn finish(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let streamed = self.open.is_some();
        self.end_all(ctx);
        self.finished && !streamed
    }
}

impl Streamed {
    /// One `partialArgs` piece.
    fn piece(&mut self, piece: &Value, ctx: &mut Ctx<'_>) {
        let path = piece.get("jsonPath").and_then(Value::as_str).unwrap_or("");
        let value = if let Some(s) = piece.get("stringValue").and_then(Value::as_str) {
            Value::String(s.to_owned())
        } else if let Some(n) = piece.get("numberValue").filter(|n| n.is_number()) {
            n.clone()
        } else if let Some(b) = piece.get("boolValue").filter(|b| b.is_boolean()) {
            b.clone()
        } else if piece.get("nullValue").is_some() {
            Value::Null
        } else {
            ctx.error(format!(
                "a partialArgs piece of '{}' holds no value: {}",
                self.name,
                super::snippet(&piece.to_string())
            ));
            return;
        };
        let size = path.len() + value.to_string().len();
        let max = ctx.max_arguments();
        if self.dropped > 0 || self.bytes + size > max {
            self.dropped += size;
            return;
        }
        self.bytes += size;
        let Some(slot) = slot(&mut self.args, path) else {
            ctx.error(format!(
                "a partialArgs piece of '{}' has a JSON path not read here: {}",
                self.name,
                super::snippet(path)
            ));
            return;
        };
        match (slot, value) {
            (Value::String(held), Value::String(more)) => held.push_str(&more),
            (slot, value) => *slot = value,
        }
    }

    fn end(self, ctx: &mut Ctx<'_>) {
        let arguments = Arguments {
            text: self.args.to_string(),
            dropped: self.dropped,
        };
        arguments.end(ctx, self.id, &self.name, TAG, self.call_id.as_deref());
    }
}

/// The place `path` (`$.a.b`, `$.list[0]`, `$['key']`) names inside
/// `root`, made if missing (as `null`); `None` for a path not read here or
/// one that crosses a value of another kind. An array index may be at most
/// one past the end (elements come in order).
fn slot<'a>(root: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut rest = path.strip_prefix('$')?;
    let mut at = root;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let (key, tail) = after.split_at(end);
            if key.is_empty() {
                return None;
            }
            at = entry(at, key)?;
            rest = tail;
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            let (inside, tail) = after.split_at(close);
            rest = &tail[1..];
            let quoted = inside
                .strip_prefix('\'')
                .and_then(|k| k.strip_suffix('\''))
                .or_else(|| inside.strip_prefix('"').and_then(|k| k.strip_suffix('"')));
            if let Some(key) = quoted {
                at = entry(at, key)?;
            } else {
                let index: usize = inside.parse().ok()?;
                if at.is_null() {
                    *at = Value::Array(Vec::new());
                }
                let list = at.as_array_mut()?;
                if index == list.len() {
                    list.push(Value::Null);
                }
                at = list.get_mut(index)?;
            }
        } else {
            return None;
        }
    }
    Some(at)
}

/// The member `key` of the object `at` (made an object if `null`).
fn entry<'a>(at: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    if at.is_null() {
        *at = Value::Object(Map::new());
    }
    Some(at.as_object_mut()?.entry(key).or_insert(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths() {
        let mut root = serde_json::json!({});
        *slot(&mut root, "$.a.b").unwrap() = 1.into();
        *slot(&mut root, "$.list[0]").unwrap() = "x".into();
        *slot(&mut root, "$.list[1].k").unwrap() = true.into();
        *slot(&mut root, "$['odd.key']").unwrap() = Value::Null;
        assert_eq!(
            root,
            serde_json::json!({"a": {"b": 1}, "list": ["x", {"k": true}], "odd.key": null})
        );
        assert!(slot(&mut root, "$.list[5]").is_none());
        assert!(slot(&mut root, "a.b").is_none());
        assert!(slot(&mut root, "$.a.b.c").is_none());
        assert!(slot(&mut root, "$..x").is_none());
    }
}
