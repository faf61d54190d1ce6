//! How a block ends: its raw text taken out, its actions shaped and
//! validated, and its end events written, in action order.

use std::sync::Arc;

use serde_json::Value;

use super::emit::Emit;
use super::few::Few;
use super::state::{Block, Machine, State};
use super::syntax::{Closer, Content};
use crate::config::Config;
use crate::event::{
    Action, ActionError, ActionId, ErrorKind, Event, InvalidAction, Repair, RepairKind, Span,
};
use crate::scan::json::JsonScanner;
use crate::scan::naming::{name_object, NameKey, Naming};
use crate::shape;
use crate::utf8::floor_boundary;
use crate::validate::type_name;

/// Repairs found while shaping an action: kind and offset in the content.
type FoundRepairs = Vec<(RepairKind, usize)>;

/// An action's arguments and repairs, or what is wrong with it.
type Shaped = Result<(Value, FoundRepairs), Vec<ActionError>>;

/// How a block ended.
pub(super) enum Ending {
    /// At a closer (or the end of input), its JSON complete.
    Complete { missing_closer: bool },
    /// Its JSON cannot be read, or is cut off: every action is invalid.
    Broken(ActionError),
}

impl Block {
    /// Each slot's id (if started) and name (if read whole): what the
    /// block's actions would be if it ended now, broken.
    pub fn snapshot(&self) -> Vec<(Option<u64>, Option<String>)> {
        match &self.content {
            Content::Json(s) => s
                .slots()
                .iter()
                .enumerate()
                .map(|(i, slot)| (self.ids.get(i).copied().flatten(), slot.name_or_guess()))
                .collect(),
            Content::Xml => Vec::new(),
        }
    }
}

/// The validator's errors for `args` of action `name` (none without one).
pub(super) fn validate(cfg: &Config, name: &str, args: &Value) -> Vec<ActionError> {
    match &cfg.validator {
        Some(v) => v.validate(name, args),
        None => Vec::new(),
    }
}

impl Machine {
    /// A JSON error, placed in the block (line and column count from the
    /// block's first byte).
    pub(super) fn json_error(&self, b: &Block, offset: usize, message: &str) -> ActionError {
        let raw = &self.buf[self.start - self.base..];
        syntax_error(
            raw,
            b.content_start + offset - self.start,
            "the JSON",
            message,
        )
    }

    /// Ends the block at `to` and emits its events.
    pub(super) fn end_block(
        &mut self,
        b: &mut Block,
        to: usize,
        ending: Ending,
        emit: &mut Emit<'_>,
    ) {
        self.spec.drop_shadow();
        match ending {
            Ending::Broken(error) => {
                let slots = b.snapshot();
                self.end_block_invalid(b, to, slots, vec![error], emit);
            }
            Ending::Complete { missing_closer } => {
                if let Some(first) = b.first.take() {
                    emit.extend(first.held);
                }
                if missing_closer && self.shared.cfg.strict {
                    let what = b.closer.what();
                    let message = format!("the block has no {what} (strict mode repairs nothing)");
                    let slots = b.snapshot();
                    let errors = vec![ActionError::new(ErrorKind::CutOff, "", message)];
                    self.end_block_invalid(b, to, slots, errors, emit);
                    return;
                }
                self.end_block_complete(b, to, missing_closer, emit);
            }
        }
    }

    /// Takes the block's raw text `[start, to)` out of the buffer and moves
    /// on past it.
    fn take_raw(&mut self, b: &mut Block, to: usize) -> (Arc<str>, Span) {
        let from = self.start - self.base;
        let n = (to - self.start).min(self.buf.len() - from);
        let raw: Arc<str> = self.buf[from..from + n].into();
        let span = Span {
            start: self.start,
            end: self.start + n,
        };
        self.start += n;
        self.pos = self.start;
        self.keep_spare(std::mem::replace(&mut b.content, Content::Xml));
        match b.closer {
            Closer::Fence { .. } => self.new_line_at(self.start),
            Closer::Tag { .. } => {
                // After a tag, the line goes on; inline code counts afresh.
                self.line.new_line();
                self.state = State::Text;
            }
        }
        (raw, span)
    }

    pub(super) fn end_block_invalid(
        &mut self,
        b: &mut Block,
        to: usize,
        slots: Vec<(Option<u64>, Option<String>)>,
        errors: Vec<ActionError>,
        emit: &mut Emit<'_>,
    ) {
        let (raw, span) = self.take_raw(b, to);
        let list: Vec<(Option<u64>, Option<String>)> = match b.attr_id {
            Some(id) => vec![(Some(id), b.name_attr.clone())],
            None if slots.is_empty() => vec![(None, None)],
            None => slots,
        };
        let list: Vec<(u64, Option<String>)> = list
            .into_iter()
            .map(|(id, name)| {
                let id = id.unwrap_or_else(|| emit.start(name.clone(), b.syntax, &b.tag));
                (id, name)
            })
            .collect();
        for (id, name) in list {
            emit.push(Event::ActionInvalid(Box::new(InvalidAction {
                id: ActionId(id),
                name,
                errors: errors.clone(),
                syntax: b.syntax,
                tag: b.tag.clone(),
                raw: raw.clone(),
                span: Some(span),
            })));
        }
    }

    fn end_block_complete(
        &mut self,
        b: &mut Block,
        to: usize,
        missing_closer: bool,
        emit: &mut Emit<'_>,
    ) {
        let content_from = b.content_start - self.base;
        let content_to = match b.closer {
            // The content of a tag ends at its closing tag, when it has one.
            Closer::Tag { name } if !missing_closer => {
                to - self.base - (self.shared.cfg.xml_tags[name].len() + 3)
            }
            _ => to - self.base,
        };
        let content = match b.content {
            Content::Xml => self.buf[content_from.min(content_to)..content_to].to_owned(),
            Content::Json(_) => String::new(),
        };
        let shared = self.shared.clone();
        let cfg = &shared.cfg;
        let discriminators: &[String] = &shared.cfg.discriminators;
        // Each action: (slot id, name, result).
        let mut actions: Few<(Option<u64>, Option<String>, Shaped)> = Few::new();
        let mut repairs: Vec<(RepairKind, usize)> = Vec::new();
        let no_action = || {
            ActionError::new(
                ErrorKind::NoAction,
                "",
                "the block holds no action object: expected a JSON object such as {\"action\": \"name\", …}",
            )
        };
        let checked = |name: &str, args: Value| -> Shaped {
            let errors = validate(cfg, name, &args);
            if errors.is_empty() {
                Ok((args, Vec::new()))
            } else {
                Err(errors)
            }
        };
        match &mut b.content {
            Content::Xml => {
                // XML children become one object: a tag named by its `name`
                // attribute takes it as its arguments; any other is named by
                // the usual rules (and unwrapped if it is a wrapper).
                let children = shape::xml_children(&content);
                match (b.attr_id, children) {
                    (Some(id), children) => {
                        let name = b.name_attr.clone().unwrap_or_default();
                        let result = children.map_err(|e| vec![e]);
                        actions.push((
                            Some(id),
                            Some(name.clone()),
                            result.and_then(|a| checked(&name, a)),
                        ));
                    }
                    (None, Err(e)) => actions.push((None, None, Err(vec![e]))),
                    (None, Ok(obj)) => {
                        let items = shape::unwrap_wrapper(obj, discriminators);
                        if items.is_empty() {
                            actions.push((None, None, Err(vec![no_action()])));
                        }
                        for item in items {
                            let (namer, named) = match &item {
                                Value::Object(o) => {
                                    let (namer, named) =
                                        name_object(o, Naming::Action, discriminators);
                                    (namer.name_alone(), named)
                                }
                                _ => (true, None),
                            };
                            let result = object_action(
                                Some(item),
                                named.as_ref().map(|(k, n)| (*k, n.as_str())),
                                namer,
                                false,
                                &[],
                                cfg,
                                discriminators,
                            );
                            actions.push((None, named.map(|(_, n)| n), result));
                        }
                    }
                }
            }
            Content::Json(scanner) => {
                let rel = b.content_start - self.start;
                repairs.extend(scanner.repairs().iter().map(|&(k, o)| (k, rel + o)));
                if let Some(id) = b.attr_id {
                    let name = b.name_attr.clone().unwrap_or_default();
                    let result = attr_arguments(scanner).and_then(|args| checked(&name, args));
                    actions.push((Some(id), Some(name), result));
                } else if scanner.slots().is_empty() {
                    actions.push((None, None, Err(vec![no_action()])));
                } else {
                    // Drained, not taken: the scanner keeps the room for the
                    // next block.
                    for (i, mut slot) in scanner.drain_slots().enumerate() {
                        let id = b.ids.get(i).copied().flatten();
                        let result = object_action(
                            slot.take_value(),
                            slot.name_key().zip(slot.name()),
                            slot.name_alone(),
                            slot.no_discriminator_key(),
                            slot.args_at(),
                            cfg,
                            discriminators,
                        );
                        actions.push((id, slot.take_name(), result));
                    }
                }
            }
        }
        let rel = b.content_start - self.start;
        for (_, _, r) in actions.iter() {
            if let Ok((_, found)) = r {
                repairs.extend(found.iter().map(|&(k, at)| (k, rel + at)));
            }
        }
        repairs.sort_by_key(|&(_, at)| at);
        let raw_text = self.text(self.start, to);
        let raw_len = raw_text.len();
        // Repairs are sorted: one walk over the raw text places them all.
        let mut walk = LineWalk::new(raw_text);
        let mut block_repairs: Vec<Repair> = repairs
            .iter()
            .map(|&(kind, at)| {
                let (line, column) = walk.to(at.min(raw_len));
                Repair { kind, line, column }
            })
            .collect();
        if missing_closer {
            let (line, column) = walk.to(raw_len);
            block_repairs.push(Repair {
                kind: RepairKind::MissingCloser,
                line,
                column,
            });
        }
        // Most blocks have no repair: they share one empty list, made once
        // a process (not once a parser: an idle parser stays small).
        static NO_REPAIRS: std::sync::OnceLock<Arc<[Repair]>> = std::sync::OnceLock::new();
        let block_repairs: Arc<[Repair]> = if block_repairs.is_empty() {
            NO_REPAIRS.get_or_init(|| Arc::from(Vec::new())).clone()
        } else {
            block_repairs.into()
        };
        let (raw, span) = self.take_raw(b, to);
        // Unstarted actions start now, in order; then all end, in order.
        for (id, name, _) in actions.iter_mut() {
            if id.is_none() {
                *id = Some(emit.start(name.clone(), b.syntax, &b.tag));
            }
        }
        let last = actions.len().saturating_sub(1);
        // The block's tag, attributes, raw text and repairs go to its last
        // event, copies (shared counts) to any before it: most blocks hold
        // one action, which takes them as they are.
        let (mut raw, mut block_repairs) = (Some(raw), Some(block_repairs));
        for (i, (id, name, result)) in actions.into_iter().enumerate() {
            let id = id.unwrap_or_default();
            let (tag, attributes, raw, repairs) = if i == last {
                (
                    std::mem::take(&mut b.tag),
                    std::mem::take(&mut b.attrs),
                    raw.take(),
                    block_repairs.take(),
                )
            } else {
                (
                    b.tag.clone(),
                    b.attrs.clone(),
                    raw.clone(),
                    block_repairs.clone(),
                )
            };
            let raw = raw.unwrap_or_default();
            emit.push(match (name, result) {
                (Some(name), Ok((arguments, _))) => Event::ActionComplete(Box::new(Action {
                    id: ActionId(id),
                    name,
                    arguments,
                    syntax: b.syntax,
                    tag,
                    attributes,
                    raw,
                    span: Some(span),
                    repairs: repairs.unwrap_or_default(),
                })),
                (name, result) => Event::ActionInvalid(Box::new(InvalidAction {
                    id: ActionId(id),
                    name,
                    errors: result.err().unwrap_or_else(|| {
                        vec![ActionError::new(
                            ErrorKind::NoName,
                            "",
                            "the action has no name",
                        )]
                    }),
                    syntax: b.syntax,
                    tag,
                    raw,
                    span: Some(span),
                })),
            });
        }
    }
}

/// The arguments of a tag named by its `name` attribute: its JSON content.
fn attr_arguments(scanner: &mut JsonScanner) -> Result<Value, Vec<ActionError>> {
    let text = scanner.repaired().trim().to_owned();
    if text.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    if scanner.values() > 1 {
        return Err(vec![ActionError::new(
            ErrorKind::Shape,
            "",
            format!(
                "arguments must be a JSON object, found {} JSON values one after another",
                scanner.values()
            ),
        )]);
    }
    // The content is one value; the copy has no comments, so its first byte
    // tells which kind.
    let found = match text.as_bytes().first() {
        Some(b'{') => None,
        Some(b'[') => Some("an array"),
        Some(b'"') => Some("a string"),
        Some(b't' | b'f') => Some("a boolean"),
        Some(b'n') => Some("null"),
        _ => Some("a number"),
    };
    if let Some(found) = found {
        let mut start: String = text.chars().take(40).collect();
        if start.len() < text.len() {
            start.push('…');
        }
        return Err(vec![ActionError::new(
            ErrorKind::Shape,
            "",
            format!(
                "arguments must be a JSON object (or XML child elements), found {found}: {start}"
            ),
        )]);
    }
    // The object was built as it was scanned, unless its first key made it
    // a wrapper: then it is read from the repaired text.
    if let [slot] = scanner.slots_mut() {
        if let Some(v @ Value::Object(_)) = slot.take_value() {
            return Ok(v);
        }
    }
    serde_json::from_str(&text).map_err(|e| {
        let message = format!("the JSON cannot be read: {e}");
        vec![ActionError::new(ErrorKind::Syntax, "", message)]
    })
}

/// The arguments of one action value named by `named`, validated.
/// `args_at` gives where the values of the argument keys begin, for the
/// position of a repair. `no_discriminator_key`: the scanner left every
/// discriminator key out of the object (nothing to take out of it).
fn object_action(
    value: Option<Value>,
    named: Option<(NameKey, &str)>,
    name_alone: bool,
    no_discriminator_key: bool,
    args_at: &[(std::borrow::Cow<'static, str>, usize)],
    cfg: &Config,
    discriminators: &[String],
) -> Shaped {
    // The value was built in the scanner's one pass, as the slot closed.
    let Some(value) = value else {
        return Err(vec![ActionError::new(
            ErrorKind::CutOff,
            "",
            "the action's JSON is incomplete",
        )]);
    };
    let Value::Object(obj) = value else {
        return Err(vec![ActionError::new(
            ErrorKind::Shape,
            "",
            format!("expected an action object, found {}", type_name(&value)),
        )]);
    };
    let Some((key, name)) = &named else {
        let d = discriminators
            .first()
            .map(String::as_str)
            .unwrap_or("action");
        let expected = if name_alone {
            format!("a string under \"{d}\", \"type\" or \"name\"")
        } else {
            format!("a string under \"{d}\" (or \"name\" with \"arguments\")")
        };
        // What came instead: a naming key whose value is no string, a name
        // without its arguments (generic blocks), or no such key.
        let found = [d, "type", "name", "tool_name", "function"]
            .into_iter()
            .filter(|k| *k != "type" || name_alone)
            .find_map(|k| match obj.get(k)? {
                Value::String(_) if k == "name" => {
                    Some("\"name\" without \"arguments\"".to_owned())
                }
                Value::String(_) => Some(format!("\"{k}\" without \"input\" or \"arguments\"")),
                v => Some(format!("\"{k}\" holding {}", type_name(v))),
            })
            .unwrap_or_else(|| "no such key".to_owned());
        return Err(vec![ActionError::new(
            ErrorKind::NoName,
            "",
            format!("the object has no name: expected {expected}, found {found}"),
        )]);
    };
    let (args, repair) = match key {
        // What `shape::arguments` would do, without looking the key up.
        NameKey::Discriminator(_) if no_discriminator_key => (Value::Object(obj), None),
        _ => shape::arguments(obj, *key, discriminators, cfg.strict).map_err(|e| vec![e])?,
    };
    let errors = validate(cfg, name, &args);
    if errors.is_empty() {
        let at = |field: &str| {
            args_at
                .iter()
                .find(|(k, _)| k == field)
                .map_or(0, |(_, at)| *at)
        };
        Ok((
            args,
            repair
                .map(|f| (RepairKind::ArgumentsAsString, at(f)))
                .into_iter()
                .collect(),
        ))
    } else {
        Err(errors)
    }
}

/// A syntax error at byte `at` of a block's text `raw`: `what` (the JSON,
/// the Python call) cannot be read, placed by line and column.
pub(super) fn syntax_error(raw: &str, at: usize, what: &str, message: &str) -> ActionError {
    let (line, column) = LineWalk::new(raw).to(at);
    let message =
        format!("{what} cannot be read: {message} (line {line}, column {column} of the block)");
    ActionError::new(ErrorKind::Syntax, "", message).with_position(line, column)
}

/// Lines and columns of increasing offsets in one text, in one pass.
pub(super) struct LineWalk<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    /// Characters between the line's start and `pos`.
    col: usize,
}

impl<'a> LineWalk<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        LineWalk {
            text,
            pos: 0,
            line: 1,
            col: 0,
        }
    }

    /// Line and column (from 1) of byte `at`, which is not before the last.
    pub(super) fn to(&mut self, at: usize) -> (usize, usize) {
        let at = floor_boundary(self.text, at.max(self.pos));
        let seg = &self.text[self.pos.min(at)..at];
        match seg.rfind('\n') {
            Some(i) => {
                self.line += memchr::memchr_iter(b'\n', seg.as_bytes()).count();
                self.col = seg[i + 1..].chars().count();
            }
            None => self.col += seg.chars().count(),
        }
        self.pos = at;
        (self.line, self.col + 1)
    }
}
