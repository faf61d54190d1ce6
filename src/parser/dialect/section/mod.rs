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
use crate::parser::ending::{syntax_error, validate, LineWalk};
use crate::parser::state::{Flow, Shared};
use crate::scan::json::JsonScanner;
use crate::scan::markers::{MarkerSet, MarkerState};
use crate::scan::naming::Naming;
use crate::scan::python::{PyCalls, PyEvent, PyMode};

mod body;
mod code;
mod deltas;
mod ending;
mod json;
mod lane;
mod named;
mod params;
mod python;
mod string_lane;

pub(super) use body::BodyReader;
use deltas::*;
use json::*;
pub(super) use lane::Lane;

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
    /// A value's type, from `Sec::mark`.
    ValueType {
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
        /// Decided not to stream (a value that is not a string): not asked
        /// again on each push.
        plain: bool,
    },
    /// A body form's name, from `Sec::mark`.
    BName,
    /// A body form's body from `from`: Gemma's bracket depth, and whether
    /// a string is open.
    Body {
        from: usize,
        depth: usize,
        quoted: bool,
        /// Read up to here by the body's reader.
        fed: usize,
        /// Where the tag whose name is being read begins (tag forms).
        tag: Option<usize>,
    },
    /// Raw code from `from`, streamed up to `sent`.
    Code {
        key: String,
        from: usize,
        sent: usize,
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
    /// The section's calls ended this reasoning (`calls_end_reasoning`):
    /// once they end, its closer may follow as a marker.
    closer_due: Option<Option<usize>>,
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
    /// The reader of a body form's call, streaming its arguments.
    body: Option<Box<BodyReader>>,
}

impl Sec {
    /// The closer a watch looks for: the call's end marker (`call_end`)
    /// or the section's closer. `sc` is the section's.
    fn watch_set<'c>(&self, sc: &'c SectionC, call_end: bool) -> Option<&'c MarkerSet> {
        if call_end {
            match self.form.map(|f| &sc.forms[f]) {
                Some(Form::Named { end: Some(e), .. }) => Some(e),
                _ => None,
            }
        } else {
            sc.close_set.as_ref()
        }
    }

    /// Whether the watch for a first closer would step over `bytes`, read
    /// from `pos`, and find nothing nor hold anything: no watch or no
    /// closer to watch for, a first closer already found, or a watch
    /// searched up to `pos` with nothing pending and none of `bytes` able
    /// to begin its closer. Then [`Sec::watched_to`] is all that
    /// [`DialectMachine::watch_to`] would do.
    fn watch_passes(&self, sc: &SectionC, pos: usize, bytes: &[u8]) -> bool {
        if self.first_close.is_some() {
            return true;
        }
        let Some(w) = &self.watch else {
            return true;
        };
        match self.watch_set(sc, w.call_end) {
            None => true,
            Some(set) => w.upto == pos && set.passes(&w.ms, bytes),
        }
    }

    /// The watch has passed everything up to `upto` (see
    /// [`Sec::watch_passes`]).
    fn watched_to(&mut self, upto: usize) {
        if self.first_close.is_none() {
            if let Some(w) = &mut self.watch {
                w.upto = upto;
            }
        }
    }
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
    /// The section just opened ends the reasoning of `due` once it holds
    /// a call (see [`Sec::closer_due`]).
    pub(super) fn closer_may_follow(&mut self, due: Option<Option<usize>>) {
        if let DState::Section(sec) = &mut self.state {
            sec.closer_due = due;
        }
    }

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
        self.said = true;
        self.state = DState::Section(Box::new(Sec {
            idx,
            from,
            form: None,
            read: Read::Open,
            calls: Vec::new(),
            reasoning,
            closer_due: None,
            tentative,
            mark: content,
            json_from: content,
            repairs: Vec::new(),
            broken: None,
            stray: None,
            watch: None,
            first_close: None,
            body: None,
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
        if let Read::Value { .. } = sec.read {
            // Most pushes inside a long value: straight there.
            return self.param_value(sec, emit);
        }
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        let end = self.end();
        match &mut sec.read {
            Read::Open => {
                let Some(b) = self.skip_space() else {
                    return Flow::Wait;
                };
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
                    Form::Code { name, .. } => {
                        self.begin_code(sec, name.clone(), emit);
                        return Flow::Go;
                    }
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
                            Form::Tags { .. } | Form::Gemma { .. } => {
                                self.body_begin(sec, sc, f, to);
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
                let Some(b) = self.skip_space() else {
                    return Flow::Wait;
                };
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
                let Some(b) = self.skip_space() else {
                    return Flow::Wait;
                };
                if b == b'{' {
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
            Read::Code { .. } => self.code(sec, emit),
            Read::PyLines => {
                let Some(b) = self.skip_space() else {
                    return Flow::Wait;
                };
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
            Read::BName => self.body_name(sec, emit),
            Read::Body { .. } => self.body_step(sec, emit),
            Read::PName | Read::Params => self.params_step(sec, emit),
            Read::Key | Read::ValueOpen { .. } | Read::ValueType { .. } | Read::Value { .. } => {
                self.params_step(sec, emit)
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
        sec.watch_set(&self.c.sections[sec.idx], call_end)
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
    fn watch_to(&self, sec: &mut Sec, upto: usize) {
        if sec.first_close.is_some() {
            return;
        }
        let Some(w) = sec.watch.as_mut() else {
            return;
        };
        if upto <= w.upto {
            return;
        }
        let call_end = w.call_end;
        let sc = &self.c.sections[sec.idx];
        let set = match sc.forms.get(sec.form.unwrap_or(usize::MAX)) {
            Some(Form::Named { end: Some(e), .. }) if call_end => Some(e),
            _ if !call_end => sc.close_set.as_ref(),
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

    // -- the end of a section ------------------------------------------------
}
