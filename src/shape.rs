//! From a closed block's values to named actions: arguments, wrappers,
//! strings that hold JSON, XML child elements.
//!
//! The scanner decides which values are actions and what they are called
//! (see `scan::json`); this module takes each such value, once its block has
//! closed, and cuts out its arguments by the key that named it.

use serde_json::{Map, Value};

use crate::event::{ActionError, ErrorKind};
use crate::scan::naming::NameKey;

/// The arguments of an action object named by `key`.
///
/// Returns the arguments and, when a string holding JSON was decoded, the
/// field it stood under (repair `arguments given as a string`).
///
/// A block's scanner may build its action objects without the key that
/// named them, when that was the first discriminator, certain at once
/// (`JsonScanner::set_leave_name_key`): taking it out here is then only a
/// look-up. The scanner must leave out no key this does not take out.
pub(crate) fn arguments(
    mut obj: Map<String, Value>,
    key: NameKey,
    discriminators: &[String],
    strict: bool,
) -> Result<(Value, Option<&'static str>), ActionError> {
    let under: &[&str] = match key {
        NameKey::Discriminator(r) => {
            if let Some(d) = discriminators.get(r) {
                obj.shift_remove(d);
            }
            return Ok((Value::Object(obj), None));
        }
        NameKey::Type => {
            obj.shift_remove("type");
            return Ok((Value::Object(obj), None));
        }
        NameKey::NameAlone => {
            obj.shift_remove("name");
            return Ok((Value::Object(obj), None));
        }
        NameKey::Name => &["arguments", "parameters", "input"],
        NameKey::ToolName | NameKey::Function => &["input", "arguments"],
    };
    let Some((field, args)) = under
        .iter()
        .find_map(|k| obj.shift_remove(*k).map(|v| (*k, v)))
    else {
        return Ok((Value::Object(Map::new()), None));
    };
    match args {
        Value::Object(_) => Ok((args, None)),
        Value::Null => Ok((Value::Object(Map::new()), None)),
        Value::String(s) => {
            let trimmed = s.trim_start();
            if !trimmed.starts_with('{') {
                return Err(ActionError::new(
                    ErrorKind::Shape,
                    field,
                    format!(
                        "arguments must be a JSON object, found a string that holds no object: {}",
                        excerpt(&Value::String(s.clone()))
                    ),
                ));
            }
            if strict {
                return Err(ActionError::new(
                    ErrorKind::Shape,
                    field,
                    "expected an object of arguments, found a string that holds JSON (strict mode decodes nothing)",
                ));
            }
            match serde_json::from_str::<Value>(&s) {
                Ok(v @ Value::Object(_)) => Ok((v, Some(field))),
                Ok(_) | Err(_) => Err(ActionError::new(
                    ErrorKind::Shape,
                    field,
                    format!(
                        "arguments must be a JSON object, found a string that holds no object: {}",
                        excerpt(&Value::String(s.clone()))
                    ),
                )),
            }
        }
        other => Err(ActionError::new(
            ErrorKind::Shape,
            field,
            not_an_object(&other),
        )),
    }
}

/// "arguments must be a JSON object, found …", for people: what kind of
/// value came, and the start of it.
fn not_an_object(found: &Value) -> String {
    format!(
        "arguments must be a JSON object, found {}: {}",
        crate::validate::type_name(found),
        excerpt(found)
    )
}

/// A value as JSON, cut to about 40 characters.
fn excerpt(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The action values of a whole object read as an action fence reads one:
/// an `{"actions": [...]}` wrapper (told by its first key, as the scanner
/// tells it) gives its items, keys after the array ignored; any other object
/// is one action.
pub(crate) fn unwrap_wrapper(obj: Value, discriminators: &[String]) -> Vec<Value> {
    let Value::Object(obj) = obj else {
        return vec![obj];
    };
    let wrapper = matches!(obj.iter().next(), Some((k, Value::Array(_))) if k == "actions")
        && !discriminators.iter().any(|d| d == "actions");
    if !wrapper {
        return vec![Value::Object(obj)];
    }
    match obj.into_iter().next() {
        Some((_, Value::Array(items))) => items,
        _ => Vec::new(),
    }
}

/// Reads XML child elements (`<query>text</query><limit>5</limit>`) into an
/// object: each value trimmed, read as JSON where it parses, else kept as a
/// string; a repeated element gives a list.
pub(crate) fn xml_children(content: &str) -> Result<Value, ActionError> {
    let mut map = Map::new();
    let mut repeated: Vec<String> = Vec::new();
    let mut rest = content;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(Value::Object(map));
        }
        let Some(after_lt) = rest.strip_prefix('<') else {
            let found: String = rest.chars().take(20).collect();
            return Err(ActionError::new(
                ErrorKind::Syntax,
                "",
                format!("expected child elements such as <query>…</query>, found text `{found}`"),
            ));
        };
        let Some(gt) = after_lt.find('>') else {
            return Err(ActionError::new(
                ErrorKind::Syntax,
                "",
                "an XML element whose `>` is missing",
            ));
        };
        let head = &after_lt[..gt];
        let self_closing = head.ends_with('/');
        let name = head
            .trim_end_matches('/')
            .split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("");
        if name.is_empty() || name.starts_with('/') {
            return Err(ActionError::new(
                ErrorKind::Syntax,
                "",
                format!("expected an XML element, found `<{head}>`"),
            ));
        }
        let body_start = &after_lt[gt + 1..];
        let (value, next) = if self_closing {
            (Value::String(String::new()), body_start)
        } else {
            let close = format!("</{name}>");
            let Some(end) = body_start.find(&close) else {
                return Err(ActionError::new(
                    ErrorKind::Syntax,
                    name,
                    format!("expected the closing tag {close}, found the end of the content"),
                ));
            };
            let text = body_start[..end].trim();
            let value = serde_json::from_str::<Value>(text)
                .unwrap_or_else(|_| Value::String(text.to_owned()));
            (value, &body_start[end + close.len()..])
        };
        let is_repeat = repeated.iter().any(|r| r == name);
        match map.get_mut(name) {
            Some(Value::Array(list)) if is_repeat => list.push(value),
            Some(existing) => {
                let first = existing.take();
                *existing = Value::Array(vec![first, value]);
                repeated.push(name.to_owned());
            }
            None => {
                map.insert(name.to_owned(), value);
            }
        }
        rest = next;
    }
}

#[cfg(test)]
mod tests {
    use super::xml_children;

    #[test]
    fn xml_children_read_values_and_repeats() {
        let v = xml_children("<query> rust </query>\n<limit>5</limit><tag>a</tag><tag>b</tag>")
            .unwrap();
        assert_eq!(
            v,
            serde_json::json!({"query": "rust", "limit": 5, "tag": ["a", "b"]})
        );
    }
}
