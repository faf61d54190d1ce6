//! The incremental reader of Python call syntax: `[f(a=1, b="x"), g()]`
//! (a list of calls) or a single `brave_search.call(query="x")`, as Llama 4,
//! Llama 3.2, Olmo 3, LFM2 and Llama 3.1's built-in tools write them.
//!
//! # Design
//!
//! The text arrives in pieces cut anywhere (inside a string escape, inside
//! `True`, inside a number), and the calls must come out as the bytes come
//! in: a call's name as soon as its `(` is read, its arguments as compact
//! JSON pieces while a long string argument is still streaming. The reader
//! is a byte-level state machine in the manner of `csv-core`: one state
//! ([`St`]) and a stack of open containers ([`Frame`]), capped at the
//! nesting limit, kept between calls to [`PyCalls::feed`]; no byte is
//! looked at twice, and nothing recurses over the depth of the input.
//!
//! ```text
//! Begin ─[─► Items ─name─► Name ─(─► ArgStart ─name─► ArgName ─=─► Value
//!            Items ─]─► Done                Value ─► Str, Num, Word, [ ( {
//!                          a value read ─► ArgAfter ─,─► ArgStart
//!            ArgStart, ArgAfter ─)─► ListAfter ─,─► Items     ListAfter ─]─► Done
//! Call mode: Begin ─name─► Name …                 ArgStart, ArgAfter ─)─► Done
//! ```
//!
//! Each value is written to the arguments' JSON as it is read: a string's
//! characters as they are decoded (Python escapes read by
//! [`decode_step`], shared with the JSON scanner), a number or a word once
//! the byte after it shows where it ends. Only two things are held back: a
//! string's closing quote until the next token shows no string follows (Python
//! joins `'a' 'b'`), and a parenthesised value until a comma shows it is a
//! tuple (`(1, 2)` is an array, `(1)` is `1`). Alongside, each value is built
//! as a [`Value`], so a call's [`PyEvent::End`] carries its arguments without
//! a second parse. Both come from the same steps, so the pieces always join
//! to the JSON of exactly those arguments.
//!
//! What is refused, each with a sentence that says what was expected and
//! what came: positional arguments, calls as values, bare names, bytes and
//! f-strings, complex numbers, keys that are not strings, lone surrogates,
//! line breaks in a string that is not triple-quoted, nesting deeper than
//! the limit. Accepted beyond Python: JSON's `true`, `false`, `null` (Olmo 3)
//! and `-` inside call names (tool names such as `get-weather`).
//!
//! # Termination
//!
//! [`PyCalls::feed`] consumes all of its input unless the list (or the call)
//! closes inside it: then it stops just past the closing `]` (or `)`), and
//! every later feed consumes nothing. After an error it consumes everything
//! and reports nothing more. [`PyCalls::finish`] reports an error if the
//! input ended inside the calls.

use serde_json::{Map, Value};

use super::json::describe;
use super::python_str::{decode_step, PyEsc};
use crate::scan::escape::push_json_str;

mod literal;
mod messages;

use literal::*;

/// What the reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PyMode {
    /// A list of calls, `[call, call, ...]` (`[]` is an empty list).
    List,
    /// A single call, `name(args)`.
    Call,
}

/// What the reader learns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyEvent {
    /// A call's name is known (at its `(`); `at` is the offset (in all the
    /// text fed) of the name's first byte.
    Start { name: String, at: usize },
    /// The next piece of the current call's arguments as compact JSON: the
    /// pieces between a `Start` and its `End` join to the JSON text of the
    /// `End`'s arguments.
    Args(String),
    /// The call's `)`: its arguments as a JSON object, keys in order; `at`
    /// is the offset just past the `)`.
    End { arguments: Value, at: usize },
    /// The input cannot be read as calls: a sentence for people, and the
    /// offset it arose at. Nothing follows an error.
    Error { message: String, at: usize },
}

/// Where the reader is. Every state is kept between pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Nothing but white space read: expecting `[` (List) or a name (Call).
    Begin,
    /// In the list: expecting a call or `]`.
    Items,
    /// In a call's name.
    Name,
    /// White space after a call's name: expecting `(`.
    NameEnd,
    /// After a call in the list: expecting `,` or `]`.
    ListAfter,
    /// In a call's parentheses: expecting an argument name or `)`.
    ArgStart,
    /// In an argument's name.
    ArgName,
    /// After an argument's name: expecting `=`.
    ArgEq,
    /// After an argument's value: expecting `,` or `)`.
    ArgAfter,
    /// Expecting a value; `close` allows the closer of the innermost
    /// container (it is empty, or a comma was just read).
    Value { close: bool },
    /// In a word where a value stands: a literal, a string prefix, or a name
    /// (an error, whose message waits to see whether a `(` follows).
    Word,
    /// A name that is no literal, then white space: is it a call?
    BareName,
    /// In a number.
    Num,
    /// Read `n` (1 or 2) opening quotes `q`: one more makes a triple quote,
    /// anything else begins (after two: ends) the string.
    Quote { q: u8, n: u8, raw: bool },
    /// In a string quoted by `q`; `esc` the escape being read (in a raw
    /// string only `Backslash`), `run` the quotes read that may close a
    /// triple-quoted one.
    Str {
        q: u8,
        triple: bool,
        raw: bool,
        esc: PyEsc,
        run: u8,
    },
    /// A string's closing quote: another string may follow and join it.
    StrEnd,
    /// In a dict: expecting a string key or, with `close`, `}`.
    Key { close: bool },
    /// After a dict key: expecting `:`.
    Colon,
    /// After a value in a container: expecting `,` or its closer.
    After,
    /// The list (or the call) is closed.
    Done,
    /// The input could not be read; everything after is ignored.
    Failed,
}

/// An open container inside an argument's value, with its value so far.
#[derive(Debug, Clone)]
enum Frame {
    List(Vec<Value>),
    /// `(`…`)`: a tuple, or (no comma read yet: `pending` holds where its
    /// `[` goes in the call's JSON) a value in parentheses.
    Tuple {
        items: Vec<Value>,
        pending: Option<usize>,
    },
    /// A dict and the key whose value comes next.
    Dict {
        map: Map<String, Value>,
        key: Option<String>,
    },
}

/// The incremental reader of Python calls; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct PyCalls {
    mode: PyMode,
    max_depth: usize,
    st: St,
    /// Bytes consumed before the piece being fed.
    pos: usize,
    /// The current call's name, and where it began.
    name: String,
    name_at: usize,
    /// The current call's arguments so far, and the name of the one being
    /// read.
    args: Map<String, Value>,
    arg: String,
    /// Open containers in the argument being read, innermost last.
    stack: Vec<Frame>,
    /// The word, or the number, being read.
    word: String,
    /// The string being read, decoded, and whether it is a dict key.
    sval: String,
    key: bool,
    /// A high surrogate read by an escape, waiting for its low half.
    high: Option<u32>,
    /// The current call's JSON not yet reported.
    out: String,
    /// Bytes of the current call's JSON already reported.
    emitted: usize,
    /// Where (in the call's JSON) the outermost undecided `(` stands, and
    /// its frame's index in the stack: nothing from there on is reported
    /// until it is decided.
    hold: Option<(usize, usize)>,
}

/// White space between tokens.
const fn ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// Bytes that may begin a name (non-ASCII: a byte of a character that may).
const fn name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

/// Bytes of an argument's name.
const fn ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Bytes of a call's name: dotted parts, `-` allowed as tool names have it.
const fn call_name(b: u8) -> bool {
    ident(b) || b == b'.' || b == b'-'
}

/// Bytes of a word where a value stands (dots so that `math.pi` and
/// `mod.f(…)` are reported whole).
const fn word(b: u8) -> bool {
    ident(b) || b == b'.'
}

/// Bytes that begin a value (for the message about positional arguments).
const fn value_start(b: u8) -> bool {
    matches!(
        b,
        b'\'' | b'"' | b'[' | b'(' | b'{' | b'-' | b'+' | b'.' | b'0'..=b'9'
    )
}

/// Where a message names what was found (`feed` writes it in).
const FOUND: &str = "\u{0}";

/// What a step did with its byte.
enum Flow {
    /// Consumed it.
    Next,
    /// Changed state: the byte is read again.
    Again,
    /// Consumed it, and it closed the list (or the call).
    Done,
}

type Step = Result<Flow, String>;

impl PyCalls {
    /// A reader of `mode`. Arguments nested deeper than `max_depth` levels
    /// (the arguments object is the first, each list, tuple or dict in it
    /// one more) are an error.
    pub fn new(mode: PyMode, max_depth: usize) -> Self {
        PyCalls {
            mode,
            max_depth,
            st: St::Begin,
            pos: 0,
            name: String::new(),
            name_at: 0,
            args: Map::new(),
            arg: String::new(),
            stack: Vec::new(),
            word: String::new(),
            sval: String::new(),
            key: false,
            high: None,
            out: String::new(),
            emitted: 0,
            hold: None,
        }
    }

    /// Whether the list (or the call) is closed.
    pub fn done(&self) -> bool {
        self.st == St::Done
    }

    /// Whether nothing has begun yet (only white space was read).
    #[cfg(test)]
    pub fn at_rest(&self) -> bool {
        self.st == St::Begin
    }

    /// Reads `text`, the next piece, and appends what it learns to `out`.
    /// Returns how many bytes of `text` it consumed: all of them, unless the
    /// list (or the call) closed inside `text`: then those up to and
    /// including the closing `]` (or `)`).
    pub fn feed(&mut self, text: &str, out: &mut Vec<PyEvent>) -> usize {
        match self.st {
            St::Done => return 0,
            St::Failed => {
                self.pos += text.len();
                return text.len();
            }
            _ => {}
        }
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // Fast paths: runs of string text and of name bytes.
            let run = match self.st {
                St::Str {
                    q,
                    triple,
                    raw: _,
                    esc: PyEsc::None,
                    run: 0,
                } => {
                    let hay = &bytes[i..];
                    let n = if triple {
                        memchr::memchr2(q, b'\\', hay).unwrap_or(hay.len())
                    } else {
                        // A line break ends a string that is not triple-quoted.
                        let n = memchr::memchr3(q, b'\\', b'\n', hay).unwrap_or(hay.len());
                        memchr::memchr(b'\r', &hay[..n]).unwrap_or(n)
                    };
                    if n > 0 {
                        if let Err(message) = self.text(&text[i..i + n]) {
                            self.fail(message, self.pos + i, out);
                            return self.consume_rest(text);
                        }
                    }
                    n
                }
                St::Name => self.take_run(text, i, call_name),
                St::ArgName => self.take_run(text, i, ident),
                St::Word => self.take_run(text, i, word),
                _ => 0,
            };
            i += run;
            if i == bytes.len() {
                break;
            }
            let at = self.pos + i;
            match self.step(bytes[i], at, out) {
                Ok(Flow::Next) => i += 1,
                Ok(Flow::Again) => {}
                Ok(Flow::Done) => {
                    i += 1;
                    self.flush(out);
                    self.pos += i;
                    return i;
                }
                Err(message) => {
                    let message = message.replace(FOUND, &describe(text, i));
                    self.fail(message, at, out);
                    return self.consume_rest(text);
                }
            }
        }
        self.flush(out);
        self.pos += text.len();
        text.len()
    }

    /// Takes all of `text` if it is the middle of a string: the reader is
    /// inside one (no escape begun, no quotes that may close it, no
    /// surrogate half waiting, nothing failed) and `text` holds none of the
    /// bytes that end the run [`Self::feed`] takes (the quote, a backslash,
    /// and in a string that is not triple-quoted a line break). The reader
    /// is then where `feed` would leave it, except that the piece's JSON
    /// waits in the call's JSON not yet reported: [`Self::report`] hands it
    /// out, as `feed` would have. Otherwise nothing changes and `false` says
    /// so. For the dialect machine's lane through a long string.
    pub fn take_string_piece(&mut self, text: &str) -> bool {
        let St::Str {
            q,
            triple,
            esc: PyEsc::None,
            run: 0,
            ..
        } = self.st
        else {
            return false;
        };
        let stops = |b: &u8| *b == q || *b == b'\\' || (!triple && (*b == b'\n' || *b == b'\r'));
        if self.high.is_some() || text.as_bytes().iter().any(stops) {
            return false;
        }
        // `text` cannot fail with no surrogate half waiting.
        if self.text(text).is_err() {
            return false;
        }
        self.pos += text.len();
        true
    }

    /// Hands out the call's JSON read so far and not yet reported, as far
    /// as it is decided (what `feed` does at the end of each piece).
    pub fn report(&mut self, out: &mut Vec<PyEvent>) {
        self.flush(out);
    }

    /// End of input: reports an error if the calls were cut off.
    pub fn finish(&mut self, out: &mut Vec<PyEvent>) {
        if matches!(self.st, St::Begin | St::Done | St::Failed) {
            return;
        }
        let message = format!("expected {}, found the end of the text", self.expected());
        self.fail(message, self.pos, out);
    }

    /// Takes the run of bytes at `i` that `keep` accepts into `word` (or
    /// the name): it ends at an ASCII byte or the piece's end, so at a
    /// character boundary.
    fn take_run(&mut self, text: &str, i: usize, keep: fn(u8) -> bool) -> usize {
        let n = text.as_bytes()[i..]
            .iter()
            .take_while(|&&b| keep(b))
            .count();
        let run = &text[i..i + n];
        match self.st {
            St::Name => self.name.push_str(run),
            St::ArgName => self.arg.push_str(run),
            _ => self.word.push_str(run),
        }
        n
    }

    fn consume_rest(&mut self, text: &str) -> usize {
        self.pos += text.len();
        text.len()
    }

    fn fail(&mut self, message: String, at: usize, out: &mut Vec<PyEvent>) {
        self.flush(out);
        out.push(PyEvent::Error { message, at });
        self.st = St::Failed;
    }

    /// Reports the call's JSON read so far, up to what is held back.
    fn flush(&mut self, out: &mut Vec<PyEvent>) {
        let cut = match self.hold {
            Some((h, _)) => h.saturating_sub(self.emitted).min(self.out.len()),
            None => self.out.len(),
        };
        // Held-back marks stand between JSON tokens, at character
        // boundaries: the check only keeps this from ever panicking.
        if cut == 0 || !self.out.is_char_boundary(cut) {
            return;
        }
        let rest = self.out.split_off(cut);
        let piece = std::mem::replace(&mut self.out, rest);
        self.emitted += cut;
        out.push(PyEvent::Args(piece));
    }

    /// Steps one byte (not one a fast path takes).
    fn step(&mut self, b: u8, at: usize, out: &mut Vec<PyEvent>) -> Step {
        match self.st {
            St::Begin => {
                if ws(b) {
                    return Ok(Flow::Next);
                }
                match self.mode {
                    PyMode::List if b == b'[' => {
                        self.st = St::Items;
                        Ok(Flow::Next)
                    }
                    PyMode::Call if name_start(b) => Ok(self.name_begins(at)),
                    _ => Err(self.unexpected()),
                }
            }
            St::Items => match b {
                _ if ws(b) => Ok(Flow::Next),
                b']' => {
                    self.st = St::Done;
                    Ok(Flow::Done)
                }
                _ if name_start(b) => Ok(self.name_begins(at)),
                _ => Err(self.unexpected()),
            },
            St::Name | St::NameEnd => match b {
                b'(' => self.call_begins(out),
                _ if ws(b) => {
                    self.st = St::NameEnd;
                    Ok(Flow::Next)
                }
                _ => Err(self.unexpected()),
            },
            St::ListAfter => match b {
                _ if ws(b) => Ok(Flow::Next),
                b',' => {
                    self.st = St::Items;
                    Ok(Flow::Next)
                }
                b']' => {
                    self.st = St::Done;
                    Ok(Flow::Done)
                }
                _ => Err(self.unexpected()),
            },
            St::ArgStart => match b {
                _ if ws(b) => Ok(Flow::Next),
                b')' => self.call_ends(at, out),
                _ if name_start(b) => {
                    self.arg.clear();
                    self.st = St::ArgName;
                    Ok(Flow::Again)
                }
                _ if value_start(b) => Err(format!(
                    "positional argument {} in call `{}` is not read: expected an argument name (arguments are written `name=value`), found {FOUND}",
                    self.args.len() + 1,
                    short(&self.name)
                )),
                _ => Err(self.unexpected()),
            },
            St::ArgName | St::ArgEq => match b {
                _ if ws(b) => {
                    self.st = St::ArgEq;
                    Ok(Flow::Next)
                }
                b'=' => self.arg_value_begins(),
                b'(' => Err(format!(
                    "positional argument {} in call `{}` is a call `{}(…)`, which is not read: arguments are written `name=value`, with literal values",
                    self.args.len() + 1,
                    short(&self.name),
                    short(&self.arg)
                )),
                b',' | b')' => Err(format!(
                    "{}: positional argument {} is not read (arguments are written `name=value`)",
                    self.unexpected(),
                    self.args.len() + 1
                )),
                _ => Err(self.unexpected()),
            },
            St::ArgAfter => match b {
                _ if ws(b) => Ok(Flow::Next),
                b',' => {
                    self.st = St::ArgStart;
                    Ok(Flow::Next)
                }
                b')' => self.call_ends(at, out),
                _ => Err(self.unexpected()),
            },
            St::Value { close } => match b {
                _ if ws(b) => Ok(Flow::Next),
                b']' | b')' | b'}' if close => self.close(b),
                _ => self.value_begins(b),
            },
            St::Word => self.word_ends(b),
            St::BareName => match b {
                _ if ws(b) => Ok(Flow::Next),
                b'(' => Err(self.nested_call()),
                _ => Err(self.bare_name()),
            },
            St::Num => {
                let last = self.word.as_bytes().last().copied().unwrap_or(0);
                let hex = self
                    .word
                    .trim_start_matches(['-', '+'])
                    .get(..2)
                    .is_some_and(|p| p.eq_ignore_ascii_case("0x"));
                let more = b.is_ascii_alphanumeric()
                    || b == b'_'
                    || b == b'.'
                    || (matches!(b, b'+' | b'-') && matches!(last, b'e' | b'E') && !hex);
                if more {
                    self.word.push(char::from(b));
                    return Ok(Flow::Next);
                }
                let json = py_number(&self.word).map_err(|m| format!("{m} {}", self.place()))?;
                let n: serde_json::Number = json
                    .parse()
                    .map_err(|_| format!("a number out of range (`{}`) {}", short(&self.word), self.place()))?;
                self.emit(&json);
                self.complete(Value::Number(n));
                Ok(Flow::Again)
            }
            St::Quote { q, n, raw } => {
                if b == q && n == 1 {
                    self.st = St::Quote { q, n: 2, raw };
                    return Ok(Flow::Next);
                }
                if b == q {
                    self.st = St::Str {
                        q,
                        triple: true,
                        raw,
                        esc: PyEsc::None,
                        run: 0,
                    };
                    return Ok(Flow::Next);
                }
                if n == 2 {
                    // `''`: an empty string.
                    self.st = St::StrEnd;
                } else {
                    self.st = St::Str {
                        q,
                        triple: false,
                        raw,
                        esc: PyEsc::None,
                        run: 0,
                    };
                }
                Ok(Flow::Again)
            }
            St::Str {
                q,
                triple,
                raw,
                esc,
                run,
            } => self.string_step(b, q, triple, raw, esc, run),
            St::StrEnd => match b {
                _ if ws(b) => Ok(Flow::Next),
                // Python joins adjacent strings: the JSON string goes on.
                b'\'' | b'"' => {
                    self.st = St::Quote {
                        q: b,
                        n: 1,
                        raw: false,
                    };
                    Ok(Flow::Next)
                }
                _ => {
                    self.emit("\"");
                    let s = std::mem::take(&mut self.sval);
                    if self.key {
                        if let Some(Frame::Dict { key, .. }) = self.stack.last_mut() {
                            *key = Some(s);
                        }
                        self.st = St::Colon;
                    } else {
                        self.complete(Value::String(s));
                    }
                    Ok(Flow::Again)
                }
            },
            St::Key { close } => match b {
                _ if ws(b) => Ok(Flow::Next),
                b'}' if close => self.close(b),
                b'\'' | b'"' => {
                    if matches!(self.stack.last(), Some(Frame::Dict { map, .. }) if !map.is_empty())
                    {
                        self.emit(",");
                    }
                    self.string_begins(b, false, true);
                    Ok(Flow::Next)
                }
                _ => Err(format!("{} (dict keys must be strings)", self.unexpected())),
            },
            St::Colon => match b {
                _ if ws(b) => Ok(Flow::Next),
                b':' => {
                    self.emit(":");
                    self.st = St::Value { close: false };
                    Ok(Flow::Next)
                }
                _ => Err(self.unexpected()),
            },
            St::After => match b {
                _ if ws(b) => Ok(Flow::Next),
                b',' => {
                    let depth = self.stack.len().saturating_sub(1);
                    let next = match self.stack.last_mut() {
                        Some(Frame::Dict { .. }) => St::Key { close: true },
                        Some(Frame::Tuple { pending, .. }) => {
                            // A comma: a tuple after all.
                            if let Some(mark) = pending.take() {
                                self.open_tuple_at(mark);
                                if self.hold == Some((mark, depth)) {
                                    self.hold = None;
                                }
                            }
                            St::Value { close: true }
                        }
                        _ => St::Value { close: true },
                    };
                    self.st = next;
                    Ok(Flow::Next)
                }
                b']' | b')' | b'}' => self.close(b),
                _ => Err(self.unexpected()),
            },
            St::Done | St::Failed => Ok(Flow::Next),
        }
    }

    /// A call's name begins at `at`.
    fn name_begins(&mut self, at: usize) -> Flow {
        self.name.clear();
        self.name_at = at;
        self.st = St::Name;
        Flow::Again
    }

    /// The call's `(`: its name is known.
    fn call_begins(&mut self, out: &mut Vec<PyEvent>) -> Step {
        let well_formed = self.name.split('.').all(|part| {
            part.bytes()
                .next()
                .is_some_and(|b| b != b'-' && !b.is_ascii_digit())
        });
        if !well_formed {
            return Err(format!(
                "`{}` is not a call name: each part between dots must begin with a letter or `_`",
                short(&self.name)
            ));
        }
        self.flush(out);
        out.push(PyEvent::Start {
            name: self.name.clone(),
            at: self.name_at,
        });
        self.args = Map::new();
        self.emitted = 0;
        self.emit("{");
        self.st = St::ArgStart;
        Ok(Flow::Next)
    }

    /// The call's `)` at `at`.
    fn call_ends(&mut self, at: usize, out: &mut Vec<PyEvent>) -> Step {
        self.emit("}");
        self.flush(out);
        out.push(PyEvent::End {
            arguments: Value::Object(std::mem::take(&mut self.args)),
            at: at + 1,
        });
        self.emitted = 0;
        match self.mode {
            PyMode::Call => {
                self.st = St::Done;
                Ok(Flow::Done)
            }
            PyMode::List => {
                self.st = St::ListAfter;
                Ok(Flow::Next)
            }
        }
    }

    /// An argument's `=`.
    fn arg_value_begins(&mut self) -> Step {
        if self.args.contains_key(&self.arg) {
            return Err(format!(
                "argument `{}` given twice in call `{}`",
                short(&self.arg),
                short(&self.name)
            ));
        }
        if !self.args.is_empty() {
            self.emit(",");
        }
        let mut key = String::with_capacity(self.arg.len() + 3);
        push_json_str(&mut key, &self.arg);
        self.emit("\"");
        self.emit(&key);
        self.emit("\":");
        self.st = St::Value { close: false };
        Ok(Flow::Next)
    }

    /// The first byte of a value.
    fn value_begins(&mut self, b: u8) -> Step {
        let more = match self.stack.last() {
            Some(Frame::List(items) | Frame::Tuple { items, .. }) => !items.is_empty(),
            _ => false,
        };
        let flow = match b {
            b'[' | b'(' | b'{' => {
                if self.stack.len() + 2 > self.max_depth {
                    return Err(format!(
                        "arguments nested deeper than {} levels {}",
                        self.max_depth,
                        self.place()
                    ));
                }
                if more {
                    self.emit(",");
                }
                match b {
                    b'[' => {
                        self.emit("[");
                        self.stack.push(Frame::List(Vec::new()));
                        self.st = St::Value { close: true };
                    }
                    b'(' => {
                        let mark = self.emitted + self.out.len();
                        self.hold.get_or_insert((mark, self.stack.len()));
                        self.stack.push(Frame::Tuple {
                            items: Vec::new(),
                            pending: Some(mark),
                        });
                        self.st = St::Value { close: true };
                    }
                    _ => {
                        self.emit("{");
                        self.stack.push(Frame::Dict {
                            map: Map::new(),
                            key: None,
                        });
                        self.st = St::Key { close: true };
                    }
                }
                Flow::Next
            }
            b'\'' | b'"' => {
                if more {
                    self.emit(",");
                }
                self.string_begins(b, false, false);
                Flow::Next
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                if more {
                    self.emit(",");
                }
                self.word.clear();
                self.word.push(char::from(b));
                self.st = St::Num;
                Flow::Next
            }
            _ if name_start(b) => {
                if more {
                    self.emit(",");
                }
                self.word.clear();
                self.st = St::Word;
                Flow::Again
            }
            _ => return Err(self.unexpected()),
        };
        Ok(flow)
    }

    /// Opens a string at its quote `b`.
    fn string_begins(&mut self, b: u8, raw: bool, key: bool) {
        self.emit("\"");
        self.sval.clear();
        self.key = key;
        self.high = None;
        self.st = St::Quote { q: b, n: 1, raw };
    }

    /// The byte after a word where a value stands.
    fn word_ends(&mut self, b: u8) -> Step {
        if b == b'\'' || b == b'"' {
            let w = self.word.to_ascii_lowercase();
            let raw = match w.as_str() {
                "u" => false,
                "r" => true,
                "b" | "br" | "rb" | "f" | "fr" | "rf" => {
                    let what = if w.contains('b') {
                        "a bytes literal"
                    } else {
                        "an f-string"
                    };
                    return Err(format!(
                        "{what} (prefix `{}`) {}, which is not read: write a plain string",
                        self.word,
                        self.place()
                    ));
                }
                _ => return Err(self.bare_name()),
            };
            self.string_begins(b, raw, false);
            return Ok(Flow::Next);
        }
        let (json, v) = match self.word.as_str() {
            "True" | "true" => ("true", Value::Bool(true)),
            "False" | "false" => ("false", Value::Bool(false)),
            "None" | "null" => ("null", Value::Null),
            _ if b == b'(' => return Err(self.nested_call()),
            _ if ws(b) => {
                self.st = St::BareName;
                return Ok(Flow::Next);
            }
            _ => return Err(self.bare_name()),
        };
        self.emit(json);
        self.complete(v);
        Ok(Flow::Again)
    }

    /// Steps a byte of a string that the fast path does not take: a quote,
    /// a backslash, a line break, or a byte of an escape.
    fn string_step(&mut self, b: u8, q: u8, triple: bool, raw: bool, esc: PyEsc, run: u8) -> Step {
        let str_state = |esc, run| St::Str {
            q,
            triple,
            raw,
            esc,
            run,
        };
        if esc != PyEsc::None {
            if raw {
                // A raw string keeps the backslash, and a quote or a
                // backslash after it does not end or escape anything.
                self.text("\\")?;
                self.st = str_state(PyEsc::None, 0);
                if b == q || b == b'\\' || b == b'\n' {
                    let mut buf = [0u8; 4];
                    self.text(char::from(b).encode_utf8(&mut buf))?;
                    return Ok(Flow::Next);
                }
                return Ok(Flow::Again);
            }
            let (next, code, again) = decode_step(esc, b).map_err(|m| {
                let m = m.replace(" in a single-quoted string", "");
                format!("{m} ({}), found {FOUND}", self.place())
            })?;
            if let Some(code) = code {
                self.code_point(code)?;
            }
            self.st = str_state(next, 0);
            return Ok(if again { Flow::Again } else { Flow::Next });
        }
        if run > 0 {
            if b == q {
                if run == 2 {
                    return self.string_ends();
                }
                self.st = str_state(PyEsc::None, run + 1);
                return Ok(Flow::Next);
            }
            // Quotes that did not close the string are its text.
            let quotes = if q == b'"' { "\"\"" } else { "''" };
            self.text(&quotes[..usize::from(run)])?;
            self.st = str_state(PyEsc::None, 0);
            return Ok(Flow::Again);
        }
        match b {
            _ if b == q && triple => {
                self.st = str_state(PyEsc::None, 1);
                Ok(Flow::Next)
            }
            _ if b == q => self.string_ends(),
            b'\\' => {
                self.st = str_state(PyEsc::Backslash, 0);
                Ok(Flow::Next)
            }
            b'\n' | b'\r' => Err(format!(
                "a line break inside a string in {} {}: write it as \\n, or use triple quotes",
                if q == b'"' {
                    "`\"` quotes"
                } else {
                    "`'` quotes"
                },
                self.place()
            )),
            // The fast path takes every other byte; an ASCII one here is text.
            _ if b < 0x80 => {
                let mut buf = [0u8; 4];
                self.text(char::from(b).encode_utf8(&mut buf))?;
                Ok(Flow::Next)
            }
            _ => Err(self.unexpected()),
        }
    }

    /// The string's closing quote (held back: another string may join it).
    fn string_ends(&mut self) -> Step {
        if let Some(h) = self.high.take() {
            return Err(lone_surrogate(h, &self.place()));
        }
        self.st = St::StrEnd;
        Ok(Flow::Next)
    }

    /// Text of the string being read.
    fn text(&mut self, s: &str) -> Result<(), String> {
        if let Some(h) = self.high.take() {
            return Err(lone_surrogate(h, &self.place()));
        }
        self.sval.push_str(s);
        // Escaped straight into the call's JSON, as `emit` writes.
        push_json_str(&mut self.out, s);
        Ok(())
    }

    /// A character of the string being read, from an escape.
    fn code_point(&mut self, code: u32) -> Result<(), String> {
        let code = match (self.high.take(), code) {
            (None, 0xD800..=0xDBFF) => {
                self.high = Some(code);
                return Ok(());
            }
            (Some(h), 0xDC00..=0xDFFF) => 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00),
            (Some(h), _) | (None, h @ 0xDC00..=0xDFFF) => {
                return Err(lone_surrogate(h, &self.place()))
            }
            (None, c) => c,
        };
        let c = char::from_u32(code)
            .ok_or_else(|| format!("an escape beyond U+10FFFF {}", self.place()))?;
        let mut buf = [0u8; 4];
        self.text(c.encode_utf8(&mut buf))
    }

    /// A value is read: it goes into its container, or is the argument's.
    fn complete(&mut self, v: Value) {
        match self.stack.last_mut() {
            None => {
                // The name stays, for messages about what follows.
                self.args.insert(self.arg.clone(), v);
                self.st = St::ArgAfter;
            }
            Some(Frame::List(items) | Frame::Tuple { items, .. }) => {
                items.push(v);
                self.st = St::After;
            }
            Some(Frame::Dict { map, key }) => {
                if let Some(k) = key.take() {
                    map.insert(k, v);
                }
                self.st = St::After;
            }
        }
    }

    /// A closing bracket `b` where the innermost container may close.
    fn close(&mut self, b: u8) -> Step {
        let matches = matches!(
            (self.stack.last(), b),
            (Some(Frame::List(_)), b']')
                | (Some(Frame::Tuple { .. }), b')')
                | (Some(Frame::Dict { .. }), b'}')
        );
        if !matches {
            return Err(self.unexpected());
        }
        let v = match self.stack.pop() {
            Some(Frame::List(items)) => {
                self.emit("]");
                Value::Array(items)
            }
            Some(Frame::Tuple {
                mut items,
                pending: Some(mark),
            }) => {
                if self.hold == Some((mark, self.stack.len())) {
                    self.hold = None;
                }
                if items.len() == 1 {
                    // `(x)`: a value in parentheses, not a tuple.
                    items.pop().unwrap_or(Value::Null)
                } else {
                    // `()`: the empty tuple.
                    self.open_tuple_at(mark);
                    self.emit("]");
                    Value::Array(items)
                }
            }
            Some(Frame::Tuple { items, .. }) => {
                self.emit("]");
                Value::Array(items)
            }
            Some(Frame::Dict { map, .. }) => {
                self.emit("}");
                Value::Object(map)
            }
            None => return Err(self.unexpected()),
        };
        self.complete(v);
        Ok(Flow::Next)
    }

    /// Writes the `[` of a tuple, now known to be one, where its `(` stood
    /// (`mark`, in the call's JSON: not reported yet, as it was held back).
    fn open_tuple_at(&mut self, mark: usize) {
        let at = mark.saturating_sub(self.emitted).min(self.out.len());
        if self.out.is_char_boundary(at) {
            self.out.insert(at, '[');
        }
    }

    fn emit(&mut self, s: &str) {
        self.out.push_str(s);
    }
}

#[cfg(test)]
mod tests;
