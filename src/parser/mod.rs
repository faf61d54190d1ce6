//! The push parser: the top-level state machine.
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
//! The probes that recognise fence lines and call tags ([`crate::scan`])
//! are stepped one byte at a time and never rescan what they consumed; the
//! JSON inside a block is scanned once by [`JsonScanner`], which knows when
//! the JSON is complete, so a closer inside a JSON string never closes the
//! block.
//!
//! **Speculation.** When a block meets a closer while its JSON is still open
//! (a fence line inside a string, say), the block may yet complete at a later
//! closer, or break, in which case the contract has it end at *that first*
//! closer, with the text after it parsed as usual. Rather than re-parse that
//! text later, a second machine (the *shadow*) is started at the closer and
//! fed, in lockstep, each piece of text the block has read. If the block
//! completes, the shadow is dropped; if it breaks or the input ends with it
//! cut off, the block ends at its first closer and the shadow, with
//! everything it has found, takes over. Lockstep keeps the chain of shadows
//! a function of the text alone (never of the chunking): the shadow reads
//! each piece right after the block does, and up to the very byte where the
//! block breaks before it takes over. Chains are short in practice (a `"`
//! that opens a string in the shadow's block closes one in its parent's, so
//! the parent breaks), but blocks whose JSON Lines stay in step with their
//! parent's can nest, so shadows nest at most [`MAX_SPECULATION`] deep: a
//! block that would need a deeper one ends at that closer instead.
//!
//! Internally, action ids are unique numbers drawn from one counter; the
//! [`Parser`] renumbers them in the order their `ActionStarted` events come
//! out, so ids count from 0 whatever the speculation did.
//!
//! # Termination
//!
//! [`Parser::push`] consumes all of its input and returns once nothing more
//! can be decided without more text. [`Parser::finish`] decides everything
//! that is left: held text becomes narrative, a block whose JSON is complete
//! completes (repair `missing closer`), any other block is invalid. After
//! `finish`, the parser is empty and may be fed a new response.

use std::collections::BTreeMap;
use std::sync::Arc;

use memchr::{memchr, memchr3};
use serde_json::Value;

use crate::config::Config;
use crate::event::{Action, ActionError, ActionId, Event, InvalidAction, Syntax};
use crate::scan::fence::{CloseProbe, Fence, OpenProbe, Probe};
use crate::scan::json::{JsonScanner, Naming};
use crate::scan::tag::{TagProbe, MAX_OPENER};
use crate::utf8::Utf8Decoder;

mod block;

/// How deep shadows nest (see the module docs).
pub const MAX_SPECULATION: usize = 4;

/// Settings shared by a parser and its shadows.
#[derive(Debug)]
struct Shared {
    cfg: Config,
    discriminators: Arc<[String]>,
    /// `</NAME>` for each tag name.
    closers: Vec<String>,
    /// Bytes that begin a tag name.
    tag_first: [u64; 4],
}

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
    utf8: Utf8Decoder,
    ids: u64,
    /// Internal id → public id, for actions started and not yet ended.
    public: BTreeMap<u64, ActionId>,
    next_public: u64,
    scratch: Vec<Event>,
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
            m: Machine::new(shared, 0, 0),
            utf8: Utf8Decoder::new(),
            ids: 0,
            public: BTreeMap::new(),
            next_public: 0,
            scratch: Vec::new(),
        }
    }

    /// A parser for one response.
    pub fn new(config: Config) -> Self {
        let shared = Arc::new(Shared {
            discriminators: config.discriminators.clone().into(),
            closers: config.xml_tags.iter().map(|n| format!("</{n}>")).collect(),
            tag_first: {
                let mut t = [0u64; 4];
                for n in &config.xml_tags {
                    if let Some(&b) = n.as_bytes().first() {
                        t[usize::from(b >> 6)] |= 1 << (b & 63);
                    }
                }
                t
            },
            cfg: config,
        });
        Parser::from_shared(shared)
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
        self.m.push(text, &mut self.ids, &mut self.scratch);
        self.publish(out);
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
        let Parser {
            m,
            utf8,
            ids,
            scratch,
            ..
        } = self;
        utf8.decode(bytes, |text| m.push(text, ids, scratch));
        self.publish(out);
    }

    /// Ends the input: decides everything still held.
    pub fn finish(&mut self, out: &mut Vec<Event>) {
        let Parser {
            m,
            utf8,
            ids,
            scratch,
            ..
        } = self;
        utf8.finish(|text| m.push(text, ids, scratch));
        m.finish(ids, scratch);
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

    /// Bytes of response text taken so far (the offset the next byte gets).
    pub fn offset(&self) -> usize {
        self.m.base + self.m.buf.len()
    }

    /// Bytes of text the parser holds, in the main machine and its shadows:
    /// undecided text, the block being read and its repaired JSON copy.
    /// Bounded by the block limit (contract 4.5), whatever the input.
    pub fn buffered(&self) -> usize {
        let mut held = 0;
        let mut machine = Some(&self.m);
        while let Some(m) = machine {
            held += m.buf.len() - (m.start - m.base);
            if let State::Block(block) = &m.state {
                if let Content::Json(scanner) = &block.content {
                    held += scanner.repaired().len();
                }
            }
            machine = m.spec.as_deref();
        }
        held
    }

    /// Reports a provider-native tool call whose name is known: appends its
    /// `ActionStarted` to `out` and returns a handle to end it with.
    pub fn native_started(&mut self, name: &str, tag: &str, out: &mut Vec<Event>) -> NativeId {
        let id = self.ids;
        self.ids += 1;
        self.scratch.push(Event::ActionStarted {
            id: ActionId(id),
            name: Some(name.to_owned()),
            syntax: Syntax::Native,
            tag: tag.to_owned(),
        });
        self.publish(out);
        NativeId(id)
    }

    /// Ends a native tool call: its arguments text is parsed, shaped and
    /// validated as a block's would be.
    pub fn native_finished(
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
                ActionError::whole(format!(
                    "the arguments of tool call '{name}' are not JSON: {e}"
                ))
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
        for mut event in self.scratch.drain(..) {
            match &mut event {
                Event::Narrative(text) => {
                    if let Some(Event::Narrative(prev)) = out.last_mut() {
                        prev.push_str(text);
                        continue;
                    }
                }
                Event::ActionStarted { id, .. } => {
                    let public = ActionId(self.next_public);
                    self.next_public += 1;
                    self.public.insert(id.0, public);
                    *id = public;
                }
                Event::ActionDelta { id, text } => {
                    if let Some(public) = self.public.get(&id.0) {
                        *id = *public;
                    }
                    if let Some(Event::ActionDelta { id: prev, text: t }) = out.last_mut() {
                        if prev == id {
                            t.push_str(text);
                            continue;
                        }
                    }
                }
                Event::ActionComplete(a) => {
                    if let Some(public) = self.public.remove(&a.id.0) {
                        a.id = public;
                    }
                }
                Event::ActionInvalid(a) => {
                    if let Some(public) = self.public.remove(&a.id.0) {
                        a.id = public;
                    }
                }
            }
            out.push(event);
        }
    }
}

/// A native tool call in flight (see [`Parser::native_started`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeId(u64);

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

fn validate(cfg: &Config, name: &str, args: &Value) -> Vec<ActionError> {
    match &cfg.validator {
        Some(v) => v.validate(name, args),
        None => Vec::new(),
    }
}

// ---------------------------------------------------------------------------
// The machine.

/// Per-line state of narrative text.
#[derive(Debug, Clone, Copy, Default)]
struct LineState {
    /// Length of the backtick run being counted (it may continue).
    run: usize,
    /// Length of the inline-code run left open on this line.
    code: Option<usize>,
    /// Content indentation of the list item we are in.
    list: Option<usize>,
}

impl LineState {
    fn end_run(&mut self) {
        if self.run > 0 {
            self.code = match self.code {
                None => Some(self.run),
                Some(open) if open == self.run => None,
                other => other,
            };
            self.run = 0;
        }
    }

    fn new_line(&mut self) {
        self.run = 0;
        self.code = None;
    }
}

#[derive(Debug, Clone)]
enum State {
    /// Narrative, mid-line.
    Text,
    /// Narrative at a line start (`from`), probing for a fence opener.
    LineStart { probe: OpenProbe, from: usize },
    /// A `<` at `from` that may open a call tag.
    TagOpen { probe: Box<TagProbe>, from: usize },
    /// Inside a fenced block that is narrative; `probe` runs from `from` at
    /// a line start.
    Fenced {
        fence: Fence,
        probe: Option<CloseProbe>,
        from: usize,
    },
    /// The rest of an oversize tag block up to its closer: narrative.
    SkipTag { name: usize },
    /// A block being read.
    Block(Box<Block>),
}

/// How a block's content is read.
#[derive(Debug, Clone)]
enum Content {
    Json(Box<JsonScanner>),
    /// XML child elements: the block closes at its first closing tag.
    Xml,
}

/// How a block closes.
#[derive(Debug, Clone)]
enum Closer {
    Fence {
        fence: Fence,
        /// Probing the line that starts at `from`.
        probe: Option<(CloseProbe, usize)>,
        at_line_start: bool,
    },
    Tag {
        /// Index into the tag names.
        name: usize,
    },
}

/// What the block was at its first closer, in case it must end there.
#[derive(Debug, Clone)]
struct FirstCloser {
    end: usize,
    /// Each slot's id (if started) and name (if read whole) at that point.
    slots: Vec<(Option<u64>, Option<String>)>,
    /// Events withheld while the block's fate is open.
    held: Vec<Event>,
}

#[derive(Debug, Clone)]
struct Block {
    syntax: Syntax,
    tag: String,
    closer: Closer,
    content: Content,
    /// Offset where the content begins (after the opener).
    content_start: usize,
    /// For fences of a generic tag: whether it is an action block yet.
    generic: Option<bool>,
    name_attr: Option<String>,
    attrs: Vec<(String, String)>,
    /// Internal ids of started slots, by slot index.
    ids: Vec<Option<u64>>,
    /// Internal id of a tag named by its `name` attribute.
    attr_id: Option<u64>,
    /// For action deltas: the slot being delivered and the offset (in the
    /// scanned content) delivered up to.
    delta: Option<(usize, usize)>,
    first: Option<FirstCloser>,
}

/// One parsing machine: the main one, or a shadow.
#[derive(Debug, Clone)]
struct Machine {
    shared: Arc<Shared>,
    buf: String,
    /// Offset of `buf[0]`.
    base: usize,
    /// Offset of the first byte not yet given out (narrative or block raw).
    start: usize,
    /// Offset of the next byte to scan.
    pos: usize,
    state: State,
    line: LineState,
    /// How deep this machine is in the chain of shadows.
    depth: usize,
    spec: Option<Box<Machine>>,
    /// Offset up to which the shadow has been fed.
    spec_fed: usize,
    /// A shadow's events, kept until it takes over.
    pending: Vec<Event>,
    /// The scanner of the last block, kept for the next one.
    spare: Option<Box<JsonScanner>>,
}

/// What a step of the machine asks for.
enum Flow {
    /// Carry on in the (possibly new) state.
    Go,
    /// Nothing more can be decided without more text.
    Wait,
}

impl Machine {
    fn new(shared: Arc<Shared>, base: usize, depth: usize) -> Self {
        Machine {
            shared,
            buf: String::new(),
            base,
            start: base,
            pos: base,
            state: State::LineStart {
                probe: OpenProbe::new(3),
                from: base,
            },
            line: LineState::default(),
            depth,
            spec: None,
            spec_fed: base,
            pending: Vec::new(),
            spare: None,
        }
    }

    fn cfg(&self) -> &Config {
        &self.shared.cfg
    }

    fn end(&self) -> usize {
        self.base + self.buf.len()
    }

    fn byte(&self, at: usize) -> u8 {
        self.buf.as_bytes()[at - self.base]
    }

    fn push(&mut self, text: &str, ids: &mut u64, out: &mut Vec<Event>) {
        self.buf.push_str(text);
        self.run(ids, out);
    }

    /// Feeds the shadow, in lockstep, the text this machine has read past
    /// its block's first closer.
    fn sync_shadow(&mut self, ids: &mut u64) {
        self.feed_shadow_to(self.pos, ids);
    }

    fn feed_shadow_to(&mut self, to: usize, ids: &mut u64) {
        if let Some(shadow) = self.spec.as_deref_mut() {
            if to > self.spec_fed {
                let text = &self.buf[self.spec_fed - self.base..to - self.base];
                let mut pending = std::mem::take(&mut shadow.pending);
                shadow.push(text, ids, &mut pending);
                shadow.pending = pending;
                self.spec_fed = to;
            }
        }
    }

    /// Runs the machine over what is buffered.
    fn run(&mut self, ids: &mut u64, out: &mut Vec<Event>) {
        loop {
            let flow = match &self.state {
                State::Text => self.text(),
                State::LineStart { .. } => self.line_start(out),
                State::TagOpen { .. } => self.tag_open(ids, out),
                State::Fenced { .. } => self.fenced(),
                State::SkipTag { .. } => self.skip_tag(),
                State::Block(_) => {
                    let flow = self.block(ids, out);
                    self.sync_shadow(ids);
                    match flow {
                        BlockFlow::Go => Flow::Go,
                        BlockFlow::Wait => Flow::Wait,
                        BlockFlow::Replaced => return,
                    }
                }
            };
            if let Flow::Wait = flow {
                break;
            }
        }
        self.flush_narrative(out);
    }

    /// Emits narrative that can no longer begin anything.
    fn flush_narrative(&mut self, out: &mut Vec<Event>) {
        let keep_from = match &self.state {
            State::Text | State::SkipTag { .. } => self.pos,
            State::LineStart { from, .. } | State::TagOpen { from, .. } => *from,
            State::Fenced { probe, from, .. } => {
                if probe.is_some() {
                    *from
                } else {
                    self.pos
                }
            }
            State::Block(_) => self.start,
        };
        self.emit_narrative_to(keep_from, out);
        let dead = self.start - self.base;
        if dead > 0 && dead >= self.buf.len() / 2 {
            self.buf.drain(..dead);
            self.base = self.start;
        }
    }

    fn emit_narrative_to(&mut self, to: usize, out: &mut Vec<Event>) {
        if to > self.start {
            let text = &self.buf[self.start - self.base..to - self.base];
            // A shadow's events wait in `pending`: keep its narrative in one
            // piece rather than one per push.
            match out.last_mut() {
                Some(Event::Narrative(prev)) => prev.push_str(text),
                _ => out.push(Event::Narrative(text.to_owned())),
            }
            self.start = to;
        }
    }

    // -- narrative ----------------------------------------------------------

    fn text(&mut self) -> Flow {
        let end = self.end();
        // A backtick run cut by the last push may continue.
        if self.line.run > 0 {
            while self.pos < end && self.byte(self.pos) == b'`' {
                self.line.run += 1;
                self.pos += 1;
            }
            if self.pos == end {
                return Flow::Wait;
            }
            self.line.end_run();
        }
        loop {
            let rest = &self.buf.as_bytes()[self.pos - self.base..];
            let Some(i) = memchr3(b'\n', b'<', b'`', rest) else {
                self.pos = end;
                return Flow::Wait;
            };
            let at = self.pos + i;
            match rest[i] {
                b'\n' => {
                    self.pos = at + 1;
                    self.line.new_line();
                    // Most lines start with a byte that can begin neither a
                    // fence nor a list item: no probe for them.
                    if rest.get(i + 1).is_some_and(|&c| plain_line_start(c)) {
                        self.line.list = None;
                        continue;
                    }
                    self.state = State::LineStart {
                        probe: OpenProbe::new(self.max_fence_indent()),
                        from: self.pos,
                    };
                    return Flow::Go;
                }
                b'`' => {
                    let run = rest[i..].iter().take_while(|&&b| b == b'`').count();
                    self.pos = at + run;
                    self.line.run = run;
                    if self.pos == end {
                        return Flow::Wait;
                    }
                    self.line.end_run();
                }
                _ => {
                    self.pos = at + 1;
                    // A `<` followed by a byte that begins no tag name is text.
                    let next = rest.get(i + 1).copied();
                    let first = &self.shared.tag_first;
                    if next.is_some_and(|c| first[usize::from(c >> 6)] >> (c & 63) & 1 == 0) {
                        continue;
                    }
                    if self.line.code.is_none() {
                        self.state = State::TagOpen {
                            probe: Box::new(TagProbe::new()),
                            from: at,
                        };
                        return Flow::Go;
                    }
                }
            }
        }
    }

    /// Moves to the start of a new line at `at`.
    fn new_line_at(&mut self, at: usize) {
        self.pos = at;
        self.line.new_line();
        self.state = State::LineStart {
            probe: OpenProbe::new(self.max_fence_indent()),
            from: at,
        };
    }

    fn max_fence_indent(&self) -> usize {
        self.line.list.map_or(3, |w| w + 3)
    }

    fn line_start(&mut self, out: &mut Vec<Event>) -> Flow {
        let end = self.end();
        let State::LineStart { probe, from } = &mut self.state else {
            return Flow::Go;
        };
        let from = *from;
        let bytes = self.buf.as_bytes();
        let mut verdict = Probe::More;
        while self.pos < end {
            if self.pos - from > MAX_OPENER {
                verdict = Probe::No;
                break;
            }
            verdict = probe.step(bytes[self.pos - self.base]);
            if verdict == Probe::No {
                break;
            }
            self.pos += 1;
            if verdict == Probe::Yes {
                break;
            }
        }
        match verdict {
            Probe::More => Flow::Wait,
            Probe::No => {
                let probe = probe.clone();
                self.not_a_fence(&probe, from);
                Flow::Go
            }
            Probe::Yes => {
                let probe = probe.clone();
                self.fence_opened(&probe, from, out);
                Flow::Go
            }
        }
    }

    /// The line at `from` is not a fence opener: read it as text.
    fn not_a_fence(&mut self, probe: &OpenProbe, from: usize) {
        let blank = self.pos < self.end() && self.byte(self.pos) == b'\n' && probe.tag.is_empty();
        if let Some(w) = probe.list_item {
            self.line.list = Some(w);
        } else if !blank && self.line.list.is_some_and(|w| probe.indent < w) {
            self.line.list = None;
        }
        // Resume after the indentation: nothing in it is special.
        self.pos = from + probe.indent_bytes;
        self.state = State::Text;
    }

    fn fence_opened(&mut self, probe: &OpenProbe, from: usize, out: &mut Vec<Event>) {
        let fence = probe.fence();
        let tag = probe.tag().unwrap_or("").to_owned();
        let cfg = self.cfg();
        let generic = if cfg.is_action_fence_tag(&tag) {
            None
        } else if cfg.is_generic_fence_tag(&tag) {
            Some(false)
        } else {
            self.state = State::Fenced {
                fence,
                probe: None,
                from: self.pos,
            };
            self.start_fenced_line();
            return;
        };
        self.emit_narrative_to(from, out);
        let naming = if generic.is_some() {
            Naming::Generic
        } else {
            Naming::Action
        };
        let block = Block {
            syntax: Syntax::Fence,
            tag,
            closer: Closer::Fence {
                fence,
                probe: None,
                at_line_start: true,
            },
            content: Content::Json(self.scanner(naming)),
            content_start: self.pos,
            generic,
            name_attr: None,
            attrs: Vec::new(),
            ids: Vec::new(),
            attr_id: None,
            delta: None,
            first: None,
        };
        self.state = State::Block(Box::new(block));
    }

    fn scanner(&mut self, naming: Naming) -> Box<JsonScanner> {
        match self.spare.take() {
            Some(mut s) => {
                s.reset(naming);
                s
            }
            None => Box::new(JsonScanner::new(
                naming,
                self.cfg().strict,
                self.cfg().max_depth,
                self.shared.discriminators.clone(),
            )),
        }
    }

    fn tag_open(&mut self, ids: &mut u64, out: &mut Vec<Event>) -> Flow {
        let end = self.end();
        let names = &self.shared.cfg.xml_tags;
        let State::TagOpen { probe, from } = &mut self.state else {
            return Flow::Go;
        };
        let from = *from;
        let bytes = self.buf.as_bytes();
        let mut verdict = Probe::More;
        while self.pos < end {
            verdict = probe.step(bytes[self.pos - self.base], names);
            if verdict != Probe::More {
                break;
            }
            self.pos += 1;
        }
        match verdict {
            Probe::More => Flow::Wait,
            Probe::No => {
                // Resume where the probe stopped, or at the first line ending
                // it passed after `>`.
                if let Some(nl) = probe.first_newline {
                    self.pos = from + 1 + nl;
                }
                self.state = State::Text;
                Flow::Go
            }
            Probe::Yes => {
                let probe = probe.clone();
                let first = self.byte(self.pos);
                self.tag_opened(&probe, from, first, ids, out);
                Flow::Go
            }
        }
    }

    fn tag_opened(
        &mut self,
        probe: &TagProbe,
        from: usize,
        first: u8,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) {
        let names = &self.shared.cfg.xml_tags;
        let Some(name) = probe.name.filter(|&i| i < names.len()) else {
            self.state = State::Text;
            return;
        };
        let tag = names[name].clone();
        self.emit_narrative_to(from, out);
        let mut attrs = probe.attrs.clone();
        let name_attr = attrs
            .iter()
            .position(|(k, _)| k == "name")
            .map(|i| attrs.remove(i).1);
        let content_start = from + 1 + probe.open_len;
        let content = if first == b'<' {
            Content::Xml
        } else {
            Content::Json(self.scanner(Naming::Action))
        };
        let mut block = Block {
            syntax: Syntax::Tag,
            tag,
            closer: Closer::Tag { name },
            content,
            content_start,
            generic: None,
            name_attr,
            attrs,
            ids: Vec::new(),
            attr_id: None,
            delta: None,
            first: None,
        };
        if let Some(n) = &block.name_attr {
            let id = *ids;
            *ids += 1;
            block.attr_id = Some(id);
            out.push(Event::ActionStarted {
                id: ActionId(id),
                name: Some(n.clone()),
                syntax: Syntax::Tag,
                tag: block.tag.clone(),
            });
        }
        // The white space between `>` and the content is scanned as content.
        self.pos = content_start;
        self.state = State::Block(Box::new(block));
    }

    fn start_fenced_line(&mut self) {
        if let State::Fenced { fence, probe, from } = &mut self.state {
            *probe = Some(CloseProbe::new(*fence));
            *from = self.pos;
        }
    }

    fn fenced(&mut self) -> Flow {
        let end = self.end();
        let State::Fenced { probe, .. } = &mut self.state else {
            return Flow::Go;
        };
        if let Some(p) = probe {
            let bytes = self.buf.as_bytes();
            while self.pos < end {
                match p.step(bytes[self.pos - self.base]) {
                    Probe::More => self.pos += 1,
                    Probe::No => {
                        *probe = None;
                        break;
                    }
                    Probe::Yes => {
                        self.new_line_at(self.pos + 1);
                        return Flow::Go;
                    }
                }
            }
            if probe.is_some() {
                return Flow::Wait;
            }
        }
        let rest = &self.buf.as_bytes()[self.pos - self.base..];
        match memchr(b'\n', rest) {
            Some(i) => {
                self.pos += i + 1;
                self.start_fenced_line();
                Flow::Go
            }
            None => {
                self.pos = end;
                Flow::Wait
            }
        }
    }

    /// Ends the input: everything held is decided.
    fn finish(&mut self, ids: &mut u64, out: &mut Vec<Event>) {
        let end = self.end();
        match std::mem::replace(&mut self.state, State::Text) {
            State::LineStart { probe, from } if probe.complete_at_eof() => {
                self.pos = end;
                self.fence_opened(&probe, from, out);
                if let State::Block(_) = self.state {
                    self.block_at_eof(ids, out);
                    // The block's end may have handed over to a shadow.
                    return;
                }
            }
            State::Block(b) => {
                self.state = State::Block(b);
                self.block_at_eof(ids, out);
                return;
            }
            _ => {}
        }
        self.spec = None;
        self.pos = end;
        self.emit_narrative_to(end, out);
        self.state = State::Text;
    }

    fn skip_tag(&mut self) -> Flow {
        let State::SkipTag { name } = self.state else {
            return Flow::Go;
        };
        let closer = &self.shared.closers[name];
        match find_closer(
            &self.buf.as_bytes()[self.pos - self.base..],
            closer.as_bytes(),
        ) {
            Found::At(i) => {
                self.pos += i + closer.len();
                self.line.new_line();
                self.state = State::Text;
                Flow::Go
            }
            Found::Partial(i) => {
                // Hold the partial closer: it is not narrative yet.
                self.pos += i;
                Flow::Wait
            }
        }
    }
}

/// Whether a line starting with `c` is plain text: no fence, no list item.
fn plain_line_start(c: u8) -> bool {
    c.is_ascii_alphabetic()
        || c >= 0x80
        || matches!(
            c,
            b'.' | b','
                | b'!'
                | b'?'
                | b'"'
                | b'\''
                | b'('
                | b')'
                | b'['
                | b']'
                | b'#'
                | b'|'
                | b'_'
                | b'='
                | b':'
                | b';'
                | b'/'
                | b'&'
                | b'>'
                | b'@'
                | b'$'
                | b'%'
                | b'^'
                | b'{'
                | b'}'
        )
}

/// Where a closing tag stands in `hay`.
enum Found {
    /// At this index.
    At(usize),
    /// Not there; a prefix of it may begin at this index (or `hay.len()`).
    Partial(usize),
}

fn find_closer(hay: &[u8], closer: &[u8]) -> Found {
    let mut from = 0;
    while let Some(i) = memchr(b'<', &hay[from..]) {
        let at = from + i;
        let tail = &hay[at..];
        if tail.len() >= closer.len() {
            if &tail[..closer.len()] == closer {
                return Found::At(at);
            }
        } else if closer.starts_with(tail) {
            return Found::Partial(at);
        }
        from = at + 1;
    }
    Found::Partial(hay.len())
}

/// What a step of the block machinery asks for.
enum BlockFlow {
    Go,
    Wait,
    /// The machine was replaced by its shadow, which has run already.
    Replaced,
}
