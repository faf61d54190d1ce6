//! Gemma's call values (Gemma 4, FunctionGemma): `k:<|"|>text<|"|>,n:42,
//! b:true,o:{…},a:[…]`, keys bare, strings between a marker token, every
//! other value bare; read into JSON as they stream.
//!
//! Hand-written: the syntax is Gemma's own (neither JSON nor any format a
//! crate reads). The parser's engine finds the string markers and the
//! brackets (and counts the nesting against the depth limit) and hands
//! them here with the text between, piece by piece; [`GemmaReader`] says
//! what they are to the argument [`Tree`], which writes the JSON as it
//! grows. Nothing here recurses.

use serde_json::Value;

use super::tree::{LeafKind, Tree};
use crate::event::ActionError;

/// Where the reader is in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Before a key (or the container's end); a bare key's text so far is
    /// in `key`.
    Key,
    /// Inside a key between string markers.
    QuotedKey,
    /// After a quoted key: its `:`.
    Colon,
    /// Before a value.
    Value,
    /// A bare value, up to `,` or a bracket.
    Bare,
    /// A string value, up to its marker.
    Str,
    /// After a value: `,` or the container's end (in an object, the next
    /// key may follow without a comma).
    After,
}

/// A call's arguments in Gemma's syntax, read from the text inside its
/// outer braces as it streams (see the module docs). Each method appends
/// the JSON it settles to `out`.
#[derive(Debug)]
pub(crate) struct GemmaReader {
    tree: Tree,
    st: St,
    key: String,
}

impl GemmaReader {
    /// The reader of a call's body, typed by its `schema`; the root's `{`
    /// goes to `out`.
    pub(crate) fn new(schema: Option<Value>, strict: bool, out: &mut String) -> GemmaReader {
        GemmaReader {
            tree: Tree::new(schema, strict, usize::MAX, false, out),
            st: St::Key,
            key: String::new(),
        }
    }

    fn fail(&mut self, what: &str, came: &str) {
        let came: String = came.chars().take(30).collect();
        let came = if came.is_empty() {
            "the end of the arguments".to_owned()
        } else {
            format!("`{came}`")
        };
        self.tree.fail(format!("{what}: found {came}"));
    }

    /// Text with no string marker or bracket in it (inside a string: no
    /// string marker).
    pub(crate) fn text(&mut self, mut t: &str, out: &mut String) {
        while !t.is_empty() && !self.tree.over() {
            match self.st {
                St::Str => {
                    self.tree.leaf_more(t, out);
                    return;
                }
                St::QuotedKey => {
                    self.key.push_str(t);
                    return;
                }
                St::Key => match t.find([':', ',']) {
                    Some(i) if t.as_bytes()[i] == b':' => {
                        self.key.push_str(&t[..i]);
                        let key = std::mem::take(&mut self.key).trim().to_owned();
                        self.tree.key(key, out);
                        self.st = St::Value;
                        t = &t[i + 1..];
                    }
                    Some(i) => {
                        let came = format!("{}{}", self.key.trim_start(), &t[..=i]);
                        return self.fail("expected a key and `:`", &came);
                    }
                    None => {
                        self.key.push_str(t);
                        return;
                    }
                },
                St::Colon => {
                    let r = t.trim_start();
                    match r.strip_prefix(':') {
                        Some(rest) => {
                            let key = std::mem::take(&mut self.key);
                            self.tree.key(key, out);
                            self.st = St::Value;
                            t = rest;
                        }
                        None if r.is_empty() => return,
                        None => return self.fail("expected `:` after a key", r),
                    }
                }
                St::Value => {
                    let r = t.trim_start();
                    if r.is_empty() {
                        return;
                    }
                    if r.starts_with(',') && !self.tree.in_object() {
                        return self.fail("expected a value", r);
                    }
                    self.tree.leaf_begin(LeafKind::Bare, out);
                    self.st = St::Bare;
                    t = r;
                }
                St::Bare => match t.find(',') {
                    Some(i) => {
                        self.tree.leaf_more(&t[..i], out);
                        self.tree.leaf_end(out);
                        self.st = St::After;
                        t = &t[i..];
                    }
                    None => {
                        self.tree.leaf_more(t, out);
                        return;
                    }
                },
                St::After => {
                    let r = t.trim_start();
                    if let Some(rest) = r.strip_prefix(',') {
                        self.st = if self.tree.in_object() {
                            St::Key
                        } else {
                            St::Value
                        };
                        t = rest;
                    } else if r.is_empty() {
                        return;
                    } else if self.tree.in_object() {
                        // The next key, with no comma before it.
                        self.st = St::Key;
                        t = r;
                    } else {
                        return self.fail("expected `,` or `]`", r);
                    }
                }
            }
        }
    }

    /// A string marker.
    pub(crate) fn quote(&mut self, out: &mut String) {
        if self.tree.over() {
            return;
        }
        match self.st {
            St::Key if self.key.trim().is_empty() => {
                self.key.clear();
                self.st = St::QuotedKey;
            }
            St::After if self.tree.in_object() => {
                self.key.clear();
                self.st = St::QuotedKey;
            }
            St::QuotedKey => self.st = St::Colon,
            St::Value => {
                self.tree.leaf_begin(LeafKind::Raw, out);
                self.st = St::Str;
            }
            St::Str => {
                self.tree.leaf_end(out);
                self.st = St::After;
            }
            _ => {
                let came = format!("{}<string marker>", self.key.trim());
                self.fail("a string where none may begin", &came);
            }
        }
    }

    /// `{` (`object`) or `[` where no string is open.
    pub(crate) fn open(&mut self, object: bool, out: &mut String) {
        if self.tree.over() {
            return;
        }
        if self.st != St::Value {
            let came = if object { "{" } else { "[" };
            return self.fail("expected a key and `:`", came);
        }
        self.tree.open(object, out);
        self.st = if object { St::Key } else { St::Value };
    }

    /// `}` (`object`) or `]` that closes a nested container.
    pub(crate) fn shut(&mut self, object: bool, out: &mut String) {
        if self.tree.over() {
            return;
        }
        let came = if object { "}" } else { "]" };
        if !self.end_value(out) {
            return;
        }
        if self.tree.in_object() != object || self.tree.depth() < 2 {
            let what = if self.tree.in_object() {
                "expected a key and `:`"
            } else {
                "expected `,` or `]`"
            };
            return self.fail(what, came);
        }
        self.tree.close(out);
        self.st = St::After;
    }

    /// Ends the value being read where a bracket or the body ends it;
    /// whether the container may close there.
    fn end_value(&mut self, out: &mut String) -> bool {
        match self.st {
            St::Bare => {
                self.tree.leaf_end(out);
                self.st = St::After;
            }
            // `a:}`: an empty bare value; `[…,]` and `[]`: no value.
            St::Value if self.tree.in_object() => {
                self.tree.leaf_begin(LeafKind::Bare, out);
                self.tree.leaf_end(out);
                self.st = St::After;
            }
            St::Value | St::After => {}
            St::Key if self.key.trim().is_empty() => {}
            St::Key => {
                let came = self.key.trim().to_owned();
                self.fail("expected a key and `:`", &came);
                return false;
            }
            St::QuotedKey | St::Str => {
                self.fail("a string was not closed", "");
                return false;
            }
            St::Colon => {
                self.fail("expected `:` after a key", "");
                return false;
            }
        }
        true
    }

    /// The body's closing brace: the arguments, or why they cannot be read.
    pub(crate) fn end(mut self, out: &mut String) -> Result<Value, ActionError> {
        if !self.tree.over() && self.end_value(out) {
            if self.tree.depth() > 1 {
                self.fail("an object was not closed", "");
            } else {
                self.tree.close(out);
            }
        }
        self.tree.finish()
    }
}

/// The arguments written in `body`, the text inside the call's outer
/// braces, read whole; strings are between `quote` markers.
#[cfg(test)]
pub(crate) fn arguments(
    body: &str,
    quote: &str,
    schema: Option<&Value>,
    strict: bool,
) -> Result<Value, ActionError> {
    let mut out = String::new();
    let mut r = GemmaReader::new(schema.cloned(), strict, &mut out);
    let mut rest = body;
    let mut quoted = false;
    while !rest.is_empty() {
        let next = if quoted {
            rest.find(quote).map(|i| (i, quote.len()))
        } else {
            let q = rest.find(quote);
            let b = rest.find(['{', '[', '}', ']']);
            match (q, b) {
                (Some(q), Some(b)) if b < q => Some((b, 1)),
                (Some(q), _) => Some((q, quote.len())),
                (None, Some(b)) => Some((b, 1)),
                (None, None) => None,
            }
        };
        let Some((at, len)) = next else {
            r.text(rest, &mut out);
            break;
        };
        r.text(&rest[..at], &mut out);
        match &rest[at..at + len] {
            "{" => r.open(true, &mut out),
            "[" => r.open(false, &mut out),
            "}" => r.shut(true, &mut out),
            "]" => r.shut(false, &mut out),
            _ => {
                quoted = !quoted;
                r.quote(&mut out);
            }
        }
        rest = &rest[at + len..];
    }
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
        assert_eq!(
            read(r#"a:[],b:[1,],<|"|>c d<|"|>:{}, e:x y"#).unwrap(),
            json!({"a": [], "b": [1], "c d": {}, "e": "x y"})
        );
    }

    #[test]
    fn malformed_values_name_their_argument() {
        let e = read(r#"a:1,b:{c:<|"|>x}"#).unwrap_err();
        assert_eq!(e.path, "b.c");
        let e = read("a:{b:1]").unwrap_err();
        assert_eq!(e.path, "a");
        assert!(read("just text").is_err());
        let e = read(r#"a:[<|"|>x<|"|> 2]"#).unwrap_err();
        assert_eq!(e.path, "a[1]", "{e:?}");
        assert!(read("a:1,,b:2").is_err());
    }
}
