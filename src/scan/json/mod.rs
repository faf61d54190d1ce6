//! The incremental JSON scanner that runs inside a block.
//!
//! # Design
//!
//! A block's JSON arrives in pieces, and the parser must know after every
//! piece whether the JSON is complete (a closing fence inside a string never
//! closes the block), whether it is broken for good, and which actions it
//! holds and what they are called, without looking at a byte twice. The
//! scanner is a byte-level state machine in the manner of `csv-core`: a token
//! state ([`Tok`]), a stack of open containers capped at the nesting limit
//! (like serde_json's `remaining_depth`), and nothing else kept between calls.
//!
//! Repairs are made in the same pass: literal control characters in
//! strings are escaped, trailing commas and comments are dropped, Python
//! literals (single-quoted strings, `True`, `False`, `None`) are read as
//! JSON. Each value is built as it closes (`build.rs`: what a finished token
//! does), so an action's arguments need no second parse. With strict mode on, every repair is an error instead.
//!
//! Tokens are read from the pushed text itself. A string that begins and
//! ends in one piece with nothing to unescape or repair becomes its value
//! straight from the piece; so does a number that ends in the piece. Only a
//! token cut at a piece's end, or one that needs unescaping or a repair,
//! has its text gathered in `out` (from the point the piece ended or the
//! repair was needed), and it goes on from there at the next byte: no byte
//! is read twice. The byte-level steps (`step`) handle every token; the
//! container loop (`tokens`) and the runs (`string_run`, `number_run`), in
//! `runs.rs`, take the common cases in bulk and stop, in the same state,
//! wherever the steps must take over.
//!
//! A reader that needs it asks for a *repaired copy* of the whole JSON
//! (`set_copy`): then `out` holds everything scanned, repaired (white space
//! kept, comments and trailing commas blanked), for model dialects that
//! stream arguments from it and for the content of a tag named by its
//! `name` attribute, read again from the copy when its object was taken for
//! a wrapper. Without a copy (fences and other tags) nothing is copied.
//!
//! What must change together: `step` and `tokens` (and the runs) do the
//! same thing for the same byte in the same state; `new` and `reset` set
//! the same fields; the key `set_leave_name_key` leaves out of an action
//! object is one `shape::arguments` takes out.
//!
//! It also tracks **slots** (`slot.rs`), the values that become actions: each top-level
//! value, each element of a top-level array, and each element of an
//! `{"actions": [...]}` wrapper (in action fences and tags, where the wrapper
//! is recognised by its first key). For each slot that is an object it
//! watches the keys at its top level and works out the action's name by the
//! contract's ranking (discriminators, `type`, `name` + arguments, `tool_name`
//! or `function` + input, then in action fences and tags `name` alone). A
//! name found under the first discriminator is certain at once; any other
//! name is certain only when the object closes, since a higher-ranked key
//! could still follow.
//!
//! # Termination
//!
//! [`JsonScanner::feed`] consumes all of its input, always. After an error it
//! only counts bytes. [`JsonScanner::finish_value`] ends a number that was
//! waiting for a delimiter and reports whether the JSON is at rest.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::naming::{NameKey, Namer, Naming};
use super::python_str::{escape_step, PyEsc};
use crate::event::RepairKind;

mod build;
mod number;
mod runs;
mod slot;

use number::{number, Num};
pub(crate) use slot::Slot;

/// The most room a scanner kept for the next block holds on to for its
/// repaired copy.
const SPARE_ROOM: usize = 4096;

/// A scanner error, with the byte offset (in the scanned text) it arose at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScanError {
    pub offset: usize,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    /// An action object: its slot index.
    Action(u32),
    /// A top-level array or a wrapper's array: its elements are slots.
    Slots,
    /// A wrapper object: keys after its array are ignored.
    Wrapper,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    obj: bool,
    role: Role,
}

/// A container being built, beside its frame.
#[derive(Debug, Clone)]
enum Partial {
    /// An object and the key whose value comes next.
    Obj(Map<String, Value>, Option<String>),
    Arr(Vec<Value>),
    /// Not built: its elements are slots (or it is a wrapper).
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Esc {
    None,
    Backslash,
    Unicode(u8),
}

/// What a string is being read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capture {
    None,
    /// A key of an action object.
    ActionKey,
    /// The value of a naming key of an action object.
    NameValue(NameKey),
    /// Any other key.
    Key,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// Expecting a value; `close` allows `]` (empty array, or a trailing comma).
    Value {
        close: bool,
    },
    /// Expecting a key or, with `close`, `}`.
    Key {
        close: bool,
    },
    Colon,
    /// After a value inside a container: `,` or the closer.
    After,
    Str {
        cap: Capture,
        esc: Esc,
    },
    /// A single-quoted string (repair `python literal`).
    PyStr {
        cap: Capture,
        esc: PyEsc,
    },
    /// A literal: `true`, `false`, `null`, or Python's `True`, `False`,
    /// `None` (written to the copy as the JSON ones).
    Lit {
        word: &'static [u8],
        at: u8,
    },
    Num(Num),
    /// Saw `/` where white space may stand.
    Slash,
    LineComment,
    BlockComment {
        star: bool,
    },
}

/// A value that has begun: what its string is read for, whether it is a
/// slot, whether it stands at the top level.
#[derive(Debug, Clone, Copy)]
struct Enter {
    cap: Capture,
    slot: bool,
    top_level: bool,
}

/// Keys of the action object whose value is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyClass {
    Other,
    Naming(NameKey),
    Args(&'static str),
    ArgsOrInput(&'static str),
    /// One of the extra arguments keys (see
    /// [`JsonScanner::set_call_keys`]), by its place in the list.
    Extra(u16),
    /// The first key of a call object whose key is its name: its value
    /// holds the arguments.
    CallName,
    Actions,
}

/// The incremental scanner; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct JsonScanner {
    naming: Naming,
    strict: bool,
    max_depth: usize,
    tok: Tok,
    /// Where to go back to after a comment.
    resume: Tok,
    stack: Vec<Frame>,
    /// The repaired copy with `copy`; without it, the text so far of the
    /// string or number being read when it is cut at a piece's end or needs
    /// unescaping or repair.
    out: String,
    /// Bytes consumed so far.
    pos: usize,
    /// Where the current string started in `out`.
    str_start: usize,
    /// An unconfirmed comma in `out`, for the trailing-comma repair.
    comma: Option<(usize, usize)>,
    /// The class of the key just read in the active action object.
    key: KeyClass,
    /// The active action object's key is its first.
    first_key: bool,
    /// Stack depth at which the current slot value began.
    slot_depth: Option<usize>,
    discriminators: std::sync::Arc<[String]>,
    slots: Vec<Slot>,
    /// Slots whose name became certain since the last [`Self::take_named`]
    /// (those before `named_read` were handed out by [`Self::next_named`]).
    named: Vec<usize>,
    named_read: usize,
    repairs: Vec<(RepairKind, usize)>,
    error: Option<ScanError>,
    /// For generic blocks: whether the first slot has a discriminator key,
    /// once that is known.
    decision: Option<bool>,
    /// Where (in the scanned text) `decision` was made.
    decided_at: usize,
    /// Top-level values read.
    values: usize,
    /// The current byte must be stepped again (a number ended at it).
    reprocess: bool,
    /// Index of the byte being stepped within the piece being fed.
    cursor: usize,
    /// Where the value ending now ends in the scanned text, when that is not
    /// just after the byte being stepped (numbers end at their delimiter).
    end_at: Option<usize>,
    /// The containers being built, one per frame.
    build: Vec<Partial>,
    /// Where the number being read starts in `out`.
    num_start: usize,
    /// The last [`Self::feed_value`] ended a top-level value.
    just_done: bool,
    /// Whether `out` is a repaired copy of everything scanned; without one,
    /// `out` holds only the string or number being read when it is cut at
    /// a piece's end or needs unescaping or repair.
    copy: bool,
    /// Where the string being read began (its first byte after the quote)
    /// in the piece being scanned; `usize::MAX` when it began in an earlier
    /// piece.
    str_from: usize,
    /// Where the number being read began in the piece being scanned (0
    /// when it began in an earlier one).
    num_from: usize,
    /// Whether an action object's value is built without the key that
    /// named it when that is certain first (see
    /// [`Self::set_leave_name_key`]).
    leave_name_key: bool,
    /// More keys that hold an action object's arguments (a dialect's
    /// `argument_keys` beyond `arguments`, `parameters` and `input`).
    arg_keys: std::sync::Arc<[String]>,
    /// An action object's first key names it and holds its arguments.
    name_is_key: bool,
}

/// Strict mode's word for a single-quoted key.
const SINGLE_QUOTED_KEY: &str =
    "a key in single quotes (a Python literal), which JSON does not allow";

const fn ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl JsonScanner {
    pub fn new(
        naming: Naming,
        strict: bool,
        max_depth: usize,
        discriminators: std::sync::Arc<[String]>,
    ) -> Self {
        JsonScanner {
            naming,
            strict,
            max_depth,
            tok: Tok::Value { close: false },
            resume: Tok::Value { close: false },
            stack: Vec::new(),
            out: String::new(),
            pos: 0,
            str_start: 0,
            comma: None,
            key: KeyClass::Other,
            first_key: false,
            slot_depth: None,
            discriminators,
            slots: Vec::new(),
            named: Vec::new(),
            named_read: 0,
            repairs: Vec::new(),
            error: None,
            decision: None,
            decided_at: 0,
            values: 0,
            reprocess: false,
            cursor: 0,
            end_at: None,
            build: Vec::new(),
            num_start: 0,
            just_done: false,
            copy: true,
            str_from: usize::MAX,
            num_from: 0,
            leave_name_key: false,
            arg_keys: std::sync::Arc::from(Vec::new()),
            name_is_key: false,
        }
    }

    /// How a dialect's call objects are written (`Calls::Json`): more keys
    /// that hold the arguments (Inkling's `args`), and whether an object's
    /// first key is its name, the key's value its arguments (Apertus:
    /// `{"N": {…}}`). Either way the name is certain when the key is read
    /// and [`Slot::args_out`] says where the arguments begin, so they can
    /// stream. Set before the first piece, like [`Self::set_copy`].
    pub fn set_call_keys(&mut self, arg_keys: std::sync::Arc<[String]>, name_is_key: bool) {
        self.arg_keys = arg_keys;
        self.name_is_key = name_is_key;
    }

    /// Whether to build each action object without the key that named it
    /// when the name was certain before that key's value went in (the
    /// first discriminator, certain at once): the key
    /// [`crate::shape::arguments`] takes out of the object first thing, so
    /// a reader that shapes every slot's value that way need not pay for
    /// putting it in and taking it out (a shift of the whole map); whatever
    /// is left, `shape::arguments` still takes out. Off by default; set
    /// before the first piece, like [`Self::set_copy`].
    pub fn set_leave_name_key(&mut self, leave: bool) {
        self.leave_name_key = leave;
    }

    /// Whether to keep a repaired copy of everything scanned (the default):
    /// [`Self::repaired`], [`Self::settled`] and [`Slot::args_out`] need
    /// one. Without it, tokens read whole from a piece are never copied.
    /// Set before the first piece.
    pub fn set_copy(&mut self, copy: bool) {
        self.copy = copy;
    }

    /// Makes this scanner new again for `naming`, keeping its buffers'
    /// capacity: blocks follow each other, their scanners need not be
    /// allocated anew.
    pub fn reset(&mut self, naming: Naming) {
        // Field by field, not a new scanner: the buffers keep their room and
        // the shared configuration is not cloned again. Every field `new`
        // sets is set here (the configuration, `copy`, `leave_name_key` and
        // the buffers' room excepted).
        self.naming = naming;
        self.tok = Tok::Value { close: false };
        self.resume = Tok::Value { close: false };
        self.stack.clear();
        self.out.clear();
        // The copy of a long block is not kept for the next one.
        if self.out.capacity() > SPARE_ROOM {
            self.out = String::new();
        }
        self.pos = 0;
        self.str_start = 0;
        self.comma = None;
        self.key = KeyClass::Other;
        self.first_key = false;
        self.slot_depth = None;
        self.slots.clear();
        self.named.clear();
        self.named_read = 0;
        self.repairs.clear();
        self.error = None;
        self.decision = None;
        self.decided_at = 0;
        self.values = 0;
        self.reprocess = false;
        self.cursor = 0;
        self.end_at = None;
        self.build.clear();
        self.num_start = 0;
        self.just_done = false;
        self.str_from = usize::MAX;
        self.num_from = 0;
    }

    /// Lets go of a finished block's slots (a slot is some 300 bytes, and
    /// a kept scanner waits between blocks in every stream in flight): the
    /// scanner is kept for the next block.
    pub fn shed(&mut self) {
        self.slots = Vec::new();
    }

    /// The error that broke the JSON, if it broke.
    pub fn error(&self) -> Option<&ScanError> {
        self.error.as_ref()
    }

    /// For generic blocks: whether the first slot has a discriminator key,
    /// and where (in the scanned text) that was decided.
    pub fn decision(&self) -> Option<(bool, usize)> {
        self.decision.map(|d| (d, self.decided_at))
    }

    /// Top-level values read.
    pub fn values(&self) -> usize {
        self.values
    }

    /// The repairs made, with their offsets in the scanned text.
    pub fn repairs(&self) -> &[(RepairKind, usize)] {
        &self.repairs
    }

    /// The values that become actions, in order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The slots, to take their values.
    pub fn slots_mut(&mut self) -> &mut [Slot] {
        &mut self.slots
    }

    /// Slot `i`, if it has begun.
    pub fn slot(&self, i: usize) -> Option<&Slot> {
        self.slots.get(i)
    }

    /// Hands over the slots: the block has ended.
    pub fn take_slots(&mut self) -> Vec<Slot> {
        std::mem::take(&mut self.slots)
    }

    /// Hands over the slots one by one, keeping their room for the next
    /// block: the block has ended.
    pub fn drain_slots(&mut self) -> std::vec::Drain<'_, Slot> {
        self.slots.drain(..)
    }

    /// The repaired copy of everything scanned (kept only with
    /// [`Self::set_copy`]).
    pub fn repaired(&self) -> &str {
        &self.out
    }

    /// How much of the repaired copy is final: all of it but a comma that
    /// a `]` or `}` may still show to be trailing (and blank).
    pub fn settled(&self) -> usize {
        self.comma.map_or(self.out.len(), |(at, _)| at)
    }

    /// Bytes scanned so far.
    pub fn scanned(&self) -> usize {
        self.pos
    }

    /// Slots whose names became certain since the last call, in order.
    pub fn take_named(&mut self) -> Vec<usize> {
        let mut named = std::mem::take(&mut self.named);
        named.drain(..std::mem::take(&mut self.named_read));
        named
    }

    /// The next slot whose name became certain and was not handed out yet
    /// (by this or [`Self::take_named`]); the list keeps its room.
    pub fn next_named(&mut self) -> Option<usize> {
        match self.named.get(self.named_read) {
            Some(&i) => {
                self.named_read += 1;
                Some(i)
            }
            None => {
                self.named.clear();
                self.named_read = 0;
                None
            }
        }
    }

    /// Whether the JSON is at rest between top-level values, ending a number
    /// that only waited for its delimiter. Broken JSON is never at rest.
    pub fn finish_value(&mut self) -> bool {
        if self.error.is_some() || !self.stack.is_empty() {
            return false;
        }
        match self.tok {
            Tok::Num(n) if n.terminal() => {
                self.end_at = Some(self.pos);
                match self.number() {
                    Ok(v) => {
                        self.complete(Some(v));
                        true
                    }
                    Err(m) => {
                        self.fail(self.pos, m.to_owned());
                        false
                    }
                }
            }
            Tok::Value { .. } | Tok::LineComment => true,
            _ => false,
        }
    }

    /// Scans `text`, the next piece of the block's JSON.
    pub fn feed(&mut self, text: &str) {
        self.scan(text, false);
    }

    /// Scans `text` up to the end of the top-level value being read: returns
    /// how many bytes that took when the value ended inside `text` (a
    /// number ends only at the byte after it, which is then not consumed),
    /// else `None`, having consumed all of `text`. For model dialects, whose
    /// JSON stands between markers with nothing to close it but its end.
    pub fn feed_value(&mut self, text: &str) -> Option<usize> {
        let used = self.scan(text, true);
        self.just_done.then_some(used)
    }

    /// The scanning loop: consumes `text`, or with `stop` only up to the
    /// end of the first top-level value that ends in it. Returns the bytes
    /// consumed.
    ///
    /// Hand-written rather than one `step` a byte: strings, numbers and
    /// white space are taken in runs (`memchr` for a string's end, a tight
    /// loop for a number's bytes), and a token that begins and ends in
    /// `text` with nothing to repair is read from `text` itself. A token cut
    /// at the end of `text` leaves what it has so far in `out`, and goes on
    /// from there at the next piece's first byte, so no byte is read twice.
    fn scan(&mut self, text: &str, stop: bool) -> usize {
        self.just_done = false;
        if self.error.is_some() {
            self.pos += text.len();
            return text.len();
        }
        // A token cut at the last piece's end has its bytes so far in `out`.
        self.str_from = usize::MAX;
        self.num_from = 0;
        let values = self.values;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if stop && self.values > values {
                self.just_done = true;
                break;
            }
            if matches!(
                self.tok,
                Tok::Value { .. } | Tok::Key { .. } | Tok::Colon | Tok::After
            ) && !self.stack.is_empty()
            {
                match self.tokens(text, i) {
                    Ok(next) if next > i => {
                        i = next;
                        continue;
                    }
                    Ok(_) => {}
                    Err((at, message)) => {
                        self.fail(self.pos + at, message);
                        break;
                    }
                }
            }
            // A JSON or Python string outside an escape: read as a run.
            let run = match self.tok {
                Tok::Str {
                    cap,
                    esc: Esc::None,
                } => Some((cap, false)),
                Tok::PyStr {
                    cap,
                    esc: PyEsc::None,
                } => Some((cap, true)),
                _ => None,
            };
            if let Some((cap, python)) = run {
                match self.string_run(text, i, cap, python) {
                    Ok(next) => i = next,
                    Err((at, message)) => {
                        self.fail(self.pos + at, message);
                        break;
                    }
                }
                continue;
            }
            match self.tok {
                Tok::Num(n) => {
                    match self.number_run(text, i, n) {
                        Ok(next) => i = next,
                        Err((at, message)) => {
                            let found = describe(text, at);
                            self.fail(self.pos + at, format!("{message}, found {found}"));
                            break;
                        }
                    }
                    continue;
                }
                Tok::Value { .. } | Tok::Key { .. } | Tok::Colon | Tok::After if ws(bytes[i]) => {
                    // A run of white space between tokens.
                    let run = bytes[i..].iter().take_while(|&&b| ws(b)).count();
                    if self.copy {
                        self.out.push_str(&text[i..i + run]);
                    }
                    i += run;
                    continue;
                }
                _ => {}
            }
            let b = bytes[i];
            self.cursor = i;
            if let Err(message) = self.step(b) {
                let found = describe(text, i);
                self.fail(self.pos + i, format!("{message}, found {found}"));
                break;
            }
            if self.reprocess {
                self.reprocess = false;
                continue;
            }
            i += 1;
            if i == bytes.len() && matches!(self.tok, Tok::Num(_)) {
                // A number begun at the piece's last byte keeps it.
                self.out.push_str(&text[self.num_from..i]);
            }
        }
        if stop && self.values > values {
            self.just_done = true;
        }
        if self.error.is_some() {
            // Broken for good: the rest only counts.
            i = text.len();
        }
        self.pos += i;
        i
    }

    fn fail(&mut self, offset: usize, message: String) {
        self.error = Some(ScanError { offset, message });
    }

    fn step(&mut self, b: u8) -> Result<(), &'static str> {
        match self.tok {
            Tok::Value { close } => {
                if ws(b) {
                    self.put(b as char);
                } else if b == b']' && close {
                    self.close(b)?;
                } else if b == b'/' {
                    self.comment_start()?;
                } else {
                    self.value_start(b)?;
                }
            }
            Tok::Key { close } => match b {
                b'"' | b'\'' => {
                    if b == b'\'' {
                        if self.strict {
                            return Err(SINGLE_QUOTED_KEY);
                        }
                        self.python_literal();
                    }
                    self.comma = None;
                    let cap = self.key_capture();
                    self.open_string(b, cap);
                }
                b'}' if close => self.close(b)?,
                b'/' => self.comment_start()?,
                _ if ws(b) => self.put(b as char),
                _ => {
                    return Err(if close {
                        "expected a key in double quotes or `}`"
                    } else {
                        "expected a key in double quotes"
                    })
                }
            },
            Tok::Colon => match b {
                b':' => {
                    self.put(':');
                    self.tok = Tok::Value { close: false };
                }
                b'/' => self.comment_start()?,
                _ if ws(b) => self.put(b as char),
                _ => return Err("expected `:` after the key"),
            },
            Tok::After => match b {
                b',' => self.comma_read(),
                b']' | b'}' => self.close(b)?,
                b'/' => self.comment_start()?,
                _ if ws(b) => self.put(b as char),
                _ => {
                    return Err(if self.stack.last().is_some_and(|f| f.obj) {
                        "expected `,` or `}` after an object member"
                    } else {
                        "expected `,` or `]` after an array element"
                    })
                }
            },
            Tok::Str { cap, esc } => match esc {
                Esc::Backslash => {
                    self.out.push(b as char);
                    let esc = match b {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Esc::None,
                        b'u' => Esc::Unicode(0),
                        _ => return Err("an invalid escape in a string: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"),
                    };
                    self.tok = Tok::Str { cap, esc };
                }
                Esc::Unicode(n) => {
                    if !b.is_ascii_hexdigit() {
                        return Err("expected four hex digits after \\u");
                    }
                    self.out.push(b as char);
                    let esc = if n == 3 {
                        Esc::None
                    } else {
                        Esc::Unicode(n + 1)
                    };
                    self.tok = Tok::Str { cap, esc };
                }
                // Plain string bytes are taken by the fast path in `feed`,
                // which never steps them.
                Esc::None => {}
            },
            Tok::PyStr { cap, esc } => self.py_escape(cap, esc, b)?,
            Tok::Lit { word, at } => {
                if word.get(usize::from(at)) != Some(&b) {
                    return Err(match word[0] {
                        b't' => "expected the literal `true`",
                        b'f' => "expected the literal `false`",
                        b'n' => "expected the literal `null`",
                        b'T' => "expected the Python literal `True`",
                        b'F' => "expected the Python literal `False`",
                        _ => "expected the Python literal `None`",
                    });
                }
                self.put(json_word(word)[usize::from(at)] as char);
                if usize::from(at) + 1 == word.len() {
                    let v = match word[0] {
                        b't' | b'T' => Value::Bool(true),
                        b'f' | b'F' => Value::Bool(false),
                        _ => Value::Null,
                    };
                    self.complete(Some(v));
                } else {
                    self.tok = Tok::Lit { word, at: at + 1 };
                }
            }
            // Numbers are read in runs by `number_run`, never stepped.
            Tok::Num(_) => {}
            Tok::Slash => match b {
                b'/' => self.tok = Tok::LineComment,
                b'*' => self.tok = Tok::BlockComment { star: false },
                _ => return Err("expected `//` or `/*` to begin a comment"),
            },
            Tok::LineComment => {
                if b == b'\n' {
                    self.put('\n');
                    self.tok = self.resume;
                }
            }
            Tok::BlockComment { star } => {
                if star && b == b'/' {
                    self.put(' ');
                    self.tok = self.resume;
                } else {
                    self.tok = Tok::BlockComment { star: b == b'*' };
                }
            }
        }
        Ok(())
    }

    fn value_start(&mut self, b: u8) -> Result<(), &'static str> {
        match self.value_enter(b)? {
            Some(enter) => self.value_token(b, enter),
            None => Ok(()),
        }
    }

    /// What a value beginning with `b` (the byte being stepped) is, noted
    /// where it is noted (a new slot, where arguments begin, a wrapper);
    /// `None` when that was all (a wrapper's array is open).
    #[inline(always)]
    fn value_enter(&mut self, b: u8) -> Result<Option<Enter>, &'static str> {
        match b {
            b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {}
            b'\'' if self.strict => {
                return Err(
                    "a string in single quotes (a Python literal), which JSON does not allow",
                )
            }
            b'T' | b'F' | b'N' if self.strict => {
                return Err("a Python literal (`True`, `False`, `None`), which JSON writes `true`, `false`, `null`")
            }
            b'\'' | b'T' | b'F' | b'N' => self.python_literal(),
            _ => return Err("expected a JSON value"),
        }
        self.comma = None;
        let depth = self.stack.len();
        let top = self.stack.last().copied();
        if let Some(Frame {
            role: Role::Plain, ..
        }) = top
        {
            // Inside a value: nothing to note.
            return Ok(Some(Enter {
                cap: Capture::None,
                slot: false,
                top_level: false,
            }));
        }
        let slot_context = matches!(
            top,
            None | Some(Frame {
                role: Role::Slots,
                ..
            })
        );
        let in_action = matches!(
            top,
            Some(Frame {
                role: Role::Action(_),
                ..
            })
        );
        let key = if in_action { self.key } else { KeyClass::Other };
        if let Some(Frame {
            role: Role::Action(slot),
            ..
        }) = top
        {
            let k: Option<Cow<'static, str>> = match key {
                KeyClass::Args(k) | KeyClass::ArgsOrInput(k) => Some(Cow::Borrowed(k)),
                KeyClass::Extra(i) => self
                    .arg_keys
                    .get(usize::from(i))
                    .map(|k| Cow::Owned(k.clone())),
                KeyClass::CallName => Some(Cow::Borrowed("")),
                _ => None,
            };
            if let Some(k) = k {
                let at = self.pos + self.cursor;
                let out_at = self.out.len();
                if let Some(s) = self.slots.get_mut(slot as usize) {
                    if s.args_at.is_empty() {
                        s.args_out = Some(out_at);
                    }
                    s.args_at.push((k, at));
                }
            }
        }
        if b == b'[' && key == KeyClass::Actions {
            // `{"actions": [` : the object is a wrapper, its elements the actions.
            self.slots.pop();
            self.slot_depth = None;
            if let Some(f) = self.stack.last_mut() {
                f.role = Role::Wrapper;
            }
            if let Some(p) = self.build.last_mut() {
                *p = Partial::Skip;
            }
            self.open(false, Role::Slots)?;
            return Ok(None);
        }
        if slot_context && !(b == b'[' && top.is_none()) {
            {
                if self.slots.is_empty() && b != b'{' && self.decision.is_none() {
                    self.decide(false);
                }
                // Most blocks hold one action: room for one slot, not the
                // four a first push would make (a slot is some 300 bytes,
                // and 10,000 streams in flight hold one each).
                self.slots.reserve_exact(1);
                self.slots.push(Slot {
                    raw_start: self.pos + self.cursor,
                    namer: Namer::new(self.naming),
                    discriminator_kept: !self.leave_name_key,
                    ..Slot::default()
                });
                self.slot_depth = Some(depth);
            }
        }
        let cap = match key {
            KeyClass::Naming(k) => Capture::NameValue(k),
            _ => Capture::None,
        };
        Ok(Some(Enter {
            cap,
            slot: slot_context,
            top_level: top.is_none(),
        }))
    }

    /// Begins the value `enter` beginning with `b`, the byte being stepped.
    fn value_token(&mut self, b: u8, enter: Enter) -> Result<(), &'static str> {
        match b {
            b'{' => {
                let role = if enter.slot {
                    Role::Action((self.slots.len() - 1) as u32)
                } else {
                    Role::Plain
                };
                self.first_key = true;
                self.open(true, role)
            }
            b'[' => {
                let role = if enter.top_level {
                    Role::Slots
                } else {
                    Role::Plain
                };
                self.open(false, role)
            }
            b'"' | b'\'' => {
                self.open_string(b, enter.cap);
                Ok(())
            }
            b'-' => self.num(Num::Minus),
            b'0' => self.num(Num::Zero),
            b'1'..=b'9' => self.num(Num::Int),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'T' => self.lit(b"True"),
            b'F' => self.lit(b"False"),
            b'N' => self.lit(b"None"),
            _ => Err("expected a JSON value"),
        }
    }

    /// Begins a number at the byte being stepped (its first), now in
    /// state `n`; its bytes are written to `out` only when it is cut at a
    /// piece's end (or there is a copy).
    fn num(&mut self, n: Num) -> Result<(), &'static str> {
        if !self.copy {
            self.out.clear();
        }
        self.num_start = self.out.len();
        self.num_from = self.cursor;
        self.tok = Tok::Num(n);
        Ok(())
    }

    fn lit(&mut self, word: &'static [u8]) -> Result<(), &'static str> {
        self.put(json_word(word)[0] as char);
        self.tok = Tok::Lit { word, at: 1 };
        Ok(())
    }

    /// Opens a string at its quote `b` (`"`, or `'` for a Python string),
    /// read for `cap`; the copy gets a double quote either way.
    /// A `,` after a member, at `cursor`: kept in case it turns out to be a
    /// trailing comma; a key or a value comes next.
    fn comma_read(&mut self) {
        self.comma = Some((self.out.len(), self.pos + self.cursor));
        self.put(',');
        let obj = self.stack.last().is_some_and(|f| f.obj);
        self.tok = if obj {
            Tok::Key { close: true }
        } else {
            Tok::Value { close: true }
        };
    }

    /// How a key of the innermost container is captured: an action
    /// object's keys can name it.
    fn key_capture(&self) -> Capture {
        match self.stack.last() {
            Some(Frame {
                role: Role::Action(_),
                ..
            }) => Capture::ActionKey,
            _ => Capture::Key,
        }
    }

    fn open_string(&mut self, b: u8, cap: Capture) {
        if !self.copy {
            self.out.clear();
        }
        self.str_start = self.out.len();
        self.out.push('"');
        self.str_from = self.cursor + 1;
        self.tok = if b == b'"' {
            Tok::Str {
                cap,
                esc: Esc::None,
            }
        } else {
            Tok::PyStr {
                cap,
                esc: PyEsc::None,
            }
        };
    }

    /// Notes the repair `python literal` at the byte being stepped.
    fn python_literal(&mut self) {
        self.repairs
            .push((RepairKind::PythonLiteral, self.pos_hint()));
    }

    /// Steps byte `b` of an escape in a single-quoted string (see
    /// [`python_str`](super::python_str)).
    fn py_escape(&mut self, cap: Capture, esc: PyEsc, b: u8) -> Result<(), &'static str> {
        let (next, again) = escape_step(esc, b, &mut self.out)?;
        if again {
            self.reprocess = true;
        }
        self.tok = Tok::PyStr { cap, esc: next };
        Ok(())
    }

    /// The number just read, from `out`.
    fn number(&self) -> Result<Value, &'static str> {
        number(self.out.get(self.num_start..).unwrap_or(""))
    }

    /// Writes `c` to the copy, if one is kept.
    #[inline]
    fn put(&mut self, c: char) {
        if self.copy {
            self.out.push(c);
        }
    }

    /// The text of the string just closed in `out`, unescaped.
    fn string_value(&self) -> Result<String, &'static str> {
        match self.string_inner() {
            Some(inner) if !inner.contains('\\') => Ok(inner.to_owned()),
            _ => self
                .string_text()
                .ok_or("an invalid \\u escape in a string (a lone surrogate)"),
        }
    }

    /// The text between the quotes of the string just closed in `out`.
    fn string_inner(&self) -> Option<&str> {
        let raw = self.out.get(self.str_start..)?;
        raw.get(1..raw.len().checked_sub(1)?)
    }

    /// The text of the string just closed in `out`, unescaped.
    fn string_text(&self) -> Option<String> {
        let raw = self.out.get(self.str_start..)?;
        let inner = raw.get(1..raw.len().checked_sub(1)?)?;
        if inner.contains('\\') {
            serde_json::from_str(raw).ok()
        } else {
            Some(inner.to_owned())
        }
    }

    fn comment_start(&mut self) -> Result<(), &'static str> {
        if self.strict {
            return Err("a comment, which JSON does not allow");
        }
        self.repairs.push((RepairKind::Comment, self.pos_hint()));
        self.resume = self.tok;
        self.tok = Tok::Slash;
        Ok(())
    }

    /// The offset of the byte being stepped; kept exact by `feed`.
    fn pos_hint(&self) -> usize {
        self.pos + self.cursor
    }
}

/// The JSON literal a literal's word is written as in the copy.
fn json_word(word: &'static [u8]) -> &'static [u8] {
    match word[0] {
        b'T' => b"true",
        b'F' => b"false",
        b'N' => b"null",
        _ => word,
    }
}

/// How a control byte is written escaped (the crate's one JSON escaper).
fn escape_name(b: u8) -> String {
    let mut out = String::new();
    crate::scan::escape::push_json_str(&mut out, char::from(b).encode_utf8(&mut [0; 4]));
    out
}

/// The character at `i` of `text`, for error messages.
pub(super) fn describe(text: &str, i: usize) -> String {
    match text.get(i..).and_then(|t| t.chars().next()) {
        Some(c) if c.is_control() => format!("{:?}", c),
        Some(c) => format!("`{c}`"),
        None => "the end of the text".into(),
    }
}
