//! Naming an action object: the contract's ranking of naming keys, in one
//! place.
//!
//! An action object is named by the first of: the configured
//! discriminators (by rank), then `type` (action fences and tags), then
//! `name` with `arguments` / `parameters` / `input`, then `tool_name` or
//! `function` with `input` / `arguments`, then (action fences and tags)
//! `name` alone. Only a string value names.
//!
//! A [`Namer`] is fed an object's keys and string values in the order they
//! come: the JSON scanner feeds it as it reads (so a name under the first
//! discriminator is certain at once, and any other only when the object
//! closes), and [`name_object`] feeds it a whole object (XML children).

use serde_json::{Map, Value};

/// How names are read in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Naming {
    /// Action fences and tags: `type` names, `name` alone names, wrappers
    /// unwrap.
    Action,
    /// Generic fences: only discriminators, `name`, `tool_name`/`function`
    /// with their arguments.
    Generic,
}

/// Which key of an action object named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameKey {
    /// A discriminator, by rank.
    Discriminator(usize),
    /// `type`.
    Type,
    /// `name`, with `arguments`, `parameters` or `input` beside it.
    Name,
    /// `tool_name`, with `input` or `arguments` beside it.
    ToolName,
    /// `function`, with `input` or `arguments` beside it.
    Function,
    /// `name` with none of `arguments`, `parameters`, `input` beside it
    /// (action fences and tags only): the rest of the object is the
    /// arguments.
    NameAlone,
}

impl NameKey {
    fn rank(self) -> usize {
        match self {
            NameKey::Discriminator(r) => r,
            NameKey::Type => 1000,
            NameKey::Name => 1001,
            NameKey::ToolName => 1002,
            NameKey::Function => 1003,
            NameKey::NameAlone => 1004,
        }
    }
}

/// What a key of an action object is, for naming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyRole {
    Other,
    /// A key whose string value may name the object.
    Naming(NameKey),
    /// `parameters`: arguments for `name`.
    Args(&'static str),
    /// `arguments` or `input`: arguments for `name`, `tool_name`, `function`.
    ArgsOrInput(&'static str),
}

/// The role of `key` in an action object.
pub(crate) fn classify(key: &str, naming: Naming, discriminators: &[String]) -> KeyRole {
    if let Some(r) = discriminators.iter().position(|d| d == key) {
        return KeyRole::Naming(NameKey::Discriminator(r));
    }
    match key {
        "type" if naming == Naming::Action => KeyRole::Naming(NameKey::Type),
        "name" => KeyRole::Naming(NameKey::Name),
        "tool_name" => KeyRole::Naming(NameKey::ToolName),
        "function" => KeyRole::Naming(NameKey::Function),
        "arguments" => KeyRole::ArgsOrInput("arguments"),
        "input" => KeyRole::ArgsOrInput("input"),
        "parameters" => KeyRole::Args("parameters"),
        _ => KeyRole::Other,
    }
}

/// What has been read of one object, for naming it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Namer {
    /// The best-ranked discriminator or `type` value read so far (never
    /// the first discriminator's: see `certain`).
    best: Option<(NameKey, String)>,
    /// A value under the first discriminator named the object for certain;
    /// the name is the caller's (see [`Namer::value`]).
    certain: bool,
    has_args: bool,
    has_input_or_args: bool,
    /// `name` alone names (action fences and tags).
    name_alone: bool,
    name_val: Option<String>,
    tool_val: Option<String>,
    function_val: Option<String>,
}

impl Namer {
    pub fn new(naming: Naming) -> Self {
        Namer {
            name_alone: naming == Naming::Action,
            ..Namer::default()
        }
    }

    /// A key was read.
    pub fn key(&mut self, role: KeyRole) {
        match role {
            KeyRole::Args(_) => self.has_args = true,
            KeyRole::ArgsOrInput(_) => {
                self.has_args = true;
                self.has_input_or_args = true;
            }
            _ => {}
        }
    }

    /// A string value under a naming key was read whole. Returns whether it
    /// names the object for certain, whatever follows: a value under the
    /// first discriminator, the first one read. That name is not kept
    /// here (the caller keeps it, and need not copy it); from then on
    /// nothing is read and [`Namer::resolve`] has nothing to say.
    pub fn value(&mut self, key: NameKey, value: &str) -> bool {
        if self.certain {
            return false;
        }
        match key {
            NameKey::Discriminator(0) => {
                self.certain = true;
                return true;
            }
            NameKey::Discriminator(_) | NameKey::Type => {
                if self
                    .best
                    .as_ref()
                    .map_or(true, |(b, _)| key.rank() < b.rank())
                {
                    self.best = Some((key, value.to_owned()));
                }
            }
            NameKey::Name | NameKey::NameAlone => {
                if self.name_val.is_none() {
                    self.name_val = Some(value.to_owned());
                }
            }
            NameKey::ToolName => {
                if self.tool_val.is_none() {
                    self.tool_val = Some(value.to_owned());
                }
            }
            NameKey::Function => {
                if self.function_val.is_none() {
                    self.function_val = Some(value.to_owned());
                }
            }
        }
        false
    }

    /// Whether `name` alone may name this object.
    pub fn name_alone(&self) -> bool {
        self.name_alone
    }

    /// The name by the ranking, from what has been read so far; `None`
    /// once a name was certain (the caller holds that one).
    pub fn resolve(&self) -> Option<(NameKey, String)> {
        if self.certain {
            return None;
        }
        if let Some(best) = &self.best {
            return Some(best.clone());
        }
        if self.has_args {
            if let Some(v) = &self.name_val {
                return Some((NameKey::Name, v.clone()));
            }
        }
        if self.has_input_or_args {
            if let Some(v) = &self.tool_val {
                return Some((NameKey::ToolName, v.clone()));
            }
            if let Some(v) = &self.function_val {
                return Some((NameKey::Function, v.clone()));
            }
        }
        if self.name_alone {
            if let Some(v) = &self.name_val {
                return Some((NameKey::NameAlone, v.clone()));
            }
        }
        None
    }
}

/// Names a whole object (XML child elements made into one), as the scanner
/// would have named it reading the same keys in order.
pub(crate) fn name_object(
    obj: &Map<String, Value>,
    naming: Naming,
    discriminators: &[String],
) -> (Namer, Option<(NameKey, String)>) {
    let mut namer = Namer::new(naming);
    let mut certain = None;
    for (key, value) in obj {
        let role = classify(key, naming, discriminators);
        namer.key(role);
        if let (KeyRole::Naming(k), Value::String(s)) = (role, value) {
            if namer.value(k, s) && certain.is_none() {
                certain = Some((k, s.clone()));
            }
        }
    }
    let name = certain.or_else(|| namer.resolve());
    (namer, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn name(v: Value, naming: Naming) -> Option<(NameKey, String)> {
        let Value::Object(obj) = v else { panic!() };
        name_object(&obj, naming, &["action".to_owned(), "kind".to_owned()]).1
    }

    #[test]
    fn the_ranking() {
        use NameKey::*;
        let a = Naming::Action;
        let cases = [
            (
                json!({"type": "t", "kind": "k", "action": "a"}),
                Some((Discriminator(0), "a")),
            ),
            (
                json!({"type": "t", "kind": "k"}),
                Some((Discriminator(1), "k")),
            ),
            (json!({"name": "n", "type": "t"}), Some((Type, "t"))),
            (json!({"name": "n", "arguments": {}}), Some((Name, "n"))),
            (
                json!({"tool_name": "x", "input": {}}),
                Some((ToolName, "x")),
            ),
            (
                json!({"function": "f", "arguments": {}}),
                Some((Function, "f")),
            ),
            (json!({"name": "n", "q": 1}), Some((NameAlone, "n"))),
            (json!({"action": 5, "name": "n"}), Some((NameAlone, "n"))),
            (json!({"q": 1}), None),
        ];
        for (v, want) in cases {
            let got = name(v.clone(), a);
            assert_eq!(got, want.map(|(k, n)| (k, n.to_owned())), "{v}");
        }
        // Generic blocks: no `type`, no `name` alone.
        assert_eq!(name(json!({"type": "t"}), Naming::Generic), None);
        assert_eq!(name(json!({"name": "n"}), Naming::Generic), None);
    }
}
