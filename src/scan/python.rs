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
        let mut json = String::new();
        push_json_str(&mut json, s);
        self.emit(&json);
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

    /// Where the reader is, for messages: `in argument `a` of call `f``.
    fn place(&self) -> String {
        format!(
            "in argument `{}` of call `{}`",
            short(&self.arg),
            short(&self.name)
        )
    }

    /// What the reader expects next, for messages.
    fn expected(&self) -> String {
        let closer = match self.stack.last() {
            Some(Frame::List(_)) => "`]`",
            Some(Frame::Tuple { .. }) => "`)`",
            Some(Frame::Dict { .. }) => "`}`",
            None => "`)`",
        };
        match self.st {
            St::Begin => match self.mode {
                PyMode::List => "`[` to open a list of calls".into(),
                PyMode::Call => "a call (`name(…)`)".into(),
            },
            St::Items => "a call (`name(…)`) or `]` in the list of calls".into(),
            St::Name | St::NameEnd => format!("`(` after call name `{}`", short(&self.name)),
            St::ListAfter => format!("`,` or `]` after call `{}`", short(&self.name)),
            St::ArgStart => format!(
                "an argument (`name=value`) or `)` in call `{}`",
                short(&self.name)
            ),
            St::ArgName | St::ArgEq => format!(
                "`=` after argument name `{}` in call `{}`",
                short(&self.arg),
                short(&self.name)
            ),
            St::ArgAfter => format!(
                "`,` or `)` after argument `{}` in call `{}`",
                short(&self.arg),
                short(&self.name)
            ),
            St::Value { close } if self.stack.is_empty() || !close => {
                format!("a value {}", self.place())
            }
            St::Value { .. } => format!("a value or {closer} {}", self.place()),
            St::Key { close } => format!(
                "a string key{} in a dict {}",
                if close { " or `}`" } else { "" },
                self.place()
            ),
            St::Colon => format!("`:` after a dict key {}", self.place()),
            St::Quote { q, n: 1, .. }
            | St::Str {
                q, triple: false, ..
            } => {
                format!(
                    "the closing `{}` of a string {}",
                    char::from(q),
                    self.place()
                )
            }
            St::Str {
                q, triple: true, ..
            } => {
                let q = char::from(q);
                format!("the closing `{q}{q}{q}` of a string {}", self.place())
            }
            // A value that may be whole: what must follow it.
            St::Word | St::BareName | St::Num | St::Quote { .. } | St::StrEnd | St::After => {
                if self.stack.is_empty() {
                    format!(
                        "`,` or `)` after argument `{}` in call `{}`",
                        short(&self.arg),
                        short(&self.name)
                    )
                } else {
                    format!("`,` or {closer} {}", self.place())
                }
            }
            St::Done | St::Failed => "nothing more".into(),
        }
    }

    /// `expected …, found …` (`feed` names what was found).
    fn unexpected(&self) -> String {
        format!("expected {}, found {FOUND}", self.expected())
    }

    fn nested_call(&self) -> String {
        format!(
            "a call `{}(…)` {} is not read: calls inside arguments are refused (write the value as a literal)",
            short(&self.word),
            self.place()
        )
    }

    fn bare_name(&self) -> String {
        format!(
            "a name `{}` {} where a value was expected: a Python literal (a string, a number, `True`, `False`, `None`, a list, a tuple or a dict)",
            short(&self.word),
            self.place()
        )
    }
}

/// The first 60 characters of `s`, for messages.
fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn lone_surrogate(code: u32, place: &str) -> String {
    format!("a lone surrogate \\u{code:04x} in a string {place}, which JSON cannot carry")
}

/// Writes `s` as the inside of a JSON string.
fn push_json_str(out: &mut String, s: &str) {
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[from..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => out.push_str(&format!("\\u{b:04x}")),
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
}

/// A Python number literal as JSON number text: `1.` → `1.0`, `.5` →
/// `0.5`, `1_000` → `1000`, `0x1f` → `31`. Refuses complex numbers, leading
/// zeros and what Python does not read as a number.
fn py_number(text: &str) -> Result<String, String> {
    let bad = || format!("`{}` is not a number Python reads", short(text));
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let sign = if neg { "-" } else { "" };
    if body.is_empty() {
        return Err(format!("expected a digit after `{text}`"));
    }
    let lower = body.to_ascii_lowercase();
    if lower.ends_with('j') && !lower.starts_with("0x") {
        return Err(format!(
            "a complex number `{}`, which JSON cannot carry,",
            short(text)
        ));
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            let digits = digits.strip_prefix('_').unwrap_or(digits);
            let digits = plain_digits(digits, radix).ok_or_else(bad)?;
            let v = u128::from_str_radix(&digits, radix).map_err(|_| bad())?;
            return Ok(if v == 0 {
                "0".into()
            } else {
                format!("{sign}{v}")
            });
        }
    }
    let (mant, exp) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let (int, frac) = match mant.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mant, None),
    };
    let int = if int.is_empty() {
        String::new()
    } else {
        plain_digits(int, 10).ok_or_else(bad)?
    };
    let frac = match frac {
        Some("") => Some(String::new()),
        Some(f) => Some(plain_digits(f, 10).ok_or_else(bad)?),
        None => None,
    };
    if int.is_empty() && frac.as_deref().map_or(true, str::is_empty) {
        return Err(bad());
    }
    let exp = match exp {
        Some(e) => {
            let (esign, digits) = match e.as_bytes().first() {
                Some(b'-') => ("-", &e[1..]),
                Some(b'+') => ("", &e[1..]),
                _ => ("", e),
            };
            Some((esign, plain_digits(digits, 10).ok_or_else(bad)?))
        }
        None => None,
    };
    if frac.is_none() && exp.is_none() {
        // An integer: Python refuses leading zeros, except in zero.
        if int.bytes().all(|b| b == b'0') {
            return Ok("0".into());
        }
        if int.starts_with('0') {
            return Err(format!(
                "a number with a leading zero (`{}`), which Python does not read (`0o…` is octal)",
                short(text)
            ));
        }
        return Ok(format!("{sign}{int}"));
    }
    let int = int.trim_start_matches('0');
    let mut json = format!("{sign}{}", if int.is_empty() { "0" } else { int });
    json.push('.');
    match frac.as_deref() {
        Some(f) if !f.is_empty() => json.push_str(f),
        _ => json.push('0'),
    }
    if let Some((esign, digits)) = exp {
        json.push('e');
        json.push_str(esign);
        json.push_str(&digits);
    }
    Ok(json)
}

/// The digits of `s` in `radix` without Python's `_` separators (each
/// between two digits), if that is what `s` is.
fn plain_digits(s: &str, radix: u32) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut prev_digit = false;
    for c in s.chars() {
        if c == '_' {
            if !prev_digit {
                return None;
            }
            prev_digit = false;
        } else if c.is_digit(radix) {
            out.push(c);
            prev_digit = true;
        } else {
            return None;
        }
    }
    (prev_digit).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunking::ChunkSizes;
    use serde_json::json;

    const DEPTH: usize = 64;

    /// Feeds `pieces` in order to a new reader, then finishes it. Returns
    /// the events as reported and the bytes consumed.
    fn feed_pieces<'a>(
        mode: PyMode,
        max_depth: usize,
        pieces: impl IntoIterator<Item = &'a str>,
    ) -> (Vec<PyEvent>, usize) {
        let mut r = PyCalls::new(mode, max_depth);
        let mut events = Vec::new();
        let mut consumed = 0;
        for p in pieces {
            let was_done = r.done();
            let n = r.feed(p, &mut events);
            if was_done {
                assert_eq!(n, 0, "a closed reader consumes nothing");
            }
            assert!(n == p.len() || r.done(), "only a closed reader stops early");
            consumed += n;
        }
        let before = events.len();
        r.finish(&mut events);
        if r.done() {
            assert_eq!(
                events.len(),
                before,
                "finish after the close reports nothing"
            );
        }
        (events, consumed)
    }

    /// Adjacent `Args` joined.
    fn merge(events: &[PyEvent]) -> Vec<PyEvent> {
        let mut out: Vec<PyEvent> = Vec::new();
        for e in events {
            match (out.last_mut(), e) {
                (Some(PyEvent::Args(a)), PyEvent::Args(b)) => a.push_str(b),
                _ => out.push(e.clone()),
            }
        }
        out
    }

    /// The event stream is well formed: `Args` only inside a call and never
    /// empty, nothing after an error, and each call's pieces join to JSON
    /// that parses to exactly its `End` arguments.
    fn check_shape(events: &[PyEvent]) {
        let mut open: Option<String> = None;
        let mut failed = false;
        for e in events {
            assert!(!failed, "an event after an error: {e:?}");
            match e {
                PyEvent::Start { .. } => {
                    assert!(open.is_none(), "a call starts inside a call");
                    open = Some(String::new());
                }
                PyEvent::Args(piece) => {
                    assert!(!piece.is_empty(), "an empty Args piece");
                    open.as_mut().expect("Args outside a call").push_str(piece);
                }
                PyEvent::End { arguments, .. } => {
                    let json = open.take().expect("End outside a call");
                    let parsed: Value = serde_json::from_str(&json)
                        .unwrap_or_else(|e| panic!("Args {json:?} are not JSON: {e}"));
                    assert_eq!(&parsed, arguments, "Args {json:?}");
                    // Keys in order too.
                    assert_eq!(parsed.to_string(), arguments.to_string());
                }
                PyEvent::Error { .. } => failed = true,
            }
        }
    }

    /// `text` cut at char boundaries: whole, one char at a time, at every
    /// two-way split (every 97th beyond 4 KB), and at seeded random sizes.
    fn splittings(text: &str) -> Vec<Vec<&str>> {
        let mut all = vec![vec![text]];
        all.push(
            text.char_indices()
                .map(|(i, c)| &text[i..i + c.len_utf8()])
                .collect(),
        );
        let stride = if text.len() > 4096 { 97 } else { 1 };
        for (k, (i, _)) in text.char_indices().enumerate().skip(1) {
            if k % stride == 0 {
                all.push(vec![&text[..i], &text[i..]]);
            }
        }
        for seed in 1..=6u64 {
            for max in [2, 3, 5, 8, 16, 64] {
                let mut sizes = ChunkSizes::new(seed, max);
                let mut pieces = Vec::new();
                let mut at = 0;
                while at < text.len() {
                    let mut end = (at + sizes.next().unwrap_or(1)).min(text.len());
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    pieces.push(&text[at..end]);
                    at = end;
                }
                all.push(pieces);
            }
        }
        all
    }

    /// Reads `text` at every splitting; all must give the same merged events
    /// and consume the same bytes. Returns those.
    fn read_with(mode: PyMode, max_depth: usize, text: &str) -> (Vec<PyEvent>, usize) {
        let mut first: Option<(Vec<PyEvent>, usize)> = None;
        for pieces in splittings(text) {
            let (events, consumed) = feed_pieces(mode, max_depth, pieces.iter().copied());
            check_shape(&events);
            let merged = merge(&events);
            match &first {
                None => first = Some((merged, consumed)),
                Some((want, n)) => {
                    assert_eq!(&merged, want, "pieces {pieces:?}");
                    assert_eq!(consumed, *n, "consumed, pieces {pieces:?}");
                }
            }
        }
        first.unwrap_or_default()
    }

    fn read(text: &str) -> (Vec<PyEvent>, usize) {
        read_with(PyMode::List, DEPTH, text)
    }

    /// The calls of a list that reads without error, closed by its last
    /// byte.
    fn calls(text: &str) -> Vec<(String, Value)> {
        let (events, consumed) = read(text);
        assert_eq!(consumed, text.len(), "{events:?}");
        let mut out = Vec::new();
        let mut name = None;
        for e in events {
            match e {
                PyEvent::Start { name: n, .. } => name = Some(n),
                PyEvent::End { arguments, .. } => {
                    out.push((name.take().unwrap_or_default(), arguments));
                }
                PyEvent::Args(_) => {}
                PyEvent::Error { message, at } => panic!("error at {at}: {message}"),
            }
        }
        out
    }

    /// The arguments of the one call in `[f(<args>)]`.
    fn args(inner: &str) -> Value {
        args_of(&format!("[f({inner})]"))
    }

    /// The arguments of the one call in `text`.
    fn args_of(text: &str) -> Value {
        let got = calls(text);
        assert_eq!(got.len(), 1);
        got[0].1.clone()
    }

    /// The error `text` gives (read as a list, with the nesting limit).
    fn error_with(mode: PyMode, max_depth: usize, text: &str) -> (String, usize) {
        let (events, _) = read_with(mode, max_depth, text);
        match events.last() {
            Some(PyEvent::Error { message, at }) => (message.clone(), *at),
            other => panic!("no error for {text:?}: {other:?}"),
        }
    }

    fn error(text: &str) -> (String, usize) {
        error_with(PyMode::List, DEPTH, text)
    }

    #[test]
    fn a_simple_call_reports_its_name_then_its_arguments() {
        let text = "[get_weather(city='San Francisco', metric='celsius')]";
        let (events, consumed) = read(text);
        assert_eq!(consumed, text.len());
        assert_eq!(
            events,
            [
                PyEvent::Start {
                    name: "get_weather".into(),
                    at: 1
                },
                PyEvent::Args(r#"{"city":"San Francisco","metric":"celsius"}"#.into()),
                PyEvent::End {
                    arguments: json!({"city": "San Francisco", "metric": "celsius"}),
                    at: text.len() - 1
                },
            ]
        );
    }

    #[test]
    fn parallel_calls_with_every_kind_of_value() {
        let text = "[get_weather(city='San Francisco', metric='celsius'), \
            register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, \
            role=None, passed_test=True, aliases=['John', 'Johnny'])]";
        let (events, _) = read(text);
        assert_eq!(
            events[4],
            PyEvent::Args(
                r#"{"name":"John Doe","age":37,"address":{"city":"San Francisco","state":"CA"},"role":null,"passed_test":true,"aliases":["John","Johnny"]}"#
                    .into()
            )
        );
        let got = calls(text);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, "register_user");
        assert_eq!(got[1].1["address"]["state"], "CA");
    }

    #[test]
    fn parameterless_calls_empty_containers_and_an_empty_list() {
        assert_eq!(
            calls("[get_weather()]"),
            [("get_weather".into(), json!({}))]
        );
        assert_eq!(args("additional_data={}"), json!({"additional_data": {}}));
        assert_eq!(args("steps=[]"), json!({"steps": []}));
        assert_eq!(args("a=1,"), json!({"a": 1}), "a trailing comma");
        assert_eq!(calls("[]"), []);
        assert_eq!(calls(" [ \n ] "[..6].trim_start()), []);
        let (events, consumed) = read("  [ping(), pong( ) ,]\nThen some text.");
        assert_eq!(consumed, 21);
        assert_eq!(events.len(), 6);
    }

    #[test]
    fn escapes_are_read_as_python_reads_them() {
        let a = args(r#"city='Martha\'s Vineyard', metric='\"cool units\"'"#);
        assert_eq!(
            a,
            json!({"city": "Martha's Vineyard", "metric": "\"cool units\""})
        );
        let a =
            args(r#"text="She said \"Hello\" to him", mixed="It's \"quoted\"", single='say "hi"'"#);
        assert_eq!(a["text"], "She said \"Hello\" to him");
        assert_eq!(a["mixed"], "It's \"quoted\"");
        assert_eq!(a["single"], "say \"hi\"");
        let a = args(
            r"a='x\ny\tz', b='caf\u00e9', c='\x41\102', d='\d\\', e='\U0001F600\ud83d\ude00', f='\a\v\0', g='one \
two'",
        );
        assert_eq!(a["a"], "x\ny\tz");
        assert_eq!(a["b"], "café");
        assert_eq!(a["c"], "AB");
        assert_eq!(a["d"], "\\d\\", "an unknown escape keeps its backslash");
        assert_eq!(a["e"], "😀😀");
        assert_eq!(a["f"], "\u{7}\u{b}\u{0}");
        assert_eq!(a["g"], "one two", "a line continuation");
        let a = args(r"path=r'C:\new\table', q=r'it\'s', u=u'x', tab='a	b'");
        assert_eq!(a["path"], r"C:\new\table");
        assert_eq!(a["q"], r"it\'s");
        assert_eq!(a["u"], "x");
        assert_eq!(a["tab"], "a\tb");
        let a = args(
            r#"city="São Paulo", k="array[0] lookup", e="he said \"]\" loudly", x="(2 + 3) * (4 - 1)""#,
        );
        assert_eq!(a["city"], "São Paulo");
        assert_eq!(a["k"], "array[0] lookup");
        assert_eq!(a["e"], r#"he said "]" loudly"#);
        assert_eq!(a["x"], "(2 + 3) * (4 - 1)");
    }

    #[test]
    fn triple_quoted_and_adjacent_strings() {
        let a = args("a='''line one\nit's \"two\"''', b=\"\"\"x\"y\"\"z\"\"\", c='''''', d=''");
        assert_eq!(a["a"], "line one\nit's \"two\"");
        assert_eq!(a["b"], "x\"y\"\"z");
        assert_eq!(a["c"], "");
        assert_eq!(a["d"], "");
        let a = args("text='one, ' \"two, \"\n   'three', k={'a' 'b': 1}");
        assert_eq!(a["text"], "one, two, three");
        assert_eq!(a["k"], json!({"ab": 1}));
    }

    #[test]
    fn nested_lists_dicts_and_tuples() {
        let a = args(r#"data=[[1, 2], [3, 4]], labels=["row[0]", "row[1]"]"#);
        assert_eq!(
            a,
            json!({"data": [[1, 2], [3, 4]], "labels": ["row[0]", "row[1]"]})
        );
        let a = args(
            r#"config={"patterns": ["[a-z]+", "[0-9]+"], "nested": {"list": [1, [2, 3]]}, 'z': {},}"#,
        );
        assert_eq!(
            a,
            json!({"config": {"patterns": ["[a-z]+", "[0-9]+"], "nested": {"list": [1, [2, 3]]}, "z": {}}})
        );
        let a = args(
            "a=(1, 2), b=(1,), c=(), d=(1), e=((1, 2)), g=((1), (2,)), h=[(\"x\")], i=((('s')))",
        );
        assert_eq!(
            a,
            json!({"a": [1, 2], "b": [1], "c": [], "d": 1, "e": [1, 2], "g": [1, [2]], "h": ["x"], "i": "s"})
        );
        let a = args("m={'b': 1, 'a': 2, 'b': 3}");
        assert_eq!(
            a.to_string(),
            r#"{"m":{"b":3,"a":2}}"#,
            "the last of a repeated key, in first place"
        );
    }

    #[test]
    fn python_and_json_literals() {
        let a = args(
            "enabled=True, disabled=False, optional=None, t=true, f=false, n=null, l=[True, None]",
        );
        assert_eq!(
            a,
            json!({"enabled": true, "disabled": false, "optional": null, "t": true, "f": false, "n": null, "l": [true, null]})
        );
    }

    #[test]
    fn numbers_become_json_numbers() {
        let a = args(
            "a=-1, b=2.75, c=-2.5e-3, d=1e5, e=1E+5, f=1., g=.5, h=-.5, i=0, j=00, k=1_000, \
             l=0x1f, m=0o17, n=0b101, o=1.e3, p=007.5, q=-0, r=+3, s=0.0, t=1_0.2_5",
        );
        let want = json!({"a": -1, "b": 2.75, "c": -2.5e-3, "d": 1e5, "e": 1e5, "f": 1.0, "g": 0.5,
            "h": -0.5, "i": 0, "j": 0, "k": 1000, "l": 31, "m": 15, "n": 5, "o": 1e3, "p": 7.5, "q": 0,
            "r": 3, "s": 0.0, "t": 10.25});
        assert_eq!(a, want);
        let (events, _) = read("[f(f=1., g=.5, o=1.e3, big=123456789012345678901234567890)]");
        assert_eq!(
            events[1],
            PyEvent::Args(
                r#"{"f":1.0,"g":0.5,"o":1.0e3,"big":123456789012345678901234567890}"#.into()
            )
        );
    }

    #[test]
    fn dotted_names_and_a_single_call() {
        assert_eq!(
            calls("[functions.get_weather(city=\"Paris\")]")[0].0,
            "functions.get_weather"
        );
        assert_eq!(calls("[get-weather (city=\"Paris\")]")[0].0, "get-weather");
        let text = " brave_search.call(query=\"weather in Menlo Park\")<|eom_id|>";
        let (events, consumed) = read_with(PyMode::Call, DEPTH, text);
        assert_eq!(consumed, text.find("<|").unwrap_or(0));
        assert_eq!(
            events.first(),
            Some(&PyEvent::Start {
                name: "brave_search.call".into(),
                at: 1
            })
        );
        assert_eq!(
            events.last(),
            Some(&PyEvent::End {
                arguments: json!({"query": "weather in Menlo Park"}),
                at: consumed
            })
        );
        let (events, consumed) = read_with(PyMode::Call, DEPTH, "wolfram_alpha.call()\n");
        assert_eq!((events.len(), consumed), (3, 20));
    }

    #[test]
    fn multi_line_lists_and_unicode() {
        let text =
            "[web_search(query=\"latest Rust features\", max_results=3, safe_search=True),\n \
            calculate(expression=\"42 * 3.14159\", precision=2),\n \
            météo(ville='Zürich 🌧', degrés=-3.5)\n]";
        let got = calls(text);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[2],
            ("météo".into(), json!({"ville": "Zürich 🌧", "degrés": -3.5}))
        );
    }

    #[test]
    fn white_space_alone_is_at_rest() {
        assert_eq!(read(" \n\t"), (Vec::new(), 3));
        let mut r = PyCalls::new(PyMode::List, DEPTH);
        let mut events = Vec::new();
        assert_eq!(r.feed(" \n\t", &mut events), 3);
        assert!(r.at_rest() && !r.done());
        r.finish(&mut events);
        assert!(events.is_empty());
        assert_eq!(r.feed("[", &mut events), 1);
        assert!(!r.at_rest());
    }

    #[test]
    fn string_arguments_stream_as_they_arrive() {
        let mut r = PyCalls::new(PyMode::List, DEPTH);
        let mut events = Vec::new();
        r.feed("[search(q='ab\\", &mut events);
        assert_eq!(
            events,
            [
                PyEvent::Start {
                    name: "search".into(),
                    at: 1
                },
                PyEvent::Args(r#"{"q":"ab"#.into())
            ]
        );
        events.clear();
        r.feed("x4", &mut events);
        assert!(events.is_empty(), "an escape cut by the piece is held");
        r.feed("1c", &mut events);
        assert_eq!(events, [PyEvent::Args("Ac".into())]);
        events.clear();
        // A number waits for its end; a parenthesised value for its comma.
        r.feed("', n=12", &mut events);
        assert_eq!(events, [PyEvent::Args(r#"","n":"#.into())]);
        events.clear();
        r.feed(", t=(1", &mut events);
        assert_eq!(events, [PyEvent::Args(r#"12,"t":"#.into())]);
        events.clear();
        r.feed(", 2))]", &mut events);
        assert_eq!(events[0], PyEvent::Args("[1,2]}".into()));
        assert!(r.done());
        assert_eq!(
            args(r"q='ab\x41c', n=12, t=(1, 2)"),
            json!({"q": "abAc", "n": 12, "t": [1, 2]})
        );
    }

    #[test]
    fn a_20_kb_string_in_4_byte_pieces_streams_in_many_pieces() {
        let body: String = (0..20_000)
            .map(|i| ['a', 'é', '"', 'z', '\t'][i % 5])
            .collect();
        let text = format!("[write(path='out.txt', content='''{body}''')]");
        let pieces: Vec<&str> = {
            let mut v = Vec::new();
            let mut at = 0;
            while at < text.len() {
                let mut end = (at + 4).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                v.push(&text[at..end]);
                at = end;
            }
            v
        };
        let (events, consumed) = feed_pieces(PyMode::List, DEPTH, pieces);
        assert_eq!(consumed, text.len());
        check_shape(&events);
        let n = events
            .iter()
            .filter(|e| matches!(e, PyEvent::Args(_)))
            .count();
        assert!(n > 4_000, "{n} Args events");
        match events.last() {
            Some(PyEvent::End { arguments, .. }) => assert_eq!(arguments["content"], body.as_str()),
            other => panic!("{other:?}"),
        }
        // And at every other splitting, the same.
        assert_eq!(calls(&text)[0].1["content"], body.as_str());
    }

    #[test]
    fn nesting_at_the_limit_is_read_and_beyond_it_refused() {
        let (events, _) = read_with(PyMode::List, 3, "[f(a=[[1]])]");
        assert!(
            matches!(events.last(), Some(PyEvent::End { .. })),
            "{events:?}"
        );
        let (message, at) = error_with(PyMode::List, 3, "[f(a=[[{'k': 1}]])]");
        assert_eq!(at, 7);
        assert_eq!(
            message,
            "arguments nested deeper than 3 levels in argument `a` of call `f`"
        );
        let deep = format!("[f(a={}", "[".repeat(100_000));
        let (message, at) = error_with(PyMode::List, 128, &deep);
        assert_eq!(at, 5 + 127);
        assert!(
            message.starts_with("arguments nested deeper than 128 levels"),
            "{message}"
        );
        let deep = "[".repeat(100_000);
        let (message, at) = error(&deep);
        assert_eq!(at, 1);
        assert_eq!(
            message,
            "expected a call (`name(…)`) or `]` in the list of calls, found `[`"
        );
        let deep = format!("[f(a={}", "(".repeat(100_000));
        assert_eq!(error_with(PyMode::List, 128, &deep).1, 5 + 127);
    }

    #[test]
    fn calls_as_values_are_refused() {
        let (message, at) = error("[f(a=g(1))]");
        assert_eq!(at, 6);
        assert_eq!(
            message,
            "a call `g(…)` in argument `a` of call `f` is not read: calls inside arguments are refused (write the value as a literal)"
        );
        assert!(error("[f(a=[1, math.floor (2.5)])]")
            .0
            .starts_with("a call `math.floor(…)`"));
        let (message, _) = error("[f(a=float('inf'))]");
        assert!(message.starts_with("a call `float(…)`"), "{message}");
    }

    #[test]
    fn positional_arguments_are_refused() {
        assert_eq!(
            error("[f(1)]"),
            (
                "positional argument 1 in call `f` is not read: expected an argument name (arguments are written `name=value`), found `1`".into(),
                3
            )
        );
        let (message, at) = error("[search(q='x', \"more\")]");
        assert_eq!(at, 15);
        assert!(
            message.starts_with("positional argument 2 in call `search`"),
            "{message}"
        );
        assert_eq!(
            error("[search(q)]").0,
            "expected `=` after argument name `q` in call `search`, found `)`: positional argument 1 is not read (arguments are written `name=value`)"
        );
        assert!(error("[f(g(1))]")
            .0
            .starts_with("positional argument 1 in call `f` is a call `g(…)`"));
        assert_eq!(
            error("[f(**kw)]").0,
            "expected an argument (`name=value`) or `)` in call `f`, found `*`"
        );
    }

    #[test]
    fn a_cut_off_call_is_an_error_at_finish() {
        let text = "[f(a='abc";
        let (events, _) = read(text);
        assert_eq!(
            events,
            [
                PyEvent::Start {
                    name: "f".into(),
                    at: 1
                },
                PyEvent::Args(r#"{"a":"abc"#.into()),
                PyEvent::Error {
                    message: "expected the closing `'` of a string in argument `a` of call `f`, found the end of the text".into(),
                    at: text.len()
                }
            ]
        );
        assert_eq!(
            error("[f(a='''abc''").0,
            "expected the closing `'''` of a string in argument `a` of call `f`, found the end of the text"
        );
        assert_eq!(
            error("[f(a=1").0,
            "expected `,` or `)` after argument `a` in call `f`, found the end of the text"
        );
        assert_eq!(
            error("[f(a=[1, 2").0,
            "expected `,` or `]` in argument `a` of call `f`, found the end of the text"
        );
        assert_eq!(
            error("[f(), g").0,
            "expected `(` after call name `g`, found the end of the text"
        );
        assert_eq!(
            error("[f()").0,
            "expected `,` or `]` after call `f`, found the end of the text"
        );
        let (events, _) = read_with(PyMode::Call, DEPTH, "  ");
        assert!(events.is_empty(), "white space alone is no error");
    }

    #[test]
    fn what_is_not_a_list_of_calls_is_an_error_at_its_first_byte() {
        assert_eq!(
            error("[1, 2]"),
            (
                "expected a call (`name(…)`) or `]` in the list of calls, found `1`".into(),
                1
            )
        );
        assert_eq!(
            error("[foo bar]"),
            ("expected `(` after call name `foo`, found `b`".into(), 5)
        );
        assert_eq!(
            error("[foo]"),
            ("expected `(` after call name `foo`, found `]`".into(), 4)
        );
        assert_eq!(
            error("Sure! [f()]"),
            ("expected `[` to open a list of calls, found `S`".into(), 0)
        );
        assert_eq!(
            error("[foo.(x=1)]").0,
            "`foo.` is not a call name: each part between dots must begin with a letter or `_`"
        );
        assert_eq!(
            error_with(PyMode::Call, DEPTH, "{\"name\": 1}"),
            ("expected a call (`name(…)`), found `{`".into(), 0)
        );
        assert_eq!(
            error("[f(a=1])]"),
            (
                "expected `,` or `)` after argument `a` in call `f`, found `]`".into(),
                6
            )
        );
        assert_eq!(
            error("[f(a=[1)]"),
            (
                "expected `,` or `]` in argument `a` of call `f`, found `)`".into(),
                7
            )
        );
        assert_eq!(
            error("[f() g()]").0,
            "expected `,` or `]` after call `f`, found `g`"
        );
    }

    #[test]
    fn values_python_reads_but_json_cannot_carry_are_refused() {
        let cases = [
            ("a=x", "a name `x` in argument `a` of call `f` where a value was expected"),
            ("a=math.pi", "a name `math.pi` in argument `a` of call `f`"),
            ("a=b'z'", "a bytes literal (prefix `b`) in argument `a` of call `f`, which is not read"),
            ("a=f'{x}'", "an f-string (prefix `f`)"),
            ("a=1j", "a complex number `1j`, which JSON cannot carry, in argument `a`"),
            ("a=012", "a number with a leading zero (`012`)"),
            ("a=1e999", "a number out of range (`1e999`) in argument `a` of call `f`"),
            ("a=1e", "`1e` is not a number Python reads in argument `a`"),
            ("a=1__0", "`1__0` is not a number Python reads"),
            ("a=- 1", "expected a digit after `-` in argument `a`"),
            ("a='one\ntwo'", "a line break inside a string in `'` quotes in argument `a` of call `f`: write it as \\n, or use triple quotes"),
            ("a='\\ud83d'", "a lone surrogate \\ud83d in a string in argument `a` of call `f`, which JSON cannot carry"),
            ("a='\\ude00x'", "a lone surrogate \\ude00"),
            ("a='\\ud83dx'", "a lone surrogate \\ud83d"),
            ("a='\\xg1'", "expected two hex digits after \\x (in argument `a` of call `f`), found `g`"),
            ("a='\\N{DASH}'", "a \\N{…} escape, which is not read: write the character itself (in argument `a` of call `f`), found `N`"),
            ("a={1: 2}", "expected a string key or `}` in a dict in argument `a` of call `f`, found `1` (dict keys must be strings)"),
            ("a={'k' 1}", "expected `:` after a dict key in argument `a` of call `f`, found `1`"),
            ("a=1, a=2", "argument `a` given twice in call `f`"),
            ("a=)", "expected a value in argument `a` of call `f`, found `)`"),
            ("a=[1,,2]", "expected a value or `]` in argument `a` of call `f`, found `,`"),
            ("a==1", "expected a value in argument `a` of call `f`, found `=`"),
            ("a=“x”", "a name `“x”` in argument `a`"),
        ];
        for (inner, want) in cases {
            let (message, _) = error(&format!("[f({inner})]"));
            assert!(message.starts_with(want), "{inner}: {message}");
        }
    }

    /// A random Python literal of depth at most `depth`, written in a random
    /// style, and the JSON value it stands for.
    fn gen_value(rng: &mut crate::chunking::Rng, depth: usize) -> (String, Value) {
        let pick = rng.below(if depth == 0 { 4 } else { 7 });
        let sp = |rng: &mut crate::chunking::Rng| [" ", "", "\n  ", ""][rng.below(4)];
        match pick {
            0 => gen_string(rng),
            1 => {
                const NUMS: &[(&str, f64)] = &[
                    ("1.", 1.0),
                    (".5", 0.5),
                    ("1e3", 1000.0),
                    ("-2.5e-3", -0.0025),
                    ("6.25E+2", 625.0),
                    ("0.0", 0.0),
                ];
                match rng.below(4) {
                    0 => {
                        let (t, v) = NUMS[rng.below(NUMS.len())];
                        (t.to_owned(), json!(v))
                    }
                    1 => ("1_000".into(), json!(1000)),
                    2 => ("0x1F".into(), json!(31)),
                    _ => {
                        let n = rng.below(2001) as i64 - 1000;
                        (n.to_string(), json!(n))
                    }
                }
            }
            2 => {
                let (t, v) = [
                    ("True", json!(true)),
                    ("false", json!(false)),
                    ("None", Value::Null),
                    ("null", Value::Null),
                ][rng.below(4)]
                .clone();
                (t.to_owned(), v)
            }
            3 => {
                let (t, v) = gen_string(rng);
                let (u, w) = gen_string(rng);
                let (Value::String(a), Value::String(b)) = (v, w) else {
                    unreachable!()
                };
                (format!("{t}{}{u}", sp(rng)), Value::String(a + &b))
            }
            4 | 5 => {
                let n = rng.below(4);
                let mut items = Vec::new();
                let mut parts = Vec::new();
                for _ in 0..n {
                    let (t, v) = gen_value(rng, depth - 1);
                    parts.push(format!("{}{t}", sp(rng)));
                    items.push(v);
                }
                let trailing = if n > 0 && rng.below(3) == 0 { "," } else { "" };
                let tuple = pick == 5;
                let text = if tuple && n == 1 {
                    format!("({},{})", parts[0], sp(rng))
                } else if tuple {
                    format!("({}{trailing})", parts.join(","))
                } else {
                    format!("[{}{trailing}{}]", parts.join(","), sp(rng))
                };
                (text, Value::Array(items))
            }
            _ => {
                let n = rng.below(4);
                let mut map = Map::new();
                let mut parts = Vec::new();
                for k in 0..n {
                    let (t, v) = gen_value(rng, depth - 1);
                    let q = ["'", "\""][rng.below(2)];
                    parts.push(format!("{}{q}k{k}{q}{}:{}{t}", sp(rng), sp(rng), sp(rng)));
                    map.insert(format!("k{k}"), v);
                }
                (format!("{{{}}}", parts.join(",")), Value::Object(map))
            }
        }
    }

    /// A random string literal, quoted and escaped in a random style.
    fn gen_string(rng: &mut crate::chunking::Rng) -> (String, Value) {
        const CHARS: &[char] = &[
            'a', 'Z', ' ', '\'', '"', '\\', '\n', '\t', 'é', '😀', ']', ')',
        ];
        let value: String = (0..rng.below(12))
            .map(|_| CHARS[rng.below(CHARS.len())])
            .collect();
        let q = ["'", "\"", "'''", "\"\"\""][rng.below(4)];
        let triple = q.len() == 3;
        let mut text = String::from(q);
        for c in value.chars() {
            let escaped = rng.below(3) == 0;
            match c {
                '\\' => text.push_str("\\\\"),
                '\'' | '"' if q.starts_with(c) => {
                    text.push('\\');
                    text.push(c);
                }
                '\n' if !triple || escaped => text.push_str("\\n"),
                'a' if escaped => text.push_str("\\x61"),
                'é' if escaped => text.push_str("\\u00e9"),
                '😀' if escaped => text.push_str(["\\U0001F600", "\\ud83d\\ude00"][rng.below(2)]),
                '\t' if escaped => text.push_str("\\t"),
                _ => text.push(c),
            }
        }
        text.push_str(q);
        (text, Value::String(value))
    }

    #[test]
    fn random_literals_read_as_the_values_they_stand_for() {
        let mut rng = crate::chunking::Rng::new(7);
        for _ in 0..150 {
            let mut want = Map::new();
            let mut text = String::from("[f(");
            for k in 0..rng.below(4) {
                let (t, v) = gen_value(&mut rng, 3);
                text.push_str(&format!("a{k}={t}, "));
                want.insert(format!("a{k}"), v);
            }
            text.push_str(")]");
            assert_eq!(args_of(&text), Value::Object(want), "{text}");
        }
    }

    #[test]
    fn random_token_soup_reads_the_same_at_every_splitting() {
        // Never a panic, and the same events however the text is cut.
        const TOKENS: &[&str] = &[
            "[", "]", "(", ")", "{", "}", "f", "g.h", "a", "b", "=", ",", " ", "'", "\"", "'''",
            "\\", "x41", "u00e9", "ud83d", "ude00", "1", ".", "e", "-", "True", "None", "é", "\n",
            ":", "r", "0x", "_", "2", "'k': ", "a=", "x=(", "y=[",
        ];
        let mut rng = crate::chunking::Rng::new(42);
        for n in 0..400 {
            let mut text = String::from(["[f(", "[", "f(", ""][n % 4]);
            for _ in 0..rng.next_in(30) {
                text.push_str(TOKENS[rng.below(TOKENS.len())]);
            }
            read_with(PyMode::List, 8, &text);
            read_with(PyMode::Call, 8, &text);
        }
    }

    #[test]
    fn after_an_error_nothing_more_is_reported() {
        let mut r = PyCalls::new(PyMode::List, DEPTH);
        let mut events = Vec::new();
        assert_eq!(r.feed("[f(a=1), g(x)] and more", &mut events), 23);
        let n = events.len();
        assert!(
            matches!(events.last(), Some(PyEvent::Error { at: 12, .. })),
            "{events:?}"
        );
        assert!(
            matches!(events[2], PyEvent::End { .. }),
            "the first call is whole"
        );
        assert_eq!(r.feed("[g(a=1)]", &mut events), 8);
        r.finish(&mut events);
        assert_eq!(events.len(), n);
        assert_eq!(merge(&read("[f(a=1), g(x)] and more").0), merge(&events));
    }
}
