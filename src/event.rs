//! The event model: what the parser tells its caller.
//!
//! Events come out in input order. Every [`Event::ActionStarted`] is followed,
//! sooner or later, by exactly one [`Event::ActionComplete`] or
//! [`Event::ActionInvalid`] with the same [`ActionId`]; ids count from 0 in the
//! order of `ActionStarted`. The end events of one block come together, in the
//! order the actions stand in the block.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// The id of an action within one response; ids count from 0 in the order of
/// [`Event::ActionStarted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ActionId(pub u64);

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The `[start, end)` byte offsets of a block in the response text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "[usize; 2]")]
pub struct Span {
    /// Offset of the block's first byte.
    pub start: usize,
    /// Offset one past the block's last byte.
    pub end: usize,
}

impl From<Span> for [usize; 2] {
    fn from(s: Span) -> Self {
        [s.start, s.end]
    }
}

impl Span {
    /// The span as a range, to slice the response text with.
    ///
    /// ```
    /// let span = actionstream::Span { start: 2, end: 5 };
    /// assert_eq!(&"a b c d"[span.range()], "b c");
    /// ```
    pub fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

/// The syntax a block was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    /// A Markdown fenced code block (```` ```json ````, ```` ```actions ````, …).
    Fence,
    /// A call tag such as `<action_call name="search">…</action_call>`.
    Tag,
    /// A provider-native tool call carried outside the text (SSE input).
    Native,
}

impl Syntax {
    /// The lowercase name used in the JSON lines of the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Syntax::Fence => "fence",
            Syntax::Tag => "tag",
            Syntax::Native => "native",
        }
    }
}

/// A JSON repair the parser made in a block (off with strict mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum RepairKind {
    /// A raw control character (an LLM's literal newline) inside a string.
    ControlCharacter,
    /// A comma before `]` or `}`.
    TrailingComma,
    /// A `//` or `/* */` comment.
    Comment,
    /// The block's closing fence or tag was missing at the end of input.
    MissingCloser,
    /// `arguments` held a string that holds a JSON object.
    ArgumentsAsString,
}

impl RepairKind {
    /// The repair's name, as the contract spells it.
    ///
    /// ```
    /// assert_eq!(actionstream::RepairKind::TrailingComma.name(), "trailing comma");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            RepairKind::ControlCharacter => "control character in string",
            RepairKind::TrailingComma => "trailing comma",
            RepairKind::Comment => "comment",
            RepairKind::MissingCloser => "missing closer",
            RepairKind::ArgumentsAsString => "arguments given as a string",
        }
    }
}

impl fmt::Display for RepairKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One repair, with where it was made: line and column (both from 1, columns
/// in characters) counted from the start of the block's raw text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// Line within the block, from 1.
    pub line: usize,
    /// Column within that line, in characters, from 1.
    pub column: usize,
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {}, column {}",
            self.kind, self.line, self.column
        )
    }
}

/// Why an action is invalid: a path inside its arguments (empty for the
/// action as a whole) and a sentence for people, and for the model.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ActionError {
    /// Slash-separated path inside the arguments (`issues/0/labels`), empty
    /// when the error is about the block or the action as a whole.
    pub path: String,
    /// What was expected and what came.
    pub message: String,
}

impl ActionError {
    /// An error about the whole action or block.
    pub fn whole(message: impl Into<String>) -> Self {
        ActionError {
            path: String::new(),
            message: message.into(),
        }
    }

    /// An error at `path` inside the arguments.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ActionError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at {}: {}", self.path, self.message)
        }
    }
}

/// A complete, validated action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    /// The action's id.
    pub id: ActionId,
    /// The action's name.
    pub name: String,
    /// Its arguments (see the contract, section 3).
    pub arguments: Value,
    /// The syntax of its block.
    pub syntax: Syntax,
    /// The fence tag (lowercase) or the tag name; for native calls the provider.
    pub tag: String,
    /// Attributes of the opening tag other than `name`, in order.
    pub attributes: Vec<(String, String)>,
    /// The block's raw text, shared by all actions of the block.
    pub raw: Arc<str>,
    /// The block's span; `None` for native tool calls.
    pub span: Option<Span>,
    /// Every repair made in the block, in order (shared by its actions).
    pub repairs: Arc<[Repair]>,
}

impl Action {
    /// The names of the kinds of repair made in the block, each once, in the
    /// order first made (as the CLI prints them).
    ///
    /// ```
    /// let events = actionstream::parse_str("```json\n{\"action\": \"a\", \"b\": [1,],}\n```\n");
    /// let Some(actionstream::Event::ActionComplete(a)) = events.last() else { panic!() };
    /// assert_eq!(a.repair_names(), ["trailing comma"]);
    /// assert_eq!(a.repairs.len(), 2);
    /// ```
    pub fn repair_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for r in self.repairs.iter() {
            if !names.contains(&r.kind.name()) {
                names.push(r.kind.name());
            }
        }
        names
    }
}

/// An action that could not be read or did not validate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvalidAction {
    /// The action's id.
    pub id: ActionId,
    /// Its name, where the naming key's value was read whole; else `None`.
    pub name: Option<String>,
    /// What is wrong, for people and for the model.
    pub errors: Vec<ActionError>,
    /// The syntax of its block.
    pub syntax: Syntax,
    /// The fence tag (lowercase) or the tag name; for native calls the provider.
    pub tag: String,
    /// The block's raw text, shared by all actions of the block.
    pub raw: Arc<str>,
    /// The block's span; `None` for native tool calls.
    pub span: Option<Span>,
}

/// What the parser reports.
///
/// The enum is `#[non_exhaustive]`: new kinds of event may come (as
/// `ActionDelta` did), so a `match` keeps a wildcard arm.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// Text that is certain to be narrative. Adjacent narrative events may be
    /// merged freely: how the text is cut depends on the chunks pushed.
    Narrative(String),
    /// Reasoning the model wrote apart from its answer (a provider's
    /// reasoning or thinking stream). Like narrative, adjacent reasoning
    /// events may be merged freely; it carries no id and holds no actions.
    Reasoning(String),
    /// An action's name is known, or its block ended without one.
    ActionStarted {
        /// The new action's id.
        id: ActionId,
        /// Its name, if it has one.
        name: Option<String>,
        /// The syntax of its block.
        syntax: Syntax,
        /// The fence tag (lowercase) or tag name.
        tag: String,
    },
    /// Opt-in ([`Config::action_deltas`](crate::Config::action_deltas)): more
    /// raw text of a started action's JSON, as it arrives. How the text is cut
    /// depends on the chunks pushed; adjacent deltas of one id may be merged.
    ActionDelta {
        /// The action's id.
        id: ActionId,
        /// The new text.
        text: String,
    },
    /// An action closed and validated (boxed: it is much larger than the
    /// other events).
    ActionComplete(Box<Action>),
    /// An action could not be read, was cut off, or did not validate.
    ActionInvalid(Box<InvalidAction>),
}

impl Event {
    /// The raw text and span of an end event's block (`None` for other
    /// events and for native calls). Actions of one block share them.
    ///
    /// ```
    /// let events = actionstream::parse_str("a <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>");
    /// let (raw, span) = events.iter().find_map(|e| e.block()).unwrap();
    /// assert_eq!(span.start, 2);
    /// assert!(raw.starts_with("<tool_call>"));
    /// ```
    pub fn block(&self) -> Option<(&str, Span)> {
        match self {
            Event::ActionComplete(a) => a.span.map(|s| (&*a.raw, s)),
            Event::ActionInvalid(a) => a.span.map(|s| (&*a.raw, s)),
            _ => None,
        }
    }

    /// The id of an action event; `None` for narrative and reasoning.
    pub fn id(&self) -> Option<ActionId> {
        match self {
            Event::Narrative(_) | Event::Reasoning(_) => None,
            Event::ActionStarted { id, .. } | Event::ActionDelta { id, .. } => Some(*id),
            Event::ActionComplete(a) => Some(a.id),
            Event::ActionInvalid(a) => Some(a.id),
        }
    }
}
