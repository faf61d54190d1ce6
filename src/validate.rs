//! Checking an action's arguments when its block closes.
//!
//! A [`Validator`] sees each named action's arguments once, when its block
//! closes, and returns what is wrong; nothing means valid. [`TypeList`] is the
//! allowed-types list with required fields per type of the seeds'
//! configurations; JSON Schemas come with the `schema` feature.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::event::ActionError;

/// Checks an action's arguments.
pub trait Validator: Send + Sync {
    /// The errors of action `name` with `arguments`; empty when it is valid.
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError>;

    /// The action names this validator knows, for error messages and prompts.
    fn known(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The message for an action name that no validator knows.
pub(crate) fn unknown_action(name: &str, known: &[String]) -> ActionError {
    let list = known
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(" | ");
    ActionError::whole(format!(
        "unknown action '{name}': expected one of {}",
        if list.is_empty() { "(none)".into() } else { list }
    ))
}

/// The JSON type of a value, as people say it.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Allowed action types, each with its required fields: the `types` list and
/// required fields per type of the seeds' configurations, without a schema.
///
/// ```
/// use actionstream::{TypeList, Validator};
/// let types = TypeList::new()
///     .allow("create_task", ["content"])
///     .allow("list_tasks", [] as [&str; 0]);
/// let errors = types.validate("create_task", &serde_json::json!({"notes": "x"}));
/// assert_eq!(errors[0].to_string(), "at content: required field missing: expected a value, found nothing");
/// assert!(types.validate("list_tasks", &serde_json::json!({})).is_empty());
/// assert!(types.validate("fly", &serde_json::json!({}))[0].message.starts_with("unknown action 'fly'"));
/// ```
#[derive(Default, Clone)]
pub struct TypeList {
    types: BTreeMap<String, Vec<String>>,
    order: Vec<String>,
}

impl fmt::Debug for TypeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.types.iter()).finish()
    }
}

impl TypeList {
    /// An empty list: every name is unknown.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows action `name` with these required fields.
    pub fn allow<I, S>(mut self, name: impl Into<String>, required: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let name = name.into();
        if !self.types.contains_key(&name) {
            self.order.push(name.clone());
        }
        self.types
            .insert(name, required.into_iter().map(Into::into).collect());
        self
    }
}

impl Validator for TypeList {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        let Some(required) = self.types.get(name) else {
            return vec![unknown_action(name, &self.order)];
        };
        let Some(obj) = arguments.as_object() else {
            return vec![ActionError::whole(format!(
                "expected the arguments to be an object, found {}",
                type_name(arguments)
            ))];
        };
        required
            .iter()
            .filter(|f| !obj.contains_key(f.as_str()))
            .map(|f| {
                ActionError::at(
                    f.as_str(),
                    "required field missing: expected a value, found nothing",
                )
            })
            .collect()
    }

    fn known(&self) -> Vec<String> {
        self.order.clone()
    }
}
