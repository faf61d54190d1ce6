//! Arguments built as a tree while they are read, their JSON written as
//! they grow: the one writer of argument deltas for the forms whose values
//! nest (Gemma values, MiniMax M3's tags). The readers in `gemma.rs` and
//! `tags.rs`, which the parser's engine feeds as the text streams, say
//! what comes (a key, a container opening or closing, a
//! leaf's text); the tree builds the value and appends its JSON to the
//! piece the caller sends, so the pieces, joined, are the JSON of the
//! value it ends with (keys in the same order, a key written twice taking
//! its last value in its first place, as a JSON reader takes it).
//!
//! A leaf is typed as a raw value is (contract, section 7): a string leaf
//! streams as a JSON string once that is certain
//! ([`streams_as_string`]); any other leaf goes out whole when it ends.
//!
//! Containers nested deeper than the tree's `stream_depth` are built
//! quietly and go out whole when they close: there a key written twice
//! may gather its values in an array (`gather`, as the peers read
//! MiniMax M3's repeated tags), which JSON written as it came could not
//! say.

use serde_json::{Map, Value};

use crate::dialect::value::{convert, property_type, schema_type, streams_as_string, ValueType};
use crate::event::{ActionError, ErrorKind};
use crate::scan::escape::push_json_str;

/// A container being built.
#[derive(Debug)]
enum Partial {
    /// An object and the key whose value comes next.
    Obj(Map<String, Value>, Option<String>),
    Arr(Vec<Value>),
}

/// An open container: what it holds, its schema, where it is.
#[derive(Debug)]
struct Node {
    partial: Partial,
    /// The container's own schema (its `properties` or `items` type what
    /// it holds).
    schema: Option<Value>,
    /// Its path in the arguments (`a.b[2]`), for errors.
    path: String,
    /// How many values it holds so far (a comma goes before the next).
    count: usize,
}

/// How a leaf is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeafKind {
    /// Raw text, typed as a raw value is (a Gemma string, a tag's text).
    Raw,
    /// A bare Gemma value: a JSON scalar where it reads as one, else typed
    /// as raw text; trimmed; never streamed.
    Bare,
}

/// The leaf being read.
#[derive(Debug)]
struct Leaf {
    text: String,
    ty: ValueType,
    kind: LeafKind,
    /// Whether it streams as a string: `None` while undecided.
    stream: Option<bool>,
}

/// The arguments being built; see the module docs.
#[derive(Debug)]
pub(crate) struct Tree {
    stack: Vec<Node>,
    leaf: Option<Leaf>,
    strict: bool,
    /// The first error: nothing is built after it.
    pub(crate) error: Option<ActionError>,
    /// The arguments, once the root closed.
    done: Option<Value>,
    /// How many containers deep the JSON is written as it grows (1: the
    /// root's members only); deeper ones go out whole.
    stream_depth: usize,
    /// In a container that goes out whole, a key written twice gathers
    /// its values in an array (else the last value stands).
    gather: bool,
}

impl Tree {
    /// A tree whose root object opens now (its `{` goes to `out`), typed
    /// by the call's `schema`, written as it grows `stream_depth`
    /// containers deep (see the module docs).
    pub(crate) fn new(
        schema: Option<Value>,
        strict: bool,
        stream_depth: usize,
        gather: bool,
        out: &mut String,
    ) -> Tree {
        out.push('{');
        Tree {
            stack: vec![Node {
                partial: Partial::Obj(Map::new(), None),
                schema,
                path: String::new(),
                count: 0,
            }],
            leaf: None,
            strict,
            error: None,
            done: None,
            stream_depth: stream_depth.max(1),
            gather,
        }
    }

    /// Whether the innermost container goes out whole when it closes.
    fn quiet(&self) -> bool {
        self.stack.len() > self.stream_depth
    }

    /// Whether nothing more is read (an error, or the root closed).
    pub(crate) fn over(&self) -> bool {
        self.error.is_some() || self.done.is_some()
    }

    /// Whether the innermost container is an object.
    pub(crate) fn in_object(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Node {
                partial: Partial::Obj(..),
                ..
            })
        )
    }

    /// How deep the containers nest (the root is 1).
    pub(crate) fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Whether the innermost object already holds `key`.
    pub(crate) fn has_key(&self, key: &str) -> bool {
        match self.stack.last() {
            Some(Node {
                partial: Partial::Obj(m, _),
                ..
            }) => m.contains_key(key),
            _ => false,
        }
    }

    /// The path of the innermost container, with `key` (or the next
    /// array index) after it: where the next value goes.
    pub(crate) fn path(&self) -> String {
        let Some(n) = self.stack.last() else {
            return String::new();
        };
        match &n.partial {
            Partial::Obj(_, Some(k)) if n.path.is_empty() => k.clone(),
            Partial::Obj(_, Some(k)) => format!("{}.{k}", n.path),
            Partial::Obj(_, None) => n.path.clone(),
            Partial::Arr(_) => format!("{}[{}]", n.path, n.count),
        }
    }

    /// Records the first error, at the path of the next value.
    pub(crate) fn fail(&mut self, message: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(ActionError::new(ErrorKind::Syntax, self.path(), message));
        }
    }

    /// The next key of the innermost object: `{`/`,`, the key, `:`.
    pub(crate) fn key(&mut self, key: String, out: &mut String) {
        if self.over() {
            return;
        }
        let Some(Node {
            partial: Partial::Obj(_, slot),
            count,
            ..
        }) = self.stack.last_mut()
        else {
            self.fail(format!("a key `{key}` inside an array"));
            return;
        };
        let lead = *count > 0;
        *slot = Some(key);
        if self.quiet() {
            return;
        }
        if lead {
            out.push(',');
        }
        out.push('"');
        if let Some(Node {
            partial: Partial::Obj(_, Some(key)),
            ..
        }) = self.stack.last()
        {
            push_json_str(out, key);
        }
        out.push_str("\":");
    }

    /// The type and schema of the value that goes where the next one goes.
    fn next_type(&self) -> (ValueType, Option<Value>) {
        let Some(n) = self.stack.last() else {
            return (ValueType::Untyped, None);
        };
        match &n.partial {
            Partial::Obj(_, k) => {
                let k = k.as_deref().unwrap_or_default();
                let sub = n
                    .schema
                    .as_ref()
                    .and_then(|s| s.get("properties"))
                    .and_then(|p| p.get(k))
                    .cloned();
                (property_type(n.schema.as_ref(), k), sub)
            }
            Partial::Arr(_) => {
                let items = n.schema.as_ref().and_then(|s| s.get("items")).cloned();
                let ty = items
                    .as_ref()
                    .map_or(ValueType::Untyped, |i| schema_type(i, 0));
                (ty, items)
            }
        }
    }

    /// A comma before an array's next element.
    fn element(&mut self, out: &mut String) {
        if self.quiet() {
            return;
        }
        if let Some(Node {
            partial: Partial::Arr(_),
            count,
            ..
        }) = self.stack.last()
        {
            if *count > 0 {
                out.push(',');
            }
        }
    }

    /// A container opens where the next value goes.
    pub(crate) fn open(&mut self, object: bool, out: &mut String) {
        if self.over() {
            return;
        }
        let (_, schema) = self.next_type();
        let path = self.path();
        if self.stack.len() < self.stream_depth {
            self.element(out);
            out.push(if object { '{' } else { '[' });
        }
        self.stack.push(Node {
            partial: if object {
                Partial::Obj(Map::new(), None)
            } else {
                Partial::Arr(Vec::new())
            },
            schema,
            path,
            count: 0,
        });
    }

    /// The innermost container closes.
    pub(crate) fn close(&mut self, out: &mut String) {
        if self.over() {
            return;
        }
        let Some(node) = self.stack.pop() else {
            return;
        };
        let v = match node.partial {
            Partial::Obj(m, _) => Value::Object(m),
            Partial::Arr(a) => Value::Array(a),
        };
        if self.stack.len() < self.stream_depth {
            out.push(if v.is_object() { '}' } else { ']' });
        } else if self.stack.len() == self.stream_depth {
            // Built quietly: it goes out whole.
            self.element(out);
            out.push_str(&serde_json::to_string(&v).unwrap_or_default());
        }
        self.put(v);
    }

    /// A finished value goes where the next one goes (or is the root).
    fn put(&mut self, v: Value) {
        let gather = self.gather && self.quiet();
        match self.stack.last_mut() {
            None => self.done = Some(v),
            Some(n) => {
                n.count += 1;
                match &mut n.partial {
                    Partial::Obj(m, k) => {
                        let k = k.take().unwrap_or_default();
                        match m.get_mut(&k) {
                            Some(Value::Array(xs)) if gather => xs.push(v),
                            Some(first) if gather => {
                                let first = std::mem::take(first);
                                m.insert(k, Value::Array(vec![first, v]));
                            }
                            _ => {
                                m.insert(k, v);
                            }
                        }
                    }
                    Partial::Arr(a) => a.push(v),
                }
            }
        }
    }

    /// A leaf begins where the next value goes.
    pub(crate) fn leaf_begin(&mut self, kind: LeafKind, out: &mut String) {
        if self.over() {
            return;
        }
        self.element(out);
        let (ty, _) = self.next_type();
        self.leaf = Some(Leaf {
            text: String::new(),
            ty,
            kind,
            stream: (kind == LeafKind::Bare || self.quiet()).then_some(false),
        });
    }

    /// The text of the leaf so far.
    pub(crate) fn leaf_text(&self) -> &str {
        self.leaf.as_ref().map_or("", |l| l.text.as_str())
    }

    /// More text of the leaf: streamed as a string once that is certain.
    pub(crate) fn leaf_more(&mut self, text: &str, out: &mut String) {
        if self.error.is_some() {
            return;
        }
        let Some(leaf) = self.leaf.as_mut() else {
            return;
        };
        leaf.text.push_str(text);
        match leaf.stream {
            Some(true) => push_json_str(out, text),
            Some(false) => {}
            None => {
                leaf.stream = streams_as_string(leaf.ty, &leaf.text);
                if leaf.stream == Some(true) {
                    out.push('"');
                    push_json_str(out, &leaf.text);
                }
            }
        }
    }

    /// The leaf ends: it goes where the next value goes.
    pub(crate) fn leaf_end(&mut self, out: &mut String) {
        let Some(leaf) = self.leaf.take() else {
            return;
        };
        if self.error.is_some() {
            return;
        }
        let v = if leaf.stream == Some(true) {
            out.push('"');
            Value::String(leaf.text)
        } else {
            let v = match leaf.kind {
                LeafKind::Raw => match leaf.ty {
                    ValueType::String => Value::String(leaf.text),
                    ty => convert(&leaf.text, ty, self.strict),
                },
                LeafKind::Bare => {
                    let raw = leaf.text.trim();
                    match serde_json::from_str::<Value>(raw) {
                        Ok(v) if !v.is_object() && !v.is_array() => match leaf.ty {
                            ValueType::String => Value::String(raw.to_owned()),
                            _ => v,
                        },
                        _ => convert(raw, leaf.ty, self.strict),
                    }
                }
            };
            if !self.quiet() {
                out.push_str(&serde_json::to_string(&v).unwrap_or_default());
            }
            v
        };
        self.put(v);
    }

    /// The arguments, once the root closed, or the error.
    pub(crate) fn finish(self) -> Result<Value, ActionError> {
        match (self.error, self.done) {
            (Some(e), _) => Err(e),
            (None, Some(v)) => Ok(v),
            (None, None) => Err(ActionError::new(
                ErrorKind::CutOff,
                "",
                "the call's arguments never ended",
            )),
        }
    }
}
