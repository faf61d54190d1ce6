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
///
/// ```
/// use actionstream::{ActionError, Validator};
/// use serde_json::Value;
///
/// /// Only `ping`, without arguments.
/// struct PingOnly;
/// impl Validator for PingOnly {
///     fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
///         match (name, arguments.as_object().map_or(0, |o| o.len())) {
///             ("ping", 0) => Vec::new(),
///             ("ping", _) => vec![ActionError::whole("ping takes no arguments")],
///             _ => vec![ActionError::whole(format!("unknown action '{name}'"))],
///         }
///     }
///     fn known(&self) -> Vec<String> {
///         vec!["ping".into()]
///     }
/// }
/// let events = actionstream::parse_str_with(
///     actionstream::Config::default().validator(PingOnly),
///     "```json\n{\"action\": \"ping\", \"x\": 1}\n```\n",
/// );
/// assert!(matches!(&events[1], actionstream::Event::ActionInvalid(a) if a.errors[0].message == "ping takes no arguments"));
/// ```
pub trait Validator: Send + Sync {
    /// The errors of action `name` with `arguments`; empty when it is valid.
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError>;

    /// The action names this validator knows, for error messages and prompts.
    fn known(&self) -> Vec<String> {
        Vec::new()
    }

    /// The JSON Schema of action `name`'s arguments, where the validator has
    /// one (for feedback and prompt instructions); `None` by default.
    fn schema(&self, name: &str) -> Option<Value> {
        let _ = name;
        None
    }
}

impl<V: Validator + ?Sized> Validator for std::sync::Arc<V> {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        (**self).validate(name, arguments)
    }

    fn known(&self) -> Vec<String> {
        (**self).known()
    }

    fn schema(&self, name: &str) -> Option<Value> {
        (**self).schema(name)
    }
}

/// The message for an action name that no validator knows.
pub(crate) fn unknown_action(name: &str, known: &[String]) -> ActionError {
    let list = known
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(" | ");
    ActionError::new(
        crate::ErrorKind::UnknownAction,
        "",
        format!(
            "unknown action '{name}': expected one of {}",
            if list.is_empty() {
                "(none)".into()
            } else {
                list
            }
        ),
    )
}

/// The JSON type of a value, as people say it ("an array", "a number").
pub(crate) fn type_name(v: &Value) -> &'static str {
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
/// assert_eq!(errors[0].to_string(), "at content: required field missing");
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
    ///
    /// ```
    /// use actionstream::Validator;
    /// let none = actionstream::TypeList::new();
    /// assert!(none.known().is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows action `name` with these required fields (a name allowed
    /// again gets the new list).
    ///
    /// ```
    /// use actionstream::Validator;
    /// let types = actionstream::TypeList::new().allow("note", ["content"]);
    /// assert_eq!(types.schema("note").unwrap()["required"], serde_json::json!(["content"]));
    /// ```
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
            .map(|f| ActionError::at(f.as_str(), "required field missing"))
            .collect()
    }

    fn known(&self) -> Vec<String> {
        self.order.clone()
    }

    /// `{"type": "object", "required": [...]}` with each required field as a
    /// property of any type.
    fn schema(&self, name: &str) -> Option<Value> {
        let required = self.types.get(name)?;
        let properties: serde_json::Map<String, Value> = required
            .iter()
            .map(|f| (f.clone(), Value::Object(Default::default())))
            .collect();
        Some(serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": required,
        }))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn type_names() {
        assert_eq!(super::type_name(&serde_json::json!([1])), "an array");
        assert_eq!(super::type_name(&serde_json::json!(1.5)), "a number");
    }
}
