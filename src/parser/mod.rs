//! The push parser.
//!
//! # Design
//!
//! [`Parser`] is fed text in chunks of any size and keeps every bit of state
//! it needs between pushes, in the manner of `csv-core`. Text is appended to
//! one buffer, `buf`, which holds only what is not yet decided: narrative
//! that could still begin an opener, or the block being read. Every position
//! is an absolute byte offset in the response: `base` is the offset of
//! `buf[0]` and `start` that of the first byte not yet given out, so emitting
//! text only moves `start`; the buffer is compacted when the dead prefix is
//! at least half of it, which keeps the copying amortised O(1) a byte.
//!
//! ```text
//!              '\n'                 fence opener line (action/generic tag)
//!   Text ─────────────► LineStart ───────────────────────────────► Block
//!    ▲ ▲  '<'              │  │ other tag                          │  │
//!    │ └──────► TagOpen ───┼──┼──────────────────── call tag ──────┘  │
//!    │            │ no     │  ▼                                       │
//!    │◄───────────┘        │ Fenced (narrative, until its closer)     │
//!    │◄────────────────────┘    ▲                                     │
//!    │                          └─ generic block without an action ◄──┤
//!    └──────────────────── block closed / broken / too large ◄────────┘
//! ```
//!
//! The files, one concern each:
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the [`Parser`] face: pushes, ids renumbered in start order |
//! | `machine.rs` | the states above, narrative, openers, the end of input |
//! | `syntax.rs` | what an opener found: syntax, closer, content reader |
//! | `block.rs` | reading a block: closers, names, deltas, the size limit |
//! | `speculate.rs` | the shadow machine past a first closer |
//! | `ending.rs` | a block's end: raw text, shaping, validation, end events |
//! | `emit.rs` | the one writer of events and minter of ids |
//! | `lane.rs` | pushes the dialect machine's fast lane takes whole, written straight out |
//!
//! The probes that recognise fence lines and call tags ([`crate::scan`])
//! are stepped one byte at a time and never rescan what they consumed; the
//! JSON inside a block is scanned once by the JSON scanner, which knows when
//! the JSON is complete, so a closer inside a JSON string never closes the
//! block. Speculation (a block whose JSON is open at a closer) is described
//! in `speculate.rs`.
//!
//! Events wait in `scratch` until the push ends and [`Parser::publish`]
//! moves them out. On the borrowing path one kind skips the wait: narrative
//! and reasoning written while nothing waits are lent to the caller at once
//! from the machine's own buffer (`emit::Emit::lending`), so text held back
//! and then given out is never copied into a string. What comes after a
//! waiting event waits behind it, so the order is kept.
//!
//! Internally, action ids are unique numbers drawn from one counter; the
//! [`Parser`] renumbers them in the order their `ActionStarted` events come
//! out, so ids count from 0 whatever the speculation did.
//!
//! # Advice for hackers
//!
//! What must change together:
//!
//! - **A new syntax** (a new opener): an arm in [`machine::State`] if it
//!   needs its own probing state, a way to build a [`syntax::Opened`] from
//!   it, and, if it closes or reads its content in a new way, a
//!   [`syntax::Closer`] or [`syntax::Content`] variant with its arm in
//!   `block.rs` (`block_step`, `on_closer`, `block_at_eof`) and in
//!   `ending.rs` (`take_raw`: where the next line starts). Everything else
//!   (ids, held events, speculation, the size limit) comes for free.
//! - **A new state**: its arm in `Machine::run`, in `flush_narrative` (how
//!   much it may hold back: liveness) and in `Machine::finish` (what it
//!   becomes at the end of input), and in the diagram above.
//! - **A new kind of event**: written through [`emit::Emit`]; renumbered in
//!   [`Parser::publish`]; withheld through `speculate::held` if a block can
//!   emit it while its fate is open; and its wire shape in the CLI output.
//! - Every action started must end: anything that mints an id goes through
//!   `Emit::start`, and every way a block ends goes through `ending.rs`.
//!
//! # Termination
//!
//! [`Parser::push`] consumes all of its input and returns once nothing more
//! can be decided without more text. [`Parser::finish`] decides everything
//! that is left: held text becomes narrative, a block whose JSON is complete
//! completes (repair `missing closer`), any other block is invalid. After
//! `finish`, the parser is empty and may be fed a new response.

use std::sync::Arc;

use serde_json::Value;

use crate::config::Config;
use crate::event::{
    push_merged, Action, ActionError, ActionId, ErrorKind, Event, EventRef, InvalidAction, Syntax,
};
use crate::utf8::{as_text, floor_boundary, Utf8Decoder};

mod block;
mod dialect;
mod emit;
mod ending;
mod few;
mod lane;
mod machine;
mod public;
mod speculate;
mod state;
mod syntax;

use crate::dialect::compiled::Compiled;
use dialect::Plain;
use emit::{Emit, Lend};
use ending::validate;
use lane::{Dialects, Piece};
use public::PublicIds;
use state::{Machine, Shared, State};
use syntax::Content;

/// The streaming parser.
///
/// ```
/// use actionstream::{Event, Parser};
///
/// let mut parser = Parser::default();
/// let mut events = Vec::new();
/// for chunk in ["Sure.\n```json\n{\"action\": \"sea", "rch\", \"q\": \"rust\"}\n```\nDone."] {
///     parser.push(chunk, &mut events);
/// }
/// parser.finish(&mut events);
///
/// let names: Vec<_> = events.iter().filter_map(|e| match e {
///     Event::ActionComplete(a) => Some(a.name.as_str()),
///     _ => None,
/// }).collect();
/// assert_eq!(names, ["search"]);
/// ```
#[derive(Debug)]
pub struct Parser {
    m: Machine,
    /// The machine for model dialects, when any is chosen (it then reads
    /// the text instead of `m`).
    d: Option<Box<Dialects>>,
    utf8: Utf8Decoder,
    ids: u64,
    /// Internal id → public id, for actions started and not yet ended, and
    /// whether the action has streamed argument pieces.
    public: PublicIds,
    next_public: u64,
    scratch: Vec<Event>,
    /// Events published for the borrowing path, lent one by one, kept for
    /// their capacity.
    lent: Vec<Event>,
}

impl Default for Parser {
    fn default() -> Self {
        Parser::new(Config::default())
    }
}

impl Parser {
    /// A new parser with this one's configuration, shared rather than
    /// copied: the way to make many parsers (one per stream) cheaply.
    ///
    /// ```
    /// let first = actionstream::Parser::new(actionstream::Config::default().fence_tag("plan"));
    /// let second = first.sibling();
    /// assert!(second.config().is_action_fence_tag("plan"));
    /// ```
    pub fn sibling(&self) -> Parser {
        Parser::from_shared(self.m.shared.clone())
    }

    fn from_shared(shared: Arc<Shared>) -> Parser {
        Parser {
            d: compiled(&shared.cfg).map(|c| {
                Box::new(Dialects::new(dialect::DialectMachine::new(
                    shared.clone(),
                    c,
                )))
            }),
            m: Machine::new(shared, 0, 0),
            utf8: Utf8Decoder::new(),
            ids: 0,
            public: PublicIds::default(),
            next_public: 0,
            scratch: Vec::new(),
            lent: Vec::new(),
        }
    }

    /// A parser for one response.
    pub fn new(config: Config) -> Self {
        Parser::from_shared(Arc::new(Shared::new(config)))
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.m.shared.cfg
    }

    /// Pushes the next piece of text; the events it makes certain are
    /// appended to `out`.
    pub fn push(&mut self, text: &str, out: &mut Vec<Event>) {
        if text.is_empty() {
            return;
        }
        if self.lane_armed() && self.lane_out_text(text, out) {
            return;
        }
        self.feed(text, false, None);
        self.publish(out);
    }

    /// The borrowing push path: pushes the next piece of text and calls `f`
    /// with each event it makes certain, in order. Narrative read straight
    /// from `text` is lent from it, with no allocation and no copy (the
    /// common case: a chunk of prose mid-line); the rest is lent from
    /// events the parser owns. [`Parser::push`] is this with the events
    /// collected.
    ///
    /// ```
    /// use actionstream::{EventRef, Parser};
    ///
    /// let mut parser = Parser::default();
    /// let mut prose = String::new();
    /// for chunk in ["Plain ", "prose, ", "no marker."] {
    ///     parser.push_with(chunk, |e| {
    ///         if let EventRef::Narrative(text) = e {
    ///             // Borrowed from `chunk` itself, for this call.
    ///             assert!(std::ptr::eq(text, chunk));
    ///             prose.push_str(text);
    ///         }
    ///     });
    /// }
    /// assert_eq!(prose, "Plain prose, no marker.");
    /// ```
    #[inline]
    pub fn push_with<F: FnMut(EventRef<'_>)>(&mut self, text: &str, mut f: F) {
        // The hot case: prose with nothing held, and no byte in `text` to
        // end it (see `Machine::take_prose`).
        if self.d.is_none() && self.m.take_prose(text) {
            if !text.is_empty() {
                f(EventRef::Narrative(text));
            }
            return;
        }
        if let Some(d) = &mut self.d {
            // The dialect machine's hot case: narrative or reasoning with
            // nothing held, lent from `text` (see `DialectMachine::take_plain`).
            match d.machine.take_plain(text) {
                Some(Plain::Narrative) => return f(EventRef::Narrative(text)),
                Some(Plain::Reasoning) => return f(EventRef::Reasoning(text)),
                None => {}
            }
        }
        if self.lane_armed() && self.lane_lend(Piece::Text(text), &mut f) {
            return;
        }
        // Inside a block: nothing of `text` is settled before the machine
        // reads it (`take_settled_rest` would say so, after a look at the
        // state and the held line), and a piece this short is one slice.
        // Measured on the action-heavy corpus in 4-byte pieces: 5% less
        // time (`examples/whole_parse ours_with4`).
        if self.d.is_none() && self.m.in_block() && !text.is_empty() && text.len() <= SLICE {
            self.feed(text, true, Some(&mut f));
            self.lend(&mut f);
            return;
        }
        let rest = match self.d {
            Some(_) => text,
            None => {
                self.m
                    .lend_held_line(text, |held| f(EventRef::Narrative(held)));
                let (settled, rest) = self.m.take_settled_rest(text);
                if !settled.is_empty() {
                    f(EventRef::Narrative(settled));
                }
                rest
            }
        };
        // Only the first slice is what the machine declined to settle.
        let mut asked = true;
        for slice in slices(rest) {
            self.feed(slice, asked, Some(&mut f));
            self.lend(&mut f);
            asked = false;
        }
    }

    /// [`Parser::push_with`] for bytes of UTF-8 text, cut anywhere, as
    /// [`Parser::push_bytes`] takes them.
    ///
    /// ```
    /// let mut parser = actionstream::Parser::default();
    /// let mut text = String::new();
    /// for chunk in "naïve".as_bytes().chunks(3) {
    ///     parser.push_bytes_with(chunk, |e| text.push_str(&actionstream::narrative(&[e.to_event()])));
    /// }
    /// parser.finish_with(|e| text.push_str(&actionstream::narrative(&[e.to_event()])));
    /// assert_eq!(text, "naïve");
    /// ```
    #[inline]
    pub fn push_bytes_with<F: FnMut(EventRef<'_>)>(&mut self, bytes: &[u8], mut f: F) {
        // The common case: no character carried from the last push, and
        // this one whole text.
        if self.utf8.is_clear() {
            if self.lane_armed() && self.lane_lend(Piece::Ascii(bytes), &mut f) {
                return;
            }
            if let Some(text) = as_text(bytes) {
                return self.push_with(text, f);
            }
        }
        let mut utf8 = std::mem::take(&mut self.utf8);
        utf8.decode(bytes, |text| self.push_with(text, &mut f));
        self.utf8 = utf8;
    }

    /// [`Parser::finish`] for the borrowing path: ends the input and calls
    /// `f` with each event still to come.
    ///
    /// ```
    /// let mut parser = actionstream::Parser::default();
    /// parser.push_with("Held: <action_c", |_| {});
    /// let mut end = Vec::new();
    /// parser.finish_with(|e| end.push(e.to_event()));
    /// assert_eq!(actionstream::narrative(&end), "<action_c");
    /// ```
    pub fn finish_with<F: FnMut(EventRef<'_>)>(&mut self, mut f: F) {
        let mut lent = std::mem::take(&mut self.lent);
        self.finish(&mut lent);
        lend_each(&mut lent, &mut f);
        self.lent = lent;
    }

    /// Runs the machine over `text`; its events wait in `scratch`.
    /// `asked`: the machine has declined to settle `text` already (the
    /// borrowing path asks it first: the main machine's `take_settled`,
    /// the dialect machine's `take_plain`), so it is not asked again.
    /// `lend`: the borrowing path's callback, which narrative and reasoning
    /// the machine gives out with nothing waiting before them go to at once
    /// (see [`Emit::lending`]).
    fn feed(&mut self, text: &str, asked: bool, lend: Option<Lend<'_>>) {
        let mut emit = match lend {
            Some(f) => Emit::lending(&mut self.ids, &mut self.scratch, f),
            None => Emit::new(&mut self.ids, &mut self.scratch),
        };
        match &mut self.d {
            // Asked: `take_plain` declined `text` (or the slice of it that
            // this is, longer than it takes).
            Some(d) if asked => d.machine.push_not_plain(text, &mut emit),
            Some(d) => d.machine.push(text, &mut emit),
            None if asked => self.m.push_unsettled(text, &mut emit),
            None => self.m.push(text, &mut emit),
        }
    }

    /// Publishes what waits in `scratch` and lends each event to `f`. Most
    /// pushes inside a block make no event: the test for one is inlined,
    /// the work is not.
    #[inline]
    fn lend(&mut self, f: &mut dyn FnMut(EventRef<'_>)) {
        if !self.scratch.is_empty() {
            self.lend_waiting(f);
        }
    }

    fn lend_waiting(&mut self, f: &mut dyn FnMut(EventRef<'_>)) {
        let mut lent = std::mem::take(&mut self.lent);
        self.publish(&mut lent);
        lend_each(&mut lent, f);
        self.lent = lent;
    }

    /// Pushes the next bytes of UTF-8 text; a chunk may end inside a
    /// character. Invalid bytes become U+FFFD (see [`Parser::replaced`]).
    ///
    /// ```
    /// let mut p = actionstream::Parser::default();
    /// let mut events = Vec::new();
    /// p.push_bytes(b"caf\xc3", &mut events);
    /// p.push_bytes(b"\xa9 \xff", &mut events);
    /// p.finish(&mut events);
    /// assert_eq!(actionstream::narrative(&events), "café \u{FFFD}");
    /// assert_eq!(p.replaced(), 1);
    /// ```
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        // Inside a long raw value: whole text goes to the dialect machine's
        // lane (see `Parser::lane`).
        if self.lane_armed() && self.utf8.is_clear() && self.lane_out_bytes(bytes, out) {
            return;
        }
        let Parser {
            m,
            d,
            utf8,
            ids,
            scratch,
            ..
        } = self;
        utf8.decode(bytes, |text| match d {
            Some(d) => d.machine.push(text, &mut Emit::new(ids, scratch)),
            None => m.push(text, &mut Emit::new(ids, scratch)),
        });
        self.publish(out);
    }

    /// Ends the input: decides everything still held.
    pub fn finish(&mut self, out: &mut Vec<Event>) {
        let Parser {
            m,
            d,
            utf8,
            ids,
            scratch,
            ..
        } = self;
        match d {
            Some(d) => {
                utf8.finish(|text| d.machine.push(text, &mut Emit::new(ids, scratch)));
                d.machine.finish(&mut Emit::new(ids, scratch));
            }
            None => {
                utf8.finish(|text| m.push(text, &mut Emit::new(ids, scratch)));
                m.finish(&mut Emit::new(ids, scratch));
            }
        }
        self.publish(out);
        // Ready for a new response; the count of replaced bytes stays.
        let utf8 = std::mem::take(&mut self.utf8);
        *self = Parser {
            utf8,
            ..Parser::from_shared(self.m.shared.clone())
        };
    }

    /// How many invalid UTF-8 sequences [`Parser::push_bytes`] replaced
    /// since the parser was made.
    pub fn replaced(&self) -> u64 {
        self.utf8.replaced()
    }

    /// Bytes of text the parser holds, in the main machine and its shadows:
    /// undecided text, the block being read and its JSON scanner's text (a
    /// repaired copy where one is kept, else the token being gathered).
    /// Bounded by the block limit (contract 4.5), whatever the input.
    pub fn buffered(&self) -> usize {
        if let Some(d) = &self.d {
            return d.machine.buffered();
        }
        let mut held = 0;
        let mut machine = Some(&self.m);
        while let Some(m) = machine {
            held += m.buf.len() - (m.start - m.base);
            if let State::Block(block) = &m.state {
                if let Content::Json(scanner) = &block.content {
                    held += scanner.repaired().len();
                }
            }
            machine = m.spec.shadow();
        }
        held
    }

    /// Reports a provider-native tool call whose name is known: appends its
    /// `ActionStarted` to `out` and returns a handle to end it with.
    pub(crate) fn native_started(
        &mut self,
        name: &str,
        tag: &str,
        out: &mut Vec<Event>,
    ) -> NativeId {
        let id = Emit::new(&mut self.ids, &mut self.scratch).start(
            Some(name.to_owned()),
            Syntax::Native,
            tag,
        );
        self.publish(out);
        NativeId(id)
    }

    /// Ends a native tool call: its arguments text is parsed, shaped and
    /// validated as a block's would be.
    pub(crate) fn native_finished(
        &mut self,
        call: NativeId,
        name: &str,
        tag: &str,
        arguments: &str,
        out: &mut Vec<Event>,
    ) {
        let cfg = &self.m.shared.cfg;
        let raw: Arc<str> = arguments.into();
        let parsed = if arguments.trim().is_empty() {
            Ok(Value::Object(Default::default()))
        } else {
            serde_json::from_str::<Value>(arguments).map_err(|e| {
                ActionError::new(
                    ErrorKind::Syntax,
                    "",
                    format!("the arguments of tool call '{name}' are not JSON: {e}"),
                )
            })
        };
        let errors = match &parsed {
            Ok(args) => validate(cfg, name, args),
            Err(e) => vec![e.clone()],
        };
        let event = match parsed {
            Ok(arguments) if errors.is_empty() => Event::ActionComplete(Box::new(Action {
                id: ActionId(call.0),
                name: name.to_owned(),
                arguments,
                syntax: Syntax::Native,
                tag: tag.to_owned(),
                attributes: Vec::new(),
                raw,
                span: None,
                repairs: Arc::from(Vec::new()),
            })),
            _ => Event::ActionInvalid(Box::new(InvalidAction {
                id: ActionId(call.0),
                name: Some(name.to_owned()),
                errors,
                syntax: Syntax::Native,
                tag: tag.to_owned(),
                raw,
                span: None,
            })),
        };
        self.scratch.push(event);
        self.publish(out);
    }

    /// Moves events from the machines to `out`, renumbering ids.
    fn publish(&mut self, out: &mut Vec<Event>) {
        // Most pushes inside a block write nothing: no drain to set up.
        if self.scratch.is_empty() {
            return;
        }
        // At most one event each: room at once, not by doubling.
        out.reserve(self.scratch.len());
        for mut event in self.scratch.drain(..) {
            match &mut event {
                Event::Narrative(_) | Event::Reasoning(_) => {
                    push_merged(out, event);
                    continue;
                }
                Event::ActionStarted { id, .. } => {
                    let public = ActionId(self.next_public);
                    self.next_public += 1;
                    self.public.insert(id.0, public);
                    *id = public;
                }
                Event::ActionDelta { id, text } => {
                    if let Some((public, _)) = self.public.get_mut(id.0) {
                        *id = *public;
                    }
                    if let Some(Event::ActionDelta { id: prev, text: t }) = out.last_mut() {
                        if prev == id {
                            t.push_str(text);
                            continue;
                        }
                    }
                }
                Event::ArgumentsDelta { id, json } => {
                    let public = match self.public.get_mut(id.0) {
                        Some((public, streamed)) => {
                            *streamed = true;
                            *public
                        }
                        None => *id,
                    };
                    if let Some(Event::ArgumentsDelta { id: prev, json: j }) = out.last_mut() {
                        if *prev == public {
                            j.push_str(json);
                            continue;
                        }
                    }
                    // Renumbered once moved: a field written just before
                    // the move stalls the copy (the most frequent event of
                    // a streamed call).
                    out.push(event);
                    if let Some(Event::ArgumentsDelta { id, .. }) = out.last_mut() {
                        *id = public;
                    }
                    continue;
                }
                Event::ActionComplete(a) => {
                    if let Some(d) = &mut self.d {
                        d.action_ended();
                    }
                    // Syntaxes that do not stream their arguments give them
                    // whole, as one piece, just before the end.
                    if let Some((public, streamed)) = self.public.remove(a.id.0) {
                        if !streamed && self.m.shared.cfg.argument_deltas {
                            out.push(Event::ArgumentsDelta {
                                id: public,
                                json: a.arguments.to_string(),
                            });
                        }
                        a.id = public;
                    }
                }
                Event::ActionInvalid(a) => {
                    if let Some(d) = &mut self.d {
                        d.action_ended();
                    }
                    if let Some((public, _)) = self.public.remove(a.id.0) {
                        a.id = public;
                    }
                }
            }
            out.push(event);
        }
    }
}

/// Lends each of `events` to `f`, in order, and empties the list (its
/// room is kept).
fn lend_each(events: &mut Vec<Event>, f: &mut dyn FnMut(EventRef<'_>)) {
    if events.is_empty() {
        return;
    }
    for event in events.drain(..) {
        f(EventRef::from(&event));
    }
}

/// The configuration's model dialects compiled (once per configuration:
/// the cache lives in it), when any is chosen.
fn compiled(cfg: &Config) -> Option<Arc<Compiled>> {
    (!cfg.dialects.is_empty()).then(|| {
        cfg.compiled
            .get_or_init(|| Arc::new(Compiled::new(&cfg.dialects, cfg.calls_in_reasoning)))
            .clone()
    })
}

/// A native tool call in flight (see [`Parser::native_started`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NativeId(u64);

/// The most text the borrowing path gives the machine at once, in bytes.
///
/// A longer push is read in slices of about this size, each one's events
/// lent before the next slice is read. The events are the same, as the
/// machine reads any cutting of its input alike (the oracle holds it to
/// that); what changes is where the bytes live meanwhile:
/// - the machine's buffer holds a slice and what it keeps undecided, not
///   the whole push (a 100 KB push copied whole grew the buffer by
///   doubling, and its one large free at the end made the allocator
///   merge every small free chunk at once);
/// - each slice's events are dropped before the next is read, so their
///   memory is used again while it is warm, as `serde_json::from_str`
///   drops each value.
///
/// The collecting path ([`Parser::push`]) reads a push whole: its events
/// are kept until the push ends either way, and sliced (each slice
/// published) it was 9% slower on the same corpus.
///
/// Measured with `examples/whole_parse ours_with 2000` (the action-heavy
/// corpus pushed whole through the borrowing path), this constant set to
/// each size in turn: 1 KiB was the fastest of 256 B to 16 KiB, and took
/// about a fifth less time than no slicing (0.97–1.01 s against
/// 1.19–1.30 s, three runs each).
const SLICE: usize = 1024;

/// `text` in slices of at most [`SLICE`] bytes, each cut at a character
/// boundary (so a slice is shorter by at most three bytes).
fn slices(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (slice, after) = rest.split_at(floor_boundary(rest, SLICE));
        rest = after;
        Some(slice)
    })
}

/// All narrative text of `events`, joined.
///
/// ```
/// let events = actionstream::parse_str("hi <action_call name=\"x\">{}</action_call>!");
/// assert_eq!(actionstream::narrative(&events), "hi !");
/// ```
pub fn narrative(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Narrative(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Parses a whole response with the default configuration.
pub fn parse_str(text: &str) -> Vec<Event> {
    parse_str_with(Config::default(), text)
}

/// Parses a whole response with `config`.
pub fn parse_str_with(config: Config, text: &str) -> Vec<Event> {
    let mut parser = Parser::new(config);
    let mut events = Vec::new();
    parser.push(text, &mut events);
    parser.finish(&mut events);
    events
}
