//! Reading one call section: choosing its form by the first content byte,
//! reading its calls (names as soon as they are known, arguments as they
//! are written), and ending it as one block.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{DState, DialectMachine};
use crate::dialect::compiled::{Form, NameEnd, ParamMark, SectionC};
use crate::dialect::value::{convert_noting_repairs, property_type, streams_as_string, ValueType};
use crate::dialect::ValueKind;
use crate::event::{
    Action, ActionError, ActionId, ErrorKind, Event, InvalidAction, Repair, RepairKind, Span,
    Syntax,
};
use crate::parser::emit::Emit;
use crate::parser::ending::{validate, LineWalk};
use crate::parser::state::{Flow, Shared};
use crate::scan::json::JsonScanner;
use crate::scan::markers::{MarkerSet, MarkerState};
use crate::scan::naming::Naming;
use crate::scan::python::{PyCalls, PyEvent, PyMode};

/// The most white space that may stand between a section without a closer
/// and its trailer marker.
const TRAILER_SPACE: usize = 256;

/// One call of a section.
#[derive(Debug, Default)]
struct Call {
    /// Its id once started.
    id: Option<u64>,
    name: Option<String>,
    call_id: Option<String>,
    /// Its arguments once read, or why they cannot be.
    args: Option<Result<Value, ActionError>>,
    /// Arguments of a parameter form, as they are read.
    params: Map<String, Value>,
    /// Argument deltas from a JSON copy.
    compact: Compact,
    /// Some argument delta went out.
    sent: bool,
}

/// Where a section's reading is.
#[derive(Debug)]
enum Read {
    /// White space after the opener: the first byte chooses the form.
    Open,
    /// Between calls: a call marker or the closer.
    Between,
    /// A JSON form's value; `slots` maps the scanner's slots to calls.
    Json {
        scanner: Box<JsonScanner>,
        slots: Vec<usize>,
    },
    /// After a JSON value that ended at `at`.
    JsonAfter {
        at: usize,
    },
    /// After a joiner: the next value.
    JsonNext,
    /// A named form's name, from `Sec::mark`.
    Name,
    /// Its call id.
    Id,
    /// Its arguments.
    Args(Box<JsonScanner>),
    ArgsEnd,
    CallEnd,
    /// A parameter form's name.
    PName,
    /// Between parameters.
    Params,
    /// A key from `Sec::mark`.
    Key,
    /// Before a value (GLM's `<arg_value>`).
    ValueOpen {
        key: String,
        kind: ValueKind,
    },
    /// A value from `from`.
    Value {
        key: String,
        kind: ValueKind,
        from: usize,
        /// Streamed as a JSON string up to this offset, once decided.
        streamed: Option<usize>,
    },
    /// Python calls.
    Python(Box<PyCalls>),
    /// Between Python calls written one per line.
    PyLines,
    /// Only the section closer may come.
    Close,
    /// A closerless section ended at `at`; a trailer marker may follow.
    Trailer {
        at: usize,
    },
}

/// A section being read.
#[derive(Debug)]
pub(super) struct Sec {
    idx: usize,
    from: usize,
    form: Option<usize>,
    read: Read,
    calls: Vec<Call>,
    /// The reasoning to go back to, if the section opened inside it.
    reasoning: Option<Option<usize>>,
    /// A response-start block not yet known to hold calls.
    tentative: bool,
    /// Start of the name, key or id being read.
    mark: usize,
    /// Where the current JSON scanner began.
    json_from: usize,
    /// Repairs in the section, as (kind, offset in the response).
    repairs: Vec<(RepairKind, usize)>,
    /// Errors that broke the section, for the call being read.
    broken: Option<ActionError>,
    /// Where text that must be white space began (after a value, until
    /// the next marker), and whether stray text there is the last call's
    /// error (else an action of its own).
    stray: Option<(usize, Stray)>,
    /// The search for a closer inside the value being read.
    watch: Option<Watch>,
    /// The first closer found inside it: start, end, and whether it ends
    /// only the call (else the section).
    first_close: Option<(usize, usize, bool)>,
}

/// A search for the first closer inside a value (a closer in a JSON string
/// does not close the section; if the value then breaks, or is cut off,
/// the section ends at that first closer: contract, section 2).
#[derive(Debug)]
struct Watch {
    /// Searched up to here.
    upto: usize,
    ms: MarkerState,
    /// The closer watched for is the call's end marker (else the
    /// section's closer).
    call_end: bool,
}

/// Where text that must be white space stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stray {
    /// After a call's arguments: the call's error.
    AfterCall,
    /// Between a call's parameters: the call's error.
    InCall,
    /// After a JSON form's values: an action of its own.
    AfterValues,
}

impl DialectMachine {
    /// A harmony message addressed to `recipient`, whose content begins
    /// at `content`: a call (section `idx`) whose arguments are the message.
    pub(super) fn open_harmony_call(
        &mut self,
        idx: usize,
        from: usize,
        content: usize,
        recipient: String,
        emit: &mut Emit<'_>,
    ) {
        self.open_section(idx, from, content, false, None);
        let DState::Section(mut sec) = std::mem::replace(&mut self.state, DState::Detached) else {
            return;
        };
        let name = recipient
            .strip_prefix("functions.")
            .unwrap_or(&recipient)
            .to_owned();
        sec.form = Some(0);
        let id = emit.start(Some(name.clone()), Syntax::Dialect, self.c.tag(idx));
        sec.calls.push(Call {
            id: Some(id),
            args: no_name(&name),
            name: Some(name),
            // The arguments stream from the message's first byte.
            compact: Compact::from(0),
            ..Call::default()
        });
        sec.json_from = content;
        self.watch_from(&mut sec, content);
        sec.read = Read::Args(new_scanner(&self.shared, Arc::from(Vec::new())));
        self.state = DState::Section(sec);
    }
}

fn new_scanner(shared: &Shared, names: Arc<[String]>) -> Box<JsonScanner> {
    Box::new(JsonScanner::new(
        Naming::Generic,
        shared.cfg.strict,
        shared.cfg.max_depth,
        names,
    ))
}

/// Compact JSON from a scanner's repaired copy: white space outside strings
/// dropped, stopping where the value that begins at `at` ends.
#[derive(Debug, Default, Clone)]
struct Compact {
    at: Option<usize>,
    depth: usize,
    in_str: bool,
    esc: bool,
    /// The value is not an object: nothing is sent until the call ends.
    refused: bool,
    done: bool,
}

impl Compact {
    fn from(at: usize) -> Compact {
        Compact {
            at: Some(at),
            ..Compact::default()
        }
    }

    /// Appends the compact form of `copy[at..upto]` to `out`.
    fn advance(&mut self, copy: &str, upto: usize, out: &mut String) {
        let Some(mut i) = self.at else { return };
        if self.refused || self.done {
            return;
        }
        let bytes = copy.as_bytes();
        let upto = upto.min(bytes.len());
        let mut keep = i;
        while i < upto {
            let b = bytes[i];
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if b == b'\\' {
                    self.esc = true;
                } else if b == b'"' {
                    self.in_str = false;
                }
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                out.push_str(&copy[keep..i]);
                keep = i + 1;
            } else {
                if self.depth == 0 && b != b'{' {
                    self.refused = true;
                    return;
                }
                match b {
                    b'"' => self.in_str = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            i += 1;
                            self.done = true;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        out.push_str(&copy[keep..i]);
        self.at = Some(i);
    }
}

/// The argument deltas of the last started call of a JSON form, as far as
/// its scanner's copy is settled. They stream from the value of the
/// object's first arguments key when that is one of the form's argument
/// keys (the key [`json_arguments`] then takes); otherwise the arguments go
/// out whole when the call ends.
fn json_deltas(
    scanner: &JsonScanner,
    slots: &[usize],
    calls: &mut [Call],
    keys: &[String],
    emit: &mut Emit<'_>,
) {
    let Some(si) = slots.iter().rposition(|&c| c != usize::MAX) else {
        return;
    };
    let call = &mut calls[slots[si]];
    // Keys the scanner does not know as arguments keys could still come
    // first: then nothing streams.
    let known = keys
        .iter()
        .all(|k| matches!(k.as_str(), "arguments" | "parameters" | "input"));
    if call.compact.at.is_none() && known {
        let slot = scanner.slot(si);
        let first_key = slot.and_then(|s| s.args_at().first()).map(|(k, _)| *k);
        if first_key.is_some_and(|k| keys.iter().any(|x| x == k)) {
            if let Some(at) = slot.and_then(|s| s.args_out()) {
                call.compact = Compact::from(at);
            }
        }
    }
    let mut piece = String::new();
    call.compact
        .advance(scanner.repaired(), scanner.settled(), &mut piece);
    if !piece.is_empty() {
        call.sent = true;
        if let Some(id) = call.id {
            emit.push(Event::ArgumentsDelta {
                id: ActionId(id),
                json: piece,
            });
        }
    }
}

/// A JSON string's text (quotes and escapes) for `s`.
fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A string's escaped content, without the quotes.
fn json_str_body(s: &str) -> String {
    let q = json_str(s);
    q.get(1..q.len().saturating_sub(1)).unwrap_or("").to_owned()
}

impl DialectMachine {
    /// Opens section `idx`, whose opener runs `[from, content)`.
    pub(super) fn open_section(
        &mut self,
        idx: usize,
        from: usize,
        content: usize,
        tentative: bool,
        reasoning: Option<Option<usize>>,
    ) {
        self.start = from;
        self.pos = content;
        self.state = DState::Section(Box::new(Sec {
            idx,
            from,
            form: None,
            read: Read::Open,
            calls: Vec::new(),
            reasoning,
            tentative,
            mark: content,
            json_from: content,
            repairs: Vec::new(),
            broken: None,
            stray: None,
            watch: None,
            first_close: None,
        }));
    }

    pub(super) fn section(&mut self, emit: &mut Emit<'_>) -> Flow {
        let DState::Section(mut sec) = std::mem::replace(&mut self.state, DState::Detached) else {
            return Flow::Go;
        };
        // The readers see the section up to the limit: when they have read
        // all of that and more text follows, the section outgrows it there,
        // whatever the chunks.
        let limit = self.shared.cfg.max_block_bytes;
        self.cap = Some(sec.from.saturating_add(limit));
        let flow = self.section_step(&mut sec, emit);
        let capped = self.end();
        self.cap = None;
        if matches!(self.state, DState::Detached) {
            if self.pos >= capped && capped < self.end() {
                if sec.tentative {
                    // Not known to be a call within the limit: narrative.
                    self.tentative_fails(&mut sec, capped, emit);
                } else {
                    self.too_large(sec, emit);
                }
                return Flow::Go;
            }
            self.state = DState::Section(sec);
        }
        flow
    }

    fn section_step(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        let end = self.end();
        match &mut sec.read {
            Read::Open => {
                let bytes = self.buf.as_bytes();
                while self.pos < end && bytes[self.pos - self.base].is_ascii_whitespace() {
                    self.pos += 1;
                }
                if self.pos == end {
                    return Flow::Wait;
                }
                let b = bytes[self.pos - self.base];
                let Some(f) = sc.choose(b) else {
                    // Not a call after all: the opener is narrative.
                    self.not_a_section(sec, emit);
                    return Flow::Go;
                };
                sec.form = Some(f);
                self.ms = sc.between.set.begin();
                sec.read = match &sc.forms[f] {
                    Form::Json { .. } => self.json_read(sec, sc),
                    Form::Named { call, .. } if call.is_empty() => {
                        sec.mark = self.pos;
                        self.named_roles_begin(sc, f);
                        Read::Name
                    }
                    Form::Params { call, .. } if call.is_empty() => {
                        sec.mark = self.pos;
                        if let Form::Params { name, .. } = &sc.forms[f] {
                            self.ms = name.set.begin();
                        }
                        Read::PName
                    }
                    Form::Python { list: true } => {
                        sec.json_from = self.pos;
                        self.watch_from(sec, self.pos);
                        Read::Python(self.py(PyMode::List))
                    }
                    Form::Python { list: false } => Read::PyLines,
                    _ => Read::Between,
                };
                Flow::Go
            }
            Read::Between => {
                let Some((role, _, to)) = self.seek(&sc.between) else {
                    return Flow::Wait;
                };
                match role {
                    Some(f) => {
                        sec.form = Some(f);
                        sec.mark = to;
                        match &sc.forms[f] {
                            Form::Named { .. } => {
                                self.named_roles_begin(sc, f);
                                sec.read = Read::Name;
                            }
                            Form::Params { name, .. } => {
                                self.ms = name.set.begin();
                                sec.read = Read::PName;
                            }
                            _ => {}
                        }
                    }
                    None => self.end_section(sec, to, emit),
                }
                Flow::Go
            }
            Read::Json { .. } => self.json_value(sec, emit),
            Read::JsonAfter { at } => {
                let at = *at;
                let bytes = self.buf.as_bytes();
                while self.pos < end && bytes[self.pos - self.base].is_ascii_whitespace() {
                    self.pos += 1;
                }
                if self.pos == end {
                    return Flow::Wait;
                }
                let b = bytes[self.pos - self.base];
                let joiner = match sc.forms.get(sec.form.unwrap_or(0)) {
                    Some(Form::Json { joiner, .. }) => joiner.as_deref(),
                    _ => None,
                };
                if joiner.is_some_and(|j| j.as_bytes() == [b]) {
                    self.pos += 1;
                    sec.read = Read::JsonNext;
                } else if joiner.is_some() && b == b'{' {
                    sec.read = self.json_read(sec, sc);
                } else if matches!(sc.forms.get(sec.form.unwrap_or(0)), Some(Form::Json { .. }))
                    && (b == b'{' || b == b'[')
                {
                    // Another value in the section: JSON Lines (section 3).
                    sec.read = self.json_read(sec, sc);
                } else if sc.close.is_some() {
                    // Only the closer may come; any other text is reported.
                    sec.stray = Some((self.pos, Stray::AfterValues));
                    self.close_only(sec, sc);
                } else if sc.trailer.is_some() {
                    self.pos = at;
                    sec.read = Read::Trailer { at };
                } else {
                    self.end_section(sec, at, emit);
                }
                Flow::Go
            }
            Read::JsonNext => {
                let bytes = self.buf.as_bytes();
                while self.pos < end && bytes[self.pos - self.base].is_ascii_whitespace() {
                    self.pos += 1;
                }
                if self.pos == end {
                    return Flow::Wait;
                }
                if bytes[self.pos - self.base] == b'{' {
                    sec.read = self.json_read(sec, sc);
                } else {
                    // A joiner with no call after it ends the section.
                    let at = self.pos;
                    self.end_section(sec, at, emit);
                }
                Flow::Go
            }
            Read::Close => {
                let Some(set) = &sc.close_set else {
                    let at = self.pos;
                    self.end_section(sec, at, emit);
                    return Flow::Go;
                };
                let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
                let Some(hit) = set.find(&mut self.ms, hay) else {
                    self.pos = end;
                    return Flow::Wait;
                };
                let to = self.pos + hit.end;
                self.pos = to;
                self.check_stray(sec, to - hit.len);
                self.end_section(sec, to, emit);
                Flow::Go
            }
            Read::Trailer { at } => {
                let at = *at;
                let bytes = self.rest().as_bytes();
                let ws = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
                let rest = &bytes[ws..];
                let Some(set) = &sc.trailer else {
                    self.end_section(sec, at, emit);
                    return Flow::Go;
                };
                // A trailer comes after a little white space, or not at all
                // (and the text waited for stays within the block limit).
                let more = self.end() < self.base + self.buf.len();
                if ws > TRAILER_SPACE || (rest.is_empty() && more) {
                    self.end_section(sec, at, emit);
                    return Flow::Go;
                }
                // The trailer must stand first after white space: a bounded
                // look at a marker's length of bytes.
                let mut st = set.begin();
                match set.find(&mut st, rest) {
                    Some(hit) if hit.end == hit.len => {
                        let to = self.pos + ws + hit.end;
                        self.end_section(sec, to, emit);
                    }
                    None if set.held(&st) == rest.len() => {
                        // All of it could still begin the trailer.
                        return Flow::Wait;
                    }
                    _ => self.end_section(sec, at, emit),
                }
                Flow::Go
            }
            Read::Name => self.named_name(sec, emit),
            Read::Id => {
                let Some(Form::Named { after_id, .. }) = sec.form.map(|f| &sc.forms[f]) else {
                    return Flow::Go;
                };
                let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
                match after_id.find(&mut self.ms, hay) {
                    Some(hit) => {
                        let at = self.pos + hit.end - hit.len;
                        let id = self.text(sec.mark, at).trim().to_owned();
                        if let Some(call) = sec.calls.last_mut() {
                            call.call_id = Some(id);
                        }
                        self.pos += hit.end;
                        self.begin_args(sec, self.pos);
                    }
                    None => {
                        self.pos = end;
                        return Flow::Wait;
                    }
                }
                Flow::Go
            }
            Read::Args(_) => self.named_args(sec, emit),
            Read::ArgsEnd | Read::CallEnd => {
                let Some(Form::Named {
                    args_end, end: e, ..
                }) = sec.form.map(|f| &sc.forms[f])
                else {
                    return Flow::Go;
                };
                let set = if matches!(sec.read, Read::ArgsEnd) {
                    args_end
                } else {
                    e
                };
                let Some(set) = set else {
                    self.after_call(sec, emit);
                    return Flow::Go;
                };
                let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
                match set.find(&mut self.ms, hay) {
                    Some(hit) => {
                        self.pos += hit.end;
                        self.check_stray(sec, self.pos - hit.len);
                        if matches!(sec.read, Read::ArgsEnd) {
                            if let Some(e) = e {
                                self.ms = e.begin();
                            }
                            sec.read = Read::CallEnd;
                            if e.is_none() {
                                self.after_call(sec, emit);
                            }
                        } else {
                            self.after_call(sec, emit);
                        }
                        Flow::Go
                    }
                    None => {
                        self.pos = end;
                        Flow::Wait
                    }
                }
            }
            Read::Python(_) => self.python(sec, emit),
            Read::PyLines => {
                let bytes = self.buf.as_bytes();
                while self.pos < end && bytes[self.pos - self.base].is_ascii_whitespace() {
                    self.pos += 1;
                }
                if self.pos == end {
                    return Flow::Wait;
                }
                let b = bytes[self.pos - self.base];
                if b.is_ascii_alphabetic() || b == b'_' {
                    sec.json_from = self.pos;
                    self.watch_from(sec, self.pos);
                    sec.read = Read::Python(self.py(PyMode::Call));
                } else if sc.close.is_some() {
                    sec.stray = Some((self.pos, Stray::AfterValues));
                    self.close_only(sec, sc);
                } else {
                    let at = self.pos;
                    self.end_section(sec, at, emit);
                }
                Flow::Go
            }
            Read::PName | Read::Params => self.params_step(sec, emit),
            Read::Key | Read::ValueOpen { .. } | Read::Value { .. } => self.params_step(sec, emit),
        }
    }

    fn py(&self, mode: PyMode) -> Box<PyCalls> {
        Box::new(PyCalls::new(mode, self.shared.cfg.max_depth))
    }

    /// Python calls: names as their `(` is read, arguments as written.
    fn python(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let Read::Python(reader) = &mut sec.read else {
            return Flow::Go;
        };
        let from = self.pos;
        let mut events = Vec::new();
        let used = reader.feed(
            &self.buf[from - self.base..self.end() - self.base],
            &mut events,
        );
        let done = reader.done();
        self.pos = from + used;
        self.watch_to(sec, self.pos);
        let base = sec.mark;
        let _ = base;
        for e in events {
            match e {
                PyEvent::Start { name, .. } => {
                    // Llama 3.1's built-in tools: `T.call(…)` is a call of `T`.
                    let name = name.strip_suffix(".call").unwrap_or(&name).to_owned();
                    sec.tentative = false;
                    let id = emit.start(Some(name.clone()), Syntax::Dialect, self.c.tag(sec.idx));
                    sec.calls.push(Call {
                        id: Some(id),
                        name: Some(name),
                        ..Call::default()
                    });
                }
                PyEvent::Args(json) => {
                    if self.shared.cfg.argument_deltas {
                        self.param_delta(sec, json, emit);
                    }
                }
                PyEvent::End { arguments, .. } => {
                    if let Some(call) = sec.calls.last_mut() {
                        call.args = Some(Ok(arguments));
                    }
                }
                PyEvent::Error { message, at } => {
                    // Reading goes on at the byte that broke the call,
                    // whatever the reader was given past it.
                    let at = sec.json_from + at;
                    self.pos = at.min(self.end());
                    if sec.tentative {
                        let at = self.pos;
                        self.tentative_fails(sec, at, emit);
                        return Flow::Go;
                    }
                    let e = self.python_error(sec.from, at, &message);
                    if self.rewind(sec, at, e.clone(), emit) {
                        return Flow::Go;
                    }
                    match sec.calls.last_mut() {
                        Some(call) if call.args.is_none() => call.args = Some(Err(e)),
                        _ => sec.broken = Some(e),
                    }
                    if sec.broken.is_some() {
                        sec.calls.push(Call::default());
                    }
                    self.resync(sec, emit);
                    return Flow::Go;
                }
            }
        }
        if !done {
            return Flow::Wait;
        }
        if sec.tentative {
            // `[]`: no call in it.
            let at = self.pos;
            self.tentative_fails(sec, at, emit);
            return Flow::Go;
        }
        let c = self.c.clone();
        match sec.form.map(|f| &c.sections[sec.idx].forms[f]) {
            Some(Form::Python { list: false }) if c.sections[sec.idx].close.is_some() => {
                sec.read = Read::PyLines;
            }
            _ => {
                // After the list only the closer may come.
                sec.stray = Some((self.pos, Stray::AfterValues));
                self.after_call(sec, emit);
            }
        }
        Flow::Go
    }

    fn python_error(&self, block_from: usize, at: usize, message: &str) -> ActionError {
        let raw = self.text(block_from, self.end());
        let (line, column) = LineWalk::new(raw).to(at.saturating_sub(block_from));
        ActionError::new(
            ErrorKind::Syntax,
            "",
            format!("the Python call cannot be read: {message} (line {line}, column {column} of the block)"),
        )
        .with_position(line, column)
    }

    /// A JSON value begins at `pos` (Json form).
    fn json_read(&mut self, sec: &mut Sec, sc: &SectionC) -> Read {
        let names = match sc.forms.get(sec.form.unwrap_or(0)) {
            Some(Form::Json { name_keys, .. }) => name_keys.clone(),
            _ => Arc::from(Vec::new()),
        };
        sec.json_from = self.pos;
        self.watch_from(sec, self.pos);
        Read::Json {
            scanner: new_scanner(&self.shared, names),
            slots: Vec::new(),
        }
    }

    fn json_value(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let end = self.end();
        let Read::Json { scanner, slots } = &mut sec.read else {
            return Flow::Go;
        };
        let done = scanner.feed_value(&self.buf[self.pos - self.base..end - self.base]);
        self.pos = match done {
            Some(used) => self.pos + used,
            None => end,
        };
        let deltas = self.shared.cfg.argument_deltas;
        let keys = match sec.form.map(|f| &self.c.sections[sec.idx].forms[f]) {
            Some(Form::Json { argument_keys, .. }) => argument_keys.as_slice(),
            _ => &[],
        };
        // Calls whose names became certain start now; the call before each
        // gives out its deltas first (its object has ended), so the pieces
        // of one call come together whatever the chunks.
        for i in scanner.take_named() {
            if deltas {
                json_deltas(scanner, slots, &mut sec.calls, keys, emit);
            }
            let name = scanner.slot(i).and_then(|s| s.name()).map(str::to_owned);
            while slots.len() <= i {
                slots.push(usize::MAX);
            }
            sec.tentative = false;
            let id = emit.start(name.clone(), Syntax::Dialect, self.c.tag(sec.idx));
            slots[i] = sec.calls.len();
            sec.calls.push(Call {
                id: Some(id),
                name,
                ..Call::default()
            });
        }
        if deltas {
            json_deltas(scanner, slots, &mut sec.calls, keys, emit);
        }
        let error = scanner.error().cloned();
        let scanned = self.pos;
        self.watch_to(sec, scanned);
        if let Some(err) = error {
            // Reading goes on at the byte that broke the JSON, whatever the
            // scanner was given past it.
            self.pos = (sec.json_from + err.offset).min(end);
            let e = self.json_error(sec.from, sec.json_from + err.offset, &err.message);
            if sec.tentative {
                let at = self.pos;
                self.tentative_fails(sec, at, emit);
                return Flow::Go;
            }
            let at = self.pos;
            if self.rewind(sec, at, e.clone(), emit) {
                return Flow::Go;
            }
            sec.broken = Some(e);
            self.collect_slots(sec);
            if sec.calls.iter().all(|c| c.args.is_some()) {
                // The JSON broke outside any call: an action of its own.
                sec.calls.push(Call::default());
            }
            self.resync(sec, emit);
            return Flow::Go;
        }
        if done.is_none() {
            return Flow::Wait;
        }
        self.collect_slots(sec);
        if sec.tentative && sec.calls.iter().all(|c| c.name.is_none()) {
            let at = self.pos;
            self.tentative_fails(sec, at, emit);
            return Flow::Go;
        }
        sec.tentative = false;
        let sc = &self.c.sections[sec.idx];
        let joiner = matches!(
            sec.form.map(|f| &sc.forms[f]),
            Some(Form::Json {
                joiner: Some(_),
                ..
            })
        );
        if sc.close.is_none() && sc.trailer.is_none() && !joiner {
            // Nothing may follow: the section ends with its value, in
            // the push that delivers the value's last byte.
            let at = self.pos;
            self.end_section(sec, at, emit);
        } else {
            sec.read = Read::JsonAfter { at: self.pos };
        }
        Flow::Go
    }

    /// The values of a JSON form's scanner, made into calls.
    fn collect_slots(&mut self, sec: &mut Sec) {
        let Read::Json { scanner, slots } = &mut sec.read else {
            return;
        };
        let Some(Form::Json {
            name_keys,
            argument_keys,
            id_key,
            ..
        }) = sec.form.map(|f| &self.c.sections[sec.idx].forms[f])
        else {
            return;
        };
        for (kind, at) in scanner.repairs() {
            sec.repairs.push((*kind, sec.json_from + at));
        }
        let broken = scanner.error().is_some();
        let mut taken = scanner.take_slots();
        for (i, slot) in taken.iter_mut().enumerate() {
            let ci = match slots.get(i) {
                Some(&ci) if ci != usize::MAX => ci,
                _ => {
                    sec.calls.push(Call::default());
                    sec.calls.len() - 1
                }
            };
            let call = &mut sec.calls[ci];
            match slot.take_value() {
                Some(Value::Object(mut obj)) => {
                    if call.name.is_none() {
                        call.name = name_keys
                            .iter()
                            .find_map(|k| obj.get(k).and_then(Value::as_str).map(str::to_owned));
                    }
                    if let Some(k) = id_key {
                        call.call_id = obj.get(k).map(|v| match v {
                            Value::String(s) => s.clone(),
                            v => v.to_string(),
                        });
                    }
                    call.args = Some(match call.name {
                        None => Err(ActionError::new(
                            ErrorKind::NoName,
                            "",
                            format!(
                                "the call object has no name: expected a string under {}",
                                name_keys
                                    .iter()
                                    .map(|k| format!("`{k}`"))
                                    .collect::<Vec<_>>()
                                    .join(" or ")
                            ),
                        )),
                        Some(_) => json_arguments(
                            &mut obj,
                            argument_keys,
                            slot.args_at(),
                            &mut sec.repairs,
                            sec.from,
                        ),
                    });
                }
                Some(other) => {
                    call.args = Some(Err(ActionError::new(
                        ErrorKind::Shape,
                        "",
                        format!(
                            "a call must be a JSON object, found {}",
                            crate::validate::type_name(&other)
                        ),
                    )));
                }
                None if broken => {}
                None => {}
            }
        }
    }

    /// After a broken call: on to where the section can go on.
    fn resync(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) {
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        if let Some(Form::Named { end: Some(e), .. }) = sec.form.map(|f| &sc.forms[f]) {
            self.ms = e.begin();
            sec.read = Read::CallEnd;
        } else if sc.close.is_some() {
            self.close_only(sec, sc);
        } else {
            let at = self.pos;
            self.end_section(sec, at, emit);
        }
    }

    /// The marker set a value's first closer is looked for with: the
    /// call's end marker where its form has one, else the section's closer.
    fn watch_set(&self, sec: &Sec, call_end: bool) -> Option<&MarkerSet> {
        let sc = &self.c.sections[sec.idx];
        if call_end {
            match sec.form.map(|f| &sc.forms[f]) {
                Some(Form::Named { end: Some(e), .. }) => Some(e),
                _ => None,
            }
        } else {
            sc.close_set.as_ref()
        }
    }

    /// A value begins at `at`: look for a closer inside it.
    fn watch_from(&mut self, sec: &mut Sec, at: usize) {
        sec.first_close = None;
        let call_end = matches!(
            sec.form.map(|f| &self.c.sections[sec.idx].forms[f]),
            Some(Form::Named { end: Some(_), .. })
        );
        sec.watch = self.watch_set(sec, call_end).map(|set| Watch {
            upto: at,
            ms: set.begin(),
            call_end,
        });
    }

    /// The value has been read up to `upto`: look on for its first closer.
    fn watch_to(&mut self, sec: &mut Sec, upto: usize) {
        if sec.first_close.is_some() {
            return;
        }
        let c = self.c.clone();
        let Some(w) = sec.watch.as_mut() else {
            return;
        };
        if upto <= w.upto {
            return;
        }
        let call_end = w.call_end;
        let set = match c.sections[sec.idx]
            .forms
            .get(sec.form.unwrap_or(usize::MAX))
        {
            Some(Form::Named { end: Some(e), .. }) if call_end => Some(e),
            _ if !call_end => c.sections[sec.idx].close_set.as_ref(),
            _ => None,
        };
        let Some(set) = set else {
            return;
        };
        let hay = &self.buf.as_bytes()[w.upto - self.base..upto - self.base];
        match set.find(&mut w.ms, hay) {
            Some(hit) => {
                let e = w.upto + hit.end;
                sec.first_close = Some((e - hit.len, e, call_end));
            }
            None => w.upto = upto,
        }
    }

    /// The value being read broke at `fail_at` (or was cut off there, or
    /// outgrew the limit) after it passed a closer: the call, or the
    /// section, ends at that first closer with `error`, and what follows it
    /// is read as usual. Not for a section that opened in text read again
    /// after such an end: no text is read more than twice. Whether it went
    /// back.
    fn rewind(
        &mut self,
        sec: &mut Sec,
        fail_at: usize,
        error: ActionError,
        emit: &mut Emit<'_>,
    ) -> bool {
        let Some((s, e, call_end)) = sec.first_close else {
            return false;
        };
        if s >= fail_at || sec.from < self.replayed {
            return false;
        }
        self.replayed = self.replayed.max(fail_at);
        sec.watch = None;
        sec.first_close = None;
        sec.stray = None;
        if matches!(sec.read, Read::Json { .. }) {
            self.collect_slots(sec);
        }
        self.pos = e;
        if call_end {
            if let Some(call) = sec.calls.last_mut() {
                if !call.args.as_ref().is_some_and(Result::is_err) {
                    call.args = Some(Err(error));
                }
            }
            self.after_call(sec, emit);
        } else {
            if sec.calls.iter().all(|c| c.args.is_some()) {
                sec.calls.push(Call::default());
            }
            for call in &mut sec.calls {
                if call.args.is_none() {
                    call.args = Some(Err(error.clone()));
                }
            }
            self.end_section(sec, e, emit);
        }
        true
    }

    /// The error of a value still open at its first closer, cut off or
    /// too large.
    fn open_at_closer(&self, sec: &Sec, why: &str) -> ActionError {
        let closer = sec
            .first_close
            .map(|(s, e, _)| self.text(s, e).to_owned())
            .unwrap_or_default();
        ActionError::new(
            if why.contains("limit") {
                ErrorKind::TooLarge
            } else {
                ErrorKind::CutOff
            },
            "",
            format!("the call's arguments were still open at the first `{closer}` and {why}"),
        )
    }

    /// Only the section's closer may come now.
    fn close_only(&mut self, sec: &mut Sec, sc: &SectionC) {
        if let Some(set) = &sc.close_set {
            self.ms = set.begin();
        }
        sec.read = Read::Close;
    }

    /// Text from where `sec.stray` says to the marker found at `at` must be
    /// white space: anything else is an error of the call (or, after a JSON
    /// form's values, an action of its own with no name).
    fn check_stray(&mut self, sec: &mut Sec, at: usize) {
        let Some((from, kind)) = sec.stray.take() else {
            return;
        };
        if from >= at {
            return;
        }
        let text = self.text(from, at).trim();
        if text.is_empty() {
            return;
        }
        let excerpt: String = text.chars().take(40).collect();
        let more = if excerpt.len() < text.len() {
            "…"
        } else {
            ""
        };
        let place = match kind {
            Stray::AfterCall => "after the call's arguments",
            Stray::InCall => "between the call's parameters",
            Stray::AfterValues => "after the calls",
        };
        let e = ActionError::new(
            ErrorKind::Syntax,
            "",
            format!("unexpected text {place}: `{excerpt}{more}`"),
        );
        match sec.calls.last_mut() {
            Some(call) if kind != Stray::AfterValues => {
                if !call.args.as_ref().is_some_and(Result::is_err) {
                    call.args = Some(Err(e));
                }
            }
            _ => sec.calls.push(Call {
                args: Some(Err(e)),
                ..Call::default()
            }),
        }
    }

    /// A response-start block that holds no call: its text is narrative.
    fn tentative_fails(&mut self, sec: &mut Sec, at: usize, emit: &mut Emit<'_>) {
        let _ = sec;
        self.pos = at;
        self.narrative_to(at, emit);
        self.resume(None);
    }

    /// The opener did not begin a section: it is text of the kind around
    /// it (narrative, or the reasoning it opened in).
    fn not_a_section(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) {
        let at = self.pos;
        self.text_to(at, sec.reasoning.is_some(), emit);
        self.resume(sec.reasoning);
    }

    /// Gives out text up to `to` as reasoning or narrative.
    fn text_to(&mut self, to: usize, reasoning: bool, emit: &mut Emit<'_>) {
        if reasoning {
            self.reasoning_to(to, emit);
        } else {
            self.narrative_to(to, emit);
        }
    }

    fn named_roles_begin(&mut self, sc: &SectionC, f: usize) {
        if let Form::Named { name_end, .. } = &sc.forms[f] {
            self.ms = name_end.set.begin();
        }
    }

    fn named_name(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(Form::Named {
            name_end,
            name_prefix,
            indexed_name,
            ..
        }) = sec.form.map(|f| &c.sections[sec.idx].forms[f])
        else {
            return Flow::Go;
        };
        let Some((role, at, to)) = self.seek(name_end) else {
            return Flow::Wait;
        };
        let mut name = self.text(sec.mark, at).trim();
        if let Some(p) = name_prefix {
            name = name.strip_prefix(p.as_str()).unwrap_or(name).trim();
        }
        let (name, call_id) = if *indexed_name {
            indexed(name)
        } else {
            (name.to_owned(), None)
        };
        let id = emit.start(Some(name.clone()), Syntax::Dialect, c.tag(sec.idx));
        sec.tentative = false;
        sec.calls.push(Call {
            id: Some(id),
            args: no_name(&name),
            name: Some(name),
            call_id,
            ..Call::default()
        });
        match role {
            NameEnd::Args => self.begin_args(sec, to),
            NameEnd::Brace => self.begin_args(sec, at),
            NameEnd::Id => {
                sec.mark = to;
                if let Some(Form::Named { after_id, .. }) =
                    sec.form.map(|f| &c.sections[sec.idx].forms[f])
                {
                    self.ms = after_id.begin();
                }
                sec.read = Read::Id;
            }
        }
        Flow::Go
    }

    fn begin_args(&mut self, sec: &mut Sec, at: usize) {
        self.pos = at;
        sec.json_from = at;
        self.watch_from(sec, at);
        let mut scanner = new_scanner(&self.shared, Arc::from(Vec::new()));
        scanner.reset(Naming::Generic);
        if let Some(call) = sec.calls.last_mut() {
            call.compact = Compact::from(0);
        }
        sec.read = Read::Args(scanner);
    }

    /// A named or harmony call's JSON arguments.
    fn named_args(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let end = self.end();
        let Read::Args(scanner) = &mut sec.read else {
            return Flow::Go;
        };
        let done = scanner.feed_value(&self.buf[self.pos - self.base..end - self.base]);
        self.pos = match done {
            Some(used) => self.pos + used,
            None => end,
        };
        if let Some(call) = sec.calls.last_mut() {
            if self.shared.cfg.argument_deltas {
                let mut piece = String::new();
                call.compact
                    .advance(scanner.repaired(), scanner.settled(), &mut piece);
                if !piece.is_empty() {
                    call.sent = true;
                    if let Some(id) = call.id {
                        emit.push(Event::ArgumentsDelta {
                            id: ActionId(id),
                            json: piece,
                        });
                    }
                }
            }
        }
        let error = scanner.error().cloned();
        let scanned = self.pos;
        self.watch_to(sec, scanned);
        if let Some(err) = error {
            self.pos = (sec.json_from + err.offset).min(end);
            let e = self.json_error(sec.from, sec.json_from + err.offset, &err.message);
            let at = self.pos;
            if self.rewind(sec, at, e.clone(), emit) {
                return Flow::Go;
            }
            if let Some(call) = sec.calls.last_mut() {
                if !call.args.as_ref().is_some_and(Result::is_err) {
                    call.args = Some(Err(e));
                }
            }
            self.resync(sec, emit);
            return Flow::Go;
        }
        if done.is_none() {
            return Flow::Wait;
        }
        let Read::Args(scanner) = &mut sec.read else {
            return Flow::Go;
        };
        for (kind, at) in scanner.repairs() {
            sec.repairs.push((*kind, sec.json_from + at));
        }
        let value = scanner
            .take_slots()
            .into_iter()
            .next()
            .and_then(|mut s| s.take_value());
        if let Some(call) = sec.calls.last_mut().filter(|c| c.args.is_none()) {
            call.args = Some(match value {
                Some(v @ Value::Object(_)) => Ok(v),
                Some(Value::Null) | None => Ok(Value::Object(Map::new())),
                Some(other) => Err(ActionError::new(
                    ErrorKind::Shape,
                    "",
                    format!(
                        "arguments must be a JSON object, found {}",
                        crate::validate::type_name(&other)
                    ),
                )),
            });
        }
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        match sec.form.map(|f| &sc.forms[f]) {
            Some(Form::Named {
                args_end: Some(a), ..
            }) => {
                sec.stray = Some((self.pos, Stray::AfterCall));
                self.ms = a.begin();
                sec.read = Read::ArgsEnd;
            }
            Some(Form::Named { end: Some(e), .. }) => {
                sec.stray = Some((self.pos, Stray::AfterCall));
                self.ms = e.begin();
                sec.read = Read::CallEnd;
            }
            Some(Form::Harmony) => {
                // The message ends with `<|call|>`.
                sec.stray = Some((self.pos, Stray::AfterCall));
                self.close_only(sec, sc);
            }
            _ => self.after_call(sec, emit),
        }
        Flow::Go
    }

    /// A call of a marker form ended: on to the next, or the section ends.
    fn after_call(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) {
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        let has_call_marker = sc.between.roles.iter().any(Option::is_some);
        if sc.close.is_some() && has_call_marker {
            self.ms = sc.between.set.begin();
            sec.read = Read::Between;
        } else if sc.close.is_some() {
            self.close_only(sec, sc);
        } else {
            let at = self.pos;
            if sc.trailer.is_some() {
                sec.read = Read::Trailer { at };
            } else {
                self.end_section(sec, at, emit);
            }
        }
    }

    // -- parameter forms -----------------------------------------------------

    fn params_step(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(Form::Params {
            name,
            params,
            key_end,
            key_ends,
            value,
            value_end,
            trim,
            ..
        }) = sec.form.map(|f| &c.sections[sec.idx].forms[f])
        else {
            return Flow::Go;
        };
        let deltas = self.shared.cfg.argument_deltas;
        match std::mem::replace(&mut sec.read, Read::Params) {
            Read::PName => {
                let Some((role, at, to)) = self.seek(name) else {
                    sec.read = Read::PName;
                    return Flow::Wait;
                };
                let n = self.text(sec.mark, at).trim().to_owned();
                let id = emit.start(Some(n.clone()), Syntax::Dialect, c.tag(sec.idx));
                sec.tentative = false;
                sec.calls.push(Call {
                    id: Some(id),
                    args: no_name(&n),
                    name: Some(n),
                    ..Call::default()
                });
                self.param_mark(sec, role, to, emit);
            }
            Read::Params => {
                let Some((role, at, to)) = self.seek(params) else {
                    sec.read = Read::Params;
                    return Flow::Wait;
                };
                self.check_stray(sec, at);
                self.param_mark(sec, role, to, emit);
            }
            Read::Key => {
                let Some((i, at, to)) = self.seek(key_end) else {
                    sec.read = Read::Key;
                    return Flow::Wait;
                };
                let key = self.text(sec.mark, at).trim().to_owned();
                let kind = key_ends.get(i).map_or(ValueKind::Typed, |k| k.value);
                if deltas {
                    if let Some(call) = sec.calls.last_mut() {
                        let lead = if call.sent { "," } else { "{" };
                        call.sent = true;
                        if let Some(id) = call.id {
                            emit.push(Event::ArgumentsDelta {
                                id: ActionId(id),
                                json: format!("{lead}{}:", json_str(&key)),
                            });
                        }
                    }
                }
                match value {
                    Some(v) => {
                        self.ms = v.set.begin();
                        sec.stray = Some((to, Stray::InCall));
                        sec.read = Read::ValueOpen { key, kind };
                    }
                    None => {
                        self.ms = value_end.begin();
                        self.watch_from(sec, to);
                        sec.read = Read::Value {
                            key,
                            kind,
                            from: to,
                            streamed: None,
                        };
                    }
                }
            }
            Read::ValueOpen { key, kind } => {
                let Some(v) = value else { return Flow::Go };
                let Some((role, at, to)) = self.seek(v) else {
                    sec.read = Read::ValueOpen { key, kind };
                    return Flow::Wait;
                };
                self.check_stray(sec, at);
                if role == ParamMark::Value {
                    self.ms = value_end.begin();
                    self.watch_from(sec, to);
                    sec.read = Read::Value {
                        key,
                        kind,
                        from: to,
                        streamed: None,
                    };
                } else {
                    // The key has no value: the call cannot be read.
                    if let Some(call) = sec.calls.last_mut() {
                        if !call.args.as_ref().is_some_and(Result::is_err) {
                            call.args = Some(Err(ActionError::new(
                                ErrorKind::Syntax,
                                key.as_str(),
                                format!("the parameter `{key}` has no value"),
                            )));
                        }
                    }
                    self.param_mark(sec, role, to, emit);
                }
            }
            Read::Value {
                key,
                kind,
                from,
                mut streamed,
            } => {
                let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
                let hit = value_end.find(&mut self.ms, hay);
                let (stop, next) = match hit {
                    Some(h) => (self.pos + h.end - h.len, Some(self.pos + h.end)),
                    None => (self.end(), None),
                };
                self.pos = next.unwrap_or(stop);
                self.watch_to(sec, stop);
                // The value's text: one line ending dropped at each side
                // where the template writes them.
                let raw_from = if *trim {
                    skip_line_ending(self.text(from, stop), from)
                } else {
                    Some(from)
                };
                let tool = sec.calls.last().and_then(|c| c.name.clone());
                if let Some(vfrom) = raw_from {
                    if deltas {
                        // Held back: a prefix of the value's end marker,
                        // and before it a line ending the value may end with.
                        let held = match next {
                            Some(_) => 0,
                            None => {
                                let marker = value_end.held(&self.ms);
                                let before = stop.saturating_sub(marker).max(vfrom);
                                marker
                                    + if *trim {
                                        trailing_line_ending(self.text(vfrom, before))
                                    } else {
                                        0
                                    }
                            }
                        };
                        let safe = stop.saturating_sub(held).max(vfrom);
                        if streamed.is_none() {
                            let ty = self.value_type(tool.as_deref(), &key);
                            if streams(kind, ty, self.text(vfrom, safe)) == Some(true) {
                                streamed = Some(vfrom);
                                self.param_delta(sec, "\"".to_owned(), emit);
                            }
                        }
                        if let Some(sent) = streamed {
                            let upto = if next.is_some() {
                                let t = self.text(vfrom, stop);
                                vfrom + t.len() - if *trim { final_line_ending(t) } else { 0 }
                            } else {
                                safe
                            };
                            if upto > sent {
                                let body = json_str_body(self.text(sent, upto));
                                self.param_delta(sec, body, emit);
                                streamed = Some(upto);
                            }
                        }
                    }
                }
                let Some(_) = next else {
                    sec.read = Read::Value {
                        key,
                        kind,
                        from,
                        streamed,
                    };
                    return Flow::Wait;
                };
                let mut text = self.text(from, stop);
                let mut at = from;
                if *trim {
                    let t = trim_line_endings(text);
                    at += text.len()
                        - text
                            .trim_start_matches(['\r', '\n'])
                            .len()
                            .max(t.len())
                            .min(text.len());
                    text = t;
                }
                let ty = self.value_type(tool.as_deref(), &key);
                let v = convert(kind, ty, text, self.shared.cfg.strict, &mut sec.repairs, at);
                if deltas {
                    let piece = if streamed.is_some() {
                        "\"".to_owned()
                    } else {
                        serde_json::to_string(&v).unwrap_or_default()
                    };
                    self.param_delta(sec, piece, emit);
                }
                if let Some(call) = sec.calls.last_mut() {
                    call.params.insert(key, v);
                }
                self.ms = params.set.begin();
                sec.stray = Some((self.pos, Stray::InCall));
                sec.read = Read::Params;
            }
            other => sec.read = other,
        }
        Flow::Go
    }

    fn param_delta(&mut self, sec: &mut Sec, json: String, emit: &mut Emit<'_>) {
        if let Some(call) = sec.calls.last_mut() {
            call.sent = true;
            if let Some(id) = call.id {
                emit.push(Event::ArgumentsDelta {
                    id: ActionId(id),
                    json,
                });
            }
        }
    }

    /// A marker of a parameter form was found, ending at `to`.
    fn param_mark(&mut self, sec: &mut Sec, role: ParamMark, to: usize, emit: &mut Emit<'_>) {
        let c = self.c.clone();
        let Some(Form::Params {
            params, key_end, ..
        }) = sec.form.map(|f| &c.sections[sec.idx].forms[f])
        else {
            return;
        };
        match role {
            ParamMark::NameEnd => {
                self.ms = params.set.begin();
                sec.stray = Some((to, Stray::InCall));
                sec.read = Read::Params;
            }
            ParamMark::Value => {}
            ParamMark::Key => {
                sec.mark = to;
                self.ms = key_end.set.begin();
                sec.read = Read::Key;
            }
            ParamMark::End => {
                self.finish_params_call(sec, emit);
                self.after_call(sec, emit);
            }
            ParamMark::Close => {
                self.finish_params_call(sec, emit);
                self.end_section(sec, to, emit);
            }
        }
    }

    fn finish_params_call(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) {
        let deltas = self.shared.cfg.argument_deltas;
        if let Some(call) = sec.calls.last_mut() {
            if call.args.is_none() {
                let closing = if call.sent { "}" } else { "{}" };
                call.args = Some(Ok(Value::Object(std::mem::take(&mut call.params))));
                if deltas {
                    call.sent = true;
                    if let Some(id) = call.id {
                        emit.push(Event::ArgumentsDelta {
                            id: ActionId(id),
                            json: closing.to_owned(),
                        });
                    }
                }
            }
        }
    }

    /// What the tool's schema says property `key` of `tool` is.
    fn value_type(&self, tool: Option<&str>, key: &str) -> ValueType {
        let schema = tool.and_then(|t| self.shared.cfg.call_schema(t));
        property_type(schema.as_deref(), key)
    }

    // -- the end of a section ------------------------------------------------

    fn json_error(&self, block_from: usize, at: usize, message: &str) -> ActionError {
        let raw = self.text(block_from, self.end());
        let (line, column) = LineWalk::new(raw).to(at.saturating_sub(block_from));
        ActionError::new(
            ErrorKind::Syntax,
            "",
            format!(
                "the JSON cannot be read: {message} (line {line}, column {column} of the block)"
            ),
        )
        .with_position(line, column)
    }

    /// Ends the section at `to`: its calls end together.
    pub(super) fn end_section(&mut self, sec: &mut Sec, to: usize, emit: &mut Emit<'_>) {
        self.end_section_with(sec, to, None, emit);
    }

    fn end_section_with(
        &mut self,
        sec: &mut Sec,
        to: usize,
        fail: Option<ActionError>,
        emit: &mut Emit<'_>,
    ) {
        self.pos = to;
        if sec.calls.is_empty() {
            // A section with no call in it is text.
            self.text_to(to, sec.reasoning.is_some(), emit);
        } else {
            let raw: Arc<str> = self.text(sec.from, to).into();
            let span = Span {
                start: sec.from,
                end: to,
            };
            let repairs: Arc<[Repair]> = {
                let mut walk = LineWalk::new(&raw);
                let mut list: Vec<(RepairKind, usize)> = std::mem::take(&mut sec.repairs);
                list.sort_by_key(|r| r.1);
                list.iter()
                    .map(|(kind, at)| {
                        let (line, column) = walk.to(at.saturating_sub(sec.from));
                        Repair {
                            kind: *kind,
                            line,
                            column,
                        }
                    })
                    .collect()
            };
            let tag = self.c.tag(sec.idx).to_owned();
            let cfg = &self.shared.cfg;
            for call in std::mem::take(&mut sec.calls) {
                let id = match call.id {
                    Some(id) => id,
                    None => emit.start(call.name.clone(), Syntax::Dialect, &tag),
                };
                let result = match (&fail, call.args) {
                    (Some(e), _) => Err(e.clone()),
                    (None, Some(r)) => r,
                    (None, None) => Err(sec.broken.clone().unwrap_or_else(|| {
                        ActionError::new(
                            ErrorKind::CutOff,
                            "",
                            "the call was cut off before its arguments ended",
                        )
                    })),
                };
                let attributes: Vec<(String, String)> = call
                    .call_id
                    .iter()
                    .map(|c| ("call_id".to_owned(), c.clone()))
                    .collect();
                let errors = match (&result, &call.name) {
                    (Ok(args), Some(name)) => validate(cfg, name, args),
                    (Err(e), _) => vec![e.clone()],
                    (Ok(_), None) => vec![ActionError::new(
                        ErrorKind::NoName,
                        "",
                        "the call has no name",
                    )],
                };
                let event = match (result, call.name) {
                    (Ok(arguments), Some(name)) if errors.is_empty() => {
                        Event::ActionComplete(Box::new(Action {
                            id: ActionId(id),
                            name,
                            arguments,
                            syntax: Syntax::Dialect,
                            tag: tag.clone(),
                            attributes,
                            raw: raw.clone(),
                            span: Some(span),
                            repairs: repairs.clone(),
                        }))
                    }
                    (_, name) => Event::ActionInvalid(Box::new(InvalidAction {
                        id: ActionId(id),
                        name,
                        errors,
                        syntax: Syntax::Dialect,
                        tag: tag.clone(),
                        raw: raw.clone(),
                        span: Some(span),
                    })),
                };
                emit.push(event);
            }
            self.start = to;
        }
        self.resume(sec.reasoning);
    }

    /// The section grew past the block limit: its calls are invalid with
    /// what was read, and the rest up to its closer is narrative.
    fn too_large(&mut self, mut sec: Box<Sec>, emit: &mut Emit<'_>) {
        let limit = self.shared.cfg.max_block_bytes;
        let to = self.pos;
        let e = self.open_at_closer(
            &sec,
            &format!("the section grew past the block limit of {limit} bytes"),
        );
        if self.rewind(&mut sec, to, e, emit) {
            return;
        }
        if sec.calls.is_empty() {
            sec.calls.push(Call::default());
        }
        let e = ActionError::new(
            ErrorKind::TooLarge,
            "",
            format!("the call section is larger than the block limit of {limit} bytes"),
        );
        self.end_section_with(&mut sec, to, Some(e), emit);
        let c = self.c.clone();
        if let Some(set) = &c.sections[sec.idx].close_set {
            self.ms = set.begin();
            self.state = DState::Skip { section: sec.idx };
        }
    }

    /// The end of input inside a section. Whether the section went back
    /// to its first closer (the text after it is then still to be read).
    pub(super) fn section_at_eof(&mut self, emit: &mut Emit<'_>) -> bool {
        let DState::Section(mut sec) = std::mem::replace(&mut self.state, DState::Detached) else {
            return false;
        };
        let end = self.end();
        self.pos = end;
        if sec.tentative {
            self.narrative_to(end, emit);
            self.state = DState::Text;
            return false;
        }
        // A value cut off after it passed a closer: the call, or the
        // section, ends at that first closer.
        let cut_off = match &mut sec.read {
            Read::Json { scanner, .. } | Read::Args(scanner) => !scanner.finish_value(),
            Read::Python(_) | Read::Value { .. } => true,
            _ => false,
        };
        if cut_off {
            self.watch_to(&mut sec, end);
            let e = self.open_at_closer(&sec, "never ended");
            if self.rewind(&mut sec, end, e, emit) {
                if matches!(self.state, DState::Detached) {
                    self.state = DState::Section(sec);
                }
                return true;
            }
        }
        let has_closer = self.c.sections[sec.idx].close.is_some();
        match std::mem::replace(&mut sec.read, Read::Close) {
            Read::Json { mut scanner, slots } => {
                scanner.finish_value();
                sec.read = Read::Json { scanner, slots };
                self.collect_slots(&mut sec);
            }
            Read::Python(mut reader) => {
                // Whatever it says, the call it was reading is cut off.
                reader.finish(&mut Vec::new());
            }
            Read::JsonAfter { at } | Read::Trailer { at } if !has_closer => {
                self.end_section(&mut sec, at, emit);
                self.pos = end;
                self.narrative_to(end, emit);
                return false;
            }
            _ => {}
        }
        if has_closer && !sec.calls.is_empty() {
            if self.shared.cfg.strict {
                let e = ActionError::new(
                    ErrorKind::CutOff,
                    "",
                    "the call section was not closed before the end of the response",
                );
                for call in &mut sec.calls {
                    if call.args.as_ref().is_some_and(Result::is_ok) {
                        call.args = Some(Err(e.clone()));
                    }
                }
            } else if sec.calls.iter().all(|c| c.args.is_some()) {
                sec.repairs.push((RepairKind::MissingCloser, end));
            }
        }
        self.end_section(&mut sec, end, emit);
        false
    }
}

/// A call named by markers with nothing between them (`<function=>`,
/// `name=""`) cannot be run: its error, set before its arguments are read.
fn no_name(name: &str) -> Option<Result<Value, ActionError>> {
    name.is_empty().then(|| {
        Err(ActionError::new(
            ErrorKind::NoName,
            "",
            "the call's name is empty",
        ))
    })
}

/// `functions.NAME:INDEX` → (NAME, the whole as call id).
fn indexed(text: &str) -> (String, Option<String>) {
    let base = text.strip_prefix("functions.").unwrap_or(text);
    let name = match base.rsplit_once(':') {
        Some((n, i)) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => base,
    };
    (name.to_owned(), Some(text.to_owned()))
}

/// The arguments of a JSON call object: the value of the first of its
/// keys (in the order written) that is one of `keys`. `read` lists the
/// arguments keys the scanner saw, in order, repeats included: a key
/// written twice leaves the call ambiguous (and its deltas, streamed from
/// the first, wrong), so it is an error.
fn json_arguments(
    obj: &mut Map<String, Value>,
    keys: &[String],
    read: &[(&str, usize)],
    repairs: &mut Vec<(RepairKind, usize)>,
    at: usize,
) -> Result<Value, ActionError> {
    let Some(key) = obj.keys().find(|k| keys.contains(k)).cloned() else {
        return Ok(Value::Object(Map::new()));
    };
    if read.iter().filter(|(k, _)| *k == key).count() > 1 {
        return Err(ActionError::new(
            ErrorKind::Shape,
            key.as_str(),
            format!("the call object has `{key}` more than once"),
        ));
    }
    let v = obj.shift_remove(&key).unwrap_or(Value::Null);
    match v {
        Value::Object(_) => Ok(v),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(o @ Value::Object(_)) => {
                repairs.push((RepairKind::ArgumentsAsString, at));
                Ok(o)
            }
            _ => Err(ActionError::new(
                ErrorKind::Shape,
                key.as_str(),
                "arguments must be a JSON object, found a string that holds no object",
            )),
        },
        other => Err(ActionError::new(
            ErrorKind::Shape,
            key.as_str(),
            format!(
                "arguments must be a JSON object, found {}",
                crate::validate::type_name(&other)
            ),
        )),
    }
}

/// Where a value starts once a leading line ending is dropped; `None` while
/// that cannot be told (a lone `\r` at the end).
fn skip_line_ending(text: &str, from: usize) -> Option<usize> {
    if text.starts_with("\r\n") {
        Some(from + 2)
    } else if text == "\r" || text.is_empty() {
        None
    } else if text.starts_with('\n') {
        Some(from + 1)
    } else {
        Some(from)
    }
}

/// How many bytes of a trailing line ending end `text` (held back while
/// the value may end right after them).
fn trailing_line_ending(text: &str) -> usize {
    if text.ends_with("\r\n") {
        2
    } else if text.ends_with('\n') || text.ends_with('\r') {
        1
    } else {
        0
    }
}

/// The line ending `text` ends with, as [`trim_line_endings`] drops it (a
/// lone `\r` is none).
fn final_line_ending(text: &str) -> usize {
    if text.ends_with("\r\n") {
        2
    } else if text.ends_with('\n') {
        1
    } else {
        0
    }
}

fn trim_line_endings(text: &str) -> &str {
    let t = text
        .strip_prefix("\r\n")
        .or_else(|| text.strip_prefix('\n'))
        .unwrap_or(text);
    t.strip_suffix("\r\n")
        .or_else(|| t.strip_suffix('\n'))
        .unwrap_or(t)
}

/// Whether a value is streamed as a JSON string while it is written.
fn streams(kind: ValueKind, ty: ValueType, prefix: &str) -> Option<bool> {
    match kind {
        ValueKind::String => Some(true),
        ValueKind::Json => Some(false),
        ValueKind::Typed => streams_as_string(ty, prefix),
    }
}

/// A raw value as JSON; repairs noted at offsets from `at`.
fn convert(
    kind: ValueKind,
    ty: ValueType,
    text: &str,
    strict: bool,
    repairs: &mut Vec<(RepairKind, usize)>,
    at: usize,
) -> Value {
    let ty = match kind {
        ValueKind::String => return Value::String(text.to_owned()),
        ValueKind::Json => ValueType::Json,
        ValueKind::Typed => ty,
    };
    let mut found = Vec::new();
    let v = convert_noting_repairs(text, ty, strict, &mut found);
    repairs.extend(found.into_iter().map(|(k, o)| (k, at + o)));
    v
}
