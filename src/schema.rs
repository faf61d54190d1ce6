//! JSON Schema validation per action name (feature `schema`).
//!
//! A [`SchemaValidator`] holds one compiled schema per action name, compiled
//! once. It is built from a map of names to schemas
//! ([`SchemaValidator::from_map`]) or from one discriminated-union schema
//! ([`SchemaValidator::from_union`]), whose branches each fix the naming key
//! with `const` or `enum`: the union is split into one schema per name, so an
//! action is checked against the branch its name selects, never against the
//! whole union.
//!
//! Errors name the path inside the arguments, slash-separated
//! (`issues/0/labels`), and say in plain words what was expected and what
//! came, good enough to send back to a model:
//!
//! ```
//! use actionstream::{schema::SchemaValidator, Validator};
//! use serde_json::json;
//!
//! let v = SchemaValidator::from_map(&json!({
//!     "create_issues": {
//!         "type": "object",
//!         "required": ["issues"],
//!         "properties": {"issues": {"type": "array", "items": {
//!             "type": "object",
//!             "properties": {"labels": {"type": "array", "items": {"type": "string"}}}
//!         }}}
//!     }
//! }).as_object().unwrap().clone()).unwrap();
//!
//! let errors = v.validate("create_issues", &json!({"issues": [{"labels": "backend"}]}));
//! assert_eq!(errors[0].to_string(), r#"at issues/0/labels: expected an array, found a string ("backend")"#);
//! assert_eq!(v.validate("create_issues", &json!({}))[0].to_string(), "at issues: required field missing");
//! assert_eq!(
//!     v.validate("fly", &json!({}))[0].to_string(),
//!     "unknown action 'fly': expected one of 'create_issues'"
//! );
//! ```
//!
//! A property whose schema fixes the action's own name (`"type": {"const":
//! "decision"}`, as the seeds' per-type schema files have it) is the naming
//! key, which arguments never hold: it is dropped from that name's schema,
//! from `properties` and `required` alike.

use std::collections::BTreeMap;
use std::fmt;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::primitive_type::PrimitiveType;
use jsonschema::ValidationError;
use serde_json::Value;

use crate::event::ActionError;
use crate::validate::{type_name, unknown_action, Validator};

/// Why a schema could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The action whose schema is wrong; empty for the union as a whole.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "the union schema is invalid: {}", self.message)
        } else {
            write!(f, "schema for '{}' is invalid: {}", self.name, self.message)
        }
    }
}

impl std::error::Error for SchemaError {}

impl SchemaError {
    fn new(name: &str, message: impl Into<String>) -> Self {
        SchemaError {
            name: name.to_owned(),
            message: message.into(),
        }
    }
}

struct Entry {
    schema: Value,
    compiled: jsonschema::Validator,
}

/// Validates each action's arguments against its name's JSON Schema.
///
/// ```
/// use actionstream::{schema::SchemaValidator, Validator};
/// use serde_json::json;
///
/// let union = json!({"oneOf": [
///     {"type": "object", "required": ["action", "plan"],
///      "properties": {"action": {"const": "update_plan"}, "plan": {"type": "string"}}},
///     {"type": "object", "required": ["action", "label"],
///      "properties": {"action": {"const": "invoke_cheenoski"}, "label": {"type": "string"}}}
/// ]});
/// let v = SchemaValidator::from_union(&union, "action").unwrap();
/// assert_eq!(v.known(), ["update_plan", "invoke_cheenoski"]);
/// // Only the branch the name selects is reported.
/// let errors = v.validate("invoke_cheenoski", &json!({"label": 123}));
/// assert_eq!(errors.len(), 1);
/// assert_eq!(errors[0].to_string(), "at label: expected a string, found an integer (123)");
/// ```
pub struct SchemaValidator {
    entries: Vec<(String, Entry)>,
    index: BTreeMap<String, usize>,
}

impl Default for SchemaValidator {
    fn default() -> Self {
        SchemaValidator::new()
    }
}

impl fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(n, _)| n))
            .finish()
    }
}

impl SchemaValidator {
    /// Compiles a map of action names to schemas, in the map's order (which
    /// is the order of the "expected one of" lists).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// let mut map = BTreeMap::new();
    /// map.insert("note".to_string(), serde_json::json!({"type": "object"}));
    /// let v = actionstream::schema::SchemaValidator::from_map(&map).unwrap();
    /// assert_eq!(v.names().collect::<Vec<_>>(), ["note"]);
    /// let bad = serde_json::json!({"x": {"type": 5}});
    /// let err = actionstream::schema::SchemaValidator::from_map(bad.as_object().unwrap()).unwrap_err();
    /// assert_eq!(err.name, "x");
    /// ```
    pub fn from_map<'a, I>(map: I) -> Result<Self, SchemaError>
    where
        I: IntoIterator<Item = (&'a String, &'a Value)>,
    {
        let mut v = SchemaValidator::new();
        for (name, schema) in map {
            let mut schema = schema.clone();
            drop_own_name(&mut schema, name);
            v.insert(name, schema)?;
        }
        Ok(v)
    }

    /// Splits a discriminated union into one schema per name and compiles
    /// them: the top level is `oneOf` (or `anyOf`) of object schemas, each
    /// fixing `discriminator` with `const` or `enum` (directly, through a
    /// local `$ref`, or in an `allOf` member). The discriminator is removed
    /// from each branch's `properties` and `required`, since arguments never
    /// hold the naming key; the root's `definitions` / `$defs` go with each
    /// branch so that references still resolve.
    ///
    /// ```
    /// let union = serde_json::json!({"oneOf": [
    ///     {"type": "object", "properties": {"action": {"enum": ["escalate"]}, "reason": {"type": "string"}},
    ///      "required": ["action", "reason"], "additionalProperties": false}
    /// ]});
    /// let v = actionstream::schema::SchemaValidator::from_union(&union, "action").unwrap();
    /// let schema = v.schema("escalate").unwrap();
    /// assert_eq!(schema["required"], serde_json::json!(["reason"]));
    /// assert!(schema["properties"].get("action").is_none());
    /// ```
    pub fn from_union(schema: &Value, discriminator: &str) -> Result<Self, SchemaError> {
        let mut v = SchemaValidator::new();
        for (name, branch) in split_union(schema, discriminator)? {
            if v.index.contains_key(&name) {
                return Err(SchemaError::new(
                    "",
                    format!("two branches fix {discriminator} to '{name}'"),
                ));
            }
            v.insert(&name, branch)?;
        }
        Ok(v)
    }

    /// An empty validator: every name is unknown until added with
    /// [`SchemaValidator::with`].
    ///
    /// ```
    /// use actionstream::Validator;
    /// let v = actionstream::schema::SchemaValidator::new()
    ///     .with("note", serde_json::json!({"type": "object", "required": ["content"]}))
    ///     .unwrap();
    /// assert_eq!(v.validate("note", &serde_json::json!({}))[0].to_string(), "at content: required field missing");
    /// ```
    pub fn new() -> Self {
        SchemaValidator {
            entries: Vec::new(),
            index: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) the schema of action `name`, compiled at once; a
    /// property fixing the action's own name is dropped as in
    /// [`SchemaValidator::from_map`].
    ///
    /// ```
    /// let err = actionstream::schema::SchemaValidator::new()
    ///     .with("x", serde_json::json!({"minimum": "one"}))
    ///     .unwrap_err();
    /// assert!(err.to_string().starts_with("schema for 'x' is invalid"));
    /// ```
    pub fn with(mut self, name: &str, mut schema: Value) -> Result<Self, SchemaError> {
        drop_own_name(&mut schema, name);
        self.insert(name, schema)?;
        Ok(self)
    }

    fn insert(&mut self, name: &str, schema: Value) -> Result<(), SchemaError> {
        let compiled = jsonschema::validator_for(&schema)
            .map_err(|e| SchemaError::new(name, e.to_string()))?;
        let entry = Entry { schema, compiled };
        match self.index.get(name) {
            Some(&i) => self.entries[i].1 = entry,
            None => {
                self.index.insert(name.to_owned(), self.entries.len());
                self.entries.push((name.to_owned(), entry));
            }
        }
        Ok(())
    }

    /// The action names, in order.
    ///
    /// ```
    /// let v = actionstream::schema::SchemaValidator::from_map(&serde_json::Map::new()).unwrap();
    /// assert_eq!(v.names().count(), 0);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|(n, _)| n.as_str())
    }

    /// The arguments schema of action `name` (after the naming key was
    /// dropped from it).
    ///
    /// ```
    /// let map = serde_json::json!({"note": {"type": "object",
    ///     "properties": {"type": {"const": "note"}, "content": {"type": "string"}},
    ///     "required": ["type", "content"]}});
    /// let v = actionstream::schema::SchemaValidator::from_map(map.as_object().unwrap()).unwrap();
    /// assert_eq!(v.schema("note").unwrap()["required"], serde_json::json!(["content"]));
    /// ```
    pub fn schema(&self, name: &str) -> Option<&Value> {
        self.index.get(name).map(|&i| &self.entries[i].1.schema)
    }
}

impl Validator for SchemaValidator {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        let Some(&i) = self.index.get(name) else {
            return vec![unknown_action(name, &self.known())];
        };
        let mut out = Vec::new();
        for e in self.entries[i].1.compiled.iter_errors(arguments) {
            describe(&e, &mut out);
        }
        out
    }

    fn known(&self) -> Vec<String> {
        self.names().map(str::to_owned).collect()
    }

    fn schema(&self, name: &str) -> Option<Value> {
        SchemaValidator::schema(self, name).cloned()
    }
}

// ---------------------------------------------------------------------------
// Splitting a union.

/// The branches of a discriminated union, each with its name(s).
fn split_union(root: &Value, key: &str) -> Result<Vec<(String, Value)>, SchemaError> {
    let branches = root
        .get("oneOf")
        .or_else(|| root.get("anyOf"))
        .and_then(Value::as_array)
        .ok_or_else(|| SchemaError::new("", "expected `oneOf` or `anyOf` at the top level"))?;
    let mut out = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        let mut branch = resolve_local(root, branch).clone();
        let names = take_discriminator(root, &mut branch, key);
        if names.is_empty() {
            return Err(SchemaError::new(
                "",
                format!("branch {i} does not fix \"{key}\" with `const` or `enum`"),
            ));
        }
        if let (Some(obj), Some(root_obj)) = (branch.as_object_mut(), root.as_object()) {
            for k in ["definitions", "$defs", "$schema"] {
                if let (Some(v), false) = (root_obj.get(k), obj.contains_key(k)) {
                    obj.insert(k.to_owned(), v.clone());
                }
            }
        }
        for name in names {
            out.push((name, branch.clone()));
        }
    }
    Ok(out)
}

/// Follows a local `$ref` (`#/definitions/X`, `#/$defs/X`) one step.
fn resolve_local<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) if r.starts_with('#') => root.pointer(&r[1..]).unwrap_or(schema),
        _ => schema,
    }
}

/// The names a schema's `key` property allows (`const` or string `enum`),
/// removing that property and its `required` entry; looks into `allOf`
/// members (inlining a local `$ref` member that holds the key).
fn take_discriminator(root: &Value, schema: &mut Value, key: &str) -> Vec<String> {
    let names = remove_key(schema, key, |_| true);
    if !names.is_empty() {
        return names;
    }
    let Some(members) = schema.get_mut("allOf").and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    for member in members.iter_mut() {
        let resolved = resolve_local(root, member);
        if resolved
            .get("properties")
            .and_then(|p| p.get(key))
            .is_some()
        {
            *member = resolved.clone();
            let names = remove_key(member, key, |_| true);
            if !names.is_empty() {
                return names;
            }
        }
    }
    Vec::new()
}

/// Removes property `key` from `schema` when it fixes names that `keep`
/// accepts; returns those names.
fn remove_key(schema: &mut Value, key: &str, keep: impl Fn(&[String]) -> bool) -> Vec<String> {
    let names = schema
        .get("properties")
        .and_then(|p| p.get(key))
        .map(fixed_names)
        .unwrap_or_default();
    if names.is_empty() || !keep(&names) {
        return Vec::new();
    }
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.shift_remove(key);
    }
    if let Some(req) = schema.get_mut("required").and_then(Value::as_array_mut) {
        req.retain(|r| r.as_str() != Some(key));
    }
    names
}

/// The strings a property schema fixes with `const` or `enum`.
fn fixed_names(prop: &Value) -> Vec<String> {
    if let Some(c) = prop.get("const").and_then(Value::as_str) {
        return vec![c.to_owned()];
    }
    prop.get("enum")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Drops the properties that fix exactly the action's own name: the naming
/// key, which arguments never hold.
fn drop_own_name(schema: &mut Value, name: &str) {
    let keys: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter(|(_, p)| fixed_names(p) == [name])
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    for k in keys {
        remove_key(schema, &k, |n| n == [name]);
    }
}

// ---------------------------------------------------------------------------
// Errors in plain words.

/// A slash-separated path from a JSON Pointer.
fn path_of(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join("/")
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}/{key}")
    }
}

/// What was found, as people say it, with a short preview of scalars.
pub(crate) fn found(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let mut preview: String = s.chars().take(40).collect();
            if preview.len() < s.len() {
                preview.push('…');
            }
            format!(
                "a string ({})",
                serde_json::to_string(&preview).unwrap_or_default()
            )
        }
        Value::Number(n) => format!("{} ({n})", type_name(v)),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Array(a) if a.is_empty() => "an empty array".to_owned(),
        Value::Object(o) if o.is_empty() => "an empty object".to_owned(),
        _ => type_name(v).to_owned(),
    }
}

fn primitive(t: PrimitiveType) -> &'static str {
    match t {
        PrimitiveType::Array => "an array",
        PrimitiveType::Boolean => "a boolean",
        PrimitiveType::Integer => "an integer",
        PrimitiveType::Null => "null",
        PrimitiveType::Number => "a number",
        PrimitiveType::Object => "an object",
        PrimitiveType::String => "a string",
    }
}

fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

fn count(v: &Value) -> u64 {
    match v {
        Value::Array(a) => a.len() as u64,
        Value::Object(o) => o.len() as u64,
        Value::String(s) => s.chars().count() as u64,
        _ => 0,
    }
}

fn list(values: &Value) -> String {
    match values {
        Value::Array(a) => a
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// One jsonschema error as our errors (several for unexpected fields).
fn describe(e: &ValidationError<'_>, out: &mut Vec<ActionError>) {
    let path = path_of(e.instance_path.as_str());
    let inst: &Value = &e.instance;
    let f = found(inst);
    let message = match &e.kind {
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => primitive(*t).to_owned(),
                TypeKind::Multiple(m) => m
                    .into_iter()
                    .map(primitive)
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("expected {expected}, found {f}")
        }
        ValidationErrorKind::Required { property } => {
            let key = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            out.push(ActionError::at(join(&path, &key), "required field missing"));
            return;
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for key in unexpected {
                out.push(ActionError::at(join(&path, key), "unexpected field"));
            }
            return;
        }
        ValidationErrorKind::FalseSchema => "unexpected field".to_owned(),
        ValidationErrorKind::Enum { options } => {
            format!("expected one of {}, found {f}", list(options))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {expected_value}, found {f}")
        }
        ValidationErrorKind::MinItems { limit } => {
            format!(
                "expected at least {}, found {}",
                plural(*limit, "item"),
                count(inst)
            )
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!(
                "expected at most {}, found {}",
                plural(*limit, "item"),
                count(inst)
            )
        }
        ValidationErrorKind::MinLength { limit } => format!(
            "expected at least {}, found {f}",
            plural(*limit, "character")
        ),
        ValidationErrorKind::MaxLength { limit } => format!(
            "expected at most {}, found {} characters",
            plural(*limit, "character"),
            count(inst)
        ),
        ValidationErrorKind::MinProperties { limit } => format!(
            "expected at least {}, found {}",
            plural(*limit, "field"),
            count(inst)
        ),
        ValidationErrorKind::MaxProperties { limit } => format!(
            "expected at most {}, found {}",
            plural(*limit, "field"),
            count(inst)
        ),
        ValidationErrorKind::Minimum { limit } => {
            format!("expected a number >= {limit}, found {f}")
        }
        ValidationErrorKind::Maximum { limit } => {
            format!("expected a number <= {limit}, found {f}")
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("expected a number > {limit}, found {f}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("expected a number < {limit}, found {f}")
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("expected a multiple of {multiple_of}, found {f}")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("expected a string matching /{pattern}/, found {f}")
        }
        ValidationErrorKind::Format { format } => {
            format!("expected a string in the format \"{format}\", found {f}")
        }
        ValidationErrorKind::UniqueItems => "expected unique items, found duplicates".to_owned(),
        ValidationErrorKind::Contains => {
            "expected at least one item of the required shape, found none".to_owned()
        }
        ValidationErrorKind::AdditionalItems { limit } => format!(
            "expected at most {}, found {}",
            plural(*limit as u64, "item"),
            count(inst)
        ),
        ValidationErrorKind::OneOfNotValid | ValidationErrorKind::AnyOf => {
            format!("expected a value of one of the allowed shapes, found {f}")
        }
        ValidationErrorKind::OneOfMultipleValid => {
            format!("expected a value of exactly one of the allowed shapes, found {f} that fits several")
        }
        ValidationErrorKind::Not { .. } => format!("found {f}, which is not allowed here"),
        _ => e.to_string(),
    };
    out.push(ActionError::at(path, message));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(schema: Value, args: Value) -> Vec<String> {
        let map = json!({ "a": schema });
        let v = SchemaValidator::from_map(map.as_object().expect("object")).expect("compiles");
        v.validate("a", &args)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn messages() {
        assert_eq!(
            one(
                json!({"properties": {"n": {"minimum": 1}}}),
                json!({"n": 0})
            ),
            ["at n: expected a number >= 1, found an integer (0)"]
        );
        assert_eq!(
            one(
                json!({"properties": {"s": {"enum": ["x", "y"]}}}),
                json!({"s": "z"})
            ),
            [r#"at s: expected one of "x", "y", found a string ("z")"#]
        );
        assert_eq!(
            one(
                json!({"properties": {"s": {"const": "x"}}}),
                json!({"s": 1})
            ),
            [r#"at s: expected "x", found an integer (1)"#]
        );
        assert_eq!(
            one(
                json!({"properties": {"l": {"minItems": 1}}}),
                json!({"l": []})
            ),
            ["at l: expected at least 1 item, found 0"]
        );
        assert_eq!(
            one(
                json!({"additionalProperties": false, "properties": {"a": {}}}),
                json!({"a": 1, "b/c": 2})
            ),
            ["at b/c: unexpected field"]
        );
        assert_eq!(
            one(
                json!({"properties": {"p": {"pattern": "^[a-z]+$"}}}),
                json!({"p": "A1"})
            ),
            [r#"at p: expected a string matching /^[a-z]+$/, found a string ("A1")"#]
        );
        assert_eq!(
            one(json!({"type": "object"}), json!([1])),
            ["expected an object, found an array"]
        );
        assert_eq!(
            one(
                json!({"properties": {"t": {"type": ["string", "null"]}}}),
                json!({"t": true})
            ),
            ["at t: expected null or a string, found a boolean (true)"]
        );
    }

    #[test]
    fn union_with_refs_and_all_of() {
        let union = json!({
            "oneOf": [
                {"$ref": "#/definitions/A"},
                {"allOf": [{"$ref": "#/definitions/B"},
                           {"type": "object", "properties": {"kind": {"type": "string", "enum": ["b"]}}, "required": ["kind"]}]}
            ],
            "definitions": {
                "A": {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
                "B": {"type": "object", "properties": {"y": {"type": "string"}}, "required": ["y"]}
            }
        });
        let v = SchemaValidator::from_union(&union, "kind").expect("splits");
        assert_eq!(v.known(), ["a", "b"]);
        assert!(v.validate("a", &json!({"x": 1})).is_empty());
        assert!(v.validate("b", &json!({"y": "s"})).is_empty());
        let e: Vec<String> = v
            .validate("b", &json!({}))
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(e, ["at y: required field missing"]);
        assert!(
            SchemaValidator::from_union(&json!({"oneOf": [{"type": "object"}]}), "kind").is_err()
        );
        assert!(SchemaValidator::from_union(&json!({"type": "object"}), "kind").is_err());
    }
}
