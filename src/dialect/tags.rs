//! Parameters named by their tags (MiniMax M3): a call's body
//! `P<city>Paris P</city> P<tags>P<item>a P</item>P</tags>` read into its
//! arguments. A value holding tags is an object (a key written twice
//! gathers its values in an array), one holding only `item` tags an array;
//! any other value is raw text, typed by the schema as raw values are.
//!
//! Hand-written: the tags are not XML (every one follows a prefix token,
//! values are not escaped), so an XML crate would refuse or mangle them.
//! Nesting is kept on an explicit stack and limited by the configured
//! depth, so no input can overflow the call stack.

use serde_json::{Map, Value};

use super::value::{convert, property_type, schema_type, ValueType};
use crate::event::{ActionError, ErrorKind};

/// A value read from the tags, before typing.
#[derive(Debug)]
enum Node {
    Text(String),
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
}

/// An open tag: its key and what it holds so far.
struct Frame {
    key: String,
    text: String,
    children: Vec<(String, Node)>,
}

/// The arguments written in `body` (the text between the call's name and
/// its end marker): every tag follows `prefix`, array members are tagged
/// `item`; `schema` (the call's parameters) types the leaves. Nesting
/// deeper than `max_depth` is an error, as is a closing tag that does not
/// match, or text beside tags.
pub(crate) fn arguments(
    body: &str,
    prefix: &str,
    item: &str,
    schema: Option<&Value>,
    max_depth: usize,
    strict: bool,
) -> Result<Value, ActionError> {
    let mut stack: Vec<Frame> = vec![Frame {
        key: String::new(),
        text: String::new(),
        children: Vec::new(),
    }];
    let mut rest = body;
    let opener = format!("{prefix}<");
    while !rest.is_empty() {
        let Some((at, tag, closing, after)) = next_tag(rest, &opener) else {
            push_text(&mut stack, rest);
            break;
        };
        push_text(&mut stack, &rest[..at]);
        rest = after;
        if !closing {
            if stack.len() > max_depth {
                return Err(ActionError::new(
                    ErrorKind::Syntax,
                    path(&stack),
                    format!("the arguments nest deeper than the limit of {max_depth}"),
                ));
            }
            stack.push(Frame {
                key: tag.to_owned(),
                text: String::new(),
                children: Vec::new(),
            });
            continue;
        }
        let Some(top) = stack.pop().filter(|_| !stack.is_empty()) else {
            return Err(ActionError::new(
                ErrorKind::Syntax,
                "",
                format!("a closing tag `</{tag}>` with no tag open"),
            ));
        };
        if top.key != tag {
            let at = path_with(&stack, &top.key);
            return Err(ActionError::new(
                ErrorKind::Syntax,
                at,
                format!("expected `</{}>`, found `</{tag}>`", top.key),
            ));
        }
        let node = close(top, &stack, item)?;
        if let Some(parent) = stack.last_mut() {
            parent.children.push((tag.to_owned(), node));
        }
    }
    if stack.len() > 1 {
        let key = stack.last().map(|f| f.key.clone()).unwrap_or_default();
        return Err(ActionError::new(
            ErrorKind::CutOff,
            path(&stack),
            format!("the tag `<{key}>` was never closed"),
        ));
    }
    let Some(root) = stack.pop() else {
        return Ok(Value::Object(Map::new()));
    };
    if !root.text.trim().is_empty() {
        return Err(stray(&root.text, ""));
    }
    let mut out = Map::new();
    for (key, node) in gather(root.children) {
        let sub = schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(&key));
        let ty = property_type(schema, &key);
        out.insert(key, typed(node, ty, sub, strict));
    }
    Ok(Value::Object(out))
}

/// The next tag in `text`: where it starts, its name, whether it closes,
/// and the text after it.
fn next_tag<'a>(text: &'a str, opener: &str) -> Option<(usize, &'a str, bool, &'a str)> {
    let mut from = 0;
    while let Some(i) = text[from..].find(opener) {
        let at = from + i;
        let inner = &text[at + opener.len()..];
        let (closing, inner) = match inner.strip_prefix('/') {
            Some(r) => (true, r),
            None => (false, inner),
        };
        if let Some(end) = inner.find('>') {
            let name = &inner[..end];
            if !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
            {
                return Some((at, name, closing, &inner[end + 1..]));
            }
        }
        from = at + opener.len();
    }
    None
}

fn push_text(stack: &mut [Frame], text: &str) {
    if let Some(top) = stack.last_mut() {
        top.text.push_str(text);
    }
}

/// The dotted path of the open tags.
fn path(stack: &[Frame]) -> String {
    stack
        .iter()
        .skip(1)
        .map(|f| f.key.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

fn path_with(stack: &[Frame], key: &str) -> String {
    let p = path(stack);
    if p.is_empty() {
        key.to_owned()
    } else {
        format!("{p}.{key}")
    }
}

fn stray(text: &str, at: &str) -> ActionError {
    let excerpt: String = text.trim().chars().take(40).collect();
    ActionError::new(
        ErrorKind::Syntax,
        at,
        format!("unexpected text beside the tags: `{excerpt}`"),
    )
}

/// A closed tag as a value.
fn close(frame: Frame, stack: &[Frame], item: &str) -> Result<Node, ActionError> {
    if frame.children.is_empty() {
        return Ok(Node::Text(frame.text));
    }
    if !frame.text.trim().is_empty() {
        return Err(stray(&frame.text, &path_with(stack, &frame.key)));
    }
    if frame.children.iter().all(|(k, _)| k == item) {
        return Ok(Node::Array(
            frame.children.into_iter().map(|(_, n)| n).collect(),
        ));
    }
    Ok(Node::Object(frame.children))
}

/// Children with a key written twice gathered into an array, in order.
fn gather(children: Vec<(String, Node)>) -> Vec<(String, Node)> {
    let mut out: Vec<(String, Node)> = Vec::new();
    for (key, node) in children {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, Node::Array(xs))) => xs.push(node),
            Some((_, existing)) => {
                let first = std::mem::replace(existing, Node::Array(Vec::new()));
                *existing = Node::Array(vec![first, node]);
            }
            None => out.push((key, node)),
        }
    }
    out
}

/// A node as JSON; `schema` is its own schema, `ty` its leaf type.
fn typed(node: Node, ty: ValueType, schema: Option<&Value>, strict: bool) -> Value {
    match node {
        Node::Text(t) => convert(&t, ty, strict),
        Node::Array(xs) => {
            let items = schema.and_then(|s| s.get("items"));
            let ty = items.map_or(ValueType::Untyped, |i| schema_type(i, 0));
            Value::Array(
                xs.into_iter()
                    .map(|n| typed(n, ty, items, strict))
                    .collect(),
            )
        }
        Node::Object(children) => {
            let mut out = Map::new();
            for (key, node) in gather(children) {
                let sub = schema
                    .and_then(|s| s.get("properties"))
                    .and_then(|p| p.get(&key));
                let ty = property_type(schema, &key);
                out.insert(key, typed(node, ty, sub, strict));
            }
            Value::Object(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const P: &str = "]<]minimax[>[";

    fn read(body: &str) -> Result<Value, ActionError> {
        arguments(&body.replace('~', P), P, "item", None, 8, false)
    }

    #[test]
    fn leaves_objects_arrays_and_repeats() {
        let v = read(
            "~<a>1~</a>~<o>~<k>x~</k>~<k>y~</k>~</o>~<l>~<item>p~</item>~<item>q~</item>~</l>",
        )
        .unwrap();
        assert_eq!(v, json!({"a": 1, "o": {"k": ["x", "y"]}, "l": ["p", "q"]}));
    }

    #[test]
    fn mismatches_depth_and_stray_text_are_errors() {
        let e = read("~<a>1~</b>").unwrap_err();
        assert_eq!(e.path, "a");
        let deep = "~<a>".repeat(20);
        assert!(read(&deep).unwrap_err().message.contains("deeper"));
        assert!(read("hello ~<a>1~</a>").is_err());
        assert!(read("~<a>1").unwrap_err().message.contains("never closed"));
    }

    #[test]
    fn a_schema_types_nested_leaves() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "object", "properties": {"zip": {"type": "integer"}, "c": {"type": "string"}}},
            "n": {"type": "array", "items": {"type": "string"}}}});
        let body =
            "~<s>~<zip>10001~</zip>~<c>42~</c>~</s>~<n>~<item>7~</item>~</n>".replace('~', P);
        let v = arguments(&body, P, "item", Some(&schema), 8, false).unwrap();
        assert_eq!(v, json!({"s": {"zip": 10001, "c": "42"}, "n": ["7"]}));
    }
}
