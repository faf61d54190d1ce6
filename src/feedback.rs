//! Words for the model: what went wrong in its last response, and how to
//! write actions in the first place.
//!
//! [`invalid_actions`] renders the invalid actions of a response as a short
//! message for the model's next turn: which action (by id and name), what was
//! wrong and where, and what the arguments should look like when a
//! [`Validator`] with schemas is given. [`instructions`] renders the actions a
//! validator knows as prompt instructions, with an example of each syntax.
//!
//! ```
//! use actionstream::{feedback, Config, TypeList};
//!
//! let types = TypeList::new().allow("create_task", ["content"]);
//! let config = Config::default().discriminator("type").validator(types.clone());
//! let events = actionstream::parse_str_with(
//!     config,
//!     "```actions\n{\"actions\": [{\"type\": \"create_task\"}]}\n```\n",
//! );
//! let message = feedback::invalid_actions(&events, Some(&types)).unwrap();
//! assert_eq!(
//!     message,
//!     "1 action in your last response was not carried out. Correct it and send it again:\n\
//!      - action 0 \"create_task\": at content: required field missing\n  \
//!        expected arguments: { content: any }\n"
//! );
//! ```

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::event::Event;
use crate::validate::Validator;

/// Errors listed per action at most; the rest are counted.
const MAX_ERRORS: usize = 5;
/// How deep a schema is described before `…`.
const MAX_DEPTH: usize = 8;

/// The invalid actions among `events` as a message for the model's next
/// turn, or `None` when there are none. With a `validator`, each named
/// action gets a line with the arguments its schema expects.
///
/// ```
/// let events = actionstream::parse_str("```json\n{\"action\": \"a\", \"x\": tru}\n```\n");
/// let message = actionstream::feedback::invalid_actions(&events, None).unwrap();
/// assert!(message.starts_with("1 action in your last response was not carried out"));
/// assert!(message.contains("- action 0 \"a\": "));
/// assert!(actionstream::feedback::invalid_actions(&[], None).is_none());
/// ```
pub fn invalid_actions(events: &[Event], validator: Option<&dyn Validator>) -> Option<String> {
    let invalid: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ActionInvalid(a) => Some(a),
            _ => None,
        })
        .collect();
    if invalid.is_empty() {
        return None;
    }
    let mut out = if invalid.len() == 1 {
        "1 action in your last response was not carried out. Correct it and send it again:\n"
            .to_owned()
    } else {
        format!(
            "{} actions in your last response were not carried out. Correct them and send them again:\n",
            invalid.len()
        )
    };
    for a in invalid {
        let who = match &a.name {
            Some(n) => format!("action {} {}", a.id, quote(n)),
            None => format!("action {} (no name)", a.id),
        };
        let errors: Vec<String> = a
            .errors
            .iter()
            .take(MAX_ERRORS)
            .map(|e| e.to_string())
            .collect();
        let mut line = if errors.is_empty() {
            "invalid".to_owned()
        } else {
            errors.join("; ")
        };
        if a.errors.len() > MAX_ERRORS {
            let _ = write!(line, "; and {} more", a.errors.len() - MAX_ERRORS);
        }
        let _ = writeln!(out, "- {who}: {line}");
        let schema = match (validator, &a.name) {
            (Some(v), Some(n)) => v.schema(n),
            _ => None,
        };
        if let Some(schema) = schema {
            let _ = writeln!(out, "  expected arguments: {}", signature(&schema));
        }
    }
    Some(out)
}

/// A syntax the model may write actions in, for [`instructions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PromptSyntax {
    /// A ```` ```json ```` fence whose object names the action with `"action"`.
    JsonFence,
    /// An ```` ```actions ```` fence holding `{"actions": [...]}`.
    ActionsFence,
    /// `<action_call name="...">{...}</action_call>`.
    ActionCall,
    /// Hermes style: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    HermesToolCall,
}

impl PromptSyntax {
    /// Every syntax, in the order [`instructions`] shows them.
    ///
    /// ```
    /// assert_eq!(actionstream::feedback::PromptSyntax::ALL.len(), 4);
    /// ```
    pub const ALL: [PromptSyntax; 4] = [
        PromptSyntax::JsonFence,
        PromptSyntax::ActionsFence,
        PromptSyntax::ActionCall,
        PromptSyntax::HermesToolCall,
    ];
}

/// The actions `validator` knows, as prompt instructions: each name with the
/// arguments its schema (or its required fields) asks for, then an example
/// of each of `syntaxes`, written with the first action. Actions are named
/// with `"action"`, the default discriminator.
///
/// ```
/// use actionstream::feedback::{instructions, PromptSyntax};
/// let types = actionstream::TypeList::new().allow("note", ["content"]);
/// let text = instructions(&types, &PromptSyntax::ALL);
/// assert!(text.contains("- note: { content: any }"));
/// assert!(text.contains("```json\n{\"action\": \"note\", \"content\": \"...\"}\n```"));
/// assert!(text.contains("```actions\n{\"actions\": [{\"action\": \"note\", \"content\": \"...\"}]}\n```"));
/// assert!(text.contains("<action_call name=\"note\">{\"content\": \"...\"}</action_call>"));
/// assert!(text.contains("<tool_call>{\"name\": \"note\", \"arguments\": {\"content\": \"...\"}}</tool_call>"));
/// // Every example parses back to the action it shows.
/// let events = actionstream::parse_str_with(actionstream::Config::default().validator(types), &text);
/// let complete = events.iter().filter(|e| matches!(e, actionstream::Event::ActionComplete(_))).count();
/// assert_eq!(complete, 4);
/// ```
pub fn instructions(validator: &dyn Validator, syntaxes: &[PromptSyntax]) -> String {
    let names = validator.known();
    let mut out =
        String::from("You can take actions by writing them in your reply. The actions:\n\n");
    if names.is_empty() {
        out.push_str("(none)\n");
    }
    for name in &names {
        match validator.schema(name) {
            Some(schema) => {
                let _ = write!(out, "- {name}: {}", signature(&schema));
                if let Some(d) = schema.get("description").and_then(Value::as_str) {
                    let _ = write!(out, " — {}", d.trim());
                }
                out.push('\n');
            }
            None => {
                let _ = writeln!(out, "- {name}");
            }
        }
    }
    let Some(first) = names.first() else {
        return out;
    };
    let args = validator
        .schema(first)
        .map(|s| example(&s, &s, 0))
        .unwrap_or_else(|| Value::Object(Map::new()));
    let args_obj = match &args {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    let mut named = Map::new();
    named.insert("action".into(), Value::String(first.clone()));
    named.extend(args_obj);
    let named = compact(&Value::Object(named));
    let args = compact(&args);
    if !syntaxes.is_empty() {
        out.push_str("\nWrite each action in one of these forms, with its arguments as JSON:\n");
    }
    for s in syntaxes {
        out.push('\n');
        match s {
            PromptSyntax::JsonFence => {
                let _ = write!(
                    out,
                    "A ```json block, the action named by \"action\":\n```json\n{named}\n```\n"
                );
            }
            PromptSyntax::ActionsFence => {
                let _ = write!(
                    out,
                    "Several actions at once, in an ```actions block:\n```actions\n{{\"actions\": [{named}]}}\n```\n"
                );
            }
            PromptSyntax::ActionCall => {
                let _ = write!(
                    out,
                    "A call tag:\n<action_call name={}>{args}</action_call>\n",
                    quote(first)
                );
            }
            PromptSyntax::HermesToolCall => {
                let _ = write!(
                    out,
                    "A tool call:\n<tool_call>{{\"name\": {}, \"arguments\": {args}}}</tool_call>\n",
                    quote(first)
                );
            }
        }
    }
    out.push_str(
        "\nAn action whose arguments do not match is not carried out; you will be told what was wrong.\n",
    );
    out
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// JSON with a space after `:` and `,`, as people write it in one line.
fn compact(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("[{}]", a.iter().map(compact).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", quote(k), compact(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// A schema described in one line, TypeScript-like: `{ issues: { title:
/// string; labels?: string[] }[] }`.
///
/// ```
/// let s = serde_json::json!({"type": "object", "required": ["issues"], "properties": {
///     "issues": {"type": "array", "items": {"type": "object", "required": ["title"],
///         "properties": {"title": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}},
///                        "priority": {"enum": ["high", "low"]}}}}}});
/// assert_eq!(
///     actionstream::feedback::signature(&s),
///     r#"{ issues: { title: string; labels?: string[]; priority?: "high" | "low" }[] }"#
/// );
/// ```
pub fn signature(schema: &Value) -> String {
    describe(schema, schema, 0)
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r.strip_prefix('#').and_then(|p| root.pointer(p)),
        None => Some(schema),
    }
}

fn describe(root: &Value, schema: &Value, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "…".into();
    }
    let Some(schema) = resolve(root, schema) else {
        return "any".into();
    };
    let obj = match schema {
        Value::Bool(false) => return "never".into(),
        Value::Object(o) => o,
        _ => return "any".into(),
    };
    if let Some(c) = obj.get("const") {
        return c.to_string();
    }
    if let Some(Value::Array(e)) = obj.get("enum") {
        return e
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            return branches
                .iter()
                .map(|b| describe(root, b, depth + 1))
                .collect::<Vec<_>>()
                .join(" | ");
        }
    }
    if let Some(Value::Array(members)) = obj.get("allOf") {
        return members
            .iter()
            .map(|b| describe(root, b, depth + 1))
            .collect::<Vec<_>>()
            .join(" & ");
    }
    match obj.get("type") {
        Some(Value::String(t)) => of_type(root, obj, t, depth),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(|t| of_type(root, obj, t, depth))
            .collect::<Vec<_>>()
            .join(" | "),
        _ if obj.contains_key("properties") => of_type(root, obj, "object", depth),
        _ if obj.contains_key("items") => of_type(root, obj, "array", depth),
        _ => "any".into(),
    }
}

fn of_type(root: &Value, obj: &Map<String, Value>, t: &str, depth: usize) -> String {
    match t {
        "object" => {
            let required: Vec<&str> = obj
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match obj.get("properties").and_then(Value::as_object) {
                Some(props) if !props.is_empty() => {
                    let fields: Vec<String> = props
                        .iter()
                        .map(|(k, v)| {
                            let opt = if required.contains(&k.as_str()) {
                                ""
                            } else {
                                "?"
                            };
                            format!("{k}{opt}: {}", describe(root, v, depth + 1))
                        })
                        .collect();
                    format!("{{ {} }}", fields.join("; "))
                }
                _ => match obj.get("additionalProperties") {
                    Some(v @ Value::Object(_)) => {
                        format!("{{ [key: string]: {} }}", describe(root, v, depth + 1))
                    }
                    _ => "object".into(),
                },
            }
        }
        "array" => match obj.get("items") {
            Some(items @ Value::Object(_)) => {
                let inner = describe(root, items, depth + 1);
                if top_level_operator(&inner) {
                    format!("({inner})[]")
                } else {
                    format!("{inner}[]")
                }
            }
            _ => "any[]".into(),
        },
        other => other.to_owned(),
    }
}

/// Whether ` | ` or ` & ` stands outside all brackets and strings of `s`.
fn top_level_operator(s: &str) -> bool {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            b'|' | b'&' if depth == 0 && i > 0 && bytes[i - 1] == b' ' => return true,
            _ => {}
        }
    }
    false
}

/// An example value for a schema: required fields only, placeholder scalars.
fn example(root: &Value, schema: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let Some(Value::Object(obj)) = resolve(root, schema) else {
        return Value::String("...".into());
    };
    if let Some(c) = obj.get("const") {
        return c.clone();
    }
    if let Some(first) = obj
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(first) = obj
            .get(key)
            .and_then(Value::as_array)
            .and_then(|b| b.first())
        {
            return example(root, first, depth + 1);
        }
    }
    let t = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if obj.contains_key("properties") => "object",
        _ => "string",
    };
    match t {
        "object" => {
            let props = obj.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = obj
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(props) = props {
                for (k, v) in props {
                    if required.contains(&k.as_str()) {
                        out.insert(k.clone(), example(root, v, depth + 1));
                    }
                }
                if out.is_empty() {
                    if let Some((k, v)) = props.iter().next() {
                        out.insert(k.clone(), example(root, v, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => match obj.get("items") {
            Some(items) => Value::Array(vec![example(root, items, depth + 1)]),
            None => Value::Array(Vec::new()),
        },
        "integer" | "number" => {
            let min = obj.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            Value::from(min.max(1))
        }
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        _ => Value::String("...".into()),
    }
}
