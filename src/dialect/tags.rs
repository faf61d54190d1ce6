//! Parameters named by their tags (MiniMax M3): a call's body
//! `P<city>Paris P</city> P<tags>P<item>a P</item>P</tags>` read into its
//! arguments as it streams. A value holding tags is an object, one whose
//! first tag is `item` an array (of `item` tags only); any other value is
//! raw text, typed by the schema as raw values are. The parameters stream
//! as they are written; an object or array parameter goes out whole when
//! it closes, and inside it a key written twice gathers its values in an
//! array (as the peers read it). A parameter written twice is an error:
//! its first value has gone out as an argument delta already (as a JSON
//! call's arguments key written twice is).
//!
//! Hand-written: the tags are not XML (every one follows a prefix token,
//! values are not escaped), so an XML crate would refuse or mangle them.
//! The parser's engine finds the tags as the text streams and hands them
//! here with the text between; [`TagsReader`] says what they are to the
//! argument [`Tree`], which writes the JSON as it grows. Nesting is kept
//! on an explicit stack held to the configured depth, so no input can
//! overflow the call stack.

use serde_json::Value;

use super::tree::{LeafKind, Tree};
use crate::event::{ActionError, ErrorKind};

/// What an open tag holds so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// Nothing but white space (kept in [`TagsReader::space`]).
    Nothing,
    /// Text: it is a leaf.
    Text,
    /// Tags: an object, or an array of `item` tags.
    Tags { array: bool },
}

/// An open tag.
#[derive(Debug)]
struct Open {
    key: String,
    holds: Holds,
}

/// A call's arguments written as tags, read as they stream (see the
/// module docs). Each method appends the JSON it settles to `out`.
#[derive(Debug)]
pub(crate) struct TagsReader {
    tree: Tree,
    stack: Vec<Open>,
    /// White space in the innermost tag before anything else came.
    space: String,
    item: String,
    max_depth: usize,
}

/// Whether `name` can be a tag's name (`<name>`, `</name>`).
pub(crate) fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
}

impl TagsReader {
    /// The reader of a call's body, typed by its `schema`; array members
    /// are tagged `item`; the root's `{` goes to `out`.
    pub(crate) fn new(
        schema: Option<Value>,
        item: &str,
        max_depth: usize,
        strict: bool,
        out: &mut String,
    ) -> TagsReader {
        TagsReader {
            tree: Tree::new(schema, strict, 1, true, out),
            stack: Vec::new(),
            space: String::new(),
            item: item.to_owned(),
            max_depth,
        }
    }

    fn stray(&mut self, text: &str) {
        let excerpt: String = text.trim().chars().take(40).collect();
        self.tree
            .fail(format!("unexpected text beside the tags: `{excerpt}`"));
    }

    /// Text between tags.
    pub(crate) fn text(&mut self, t: &str, out: &mut String) {
        if self.tree.over() || t.is_empty() {
            return;
        }
        let Some(top) = self.stack.last_mut() else {
            if !t.trim().is_empty() {
                self.stray(t);
            }
            return;
        };
        match top.holds {
            Holds::Text => self.tree.leaf_more(t, out),
            Holds::Nothing if t.trim().is_empty() => self.space.push_str(t),
            Holds::Nothing => {
                top.holds = Holds::Text;
                self.tree.leaf_begin(LeafKind::Raw, out);
                let space = std::mem::take(&mut self.space);
                self.tree.leaf_more(&space, out);
                self.tree.leaf_more(t, out);
            }
            Holds::Tags { .. } if t.trim().is_empty() => {}
            Holds::Tags { .. } => self.stray(t),
        }
    }

    /// An opening tag `<name>`.
    pub(crate) fn open(&mut self, name: &str, out: &mut String) {
        if self.tree.over() {
            return;
        }
        if self.stack.len() >= self.max_depth {
            let max = self.max_depth;
            self.tree
                .fail(format!("the arguments nest deeper than the limit of {max}"));
            return;
        }
        let item = name == self.item;
        match self.stack.last_mut() {
            None => {}
            Some(top) => match top.holds {
                Holds::Nothing => {
                    self.space.clear();
                    top.holds = Holds::Tags { array: item };
                    self.tree.open(!item, out);
                }
                Holds::Text => {
                    let text = self.tree.leaf_text().to_owned();
                    return self.stray(&text);
                }
                Holds::Tags { array: true } if !item => {
                    let item = self.item.clone();
                    self.tree
                        .fail(format!("a tag `<{name}>` among `<{item}>` tags"));
                    return;
                }
                Holds::Tags { .. } => {}
            },
        }
        let in_array = matches!(
            self.stack.last(),
            Some(Open {
                holds: Holds::Tags { array: true },
                ..
            })
        );
        if !in_array {
            // A parameter written twice: its first value has gone out.
            if self.stack.is_empty() && self.tree.has_key(name) {
                self.tree.key(name.to_owned(), &mut String::new());
                self.tree.fail(format!(
                    "the parameter `{name}` is written twice (an array is written as `<{}>` tags)",
                    self.item
                ));
                return;
            }
            self.tree.key(name.to_owned(), out);
        }
        self.stack.push(Open {
            key: name.to_owned(),
            holds: Holds::Nothing,
        });
    }

    /// A closing tag `</name>`.
    pub(crate) fn close(&mut self, name: &str, out: &mut String) {
        if self.tree.over() {
            return;
        }
        let Some(top) = self.stack.pop() else {
            self.tree
                .fail(format!("a closing tag `</{name}>` with no tag open"));
            return;
        };
        if top.key != name {
            let want = top.key.clone();
            self.stack.push(top);
            self.tree
                .fail(format!("expected `</{want}>`, found `</{name}>`"));
            return;
        }
        match top.holds {
            Holds::Nothing => {
                self.tree.leaf_begin(LeafKind::Raw, out);
                let space = std::mem::take(&mut self.space);
                self.tree.leaf_more(&space, out);
                self.tree.leaf_end(out);
            }
            Holds::Text => self.tree.leaf_end(out),
            Holds::Tags { .. } => self.tree.close(out),
        }
    }

    /// The call's end: the arguments, or why they cannot be read.
    pub(crate) fn end(mut self, out: &mut String) -> Result<Value, ActionError> {
        if !self.tree.over() {
            if let Some(top) = self.stack.last() {
                let e = ActionError::new(
                    ErrorKind::CutOff,
                    self.tree.path(),
                    format!("the tag `<{}>` was never closed", top.key),
                );
                return Err(e);
            }
            self.tree.close(out);
        }
        self.tree.finish()
    }
}

/// The arguments written in `body` (the text between the call's name and
/// its end marker), read whole: every tag follows `prefix`.
#[cfg(test)]
pub(crate) fn arguments(
    body: &str,
    prefix: &str,
    item: &str,
    schema: Option<&Value>,
    max_depth: usize,
    strict: bool,
) -> Result<Value, ActionError> {
    let mut out = String::new();
    let mut r = TagsReader::new(schema.cloned(), item, max_depth, strict, &mut out);
    let opener = format!("{prefix}<");
    let mut rest = body;
    let mut text_from = 0;
    let mut at = 0;
    while let Some(i) = rest[at..].find(&opener) {
        let start = at + i;
        let inner = &rest[start + opener.len()..];
        let (closing, name_at) = match inner.strip_prefix('/') {
            Some(_) => (true, 1),
            None => (false, 0),
        };
        let n = inner.as_bytes()[name_at..]
            .iter()
            .take_while(|&&b| name_byte(b))
            .count();
        if n > 0 && inner.as_bytes().get(name_at + n) == Some(&b'>') {
            r.text(&rest[text_from..start], &mut out);
            let name = &inner[name_at..name_at + n];
            if closing {
                r.close(name, &mut out);
            } else {
                r.open(name, &mut out);
            }
            let next = start + opener.len() + name_at + n + 1;
            rest = &rest[next..];
            text_from = 0;
            at = 0;
        } else {
            at = start + opener.len();
        }
    }
    r.text(&rest[text_from..], &mut out);
    let v = r.end(&mut out);
    if let Ok(v) = &v {
        // The pieces written are the arguments' JSON.
        assert_eq!(&serde_json::from_str::<Value>(&out).unwrap(), v, "{out}");
    }
    v
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
    fn a_key_written_twice_inside_a_parameter_gathers() {
        let v = read("~<o>~<k>x~</k>~<j>1~</j>~<k>y~</k>~</o>").unwrap();
        assert_eq!(v, json!({"o": {"k": ["x", "y"], "j": 1}}));
    }

    #[test]
    fn leaves_objects_and_arrays() {
        let v = read(
            "~<a>1~</a>~<o>~<k>x~</k>~<j> y ~</j>~</o>~<l>~<item>p~</item>~<item>q~</item>~</l>~<e>~</e>",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": 1, "o": {"k": "x", "j": " y "}, "l": ["p", "q"], "e": ""})
        );
    }

    #[test]
    fn mismatches_depth_repeats_and_stray_text_are_errors() {
        let e = read("~<a>1~</b>").unwrap_err();
        assert_eq!(e.path, "a");
        let deep = "~<a>".repeat(20);
        assert!(read(&deep).unwrap_err().message.contains("deeper"));
        assert!(read("hello ~<a>1~</a>").is_err());
        assert!(read("~<a>1").unwrap_err().message.contains("never closed"));
        let e = read("~<k>x~</k>~<k>y~</k>").unwrap_err();
        assert!(e.message.contains("twice"), "{e:?}");
        assert_eq!(e.path, "k");
        let e = read("~<l>~<item>1~</item>~<x>2~</x>~</l>").unwrap_err();
        assert_eq!(e.path, "l[1]", "{e:?}");
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
