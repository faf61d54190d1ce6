//! Raw-text parameter values, typed by the tool's schema.
//!
//! The dialects `qwen3_coder`, `seed_oss`, `glm` and `minimax_m2` (and DSML's
//! `string="false"`) write each parameter value as raw text between markers.
//! The contract's section 7 says how such a value becomes JSON:
//!
//! - with a schema for the call, by its property's type ([`property_type`]):
//!   `string` as it is; `integer` / `number` a JSON number where it reads as
//!   one; `boolean` `true` / `false` in any case; `object` / `array` / no
//!   type: JSON with the repairs of section 3. A value that does not convert
//!   stays a string (the raw text, untrimmed), and the schema check reports
//!   it;
//! - without one (or for a property the schema does not name), JSON where
//!   the whole value reads as JSON, else the string.
//!
//! # Choices, and where they follow vLLM
//!
//! vLLM's `Qwen3CoderToolParser._convert_param_value` converts the same
//! values in Python. This module follows it where the contract is silent and
//! differs where the contract speaks:
//!
//! - **Integers** (vLLM: Python `int(value)`). Here: the trimmed value read
//!   as a JSON number, with one leading `+` allowed (Python's `int` allows it
//!   too, and `+3` can only mean 3); no `_` digit separators, no leading
//!   zeros (`007` stays a string: it is more likely a code than a count).
//!   A number written with a fraction or an exponent that is a whole number
//!   (`3.0`, `1e3`) becomes that integer, as JSON Schema counts it one
//!   (vLLM's `int("1e3")` fails); one that is not (`2.5`) stays the number it
//!   reads as, so the schema check says "expected an integer, found a
//!   number" rather than "found a string". Digits beyond the 64-bit range
//!   stay a string: a float would silently change them.
//! - **Numbers** (vLLM: `float(value)`, then an `int` when whole). Here: the
//!   trimmed value read as a JSON number (leading `+` allowed), kept as
//!   written (`3.0` stays `3.0`); `inf`, `nan` and `1_000` stay strings, as
//!   JSON has no such numbers.
//! - **Booleans**: `true` / `false` in any case, trimmed, as vLLM. Anything
//!   else stays a string (vLLM turns it into `false`, which hides the
//!   model's mistake from the schema check).
//! - **Null**: for `integer`, `number` and `boolean` properties the value
//!   `null` (any case) is JSON `null`, and Python's `None` too (repair
//!   `python literal`; not in strict mode), as vLLM does for every
//!   non-string type: Qwen3.5's template renders a null argument as `None`,
//!   and a nullable property must get `null` back. A `string` property keeps
//!   `null` / `None` as text (vLLM turns them into `null` when the schema
//!   also allows null; the contract says a string is taken as it is).
//! - **Containers and untyped properties** (vLLM: `json.loads`, then
//!   `ast.literal_eval`, then a second decoding of a string that held a
//!   Python repr). Here: the crate's JSON scanner with the section-3 repairs
//!   (which read Python dicts and lists: single quotes, `True`, `False`,
//!   `None`), once; a JSON string is not decoded a second time (the contract
//!   guesses nothing beyond its repairs). A property with no type is JSON
//!   here; vLLM takes it as a string.
//! - **Without a schema**, vLLM keeps every value a string; the contract asks
//!   for JSON where the whole value reads as JSON. Only a value that starts
//!   as JSON starts (`{ [ " - 0-9 t f n`) is tried, so `True`, `None` and
//!   `'x'` stay the text the model wrote; inside `{…}` / `[…]` the repairs
//!   apply unless strict.
//! - **Type names** are read case-insensitively (Gemini's schemas write
//!   `STRING`), with vLLM's common aliases (`str`, `text`, `int`, `long`,
//!   `float`, `double`, `bool`, `dict`, `list`); `enum` of strings is a
//!   string, as vLLM's `enum` type name.
//!
//! Nothing here keeps state: the engine calls these as each value's text
//! is known.

// The dialect engine calls these; until it is merged nothing in the crate
// does, and the tests below are their only users.
#![allow(dead_code)]

use std::sync::Arc;

use serde_json::{Number, Value};

use crate::event::RepairKind;
use crate::scan::json::JsonScanner;
use crate::scan::naming::Naming;
use crate::utf8::floor_boundary;

/// What a property's schema says a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueType {
    /// `string` (or an `enum` / `const` of strings): the text as it is.
    String,
    /// `integer`.
    Integer,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `object`, `array`, `null`, no type, an unknown type, a `$ref`: JSON
    /// with the repairs.
    Json,
    /// No schema for the call, or no such property: JSON where the whole
    /// value reads as JSON, else the string.
    Untyped,
}

/// How deep [`property_type`] follows `anyOf` / `oneOf` / `allOf`.
const SCHEMA_DEPTH: usize = 16;

/// The nesting limit for JSON values (the crate's default).
const MAX_DEPTH: usize = 128;

/// How many bytes of a value [`streams_as_string`] looks at; a value still
/// undecided past them is not streamed, which keeps each call's cost
/// bounded whatever the value's length.
const LOOKAHEAD: usize = 64;

/// The type of property `key` in the call's parameters schema
/// (`{"type": "object", "properties": {…}}`).
///
/// A property not under `properties` takes its type from
/// `additionalProperties` when that is a schema, else it is
/// [`ValueType::Untyped`]; so is every key when there is no schema or the
/// schema is not an object.
///
/// For the property's own schema: `type` as a string or an array of types
/// (the first that is not `null`: `["string", "null"]` is a string); else
/// `enum` or `const` (all strings: a string; all integers, numbers or
/// booleans: that type); else the first member of `anyOf` / `oneOf` that is
/// not `{"type": "null"}`, or the first member of `allOf` that has a type; a
/// `$ref` is not followed, and anything else (no type, `object`, `array`,
/// `null`, an unknown name) is [`ValueType::Json`].
pub(crate) fn property_type(schema: Option<&Value>, key: &str) -> ValueType {
    let Some(schema) = schema.and_then(Value::as_object) else {
        return ValueType::Untyped;
    };
    let property = schema
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
    match property {
        Some(p) => schema_type(p, 0),
        None => ValueType::Untyped,
    }
}

/// The value type a (property) schema describes; see [`property_type`].
pub(crate) fn schema_type(schema: &Value, depth: usize) -> ValueType {
    let Some(obj) = schema.as_object() else {
        return ValueType::Json;
    };
    if depth > SCHEMA_DEPTH || obj.contains_key("$ref") {
        return ValueType::Json;
    }
    match obj.get("type") {
        Some(Value::String(t)) => return type_name(t),
        Some(Value::Array(types)) => {
            let first = types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| !t.eq_ignore_ascii_case("null"));
            return first.map_or(ValueType::Json, type_name);
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        return values_type(values.iter().filter(|v| !v.is_null()));
    }
    if let Some(v) = obj.get("const") {
        return values_type(std::iter::once(v));
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = obj.get(union) {
            return members
                .iter()
                .find(|m| !is_null_schema(m))
                .map_or(ValueType::Json, |m| schema_type(m, depth + 1));
        }
    }
    if let Some(Value::Array(members)) = obj.get("allOf") {
        return members
            .iter()
            .map(|m| schema_type(m, depth + 1))
            .find(|t| *t != ValueType::Json)
            .unwrap_or(ValueType::Json);
    }
    ValueType::Json
}

/// Whether a union member only allows `null`.
fn is_null_schema(schema: &Value) -> bool {
    schema
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("null"))
}

/// A type name, in any case, with vLLM's common aliases.
fn type_name(name: &str) -> ValueType {
    match name.trim().to_ascii_lowercase().as_str() {
        "string" | "str" | "text" | "enum" => ValueType::String,
        "integer" | "int" | "int8" | "int16" | "int32" | "int64" | "uint" | "uint8" | "uint16"
        | "uint32" | "uint64" | "long" | "short" => ValueType::Integer,
        "number" | "float" | "double" | "float32" | "float64" | "decimal" => ValueType::Number,
        "boolean" | "bool" => ValueType::Boolean,
        _ => ValueType::Json,
    }
}

/// The type shared by the values of an `enum` or `const`.
fn values_type<'a>(mut values: impl Iterator<Item = &'a Value>) -> ValueType {
    let Some(first) = values.next() else {
        return ValueType::Json;
    };
    let kind = |v: &Value| match v {
        Value::String(_) => ValueType::String,
        Value::Bool(_) => ValueType::Boolean,
        Value::Number(n) if n.is_i64() || n.is_u64() => ValueType::Integer,
        Value::Number(_) => ValueType::Number,
        _ => ValueType::Json,
    };
    let mut ty = kind(first);
    for v in values {
        ty = match (ty, kind(v)) {
            (a, b) if a == b => a,
            (ValueType::Integer | ValueType::Number, ValueType::Integer | ValueType::Number) => {
                ValueType::Number
            }
            _ => return ValueType::Json,
        };
    }
    ty
}

/// Converts a raw value of type `ty`; `strict`: no repairs when reading
/// JSON (and `None` is not `null`).
///
/// The result is the converted value, or, where the value does not convert,
/// the raw text as a JSON string (untrimmed). See the module docs for each
/// type's rule; [`convert_noting_repairs`] also says which repairs were
/// made.
pub(crate) fn convert(raw: &str, ty: ValueType, strict: bool) -> Value {
    convert_noting_repairs(raw, ty, strict, &mut Vec::new())
}

/// Like [`convert`], noting each repair made with its byte offset in `raw`,
/// for the action's repair list. A value that stays a string notes none.
pub(crate) fn convert_noting_repairs(
    raw: &str,
    ty: ValueType,
    strict: bool,
    repairs: &mut Vec<(RepairKind, usize)>,
) -> Value {
    let converted = match ty {
        ValueType::String => None,
        ValueType::Integer => null_word(raw, strict, repairs).or_else(|| integer(raw.trim())),
        ValueType::Number => null_word(raw, strict, repairs).or_else(|| number(raw.trim())),
        ValueType::Boolean => null_word(raw, strict, repairs).or_else(|| boolean(raw.trim())),
        ValueType::Json => read_json(raw, strict, repairs),
        ValueType::Untyped => {
            let starts_as_json = raw.trim_start().bytes().next().is_some_and(json_start);
            if starts_as_json {
                read_json(raw, strict, repairs)
            } else {
                None
            }
        }
    };
    converted.unwrap_or_else(|| Value::String(raw.to_owned()))
}

/// `null` in any case, or Python's `None` (a repair, so not when strict).
fn null_word(raw: &str, strict: bool, repairs: &mut Vec<(RepairKind, usize)>) -> Option<Value> {
    let word = raw.trim();
    if word.eq_ignore_ascii_case("null") {
        return Some(Value::Null);
    }
    if word == "None" && !strict {
        repairs.push((
            RepairKind::PythonLiteral,
            raw.len() - raw.trim_start().len(),
        ));
        return Some(Value::Null);
    }
    None
}

/// A JSON number, with one leading `+` allowed.
fn json_number(text: &str) -> Option<Number> {
    let unsigned = match text.strip_prefix('+') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
        Some(_) => return None,
        None => text,
    };
    unsigned.parse().ok()
}

fn integer(text: &str) -> Option<Value> {
    let n = json_number(text)?;
    if n.is_i64() || n.is_u64() {
        return Some(Value::Number(n));
    }
    let digits_only = !text.contains(['.', 'e', 'E']);
    if digits_only {
        // Beyond 64 bits: as a float its digits would change.
        return None;
    }
    let f = n.as_f64()?;
    // Whole and exact: 2^53 is where f64 stops holding every integer.
    if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 {
        return Some(Value::from(f as i64));
    }
    Some(Value::Number(n))
}

fn number(text: &str) -> Option<Value> {
    json_number(text).map(Value::Number)
}

fn boolean(text: &str) -> Option<Value> {
    if text.eq_ignore_ascii_case("true") {
        Some(Value::Bool(true))
    } else if text.eq_ignore_ascii_case("false") {
        Some(Value::Bool(false))
    } else {
        None
    }
}

/// Whether byte `b` can begin a JSON value.
const fn json_start(b: u8) -> bool {
    matches!(
        b,
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
    )
}

/// A scanner for one value: no discriminators, so nothing is named.
fn scanner(strict: bool) -> JsonScanner {
    JsonScanner::new(Naming::Generic, strict, MAX_DEPTH, Arc::from(Vec::new()))
}

/// Reads `text` as one whole JSON value with the section-3 repairs (none
/// when `strict`), with the crate's incremental scanner; notes the repairs
/// made. `None` when `text` is not exactly one JSON value.
fn read_json(text: &str, strict: bool, repairs: &mut Vec<(RepairKind, usize)>) -> Option<Value> {
    let mut s = scanner(strict);
    s.feed(text);
    if s.error().is_some() || !s.finish_value() || s.error().is_some() || s.values() != 1 {
        return None;
    }
    // The scanner builds each top-level value as a slot, except a top-level
    // array, whose elements are the slots (comments are gone from the
    // repaired copy, so its first byte tells).
    let top_array = s.repaired().trim_start().starts_with('[');
    let noted = s.repairs().to_vec();
    let mut slots = s.take_slots();
    let value = if top_array {
        let items: Option<Vec<Value>> = slots.iter_mut().map(|slot| slot.take_value()).collect();
        Value::Array(items?)
    } else {
        slots.first_mut()?.take_value()?
    };
    repairs.extend(noted);
    Some(value)
}

/// Whether a value of type `ty`, whose text so far is `prefix`, will be the
/// raw text as a JSON string whatever follows, so that it can be streamed
/// as a string while it is written.
///
/// - `Some(true)`: it will be the raw text as a string whatever follows:
///   always for [`ValueType::String`]; for [`ValueType::Untyped`] once the
///   text cannot be (the start of) one JSON value: its first non-white-space
///   character cannot begin one (`hello`, `True`, `'x'`), or the text went
///   wrong as JSON (`tx`, `2024-01`, `[link](…)`, `1 2`).
/// - `Some(false)`: decided not to stream it: the caller waits for the
///   value's end and [converts](convert) it whole. Always for the typed
///   non-string types (their values are short, and a JSON container is not
///   a string); for [`ValueType::Untyped`] once the first 64 bytes still
///   read as the start of JSON (a long object, or a long run of white
///   space), so that each call costs at most those bytes.
/// - `None`: undecided; ask again with a longer prefix (`tr` may become
///   `true`, `12` may become `12 apples`, and white space says nothing).
///
/// Once decided, the answer stays the same for every longer prefix.
pub(crate) fn streams_as_string(ty: ValueType, prefix: &str) -> Option<bool> {
    match ty {
        ValueType::String => return Some(true),
        ValueType::Untyped => {}
        _ => return Some(false),
    }
    let head = &prefix[..floor_boundary(prefix, LOOKAHEAD)];
    let long = prefix.len() > LOOKAHEAD;
    let undecided = if long { Some(false) } else { None };
    let Some(first) = head.trim_start().bytes().next() else {
        return undecided;
    };
    if !json_start(first) {
        return Some(true);
    }
    // Strings are what is left when the JSON goes wrong: a break, or a
    // second value after the first, is certain whatever follows.
    let mut s = scanner(false);
    s.feed(head);
    if s.error().is_some() {
        return Some(true);
    }
    if s.finish_value() && s.values() > 1 {
        return Some(true);
    }
    undecided
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Value {
        json!({"type": "object", "properties": {
            "s": {"type": "string"},
            "i": {"type": "integer"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "o": {"type": "object"},
            "a": {"type": "array", "items": {"type": "string"}},
            "nul": {"type": "null"},
            "any": {"description": "no type"},
            "maybe_s": {"type": ["string", "null"]},
            "null_first": {"type": ["null", "integer"]},
            "only_null": {"type": ["null"]},
            "upper": {"type": "STRING"},
            "alias_int": {"type": "int"},
            "alias_float": {"type": "float"},
            "alias_bool": {"type": "bool"},
            "dict": {"type": "dict"},
            "enum_s": {"enum": ["a", "b"]},
            "enum_i": {"enum": [1, 2, null]},
            "enum_n": {"enum": [1, 2.5]},
            "enum_mixed": {"enum": ["a", 1]},
            "const_b": {"const": true},
            "any_of": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
            "one_of": {"oneOf": [{"type": "boolean"}, {"type": "string"}]},
            "any_of_ref": {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "string"}]},
            "all_of": {"allOf": [{"description": "d"}, {"type": "number"}]},
            "reference": {"$ref": "#/$defs/x"},
            "nullable": {"type": "integer", "nullable": true},
            "bool_schema": true
        }})
    }

    #[test]
    fn property_types() {
        let schema = tool();
        let cases: &[(&str, ValueType)] = &[
            ("s", ValueType::String),
            ("i", ValueType::Integer),
            ("n", ValueType::Number),
            ("b", ValueType::Boolean),
            ("o", ValueType::Json),
            ("a", ValueType::Json),
            ("nul", ValueType::Json),
            ("any", ValueType::Json),
            ("maybe_s", ValueType::String),
            ("null_first", ValueType::Integer),
            ("only_null", ValueType::Json),
            ("upper", ValueType::String),
            ("alias_int", ValueType::Integer),
            ("alias_float", ValueType::Number),
            ("alias_bool", ValueType::Boolean),
            ("dict", ValueType::Json),
            ("enum_s", ValueType::String),
            ("enum_i", ValueType::Integer),
            ("enum_n", ValueType::Number),
            ("enum_mixed", ValueType::Json),
            ("const_b", ValueType::Boolean),
            ("any_of", ValueType::Integer),
            ("one_of", ValueType::Boolean),
            ("any_of_ref", ValueType::Json),
            ("all_of", ValueType::Number),
            ("reference", ValueType::Json),
            ("nullable", ValueType::Integer),
            ("bool_schema", ValueType::Json),
            ("missing", ValueType::Untyped),
        ];
        for (key, want) in cases {
            assert_eq!(property_type(Some(&schema), key), *want, "property {key}");
        }
    }

    #[test]
    fn property_types_without_a_usable_schema() {
        let additional = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        let open = json!({"type": "object", "additionalProperties": true});
        let cases: &[(Option<&Value>, ValueType)] = &[
            (None, ValueType::Untyped),
            (Some(&json!("not a schema")), ValueType::Untyped),
            (Some(&json!({"type": "object"})), ValueType::Untyped),
            (Some(&additional), ValueType::Integer),
            (Some(&open), ValueType::Untyped),
        ];
        for (schema, want) in cases {
            assert_eq!(property_type(*schema, "k"), *want, "schema {schema:?}");
        }
    }

    #[test]
    fn a_deep_union_is_json() {
        let mut s = json!({"type": "integer"});
        for _ in 0..40 {
            s = json!({"anyOf": [s]});
        }
        let schema = json!({"properties": {"k": s}});
        assert_eq!(property_type(Some(&schema), "k"), ValueType::Json);
    }

    #[test]
    fn conversions() {
        use ValueType::*;
        let s = |t: &str| Value::String(t.to_owned());
        let cases: Vec<(&str, ValueType, Value)> = vec![
            // Strings are taken as they are.
            ("  hello\n", String, s("  hello\n")),
            ("42", String, s("42")),
            ("null", String, s("null")),
            ("None", String, s("None")),
            ("{\"a\": 1}", String, s("{\"a\": 1}")),
            // Integers.
            ("42", Integer, json!(42)),
            (" -3\n", Integer, json!(-3)),
            ("+3", Integer, json!(3)),
            ("1e3", Integer, json!(1000)),
            ("3.0", Integer, json!(3)),
            ("2.5", Integer, json!(2.5)),
            (
                "18446744073709551615",
                Integer,
                json!(18446744073709551615u64),
            ),
            ("18446744073709551616", Integer, s("18446744073709551616")),
            ("007", Integer, s("007")),
            ("1_000", Integer, s("1_000")),
            ("+", Integer, s("+")),
            ("+-3", Integer, s("+-3")),
            ("0x10", Integer, s("0x10")),
            ("\"42\"", Integer, s("\"42\"")),
            ("42 apples", Integer, s("42 apples")),
            ("", Integer, s("")),
            ("NULL", Integer, Value::Null),
            (" None ", Integer, Value::Null),
            // Numbers.
            ("2.5", Number, json!(2.5)),
            ("-0.5e-3", Number, json!(-0.0005)),
            ("+1.5", Number, json!(1.5)),
            ("7", Number, json!(7)),
            ("inf", Number, s("inf")),
            ("NaN", Number, s("NaN")),
            (".5", Number, s(".5")),
            ("1e400", Number, s("1e400")),
            ("null", Number, Value::Null),
            // Booleans, in any case.
            ("true", Boolean, json!(true)),
            ("True", Boolean, json!(true)),
            ("TRUE\n", Boolean, json!(true)),
            (" false", Boolean, json!(false)),
            ("False", Boolean, json!(false)),
            ("yes", Boolean, s("yes")),
            ("1", Boolean, s("1")),
            ("None", Boolean, Value::Null),
            // JSON, with repairs.
            ("{\"a\": [1, 2]}", Json, json!({"a": [1, 2]})),
            ("\n[1, 2,]\n", Json, json!([1, 2])),
            (
                "[{\"x\": 1}, \"y\", [3]]",
                Json,
                json!([{"x": 1}, "y", [3]]),
            ),
            ("[]", Json, json!([])),
            (
                "{'a': True, 'b': None}",
                Json,
                json!({"a": true, "b": null}),
            ),
            ("{\"a\": 1 // one\n}", Json, json!({"a": 1})),
            ("/* c */ [1]", Json, json!([1])),
            ("\"line\nbreak\"", Json, json!("line\nbreak")),
            ("True", Json, json!(true)),
            ("12", Json, json!(12)),
            ("null", Json, Value::Null),
            ("hello world", Json, s("hello world")),
            ("{\"a\": 1", Json, s("{\"a\": 1")),
            ("{\"a\": 1} {\"b\": 2}", Json, s("{\"a\": 1} {\"b\": 2}")),
            ("[1] x", Json, s("[1] x")),
            ("", Json, s("")),
            ("  ", Json, s("  ")),
            // Untyped: JSON where the whole value reads as JSON.
            ("42", Untyped, json!(42)),
            (" 42\n", Untyped, json!(42)),
            ("-1.5", Untyped, json!(-1.5)),
            ("true", Untyped, json!(true)),
            ("null", Untyped, Value::Null),
            ("\"quoted\"", Untyped, s("quoted")),
            ("{\"a\": 1}", Untyped, json!({"a": 1})),
            ("[1, 2,]", Untyped, json!([1, 2])),
            ("{'a': 1}", Untyped, json!({"a": 1})),
            ("True", Untyped, s("True")),
            ("None", Untyped, s("None")),
            ("'x'", Untyped, s("'x'")),
            ("// note", Untyped, s("// note")),
            ("src/main.rs", Untyped, s("src/main.rs")),
            ("2024-01-01", Untyped, s("2024-01-01")),
            ("007", Untyped, s("007")),
            ("1 2", Untyped, s("1 2")),
            ("true story", Untyped, s("true story")),
            ("[link](https://x.y)", Untyped, s("[link](https://x.y)")),
            ("", Untyped, s("")),
        ];
        for (raw, ty, want) in cases {
            assert_eq!(convert(raw, ty, false), want, "{raw:?} as {ty:?}");
        }
    }

    #[test]
    fn strict_conversions_repair_nothing() {
        use ValueType::*;
        let s = |t: &str| Value::String(t.to_owned());
        let cases: Vec<(&str, ValueType, Value)> = vec![
            ("[1, 2,]", Json, s("[1, 2,]")),
            ("{'a': 1}", Json, s("{'a': 1}")),
            ("True", Json, s("True")),
            ("{\"a\": 1 // one\n}", Json, s("{\"a\": 1 // one\n}")),
            ("\"line\nbreak\"", Untyped, s("\"line\nbreak\"")),
            ("None", Integer, s("None")),
            // Not repairs: these convert in strict mode too.
            ("True", Boolean, json!(true)),
            ("null", Integer, Value::Null),
            ("+3", Integer, json!(3)),
            ("{\"a\": [1]}", Json, json!({"a": [1]})),
        ];
        for (raw, ty, want) in cases {
            assert_eq!(convert(raw, ty, true), want, "{raw:?} as {ty:?}");
        }
    }

    #[test]
    fn repairs_are_noted_with_their_offsets() {
        type Case = (&'static str, ValueType, &'static [(RepairKind, usize)]);
        let cases: &[Case] = &[
            (
                "[1, 2,]",
                ValueType::Json,
                &[(RepairKind::TrailingComma, 5)],
            ),
            (
                " None",
                ValueType::Integer,
                &[(RepairKind::PythonLiteral, 1)],
            ),
            (
                "{'a': 1}",
                ValueType::Untyped,
                &[(RepairKind::PythonLiteral, 1)],
            ),
            ("[1, 2]", ValueType::Json, &[]),
            // A value that stays a string notes nothing.
            ("[1,] x", ValueType::Json, &[]),
        ];
        for (raw, ty, want) in cases {
            let mut repairs = Vec::new();
            convert_noting_repairs(raw, *ty, false, &mut repairs);
            let kinds: Vec<RepairKind> = repairs.iter().map(|r| r.0).collect();
            let want_kinds: Vec<RepairKind> = want.iter().map(|r| r.0).collect();
            assert_eq!(kinds, want_kinds, "{raw:?}");
            if let (Some(got), Some(w)) = (repairs.first(), want.first()) {
                assert_eq!(got.1, w.1, "offset of the repair in {raw:?}");
            }
        }
    }

    #[test]
    fn a_value_nested_too_deep_stays_a_string() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(
            convert(&deep, ValueType::Json, false),
            Value::String(deep.clone())
        );
    }

    #[test]
    fn streaming_decisions() {
        use ValueType::*;
        let long_ws = " ".repeat(100);
        let long_obj = format!("{{\"a\": \"{}\"", "x".repeat(100));
        let long_then_bad = format!("{{\"a\": \"{}\"}} x", "x".repeat(100));
        let cases: Vec<(ValueType, &str, Option<bool>)> = vec![
            (String, "", Some(true)),
            (String, "{", Some(true)),
            (Integer, "4", Some(false)),
            (Number, "", Some(false)),
            (Boolean, "tr", Some(false)),
            (Json, "hello", Some(false)),
            (Untyped, "", None),
            (Untyped, " \n", None),
            (Untyped, "h", Some(true)),
            (Untyped, "  src/", Some(true)),
            (Untyped, "True", Some(true)),
            (Untyped, "'x", Some(true)),
            (Untyped, "/", Some(true)),
            (Untyped, "t", None),
            (Untyped, "tr", None),
            (Untyped, "true", None),
            (Untyped, "true ", None),
            (Untyped, "tx", Some(true)),
            (Untyped, "true story", Some(true)),
            (Untyped, "nul", None),
            (Untyped, "nulx", Some(true)),
            (Untyped, "f", None),
            (Untyped, "fa", None),
            (Untyped, "fo", Some(true)),
            (Untyped, "12", None),
            (Untyped, "12 ", None),
            (Untyped, "12 a", Some(true)),
            (Untyped, "1 2", Some(true)),
            (Untyped, "2024-", Some(true)),
            (Untyped, "-", None),
            (Untyped, "-x", Some(true)),
            (Untyped, "007", Some(true)),
            (Untyped, "1.", None),
            (Untyped, "\"abc", None),
            (Untyped, "\"abc\" x", Some(true)),
            (Untyped, "[1, 2", None),
            (Untyped, "[link](", Some(true)),
            (Untyped, "{\"a\": 1}", None),
            (Untyped, "{a", Some(true)),
            (Untyped, &long_ws, Some(false)),
            (Untyped, &long_obj, Some(false)),
            (Untyped, &long_then_bad, Some(false)),
        ];
        for (ty, prefix, want) in cases {
            assert_eq!(streams_as_string(ty, prefix), want, "{prefix:?} as {ty:?}");
        }
    }

    #[test]
    fn a_streaming_decision_never_changes() {
        // Every prefix of these values: once decided, the answer stays, and
        // `Some(true)` means the whole value converts to its raw string.
        let values = [
            "true story",
            "12 apples",
            "{\"a\": [1, 2]}",
            "[link](x)",
            "hello",
            "null",
            "-5",
            "\"quoted\" then more",
            "é\u{301} ok",
        ];
        for value in values {
            let mut decided = None;
            for end in (0..=value.len()).filter(|&i| value.is_char_boundary(i)) {
                let got = streams_as_string(ValueType::Untyped, &value[..end]);
                if let Some(d) = decided {
                    assert_eq!(got, Some(d), "{value:?} cut at {end}");
                }
                if got.is_some() {
                    decided = got;
                }
            }
            if decided == Some(true) {
                assert_eq!(
                    convert(value, ValueType::Untyped, false),
                    Value::String(value.to_owned()),
                    "{value:?}"
                );
            }
        }
    }
}
