//! The WebAssembly core of the `actionstream` npm package: the streaming
//! parser behind a small `wasm-bindgen` surface. The JavaScript module
//! (`js/src/index.js`) wraps it: it carries a UTF-16 high surrogate cut off
//! at the end of a pushed string to the next push, and parses the JSON
//! lines this returns.
//!
//! Options come as one JSON object with the Python package's option names
//! in camelCase; they become a [`ParserSettings`] layer, whose
//! [`ParserSettings::apply`] checks every value: a bad value is refused with
//! the same message as the CLI's and Python's.
#![deny(unsafe_code)]

use actionstream::{Config, Event, ParserSettings};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

/// The options object's keys, as JavaScript spells them.
const KEYS: [&str; 13] = [
    "dialects",
    "model",
    "tools",
    "schema",
    "strict",
    "maxBlockBytes",
    "argumentDeltas",
    "actionDeltas",
    "reasoningOpen",
    "callsInReasoning",
    "fenceTags",
    "xmlTags",
    "discriminators",
];

/// What JavaScript calls `typeof`-like names, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong(key: &str, expected: &str, v: &Value) -> String {
    format!("option '{key}': expected {expected}, found {}", kind(v))
}

fn boolean(key: &str, v: &Value) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| wrong(key, "a boolean", v))
}

fn strings(key: &str, v: &Value) -> Result<Vec<String>, String> {
    let items = v
        .as_array()
        .ok_or_else(|| wrong(key, "an array of strings", v))?;
    items
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_owned)
                .ok_or_else(|| wrong(key, "an array of strings", v))
        })
        .collect()
}

/// The configuration from the options (a JSON object; `null` or an absent
/// key is the default). A wrong type is an error naming the option; a bad
/// value the shared check's message.
pub fn config(options: &str) -> Result<Config, String> {
    let options: Value = serde_json::from_str(options).map_err(|e| e.to_string())?;
    let options = match options {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        other => return Err(format!("options must be an object, found {}", kind(&other))),
    };
    let mut layer = ParserSettings::default();
    let mut argument_deltas = false;
    for (key, v) in &options {
        if v.is_null() {
            continue;
        }
        match key.as_str() {
            "dialects" => layer.dialects = strings(key, v)?,
            "model" => {
                layer.model = Some(v.as_str().ok_or_else(|| wrong(key, "a string", v))?.into())
            }
            "tools" => {
                // Named `tools` where the CLI names the file, as in Python.
                layer.tools = actionstream::dialect::tools::tool_schemas(v).map_err(|message| {
                    actionstream::ConfigError::Tools {
                        path: "tools".into(),
                        message,
                    }
                    .to_string()
                })?
            }
            "schema" => {
                layer.schemas = v
                    .as_object()
                    .cloned()
                    .ok_or_else(|| wrong(key, "an object", v))?
            }
            "strict" => layer.strict = boolean(key, v)?.then_some(true),
            "maxBlockBytes" => {
                let n = v
                    .as_u64()
                    .ok_or_else(|| wrong(key, "a whole number of bytes", v))?;
                layer.max_block_bytes = Some(usize::try_from(n).unwrap_or(usize::MAX));
            }
            "argumentDeltas" => argument_deltas = boolean(key, v)?,
            "actionDeltas" => layer.action_deltas = boolean(key, v)?.then_some(true),
            "reasoningOpen" => layer.reasoning_open = boolean(key, v)?.then_some(true),
            "callsInReasoning" => layer.calls_in_reasoning = boolean(key, v)?.then_some(true),
            "fenceTags" => layer.fence_tags = strings(key, v)?,
            "xmlTags" => layer.xml_tags = strings(key, v)?,
            "discriminators" => layer.discriminators = strings(key, v)?,
            _ => {
                return Err(format!(
                    "unknown option '{key}': the options are {}",
                    KEYS.join(", ")
                ))
            }
        }
    }
    let config = layer.apply(Config::default()).map_err(|e| e.to_string())?;
    Ok(config.argument_deltas(argument_deltas))
}

/// The streaming parser of one response, as the package's `Parser` uses it.
#[wasm_bindgen]
pub struct Core {
    inner: actionstream::Parser,
    events: Vec<Event>,
}

impl Core {
    /// The events gathered so far as a JSON array of the CLI's lines.
    fn take(&mut self) -> String {
        let lines: Vec<Value> = self
            .events
            .drain(..)
            .filter_map(|e| actionstream::wire::event_line(&e))
            .collect();
        Value::Array(lines).to_string()
    }
}

#[wasm_bindgen]
impl Core {
    /// A parser with `options` (a JSON object); throws the error message.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &str) -> Result<Core, JsError> {
        let config = config(options).map_err(|m| JsError::new(&m))?;
        Ok(Core {
            inner: actionstream::Parser::new(config),
            events: Vec::new(),
        })
    }

    /// Pushes text; returns the events it made certain, as a JSON array.
    pub fn push_str(&mut self, text: &str) -> String {
        self.inner.push(text, &mut self.events);
        self.take()
    }

    /// Pushes bytes (a chunk may end inside a UTF-8 character); returns the
    /// events, as a JSON array.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> String {
        self.inner.push_bytes(bytes, &mut self.events);
        self.take()
    }

    /// Ends the response; returns the last events, as a JSON array.
    pub fn finish(&mut self) -> String {
        self.inner.finish(&mut self.events);
        self.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_and_checked() {
        assert!(config("{}").is_ok());
        assert!(config("null").is_ok());
        assert_eq!(
            config(r#"{"maxBlockBytes": 0}"#).unwrap_err(),
            "max_block_bytes must be at least 16 bytes, not 0"
        );
        assert!(config(r#"{"dialects": ["qwen"]}"#)
            .unwrap_err()
            .starts_with("unknown dialect `qwen`"));
        assert_eq!(
            config(r#"{"strict": "yes"}"#).unwrap_err(),
            "option 'strict': expected a boolean, found a string"
        );
        assert!(config(r#"{"nope": 1}"#)
            .unwrap_err()
            .starts_with("unknown option 'nope'"));
    }
}
