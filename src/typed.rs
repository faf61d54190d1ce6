//! Typed actions (feature `schema`): register Rust types, get typed values.
//!
//! A [`TypedRegistry`] maps action names to Rust types that derive
//! `Deserialize` and `schemars::JsonSchema`: either one payload struct per
//! name ([`TypedRegistry::action`]), or one enum tagged by the discriminator,
//! `#[serde(tag = "action")]` ([`TypedRegistry::from_enum`]). The JSON
//! Schemas come from schemars, so the same registry validates actions while
//! they stream (it is a [`Validator`]) and describes them in prompts (see
//! [`crate::feedback`]).
//!
//! Errors keep their path. The name is dispatched on first; the arguments are
//! checked against that name's schema (which catches nearly everything, with
//! the path), then that name's payload is deserialised with a deserialiser
//! that tracks the path itself. (An internally tagged enum buffers its
//! content inside serde, where no path survives: for such an enum, what the
//! schema cannot see is reported for the action as a whole.)
//!
//! ```
//! use actionstream::typed::TypedRegistry;
//! use serde::Deserialize;
//! use schemars::JsonSchema;
//! use std::sync::Arc;
//!
//! #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
//! #[serde(tag = "action", rename_all = "snake_case")]
//! enum Echelon {
//!     UpdatePlan { plan: String },
//!     InvokeCheenoski { label: String },
//! }
//!
//! let registry = Arc::new(TypedRegistry::<Echelon>::from_enum("action").unwrap());
//! let config = actionstream::Config::default().shared_validator(registry.clone());
//! let events = actionstream::parse_str_with(
//!     config,
//!     "```json\n{\"action\": \"update_plan\", \"plan\": \"P1\"}\n```\n\
//!      ```json\n{\"action\": \"invoke_cheenoski\", \"label\": 123}\n```\n",
//! );
//! let typed = registry.typed_events(&events);
//! assert_eq!(typed, [Echelon::UpdatePlan { plan: "P1".into() }]);
//! let invalid: Vec<String> = events.iter().filter_map(|e| match e {
//!     actionstream::Event::ActionInvalid(a) => Some(a.errors[0].to_string()),
//!     _ => None,
//! }).collect();
//! assert_eq!(invalid, ["at label: expected a string, found an integer (123)"]);
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::event::{Action, ActionError, Event};
use crate::schema::{SchemaError, SchemaValidator};
use crate::validate::{unknown_action, Validator};

type Decoder<T> = Box<dyn Fn(&str, &Value) -> Result<T, ActionError> + Send + Sync>;

/// Rust types registered by action name; a [`Validator`] whose schemas come
/// from schemars, and the source of typed values (see the [module
/// docs](self)).
///
/// ```
/// use actionstream::typed::TypedRegistry;
/// use actionstream::Validator;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Search { query: String, limit: Option<u32> }
///
/// let registry = TypedRegistry::<Search>::new().action("search", |s: Search| s).unwrap();
/// assert_eq!(registry.known(), ["search"]);
/// let errors = registry.validate("search", &serde_json::json!({"limit": 5}));
/// assert_eq!(errors[0].to_string(), "at query: required field missing");
/// ```
pub struct TypedRegistry<T> {
    schemas: SchemaValidator,
    decoders: BTreeMap<String, Decoder<T>>,
}

impl<T> fmt::Debug for TypedRegistry<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedRegistry")
            .field("actions", &self.schemas)
            .finish()
    }
}

impl<T> Default for TypedRegistry<T> {
    fn default() -> Self {
        TypedRegistry {
            schemas: SchemaValidator::new(),
            decoders: BTreeMap::new(),
        }
    }
}

/// The JSON Schema schemars gives for `P`.
fn schema_of<P: JsonSchema>() -> Value {
    let root = schemars::gen::SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<P>();
    serde_json::to_value(root).unwrap_or(Value::Bool(true))
}

impl<T> TypedRegistry<T> {
    /// An empty registry; add actions with [`TypedRegistry::action`].
    ///
    /// ```
    /// use actionstream::Validator;
    /// let r = actionstream::typed::TypedRegistry::<()>::new();
    /// assert!(r.known().is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers payload type `P` for action `name`; `into` turns a payload
    /// into the registry's type (the identity for one struct per name, an
    /// enum constructor otherwise). `P`'s schema comes from schemars.
    ///
    /// ```
    /// use actionstream::typed::TypedRegistry;
    /// #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    /// struct Plan { plan: String }
    /// #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    /// struct Branch { branch_name: String, from: Option<String> }
    /// #[derive(Debug, PartialEq)]
    /// enum Act { Plan(Plan), Branch(Branch) }
    ///
    /// let r = TypedRegistry::new()
    ///     .action("update_plan", Act::Plan).unwrap()
    ///     .action("create_branch", Act::Branch).unwrap();
    /// let events = actionstream::parse_str(
    ///     "```json\n{\"action\": \"create_branch\", \"branch_name\": \"f\"}\n```\n");
    /// assert_eq!(r.typed_events(&events), [Act::Branch(Branch { branch_name: "f".into(), from: None })]);
    /// ```
    pub fn action<P, F>(mut self, name: &str, into: F) -> Result<Self, SchemaError>
    where
        P: DeserializeOwned + JsonSchema,
        F: Fn(P) -> T + Send + Sync + 'static,
    {
        self.schemas = self.schemas.with(name, schema_of::<P>())?;
        self.decoders.insert(
            name.to_owned(),
            Box::new(move |_, args| decode::<P>(args).map(&into)),
        );
        Ok(self)
    }

    /// The schemas, one per action name.
    ///
    /// ```
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Note { content: String }
    /// let r = actionstream::typed::TypedRegistry::new().action("note", |n: Note| n).unwrap();
    /// assert_eq!(r.schemas().schema("note").unwrap()["required"], serde_json::json!(["content"]));
    /// ```
    pub fn schemas(&self) -> &SchemaValidator {
        &self.schemas
    }

    /// The typed value of a complete action: its name's schema is checked,
    /// then its payload deserialised; errors name the path.
    ///
    /// ```
    /// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    /// struct Note { content: String }
    /// let r = actionstream::typed::TypedRegistry::new().action("note", |n: Note| n).unwrap();
    /// let events = actionstream::parse_str("```json\n{\"action\": \"note\", \"content\": \"hi\"}\n```\n");
    /// let actionstream::Event::ActionComplete(action) = &events[1] else { panic!() };
    /// assert_eq!(r.typed(action).unwrap().content, "hi");
    /// ```
    pub fn typed(&self, action: &Action) -> Result<T, Vec<ActionError>> {
        self.typed_parts(&action.name, &action.arguments)
    }

    /// The typed values of the complete actions among `events`, in order,
    /// leaving out those that do not deserialise (with a registry as the
    /// parser's validator, there are none: they were reported invalid).
    ///
    /// ```
    /// #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    /// struct Note { content: String }
    /// let r = actionstream::typed::TypedRegistry::new().action("note", |n: Note| n).unwrap();
    /// let events = actionstream::parse_str("```json\n[{\"action\": \"note\", \"content\": \"a\"}, {\"action\": \"x\"}]\n```\n");
    /// assert_eq!(r.typed_events(&events), [Note { content: "a".into() }]);
    /// ```
    pub fn typed_events(&self, events: &[Event]) -> Vec<T> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => self.typed(a).ok(),
                _ => None,
            })
            .collect()
    }

    fn typed_parts(&self, name: &str, arguments: &Value) -> Result<T, Vec<ActionError>> {
        let Some(decoder) = self.decoders.get(name) else {
            return Err(vec![unknown_action(name, &self.schemas.known())]);
        };
        let errors = self.schemas.validate(name, arguments);
        if !errors.is_empty() {
            return Err(errors);
        }
        decoder(name, arguments).map_err(|e| vec![e])
    }
}

impl<T: DeserializeOwned + JsonSchema> TypedRegistry<T> {
    /// Registers every variant of an enum tagged by `discriminator`
    /// (`#[serde(tag = "action")]`): schemars' `oneOf` schema is split into
    /// one schema per name (see [`SchemaValidator::from_union`]) and an
    /// action is deserialised as `T` with its name put back under the
    /// discriminator.
    ///
    /// ```
    /// #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    /// #[serde(tag = "type", rename_all = "snake_case")]
    /// enum Task { CreateTask { content: String, notes: Option<String> }, ListTasks }
    /// let r = actionstream::typed::TypedRegistry::<Task>::from_enum("type").unwrap();
    /// let config = actionstream::Config::default().discriminator("type");
    /// let events = actionstream::parse_str_with(config,
    ///     "```actions\n{\"actions\": [{\"type\": \"list_tasks\"}, {\"type\": \"create_task\", \"content\": \"c\"}]}\n```\n");
    /// assert_eq!(r.typed_events(&events), [Task::ListTasks, Task::CreateTask { content: "c".into(), notes: None }]);
    /// ```
    pub fn from_enum(discriminator: &str) -> Result<Self, SchemaError> {
        let schemas = SchemaValidator::from_union(&schema_of::<T>(), discriminator)?;
        let mut decoders: BTreeMap<String, Decoder<T>> = BTreeMap::new();
        for name in schemas.names() {
            let key = discriminator.to_owned();
            decoders.insert(
                name.to_owned(),
                Box::new(move |name, args| {
                    let mut obj = Map::new();
                    obj.insert(key.clone(), Value::String(name.to_owned()));
                    if let Value::Object(fields) = args {
                        for (k, v) in fields {
                            if k != &key {
                                obj.insert(k.clone(), v.clone());
                            }
                        }
                    }
                    decode::<T>(&Value::Object(obj))
                }),
            );
        }
        Ok(TypedRegistry { schemas, decoders })
    }
}

impl<T> Validator for TypedRegistry<T> {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        match self.typed_parts(name, arguments) {
            Ok(_) => Vec::new(),
            Err(errors) => errors,
        }
    }

    fn known(&self) -> Vec<String> {
        self.schemas.known()
    }

    fn schema(&self, name: &str) -> Option<Value> {
        self.schemas.schema(name).cloned()
    }
}

// ---------------------------------------------------------------------------
// Deserialising a `&Value` while tracking the path.

/// Deserialises `P` from `value`; an error names the deepest path at which
/// it arose, in our words where serde's are recognised.
fn decode<P: DeserializeOwned>(value: &Value) -> Result<P, ActionError> {
    let failed = RefCell::new(None);
    let de = PathDe {
        value,
        path: String::new(),
        failed: &failed,
    };
    P::deserialize(de).map_err(|e| {
        let path = failed.into_inner().unwrap_or_default();
        plain(path, &e.to_string())
    })
}

/// Serde's messages in our words: `missing field `x`` and `invalid type: X,
/// expected Y`; others as they are.
fn plain(path: String, message: &str) -> ActionError {
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        let path = if path.is_empty() {
            field.to_owned()
        } else {
            format!("{path}/{field}")
        };
        return ActionError::at(path, "required field missing");
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some((found, expected)) = message
            .strip_prefix(prefix)
            .and_then(|m| m.split_once(", expected "))
        {
            return ActionError::at(path, format!("expected {expected}, found {found}"));
        }
    }
    ActionError::at(path, message)
}

struct PathDe<'de, 'f> {
    value: &'de Value,
    path: String,
    failed: &'f RefCell<Option<String>>,
}

impl<'de, 'f> PathDe<'de, 'f> {
    fn child(&self, value: &'de Value, key: &str) -> Self {
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}/{key}", self.path)
        };
        PathDe {
            value,
            path,
            failed: self.failed,
        }
    }

    /// Keeps the first (deepest) path at which an error came back.
    fn note<R>(
        failed: &RefCell<Option<String>>,
        path: &str,
        r: Result<R, serde_json::Error>,
    ) -> Result<R, serde_json::Error> {
        if r.is_err() {
            let mut f = failed.borrow_mut();
            if f.is_none() {
                *f = Some(path.to_owned());
            }
        }
        r
    }
}

impl<'de> de::Deserializer<'de> for PathDe<'de, '_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let failed = self.failed;
        let path = self.path.clone();
        let r = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visitor.visit_seq(Seq {
                parent: &self,
                items: items.iter(),
                index: 0,
            }),
            Value::Object(fields) => visitor.visit_map(Fields {
                parent: &self,
                iter: fields.iter(),
                pending: None,
            }),
        };
        Self::note(failed, &path, r)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => {
                let (failed, path) = (self.failed, self.path.clone());
                Self::note(failed, &path, visitor.visit_some(self))
            }
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let r = match self.value {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            other => de::Deserializer::deserialize_enum(other, name, variants, visitor),
        };
        Self::note(self.failed, &self.path, r)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let r = de::Deserializer::deserialize_bytes(self.value, visitor);
        Self::note(self.failed, &self.path, r)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let r = de::Deserializer::deserialize_byte_buf(self.value, visitor);
        Self::note(self.failed, &self.path, r)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct Seq<'a, 'de, 'f> {
    parent: &'a PathDe<'de, 'f>,
    items: std::slice::Iter<'de, Value>,
    index: usize,
}

impl<'de> de::SeqAccess<'de> for Seq<'_, 'de, '_> {
    type Error = serde_json::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let child = self.parent.child(item, &self.index.to_string());
        self.index += 1;
        seed.deserialize(child).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Fields<'a, 'de, 'f> {
    parent: &'a PathDe<'de, 'f>,
    iter: serde_json::map::Iter<'de>,
    pending: Option<(&'de str, &'de Value)>,
}

impl<'de> de::MapAccess<'de> for Fields<'_, 'de, '_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.pending = Some((k.as_str(), v));
        seed.deserialize(BorrowedStrDeserializer::new(k)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let Some((k, v)) = self.pending.take() else {
            return Err(de::Error::custom("a value was asked for before its key"));
        };
        seed.deserialize(self.parent.child(v, k))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Issue {
        title: String,
        labels: Vec<String>,
        count: Option<u8>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Issues {
        issues: Vec<Issue>,
    }

    #[test]
    fn paths_survive_deserialisation() {
        let e = decode::<Issues>(&json!({"issues": [{"title": "t", "labels": "backend"}]}))
            .expect_err("labels is a string");
        assert_eq!(e.path, "issues/0/labels");
        assert_eq!(e.message, "expected a sequence, found string \"backend\"");
        let e = decode::<Issues>(&json!({"issues": [{"labels": []}]})).expect_err("no title");
        assert_eq!(e.to_string(), "at issues/0/title: required field missing");
        let e = decode::<Issues>(&json!({"issues": [{"title": "t", "labels": [], "count": 300}]}))
            .expect_err("u8");
        assert_eq!(e.path, "issues/0/count");
        assert!(decode::<Issues>(
            &json!({"issues": [{"title": "t", "labels": ["a"], "count": null}]})
        )
        .is_ok());
    }
}
