//! The JSON shapes of events, actions and results: the one place they are
//! written down.
//!
//! The command-line tool prints these lines, one JSON object per line; the
//! dispatcher hands [`action_json`] to the `jsonl` and `exec` handlers; and
//! [`Action`]'s `Serialize` is [`action_json`]. Keys keep the order shown.
//!
//! | line | shape |
//! |---|---|
//! | narrative | `{"event":"narrative","text":…}` |
//! | delta | `{"event":"action_delta","id":N,"text":…}` |
//! | arguments delta | `{"event":"arguments_delta","id":N,"json":…}` |
//! | started | `{"event":"action_started","id":N,"name":…\|null,"syntax":…,"tag":…}` |
//! | complete | `{"event":"action_complete","id":N,"name":…,"arguments":…,"raw":…,"span":[a,b]\|null,"repairs":[…]}` plus `"attributes":{…}` when there are any |
//! | invalid | `{"event":"action_invalid","id":N,"name":…\|null,"errors":["…"],"raw":…,"span":[a,b]\|null}` |
//! | error | `{"event":"error","message":…}` |
//! | result | `{"event":"result","id":N,"name":…,"ok":…,"output":…,"error":…\|null}` |
//! | summary | `{"narrative_bytes":N,"actions":N,"invalid":N}` |
//! | artifact | `{"path":…,"language":…,"content":…,"written":…}`, or `{"path":…,"error":…}` |
//!
//! ```
//! let events = actionstream::parse_str("Hi.\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>");
//! let lines: Vec<String> = events
//!     .iter()
//!     .filter_map(actionstream::wire::event_line)
//!     .map(|v| v.to_string())
//!     .collect();
//! assert_eq!(lines[0], r#"{"event":"narrative","text":"Hi.\n"}"#);
//! assert_eq!(
//!     lines[1],
//!     r#"{"event":"action_started","id":0,"name":"f","syntax":"tag","tag":"tool_call"}"#
//! );
//! ```

use serde_json::{json, Map, Value};

use crate::event::{Action, Event};

/// The JSON line of an event; `None` for a kind of event that has no line
/// (`Event` is non-exhaustive).
pub fn event_line(e: &Event) -> Option<Value> {
    Some(match e {
        Event::Narrative(text) => json!({"event": "narrative", "text": text}),
        Event::Reasoning(text) => json!({"event": "reasoning", "text": text}),
        Event::ActionDelta { id, text } => {
            json!({"event": "action_delta", "id": id, "text": text})
        }
        Event::ArgumentsDelta { id, json } => {
            json!({"event": "arguments_delta", "id": id, "json": json})
        }
        Event::ActionStarted {
            id,
            name,
            syntax,
            tag,
        } => json!({
            "event": "action_started", "id": id, "name": name, "syntax": syntax.as_str(), "tag": tag,
        }),
        Event::ActionComplete(a) => {
            let repairs = a.repair_names();
            let mut v = json!({
                "event": "action_complete", "id": a.id, "name": a.name, "arguments": a.arguments,
                "raw": &*a.raw, "span": a.span, "repairs": repairs,
            });
            if !a.attributes.is_empty() {
                v["attributes"] = Value::Object(attributes(a));
            }
            v
        }
        Event::ActionInvalid(a) => json!({
            "event": "action_invalid", "id": a.id, "name": a.name,
            "errors": a.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
            "raw": &*a.raw, "span": a.span,
        }),
    })
}

/// The form of an action that handlers hand on (the `jsonl` audit line, the
/// `exec` handler's standard input), and what [`Action`] serializes to:
/// `id`, `name`, `arguments`, `syntax`, `tag`, `attributes` (an object),
/// `span` (or null) and `repairs` (their names).
///
/// ```
/// let events = actionstream::parse_str("```action\n{\"action\": \"note\", \"text\": \"hi\"}\n```\n");
/// let action = events.iter().find_map(|e| match e {
///     actionstream::Event::ActionComplete(a) => Some(a.clone()),
///     _ => None,
/// }).unwrap();
/// let v = actionstream::wire::action_json(&action);
/// assert_eq!(v["name"], "note");
/// assert_eq!(v["arguments"]["text"], "hi");
/// assert_eq!(serde_json::to_value(&*action).unwrap(), v);
/// ```
pub fn action_json(action: &Action) -> Value {
    let repairs = action.repair_names();
    json!({
        "id": action.id,
        "name": action.name,
        "arguments": action.arguments,
        "syntax": action.syntax.as_str(),
        "tag": action.tag,
        "attributes": attributes(action),
        "span": action.span,
        "repairs": repairs,
    })
}

fn attributes(action: &Action) -> Map<String, Value> {
    action
        .attributes
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect()
}

/// A stream-level error line: `{"event":"error","message":…}`.
///
/// ```
/// assert_eq!(
///     actionstream::wire::error_line("cut off").to_string(),
///     r#"{"event":"error","message":"cut off"}"#
/// );
/// ```
pub fn error_line(message: &str) -> Value {
    json!({"event": "error", "message": message})
}

/// The one line of `--summary`: `{"narrative_bytes":N,"actions":N,"invalid":N}`.
pub fn summary_line(narrative_bytes: usize, actions: usize, invalid: usize) -> Value {
    json!({"narrative_bytes": narrative_bytes, "actions": actions, "invalid": invalid})
}

/// The line of a handled action:
/// `{"event":"result","id":N,"name":"...","ok":…,"output":…,"error":…}`
/// (`error` is null when there is none).
///
/// ```
/// use actionstream::dispatch::{DispatchResult, Status};
/// use actionstream::ActionId;
///
/// let r = DispatchResult::new(ActionId(3), "note", Status::Failed, serde_json::Value::Null, Some("disk full".into()));
/// assert_eq!(
///     actionstream::wire::result_line(&r).to_string(),
///     r#"{"event":"result","id":3,"name":"note","ok":false,"output":null,"error":"disk full"}"#
/// );
/// ```
#[cfg(feature = "dispatch")]
pub fn result_line(r: &crate::dispatch::DispatchResult) -> Value {
    json!({
        "event": "result",
        "id": r.id,
        "name": r.name,
        "ok": r.ok,
        "output": r.output,
        "error": r.error,
    })
}

/// The line of an artifact found: `{"path":…,"language":…,"content":…,"written":…}`.
pub fn artifact_line(artifact: &crate::artifacts::Artifact, written: bool) -> Value {
    json!({
        "path": artifact.path, "language": artifact.language,
        "content": artifact.content, "written": written,
    })
}

/// The line of an artifact refused or not written: `{"path":…,"error":…}`.
pub fn artifact_error_line(path: &str, error: &str) -> Value {
    json!({"path": path, "error": error})
}

// An action has one JSON shape, owned by `wire`: serializing it gives
// exactly what the `jsonl` and `exec` handlers receive, so there is no second,
// derived shape (with `raw` and repair positions) to keep in step with it.
impl serde::Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        action_json(self).serialize(serializer)
    }
}
