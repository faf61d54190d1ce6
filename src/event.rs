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
    /// A call written in a model dialect's own markers (`[TOOL_CALLS]`,
    /// `<|python_tag|>`, …); the tag is the dialect's name.
    Dialect,
}

impl Syntax {
    /// The lowercase name used in the JSON lines of the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Syntax::Fence => "fence",
            Syntax::Tag => "tag",
            Syntax::Native => "native",
            Syntax::Dialect => "dialect",
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
    /// A Python dict written for JSON: a single-quoted string, or `True`,
    /// `False` or `None` outside strings.
    PythonLiteral,
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
            RepairKind::PythonLiteral => "python literal",
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

/// What kind of problem an [`ActionError`] is, for code that reacts to it
/// (retry, ask the model again, drop the action) without reading messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The JSON (or a tag's XML children) cannot be read.
    Syntax,
    /// The block or its JSON ends before it is complete (cut off, or a
    /// missing closer in strict mode).
    CutOff,
    /// The block is larger than the block limit, or the JSON deeper than
    /// the nesting limit.
    TooLarge,
    /// The block holds no action object.
    NoAction,
    /// The action object has no name.
    NoName,
    /// The name is not one the validator knows.
    UnknownAction,
    /// The arguments are not in a form actions take (several values, a
    /// string where an object belongs).
    Shape,
    /// The arguments do not pass validation (required fields, types, a
    /// schema): what a [`Validator`](crate::Validator) reports.
    Validation,
}

impl ErrorKind {
    /// The kind's name in snake case, as it is serialized.
    ///
    /// ```
    /// assert_eq!(actionstream::ErrorKind::CutOff.as_str(), "cut_off");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::CutOff => "cut_off",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::NoAction => "no_action",
            ErrorKind::NoName => "no_name",
            ErrorKind::UnknownAction => "unknown_action",
            ErrorKind::Shape => "shape",
            ErrorKind::Validation => "validation",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an action is invalid: a kind, a path inside its arguments (empty for
/// the action as a whole), where there is one the line and column in the
/// block, and a sentence for people, and for the model.
///
/// ```
/// use actionstream::{ActionError, ErrorKind};
///
/// let e = ActionError::new(ErrorKind::Syntax, "", "expected `,` or `}`").with_position(2, 7);
/// assert_eq!((e.kind, e.line, e.column), (ErrorKind::Syntax, Some(2), Some(7)));
/// assert_eq!(e.to_string(), "expected `,` or `}`");
/// assert_eq!(ActionError::at("q", "required field missing").kind, ErrorKind::Validation);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ActionError {
    /// What kind of problem it is.
    pub kind: ErrorKind,
    /// Slash-separated path inside the arguments (`issues/0/labels`), empty
    /// when the error is about the block or the action as a whole.
    pub path: String,
    /// What was expected and what came.
    pub message: String,
    /// Line within the block's raw text, from 1, where the error has a place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Column within that line, in characters, from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl ActionError {
    /// An error of `kind` at `path` (empty for the whole action or block).
    pub fn new(kind: ErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        ActionError {
            kind,
            path: path.into(),
            message: message.into(),
            line: None,
            column: None,
        }
    }

    /// A validation error about the whole action ([`ErrorKind::Validation`];
    /// see [`ActionError::with_kind`] for others).
    pub fn whole(message: impl Into<String>) -> Self {
        ActionError::new(ErrorKind::Validation, "", message)
    }

    /// A validation error at `path` inside the arguments
    /// ([`ErrorKind::Validation`]).
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ActionError::new(ErrorKind::Validation, path, message)
    }

    /// The same error, of `kind`.
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// The same error, placed at `line` and `column` (both from 1, columns
    /// in characters) in the block's raw text. The message is not changed.
    pub fn with_position(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
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
///
/// It serializes as [`wire::action_json`](crate::wire::action_json), the
/// form handlers hand on (the `impl Serialize` lives in `wire`).
#[derive(Debug, Clone, PartialEq)]
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
    /// Opt-in ([`Config::argument_deltas`](crate::Config::argument_deltas)):
    /// the next piece of a started action's arguments as compact JSON. The
    /// pieces of one action are append-only and, concatenated, are a JSON
    /// text of the arguments its `ActionComplete` carries; they come as the
    /// model writes (a long string value arrives in pieces), not at the end.
    /// An action that ends invalid may leave them unfinished. How they are
    /// cut depends on the chunks pushed; adjacent pieces of one id may be
    /// merged.
    ArgumentsDelta {
        /// The action's id.
        id: ActionId,
        /// The next piece of the arguments' JSON text.
        json: String,
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
            Event::ActionStarted { id, .. }
            | Event::ActionDelta { id, .. }
            | Event::ArgumentsDelta { id, .. } => Some(*id),
            Event::ActionComplete(a) => Some(a.id),
            Event::ActionInvalid(a) => Some(a.id),
        }
    }
}

/// An event as the borrowing push path gives it ([`Parser::push_with`]):
/// narrative and reasoning borrow the pushed text (or the parser's buffer)
/// instead of owning a copy, in the manner of pulldown-cmark's `CowStr`;
/// the rarer action events are lent by reference. The borrow lasts for
/// the call that receives it; [`EventRef::to_event`] keeps one.
///
/// Adjacent narrative (and reasoning) may come in more pieces than from
/// [`Parser::push`], which merges them; the text is the same.
///
/// [`Parser::push_with`]: crate::Parser::push_with
/// [`Parser::push`]: crate::Parser::push
///
/// ```
/// use actionstream::{EventRef, Parser};
///
/// let mut parser = Parser::default();
/// let (mut prose, mut actions) = (String::new(), Vec::new());
/// let mut on_event = |e: EventRef<'_>| match e {
///     EventRef::Narrative(text) => prose.push_str(text),
///     EventRef::Action(event) => actions.push(event.clone()),
///     _ => {}
/// };
/// for chunk in ["Hi. <action_call name=\"f\">{}</act", "ion_call> Bye."] {
///     parser.push_with(chunk, &mut on_event);
/// }
/// parser.finish_with(&mut on_event);
/// assert_eq!(prose, "Hi.  Bye.");
/// assert_eq!(actions.len(), 2); // started, complete
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum EventRef<'a> {
    /// Text certain to be narrative ([`Event::Narrative`]).
    Narrative(&'a str),
    /// Reasoning ([`Event::Reasoning`]).
    Reasoning(&'a str),
    /// Any other event: an action's start, deltas or end.
    Action(&'a Event),
}

impl<'a> EventRef<'a> {
    /// The event, owned.
    ///
    /// ```
    /// use actionstream::{Event, EventRef};
    /// assert_eq!(EventRef::Narrative("hi").to_event(), Event::Narrative("hi".into()));
    /// ```
    pub fn to_event(&self) -> Event {
        match *self {
            EventRef::Narrative(text) => Event::Narrative(text.to_owned()),
            EventRef::Reasoning(text) => Event::Reasoning(text.to_owned()),
            EventRef::Action(event) => event.clone(),
        }
    }
}

impl<'a> From<&'a Event> for EventRef<'a> {
    /// Lends an owned event.
    ///
    /// ```
    /// use actionstream::{Event, EventRef};
    /// let event = Event::Reasoning("hmm".into());
    /// assert_eq!(EventRef::from(&event), EventRef::Reasoning("hmm"));
    /// ```
    fn from(event: &'a Event) -> Self {
        match event {
            Event::Narrative(text) => EventRef::Narrative(text),
            Event::Reasoning(text) => EventRef::Reasoning(text),
            other => EventRef::Action(other),
        }
    }
}

/// Where events are collected: [`Event`]s themselves, or items that wrap
/// them among other things (the SSE decoder's items). Lets
/// [`push_narrative`] merge narrative in either.
pub(crate) trait EventSlot {
    /// Wraps an event as an item.
    fn wrap(event: Event) -> Self;
    /// The event this item holds, if it holds one.
    fn event_mut(&mut self) -> Option<&mut Event>;
}

impl EventSlot for Event {
    fn wrap(event: Event) -> Self {
        event
    }

    fn event_mut(&mut self) -> Option<&mut Event> {
        Some(self)
    }
}

/// Adds narrative `text` to `out`: appended to the last item when that is
/// narrative, else as a new [`Event::Narrative`]; empty text adds nothing.
///
/// The one place adjacent narrative is merged (the parser's output, the SSE
/// decoder's items, the oracle's comparison).
pub(crate) fn push_narrative<T: EventSlot>(out: &mut Vec<T>, text: impl AsRef<str> + Into<String>) {
    push_text(out, text, false);
}

/// Pushes `event` onto `out`: narrative joined to the narrative just before
/// it, reasoning to the reasoning, empty text dropped; other events as they
/// are.
pub(crate) fn push_merged<T: EventSlot>(out: &mut Vec<T>, event: Event) {
    match event {
        Event::Narrative(text) => push_text(out, text, false),
        Event::Reasoning(text) => push_text(out, text, true),
        event => out.push(T::wrap(event)),
    }
}

/// Narrative or reasoning text, joined to text of its kind just before it.
fn push_text<T: EventSlot>(
    out: &mut Vec<T>,
    text: impl AsRef<str> + Into<String>,
    reasoning: bool,
) {
    if text.as_ref().is_empty() {
        return;
    }
    match out.last_mut().and_then(T::event_mut) {
        Some(Event::Narrative(prev)) if !reasoning => return prev.push_str(text.as_ref()),
        Some(Event::Reasoning(prev)) if reasoning => return prev.push_str(text.as_ref()),
        _ => {}
    }
    out.push(T::wrap(if reasoning {
        Event::Reasoning(text.into())
    } else {
        Event::Narrative(text.into())
    }));
}
