//! The tool list of a request (`--tools FILE`): each tool's parameter
//! schema is its name's schema, as with `--schema`.
//!
//! A model served raw is given its tools in the request; the same list,
//! saved to a file, tells the parser which calls exist and what their
//! parameters are, both to validate the calls and to type the raw-text
//! values of the dialects that write them (`qwen3_coder`, `glm`, …).
//! [`tool_schemas`] reads the list in the forms the APIs use:
//!
//! - OpenAI Chat Completions: `[{"type": "function", "function": {"name": …, "parameters": {…}}}]`;
//! - OpenAI Responses: `[{"type": "function", "name": …, "parameters": {…}}]`;
//! - Anthropic Messages: `[{"name": …, "input_schema": {…}}]` (and MCP's
//!   `tools/list` result, `{"tools": [{"name": …, "inputSchema": {…}}]}`);
//! - Gemini: `[{"functionDeclarations": [{"name": …, "parameters": {…}}]}]`
//!   (or `parametersJsonSchema`);
//! - any of these inside an object with a `tools` array, such as a whole
//!   request body.
//!
//! A tool without parameters takes `{"type": "object", "properties": {}}`.
//! A provider's built-in tool that has no name (`{"type":
//! "web_search_preview"}`, Gemini's `{"googleSearch": {}}`) is skipped: a
//! model cannot write a call to it. Tools are counted from 1 in messages.
//!
//! [`Config::tools`](crate::Config::tools) takes the list; [`load`] reads a
//! file into one, for the command line:
//!
//! ```
//! let path = std::env::temp_dir().join("actionstream-doc-tools-module.json");
//! std::fs::write(&path, r#"{"model": "m", "tools": [
//!     {"type": "function", "function": {"name": "get_weather",
//!      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
//! ]}"#).unwrap();
//! let config = actionstream::Config::default().tools(actionstream::dialect::tools::load(&path).unwrap());
//! let events = actionstream::parse_str_with(config, r#"<tool_call>{"name": "get_wether", "arguments": {}}</tool_call>"#);
//! assert!(matches!(&events[1], actionstream::Event::ActionInvalid(a)
//!     if a.errors[0].message == "unknown action 'get_wether': expected one of 'get_weather'"));
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::config_error::ConfigError;
use crate::event::{ActionError, ErrorKind};
use crate::validate::{type_name, unknown_action, Validator};

/// The schema of a tool that declares no parameters.
fn no_parameters() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// Each tool's name and parameters schema, in list order, from a tool list
/// in any of the forms in the [module docs](self).
///
/// # Errors
///
/// A message for people when the list is not a tool list: "tool 2 has no
/// name", "tool `x`: parameters must be an object, found a string", "tool
/// `x` is listed twice".
///
/// ```
/// use actionstream::dialect::tools::tool_schemas;
/// use serde_json::json;
///
/// let openai = json!([{"type": "function", "function": {"name": "search",
///     "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]);
/// let anthropic = json!([{"name": "search", "input_schema": {"type": "object"}}, {"name": "now"}]);
/// assert_eq!(tool_schemas(&openai).unwrap()[0].1["properties"]["q"]["type"], "string");
/// let list = tool_schemas(&anthropic).unwrap();
/// assert_eq!(list[1], ("now".to_string(), json!({"type": "object", "properties": {}})));
/// assert_eq!(tool_schemas(&json!([{"name": "x"}, {"parameters": {}}])).unwrap_err(), "tool 2 has no name");
/// ```
pub fn tool_schemas(list: &Value) -> Result<Vec<(String, Value)>, String> {
    let items = match list {
        Value::Array(items) => items,
        Value::Object(obj) => match obj.get("tools") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(format!(
                    "`tools` must be an array, found {}",
                    type_name(other)
                ))
            }
            None => {
                return Err(
                    "expected an array of tools, or an object with a `tools` array (a request body), found an object without `tools`"
                        .into(),
                )
            }
        },
        other => {
            return Err(format!(
                "expected an array of tools, found {}",
                type_name(other)
            ))
        }
    };
    let mut out: Vec<(String, Value)> = Vec::new();
    for (i, tool) in items.iter().enumerate() {
        let label = format!("tool {}", i + 1);
        let Value::Object(obj) = tool else {
            return Err(format!(
                "{label} must be an object, found {}",
                type_name(tool)
            ));
        };
        let declarations = obj
            .get("functionDeclarations")
            .or_else(|| obj.get("function_declarations"));
        if let Some(declarations) = declarations {
            let Value::Array(declarations) = declarations else {
                return Err(format!(
                    "{label}: functionDeclarations must be an array, found {}",
                    type_name(declarations)
                ));
            };
            for (j, d) in declarations.iter().enumerate() {
                let label = format!("{label}, declaration {}", j + 1);
                let Value::Object(d) = d else {
                    return Err(format!("{label} must be an object, found {}", type_name(d)));
                };
                if let Some(entry) = entry(d, &["parameters", "parametersJsonSchema"], &label)? {
                    push(&mut out, entry)?;
                }
            }
            continue;
        }
        let entry = match obj.get("function") {
            Some(Value::Object(f)) => entry(f, &["parameters"], &label)?,
            Some(other) => {
                return Err(format!(
                    "{label}: function must be an object, found {}",
                    type_name(other)
                ))
            }
            None if is_builtin(obj) => None,
            None => entry(obj, &["parameters", "input_schema", "inputSchema"], &label)?,
        };
        if let Some(entry) = entry {
            push(&mut out, entry)?;
        }
    }
    Ok(out)
}

/// Whether a tool without a name is a provider's built-in one: a `type`
/// other than `function`, or (Gemini) none of a function's keys.
fn is_builtin(obj: &Map<String, Value>) -> bool {
    if obj.contains_key("name") {
        return false;
    }
    match obj.get("type").and_then(Value::as_str) {
        Some(t) => t != "function",
        None => {
            let function_keys = ["parameters", "input_schema", "inputSchema", "description"];
            !obj.is_empty() && !function_keys.iter().any(|k| obj.contains_key(*k))
        }
    }
}

/// A function definition's name and schema (from the first of
/// `schema_keys` it has).
fn entry(
    def: &Map<String, Value>,
    schema_keys: &[&str],
    label: &str,
) -> Result<Option<(String, Value)>, String> {
    let name = match def.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
        Some(Value::String(_)) => return Err(format!("{label} has an empty name")),
        Some(other) => {
            return Err(format!(
                "{label}: the name must be a string, found {}",
                type_name(other)
            ))
        }
        None => return Err(format!("{label} has no name")),
    };
    let found = schema_keys
        .iter()
        .find_map(|k| def.get(*k).map(|v| (*k, v)));
    let schema = match found {
        None | Some((_, Value::Null)) => no_parameters(),
        Some((_, v @ Value::Object(_))) => v.clone(),
        Some((key, other)) => {
            return Err(format!(
                "tool `{name}`: {key} must be an object, found {}",
                type_name(other)
            ))
        }
    };
    Ok(Some((name, schema)))
}

fn push(out: &mut Vec<(String, Value)>, (name, schema): (String, Value)) -> Result<(), String> {
    if out.iter().any(|(n, _)| *n == name) {
        return Err(format!("tool `{name}` is listed twice"));
    }
    out.push((name, schema));
    Ok(())
}

/// Reads a tool list file (`--tools FILE`): JSON in any of the forms of
/// [`tool_schemas`]. With the `schema` feature each schema must compile,
/// as `--schema`'s must.
///
/// # Errors
///
/// [`ConfigError::Io`] when the file cannot be read,
/// [`ConfigError::Tools`] when it is not a tool list, [`ConfigError::Schema`]
/// when a schema does not compile.
///
/// ```
/// let path = std::env::temp_dir().join("actionstream-doc-tools-load.json");
/// std::fs::write(&path, r#"[{"name": "now"}, {"name": "add", "input_schema": "oops"}]"#).unwrap();
/// let err = actionstream::dialect::tools::load(&path).unwrap_err();
/// assert!(err.to_string().ends_with("is not a valid tool list: tool `add`: input_schema must be an object, found a string"));
/// ```
pub fn load(path: &Path) -> Result<Vec<(String, Value)>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_owned(),
        source,
    })?;
    let invalid = |message: String| ConfigError::Tools {
        path: path.to_owned(),
        message,
    };
    let list: Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    let tools = tool_schemas(&list).map_err(invalid)?;
    crate::settings_check::check_tool_schemas(&tools)?;
    Ok(tools)
}

/// The tool schemas by name, as [`Config`](crate::Config) keeps them.
pub(crate) type ToolSchemas = Arc<BTreeMap<String, Value>>;

/// Validates the calls of the listed tools against their schemas (with the
/// `schema` feature; without it, their names and required parameters);
/// other names go to the validator set before, if any, else are unknown.
pub(crate) struct ToolsValidator {
    /// The tools, in list order.
    tools: Vec<(String, Checker)>,
    /// The validator the tools were added over.
    before: Option<Arc<dyn Validator>>,
}

/// How one tool's arguments are checked.
enum Checker {
    #[cfg(feature = "schema")]
    Schema(crate::schema::SchemaValidator),
    /// The schema does not compile: every call of the tool is invalid.
    #[cfg(feature = "schema")]
    Broken(String),
    #[cfg(not(feature = "schema"))]
    Required(crate::validate::TypeList),
}

impl ToolsValidator {
    pub(crate) fn new(tools: &[(String, Value)], before: Option<Arc<dyn Validator>>) -> Self {
        let tools = tools
            .iter()
            .map(|(name, schema)| (name.clone(), Checker::new(name, schema)))
            .collect();
        ToolsValidator { tools, before }
    }

    fn checker(&self, name: &str) -> Option<&Checker> {
        self.tools.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

impl Checker {
    #[cfg(feature = "schema")]
    fn new(name: &str, schema: &Value) -> Self {
        match crate::schema::SchemaValidator::new().with(name, schema.clone()) {
            Ok(v) => Checker::Schema(v),
            Err(e) => Checker::Broken(e.to_string()),
        }
    }

    #[cfg(not(feature = "schema"))]
    fn new(name: &str, schema: &Value) -> Self {
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        Checker::Required(crate::validate::TypeList::new().allow(name, required))
    }

    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        match self {
            #[cfg(feature = "schema")]
            Checker::Schema(v) => v.validate(name, arguments),
            #[cfg(feature = "schema")]
            Checker::Broken(message) => vec![ActionError::whole(message.clone())],
            #[cfg(not(feature = "schema"))]
            Checker::Required(v) => v.validate(name, arguments),
        }
    }
}

impl Validator for ToolsValidator {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        if let Some(c) = self.checker(name) {
            return c.validate(name, arguments);
        }
        let Some(before) = &self.before else {
            return vec![unknown_action(name, &self.known())];
        };
        let errors = before.validate(name, arguments);
        // The earlier validator's "expected one of" leaves the tools out.
        match errors.as_slice() {
            [e] if e.kind == ErrorKind::UnknownAction => vec![unknown_action(name, &self.known())],
            _ => errors,
        }
    }

    fn known(&self) -> Vec<String> {
        let mut all: Vec<String> = self.tools.iter().map(|(n, _)| n.clone()).collect();
        for n in self.before.iter().flat_map(|b| b.known()) {
            if !all.contains(&n) {
                all.push(n);
            }
        }
        all
    }

    fn schema(&self, name: &str) -> Option<Value> {
        match self.checker(name) {
            #[cfg(feature = "schema")]
            Some(Checker::Schema(v)) => v.schema(name).cloned(),
            #[cfg(feature = "schema")]
            Some(Checker::Broken(_)) => None,
            #[cfg(not(feature = "schema"))]
            Some(Checker::Required(v)) => v.schema(name),
            None => self.before.as_ref().and_then(|b| b.schema(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(list: &[(String, Value)]) -> Vec<&str> {
        list.iter().map(|(n, _)| n.as_str()).collect()
    }

    #[test]
    fn forms_of_the_list() {
        let q = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let empty = no_parameters();
        type Case = (&'static str, Value, Vec<(&'static str, Value)>);
        let cases: Vec<Case> = vec![
            (
                "chat completions",
                json!([{"type": "function", "function": {"name": "search", "description": "d", "parameters": q}}]),
                vec![("search", q.clone())],
            ),
            (
                "chat completions without type",
                json!([{"function": {"name": "now"}}]),
                vec![("now", empty.clone())],
            ),
            (
                "responses",
                json!([{"type": "function", "name": "search", "parameters": q, "strict": true}]),
                vec![("search", q.clone())],
            ),
            (
                "anthropic",
                json!([{"name": "search", "description": "d", "input_schema": q}, {"type": "bash_20250124", "name": "bash"}]),
                vec![("search", q.clone()), ("bash", empty.clone())],
            ),
            (
                "mcp tools/list result",
                json!({"tools": [{"name": "search", "inputSchema": q}]}),
                vec![("search", q.clone())],
            ),
            (
                "gemini",
                json!([{"functionDeclarations": [{"name": "a", "parameters": q}, {"name": "b", "parametersJsonSchema": q}]}, {"googleSearch": {}}]),
                vec![("a", q.clone()), ("b", q.clone())],
            ),
            (
                "request body with built-in tools",
                json!({"model": "m", "input": "hi", "tools": [
                    {"type": "web_search_preview"},
                    {"type": "function", "name": "search", "parameters": q},
                    {"type": "file_search", "vector_store_ids": ["v"]}
                ]}),
                vec![("search", q.clone())],
            ),
            (
                "null parameters",
                json!([{"name": "now", "parameters": null}]),
                vec![("now", empty.clone())],
            ),
            ("empty list", json!([]), vec![]),
        ];
        for (what, list, want) in cases {
            let got = tool_schemas(&list).unwrap_or_else(|e| panic!("{what}: {e}"));
            let want: Vec<(String, Value)> =
                want.into_iter().map(|(n, s)| (n.to_owned(), s)).collect();
            assert_eq!(got, want, "{what}");
        }
    }

    #[test]
    fn messages_for_lists_that_are_not_tool_lists() {
        let cases: Vec<(Value, &str)> = vec![
            (json!("tools"), "expected an array of tools, found a string"),
            (
                json!({"search": {"type": "object"}}),
                "expected an array of tools, or an object with a `tools` array (a request body), found an object without `tools`",
            ),
            (json!({"tools": {}}), "`tools` must be an array, found an object"),
            (json!([1]), "tool 1 must be an object, found an integer"),
            (json!([{"name": "a"}, {"parameters": {}}]), "tool 2 has no name"),
            (json!([{}]), "tool 1 has no name"),
            (json!([{"type": "function", "function": {"parameters": {}}}]), "tool 1 has no name"),
            (json!([{"type": "function"}]), "tool 1 has no name"),
            (json!([{"name": 5}]), "tool 1: the name must be a string, found an integer"),
            (json!([{"name": " "}]), "tool 1 has an empty name"),
            (json!([{"function": "f"}]), "tool 1: function must be an object, found a string"),
            (
                json!([{"type": "function", "function": {"name": "x", "parameters": "{}"}}]),
                "tool `x`: parameters must be an object, found a string",
            ),
            (
                json!([{"name": "x", "input_schema": true}]),
                "tool `x`: input_schema must be an object, found a boolean",
            ),
            (json!([{"name": "x"}, {"name": "x"}]), "tool `x` is listed twice"),
            (
                json!([{"functionDeclarations": {}}]),
                "tool 1: functionDeclarations must be an array, found an object",
            ),
            (
                json!([{"functionDeclarations": [{"name": "a"}, {"description": "d"}]}]),
                "tool 1, declaration 2 has no name",
            ),
        ];
        for (list, want) in cases {
            assert_eq!(tool_schemas(&list).unwrap_err(), want, "{list}");
        }
    }

    #[test]
    fn order_is_kept() {
        let list = json!([{"name": "b"}, {"name": "a"}, {"name": "c"}]);
        assert_eq!(names(&tool_schemas(&list).unwrap()), ["b", "a", "c"]);
    }

    fn validator(before: Option<Arc<dyn Validator>>) -> ToolsValidator {
        let list = json!([
            {"name": "search", "input_schema": {"type": "object", "required": ["q"],
                "properties": {"q": {"type": "string"}}}},
            {"name": "now"}
        ]);
        ToolsValidator::new(&tool_schemas(&list).unwrap(), before)
    }

    #[test]
    fn validation_by_tool() {
        let v = validator(None);
        assert!(v.validate("search", &json!({"q": "rust"})).is_empty());
        assert!(v.validate("now", &json!({})).is_empty());
        let missing = v.validate("search", &json!({}));
        assert_eq!(missing[0].to_string(), "at q: required field missing");
        let unknown = v.validate("fly", &json!({}));
        assert_eq!(
            unknown[0].message,
            "unknown action 'fly': expected one of 'search' | 'now'"
        );
        assert_eq!(unknown[0].kind, ErrorKind::UnknownAction);
        assert_eq!(v.known(), ["search", "now"]);
        assert_eq!(v.schema("search").unwrap()["required"], json!(["q"]));
        assert!(v.schema("fly").is_none());
    }

    #[cfg(feature = "schema")]
    #[test]
    fn schema_types_are_checked() {
        let v = validator(None);
        let errors = v.validate("search", &json!({"q": 5}));
        assert_eq!(
            errors[0].to_string(),
            "at q: expected a string, found an integer (5)"
        );
    }

    #[cfg(feature = "schema")]
    #[test]
    fn a_schema_that_does_not_compile_makes_its_calls_invalid() {
        let v = ToolsValidator::new(&[("x".into(), json!({"type": 5}))], None);
        let errors = v.validate("x", &json!({}));
        assert!(
            errors[0].message.starts_with("schema for 'x' is invalid"),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn other_names_go_to_the_validator_before() {
        let before = crate::TypeList::new().allow("note", ["content"]);
        let v = validator(Some(Arc::new(before)));
        assert!(v.validate("note", &json!({"content": "c"})).is_empty());
        assert_eq!(
            v.validate("note", &json!({}))[0].to_string(),
            "at content: required field missing"
        );
        assert_eq!(
            v.validate("fly", &json!({}))[0].message,
            "unknown action 'fly': expected one of 'search' | 'now' | 'note'"
        );
        assert_eq!(v.known(), ["search", "now", "note"]);
        assert!(v.schema("note").is_some());
    }

    #[test]
    fn config_keeps_the_schemas_by_name() {
        let first =
            tool_schemas(&json!([{"name": "a", "parameters": {"type": "object", "title": "1"}}]))
                .unwrap();
        let again = tool_schemas(&json!([
            {"name": "a", "parameters": {"type": "object", "title": "2"}},
            {"name": "b"}
        ]))
        .unwrap();
        let config = crate::Config::default()
            .validator(crate::TypeList::new().allow("note", ["content"]))
            .tools(first)
            .tools(again);
        assert_eq!(config.tool_schema("a").unwrap()["title"], "2");
        assert_eq!(config.tool_schema("b"), Some(&no_parameters()));
        assert!(config.tool_schema("note").is_none());
        // A name that is no tool takes the validator's schema for typing.
        let note = config.call_schema("note").unwrap();
        assert_eq!(note["required"], json!(["content"]));
        assert_eq!(config.call_schema("a").unwrap()["title"], "2");
        assert!(config.call_schema("fly").is_none());
        let v = config.validator.as_ref().unwrap();
        assert_eq!(v.known(), ["a", "b", "note"]);
    }

    #[test]
    fn load_reports_files_that_are_not_tool_lists() {
        let dir = std::env::temp_dir();
        let cases: &[(&str, &str, &str)] = &[
            ("ok", r#"[{"name": "now"}]"#, ""),
            (
                "not-json",
                "[{",
                "is not a valid tool list: EOF while parsing",
            ),
            (
                "no-name",
                r#"[{"parameters": {}}]"#,
                "is not a valid tool list: tool 1 has no name",
            ),
        ];
        for (what, text, want) in cases {
            let path = dir.join(format!(
                "actionstream-tools-test-{}-{what}.json",
                std::process::id()
            ));
            std::fs::write(&path, text).unwrap();
            let got = load(&path);
            std::fs::remove_file(&path).ok();
            match got {
                Ok(list) => assert!(want.is_empty() && names(&list) == ["now"], "{what}"),
                Err(e) => assert!(
                    !want.is_empty() && e.to_string().contains(want),
                    "{what}: {e}"
                ),
            }
        }
        let missing = load(&dir.join("actionstream-no-such-tools-file.json")).unwrap_err();
        assert!(matches!(missing, ConfigError::Io { .. }));
    }

    #[cfg(feature = "schema")]
    #[test]
    fn load_compiles_each_schema() {
        let path = std::env::temp_dir().join(format!(
            "actionstream-tools-test-{}-bad-schema.json",
            std::process::id()
        ));
        std::fs::write(&path, r#"[{"name": "x", "parameters": {"type": 5}}]"#).unwrap();
        let got = load(&path);
        std::fs::remove_file(&path).ok();
        assert!(matches!(got, Err(ConfigError::Schema { ref name, .. }) if name == "x"));
    }
}
