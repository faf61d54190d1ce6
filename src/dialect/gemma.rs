//! Gemma's call values (Gemma 4, FunctionGemma): `k:<|"|>text<|"|>,n:42,
//! b:true,o:{…},a:[…]`, keys bare, strings between a marker token, every
//! other value bare; read into JSON.
//!
//! Hand-written: the syntax is Gemma's own (neither JSON nor any format a
//! crate reads). The engine has already found where the call's object
//! ends and checked its nesting against the depth limit, so the recursion
//! here is bounded by that limit.

use serde_json::{Map, Value};

use super::value::{convert, property_type, ValueType};
use crate::event::{ActionError, ErrorKind};

/// The arguments written in `body`, the text inside the call's outer
/// braces; strings are between `quote` markers. A string whose whole text
/// reads as JSON is that JSON where the schema does not say `string`.
pub(crate) fn arguments(
    body: &str,
    quote: &str,
    schema: Option<&Value>,
    strict: bool,
) -> Result<Value, ActionError> {
    let mut r = Reader {
        text: body,
        at: 0,
        quote,
        strict,
    };
    let out = r.object_body(schema, "", None)?;
    r.space();
    if r.at < r.text.len() {
        return Err(r.error("", "text after the arguments"));
    }
    Ok(Value::Object(out))
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
    quote: &'a str,
    strict: bool,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn space(&mut self) {
        let r = self.rest();
        self.at += r.len() - r.trim_start().len();
    }

    fn error(&self, path: &str, what: &str) -> ActionError {
        let came: String = self.rest().chars().take(30).collect();
        let came = if came.is_empty() {
            "the end of the arguments".to_owned()
        } else {
            format!("`{came}`")
        };
        ActionError::new(ErrorKind::Syntax, path, format!("{what}: found {came}"))
    }

    /// `k:v,…` up to `close` (the end of the text when `None`).
    fn object_body(
        &mut self,
        schema: Option<&Value>,
        path: &str,
        close: Option<char>,
    ) -> Result<Map<String, Value>, ActionError> {
        let mut out = Map::new();
        loop {
            self.space();
            match (self.rest().chars().next(), close) {
                (None, None) => return Ok(out),
                (Some(c), Some(want)) if c == want => {
                    self.at += 1;
                    return Ok(out);
                }
                (None, Some(_)) => return Err(self.error(path, "an object was not closed")),
                _ => {}
            }
            let key = self.key(path)?;
            let here = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            let sub = schema
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(&key));
            let ty = property_type(schema, &key);
            let v = self.value(ty, sub, &here, close)?;
            out.insert(key, v);
            self.space();
            if self.rest().starts_with(',') {
                self.at += 1;
            }
        }
    }

    fn key(&mut self, path: &str) -> Result<String, ActionError> {
        if let Some(r) = self.rest().strip_prefix(self.quote) {
            let end = r
                .find(self.quote)
                .ok_or_else(|| self.error(path, "a key's string was not closed"))?;
            let key = r[..end].to_owned();
            self.at += self.quote.len() * 2 + end;
            self.space();
            if !self.rest().starts_with(':') {
                return Err(self.error(path, "expected `:` after a key"));
            }
            self.at += 1;
            return Ok(key);
        }
        let r = self.rest();
        match r.find(':') {
            Some(end) if !r[..end].contains([',', '{', '}', '[', ']']) => {
                let key = r[..end].trim().to_owned();
                self.at += end + 1;
                Ok(key)
            }
            _ => Err(self.error(path, "expected a key and `:`")),
        }
    }

    fn value(
        &mut self,
        ty: ValueType,
        schema: Option<&Value>,
        path: &str,
        close: Option<char>,
    ) -> Result<Value, ActionError> {
        self.space();
        if let Some(r) = self.rest().strip_prefix(self.quote) {
            let end = r
                .find(self.quote)
                .ok_or_else(|| self.error(path, "a string was not closed"))?;
            let s = &r[..end];
            self.at += self.quote.len() * 2 + end;
            return Ok(match ty {
                ValueType::String => Value::String(s.to_owned()),
                ty => convert(s, ty, self.strict),
            });
        }
        match self.rest().chars().next() {
            Some('{') => {
                self.at += 1;
                Ok(Value::Object(self.object_body(schema, path, Some('}'))?))
            }
            Some('[') => {
                self.at += 1;
                let items = schema.and_then(|s| s.get("items"));
                let ty = items.map_or(ValueType::Untyped, |i| super::value::schema_type(i, 0));
                let mut out = Vec::new();
                loop {
                    self.space();
                    match self.rest().chars().next() {
                        Some(']') => {
                            self.at += 1;
                            return Ok(Value::Array(out));
                        }
                        None => return Err(self.error(path, "an array was not closed")),
                        _ => {}
                    }
                    let here = format!("{path}[{}]", out.len());
                    out.push(self.value(ty, items, &here, Some(']'))?);
                    self.space();
                    if self.rest().starts_with(',') {
                        self.at += 1;
                    } else if !self.rest().starts_with(']') {
                        return Err(self.error(&here, "expected `,` or `]`"));
                    }
                }
            }
            _ => {
                // A bare value runs to the next `,` or closing bracket.
                let r = self.rest();
                let end = r.find([',', '}', ']']).unwrap_or(r.len());
                let raw = r[..end].trim();
                if close.is_none() && r[end..].starts_with(['}', ']']) {
                    self.at += end;
                    return Err(self.error(path, "a bracket that closes nothing"));
                }
                self.at += end;
                Ok(match serde_json::from_str::<Value>(raw) {
                    Ok(v) if !v.is_object() && !v.is_array() => match ty {
                        ValueType::String => Value::String(raw.to_owned()),
                        _ => v,
                    },
                    _ => convert(raw, ty, self.strict),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: &str) -> Result<Value, ActionError> {
        arguments(body, "<|\"|>", None, false)
    }

    #[test]
    fn gemma_values_as_json() {
        assert_eq!(
            read(r#"name:<|"|>test, ok<|"|>,count:42,active:true,score:2.5,n:{inner:<|"|>v<|"|>},l:[<|"|>a<|"|>,1,false],e:"#)
                .unwrap(),
            json!({"name": "test, ok", "count": 42, "active": true, "score": 2.5, "n": {"inner": "v"}, "l": ["a", 1, false], "e": ""})
        );
        assert_eq!(read("").unwrap(), json!({}));
        assert_eq!(
            arguments("x:<escape>42<escape>", "<escape>", None, false).unwrap(),
            json!({"x": 42})
        );
    }

    #[test]
    fn malformed_values_name_their_argument() {
        let e = read(r#"a:1,b:{c:<|"|>x}"#).unwrap_err();
        assert_eq!(e.path, "b.c");
        let e = read("a:{b:1]").unwrap_err();
        assert_eq!(e.path, "a");
        assert!(read("just text").is_err());
    }
}
