//! The dialect engine: one machine for every model dialect (contract,
//! section 7), driven by the compiled descriptors.
//!
//! # Design
//!
//! The machine keeps the same buffer discipline as the main one (`buf`,
//! `base`, `start`, `pos`, all absolute offsets; see the parser's module
//! docs). In each state it searches for the markers that matter there with
//! one [`MarkerSet`](crate::scan::markers::MarkerSet), whose search state
//! ([`MarkerState`]) is kept between pushes, so no byte is looked at twice
//! and what is held back is exactly the longest marker prefix at the end.
//!
//! ```text
//!            {/[ first            section opener              reasoning opener
//!   Start ─────────────► Section ◄──────────── Text ─────────────────► Reasoning
//!     │  other byte          │ block ends        ▲ ▲    closer              │
//!     └──────────────────────┼──────────────────►┘ └────────────────────────┘
//!                            └─► back to Text (or to Reasoning it opened in)
//!   Text ── <|start|> / <|channel|> ──► Header ── <|message|> ──► Text,
//!                                                  Reasoning (analysis) or Section (a call)
//! ```
//!
//! A section is one block: its raw and span run from its opener through its
//! closer, and the calls in it end together when it closes (`section/`).
//!
//! Two rules keep a broken section from depending on the chunks or
//! swallowing what follows (contract, sections 2 and 4):
//!
//! - While a section (or a harmony header) is read, its readers see only
//!   the text up to the block limit from its start (`cap`): it outgrows the
//!   limit at that byte, however the text arrived. A reader that finds an
//!   error goes on at the byte that broke the value, not where its piece
//!   of text ended.
//! - A value (JSON, Python, raw text) is watched for the first closer inside
//!   it (the section's, or the call's end marker where the form has one).
//!   If the value then breaks, is cut off, or outgrows the limit, the call
//!   or the section ends at that first closer and the text after it is read
//!   again, as usual. A section that opened in text read again does not go
//!   back a second time (`replayed`), so no text is read more than twice.
//!
//! # Advice for hackers
//!
//! - A new dialect that fits the [`Calls`](crate::dialect::Calls) forms is
//!   data only (`dialect/builtin.rs`).
//! - A new form: a variant in `Calls`, its compiled [`compiled::Form`], the
//!   byte that chooses it (`SectionC::choose`), its reading states in
//!   `section/` (`Read`) and what it becomes at the end of input
//!   (`Sec::at_eof`).
//! - A new state here: its arm in `run`, in `flush` (what it may hold back)
//!   and in `finish`.

use std::sync::Arc;

use super::emit::Emit;
use super::state::{Flow, Machine, Shared};
use crate::event::Event;
use crate::scan::markers::MarkerState;

mod section;

use crate::dialect::compiled::{Compiled, HeaderMark, Inner, Outer, Roles};
use crate::dialect::ContentKind;
use crate::utf8::floor_boundary;
use section::Sec;

/// The longest push [`DialectMachine::take_plain`] takes: a token's size,
/// with room to spare.
const PLAIN_MAX: usize = 64;

/// The most white space that may stand between a call that ended
/// reasoning and the reasoning's closer, for the closer to be a marker.
const CLOSER_SPACE: usize = 256;

/// What a push [`DialectMachine::take_plain`] took is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plain {
    Narrative,
    Reasoning,
}

/// Where the dialect machine is.
#[derive(Debug)]
enum DState {
    /// Nothing but white space so far: a `first` call may begin.
    Start,
    /// Narrative.
    Text,
    /// Reasoning, closed by the markers of enclosure `i` (`None`: any).
    Reasoning(Option<usize>),
    /// A harmony header from `from`.
    Header { from: usize },
    /// A header with no opener at the response's start, from `from`.
    Bare { from: usize },
    /// After a call header: the opener of its body section.
    Body { section: usize },
    /// A call section.
    Section(Box<Sec>),
    /// The rest of an oversize section, up to its closer: narrative.
    Skip { section: usize },
    /// After a call that ended the reasoning of enclosure `i` (`None`:
    /// the reasoning the response started in): white space, then perhaps
    /// that reasoning's closer, which is then a marker.
    CloserDue(Option<usize>),
    /// Out of the state while a step works on it.
    Detached,
}

/// The machine for model dialects.
#[derive(Debug)]
pub(super) struct DialectMachine {
    shared: Arc<Shared>,
    c: Arc<Compiled>,
    buf: String,
    base: usize,
    start: usize,
    pos: usize,
    state: DState,
    ms: MarkerState,
    /// With the dialect `actions` chosen too: the main machine, which reads
    /// this machine's narrative for fences and call tags.
    inner: Option<Box<Machine>>,
    /// Bytes given to `inner` so far (its offsets count only those).
    fed: usize,
    /// While a block or a header is read: the offset past which its
    /// readers see nothing (the block limit from its start), so that it
    /// outgrows the limit at the same byte whatever the chunks.
    cap: Option<usize>,
    /// Text up to here has been read again after a block ended at its
    /// first closer: a block that opened in it does not go back again,
    /// so no text is read more than twice.
    replayed: usize,
    /// Armed at the end of a push inside a long raw value: the next push's
    /// plain bytes skip the walk (`section/lane.rs`).
    lane: Option<section::Lane>,
    /// Some narrative other than white space, or a block, has come: a
    /// `first` call can no longer begin after reasoning.
    said: bool,
    /// After a call that ended reasoning, something other than the
    /// reasoning's closer came at this offset: a section that opens right
    /// there may still be followed by the closer (the reasoning's
    /// enclosure, and the offset).
    armed: Option<(Option<usize>, usize)>,
}

impl DialectMachine {
    pub fn new(shared: Arc<Shared>, c: Arc<Compiled>) -> Self {
        let (state, ms) = if shared.cfg.reasoning_open {
            (DState::Reasoning(None), c.any_close.set.begin())
        } else {
            (DState::Start, c.outer.set.begin())
        };
        DialectMachine {
            shared: shared.clone(),
            c,
            buf: String::new(),
            base: 0,
            start: 0,
            pos: 0,
            state,
            ms,
            inner: shared
                .cfg
                .uses_actions()
                .then(|| Box::new(Machine::new(shared.clone(), 0, 0))),
            fed: 0,
            cap: None,
            replayed: 0,
            lane: None,
            said: false,
            armed: None,
        }
    }

    /// The end of the text the current step may read.
    fn end(&self) -> usize {
        let end = self.base + self.buf.len();
        match self.cap {
            Some(cap) if cap < end => self.base + floor_boundary(&self.buf, cap - self.base),
            _ => end,
        }
    }

    /// The text from `pos` to [`Self::end`].
    fn rest(&self) -> &str {
        &self.buf[self.pos - self.base..self.end() - self.base]
    }

    fn text(&self, from: usize, to: usize) -> &str {
        &self.buf[from - self.base..to - self.base]
    }

    /// Bytes held: undecided text and the block being read.
    pub fn buffered(&self) -> usize {
        self.base + self.buf.len() - self.start
    }

    pub fn push(&mut self, text: &str, emit: &mut Emit<'_>) {
        match self.take_plain(text) {
            Some(Plain::Narrative) => emit.narrative(text),
            Some(Plain::Reasoning) => emit.reasoning(text),
            None => self.push_not_plain(text, emit),
        }
    }

    /// [`Self::push`] for text [`Self::take_plain`] has declined already
    /// (the borrowing path asks it first): not asked again.
    pub fn push_not_plain(&mut self, text: &str, emit: &mut Emit<'_>) {
        if self.string_lane(text, emit) {
            return;
        }
        if self.lane.is_some() {
            let taken = self.lane_push(text, emit);
            if taken > 0 && taken == text.len() {
                return;
            }
            self.lane = None;
            self.buf.push_str(text.get(taken..).unwrap_or_default());
        } else {
            self.buf.push_str(text);
        }
        self.run(emit);
    }

    fn run(&mut self, emit: &mut Emit<'_>) {
        loop {
            let flow = match self.state {
                DState::Start => self.at_start(emit),
                DState::Text => self.narrative(emit),
                DState::Reasoning(enc) => self.reasoning(enc, emit),
                DState::Header { from } => self.header(from, emit),
                DState::Bare { from } => self.bare(from, emit),
                DState::Body { section } => self.body(section, emit),
                DState::Section(_) => self.section(emit),
                DState::Skip { section } => self.skip(section, emit),
                DState::CloserDue(enc) => self.closer_due(enc, emit),
                DState::Detached => Flow::Go,
            };
            if let Flow::Wait = flow {
                break;
            }
        }
        self.flush(emit);
    }

    /// The hot case of a push, tested before the buffer and the walk: in
    /// narrative (with no main machine reading it) or reasoning, with
    /// nothing held or pending, a short `text` none of whose bytes can
    /// begin a marker of the state's set is given out whole, as the walk
    /// and [`Self::flush`] would give it: returns as what, and the caller
    /// makes the event, lent from `text` on the borrowing path. `None`,
    /// with nothing changed, otherwise.
    ///
    /// Short pushes only (up to [`PLAIN_MAX`] bytes): a longer one is
    /// walked at memchr speed anyway, and a refused test would read its
    /// bytes twice.
    #[inline]
    pub fn take_plain(&mut self, text: &str) -> Option<Plain> {
        let end = self.base + self.buf.len();
        if text.is_empty() || text.len() > PLAIN_MAX || self.start != end || self.pos != end {
            return None;
        }
        let (plain, set) = match self.state {
            DState::Text if self.inner.is_none() => (Plain::Narrative, &self.c.outer.set),
            DState::Reasoning(enc) => (Plain::Reasoning, &self.reason_roles(enc).set),
            _ => return None,
        };
        if self.cap.is_some() || self.lane.is_some() || !set.passes(&self.ms, text.as_bytes()) {
            return None;
        }
        if plain == Plain::Narrative && !self.said {
            self.said = text.bytes().any(|b| !b.is_ascii_whitespace());
        }
        // All of the buffer was given out: it can go, and the offsets move
        // past `text` as if it had been read and given out.
        let at = end + text.len();
        self.buf.clear();
        self.base = at;
        self.start = at;
        self.pos = at;
        Some(plain)
    }

    /// Gives out what can no longer begin a marker, and compacts.
    fn flush(&mut self, emit: &mut Emit<'_>) {
        match self.state {
            DState::Text | DState::Skip { .. } => {
                let set = match self.state {
                    DState::Skip { section } => self.c.sections[section].close_set.as_ref(),
                    _ => Some(&self.c.outer.set),
                };
                let held = set.map_or(0, |s| s.held(&self.ms));
                self.narrative_to(self.pos - held, emit);
            }
            DState::Reasoning(enc) => {
                let held = self.reason_roles(enc).set.held(&self.ms);
                self.reasoning_to(self.pos - held, emit);
            }
            _ => {}
        }
        let dead = self.start - self.base;
        if dead > 0 && dead >= self.buf.len() / 2 {
            self.buf.drain(..dead);
            self.base = self.start;
        }
    }

    fn narrative_to(&mut self, to: usize, emit: &mut Emit<'_>) {
        if to <= self.start {
            return;
        }
        let text = &self.buf[self.start - self.base..to - self.base];
        if !self.said {
            self.said = text.bytes().any(|b| !b.is_ascii_whitespace());
        }
        match &mut self.inner {
            None => emit.narrative(text),
            Some(inner) => {
                // The main machine reads it; its spans count only what it
                // was given, so they move by what this machine kept back.
                let shift = self.start - self.fed;
                let mut events = Vec::new();
                inner.push(text, &mut emit.lending_to(&mut events));
                self.fed += text.len();
                emit.extend(shifted(events, shift));
            }
        }
        self.start = to;
    }

    /// Whether the main machine is reading a block: a marker is then its
    /// text, not the dialect's.
    fn inner_busy(&self) -> bool {
        self.inner.as_ref().is_some_and(|m| m.in_block())
    }

    /// A dialect marker comes: the main machine decides what it holds.
    fn inner_boundary(&mut self, emit: &mut Emit<'_>) {
        if let Some(inner) = &mut self.inner {
            let shift = self.start - self.fed;
            let mut events = Vec::new();
            inner.finish(&mut emit.lending_to(&mut events));
            emit.extend(shifted(events, shift));
        }
    }

    fn reasoning_to(&mut self, to: usize, emit: &mut Emit<'_>) {
        if to > self.start {
            emit.reasoning(self.text(self.start, to));
            self.start = to;
        }
    }

    /// Searches on from `pos` for a marker of `roles`: its role, start and
    /// end; `pos` moves past it, or to the end of the text.
    fn seek<R: Copy>(&mut self, roles: &Roles<R>) -> Option<(R, usize, usize)> {
        let end = self.end();
        let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
        match roles.set.find(&mut self.ms, hay) {
            Some(hit) => {
                let to = self.pos + hit.end;
                self.pos = to;
                Some((roles.roles[hit.marker], to - hit.len, to))
            }
            None => {
                self.pos = end;
                None
            }
        }
    }

    fn reason_roles(&self, enc: Option<usize>) -> &Roles<Inner> {
        match enc {
            Some(i) => &self.c.enclosures[i],
            None => &self.c.any_close,
        }
    }

    // -- narrative ----------------------------------------------------------

    /// Moves `pos` past white space: the byte after it, if one has come
    /// (within the cap, see `end`).
    fn skip_space(&mut self) -> Option<u8> {
        let end = self.end();
        let rest = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
        let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        self.pos += ws;
        rest.get(ws).copied()
    }

    fn at_start(&mut self, emit: &mut Emit<'_>) -> Flow {
        let Some(first_byte) = self.skip_space() else {
            // White space is narrative whatever follows.
            self.narrative_to(self.pos, emit);
            return Flow::Wait;
        };
        let c = self.c.clone();
        let rest = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
        for m in &c.leading {
            if rest.starts_with(m.as_bytes()) {
                // A leading marker: in no event, and the response still
                // starts after it.
                self.narrative_to(self.pos, emit);
                self.pos += m.len();
                self.start = self.pos;
                return Flow::Go;
            }
        }
        if c.leading.iter().any(|m| m.as_bytes().starts_with(rest)) {
            // It may still be one.
            self.narrative_to(self.pos, emit);
            return Flow::Wait;
        }
        let first = match first_byte {
            b'{' => c.first_json,
            b'[' => c.first_list,
            _ => None,
        };
        self.narrative_to(self.pos, emit);
        self.ms = c.outer.set.begin();
        let bare = c.harmony.as_ref().is_some_and(|h| h.env.bare_first);
        match first {
            Some(section) => {
                let from = self.pos;
                self.open_section(section, from, from, true, None);
            }
            None if bare => {
                self.state = DState::Bare { from: self.pos };
            }
            None => self.state = DState::Text,
        }
        Flow::Go
    }

    fn narrative(&mut self, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some((role, from, to)) = self.seek(&c.outer) else {
            return Flow::Wait;
        };
        self.narrative_to(from, emit);
        if self.inner_busy() {
            // Inside a fence or call tag: the marker is its text.
            return Flow::Go;
        }
        self.inner_boundary(emit);
        match role {
            Outer::Ignore => self.start = to,
            Outer::Reason(i) => {
                self.start = to;
                self.state = DState::Reasoning(Some(i));
                self.ms = c.enclosures[i].set.begin();
            }
            Outer::Section(i) => {
                let due = match self.armed.take() {
                    Some((enc, at)) if at == from => Some(enc),
                    _ => None,
                };
                self.open_section(i, from, to, false, None);
                self.closer_may_follow(due);
            }
            Outer::Header => self.open_header(from),
            Outer::Content(kind) => {
                let header = harmony_header("");
                self.route(from, to, header, Some(kind), emit);
            }
        }
        Flow::Go
    }

    fn reasoning(&mut self, enc: Option<usize>, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let roles = match enc {
            Some(i) => &c.enclosures[i],
            None => &c.any_close,
        };
        let Some((role, from, to)) = self.seek(roles) else {
            return Flow::Wait;
        };
        self.reasoning_to(from, emit);
        match role {
            Inner::Close => {
                self.start = to;
                // Calls written first in the response may come first after
                // the reasoning too (xLAM's `</think>[…]`).
                self.state = if c.first_after_reasoning && !self.said {
                    DState::Start
                } else {
                    DState::Text
                };
                self.ms = c.outer.set.begin();
            }
            Inner::Section(i) => self.open_section(i, from, to, false, Some(enc)),
            Inner::Ends(i) => {
                // Reasoning text if it is no call after all; else the
                // reasoning is over.
                self.open_section(i, from, to, false, Some(enc));
                self.closer_may_follow(Some(enc));
            }
            Inner::Header => self.open_header(from),
        }
        Flow::Go
    }

    /// Back to narrative, or to the reasoning a section opened in.
    fn resume(&mut self, reasoning: Option<Option<usize>>) {
        let c = self.c.clone();
        match reasoning {
            Some(enc) => {
                self.ms = match enc {
                    Some(i) => c.enclosures[i].set.begin(),
                    None => c.any_close.set.begin(),
                };
                self.state = DState::Reasoning(enc);
            }
            None => {
                self.ms = c.outer.set.begin();
                self.state = DState::Text;
            }
        }
    }

    /// After a call that ended reasoning: white space, then the
    /// reasoning's closer (a marker, in no event) or anything else
    /// (narrative, read as usual). The white space is narrative either way.
    fn closer_due(&mut self, enc: Option<usize>, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let closes = match enc {
            Some(i) => c.closes.get(i),
            None => Some(&c.all_closes),
        };
        let rest = self.rest().as_bytes();
        let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let after = &rest[ws..];
        let at = self.pos + ws;
        if ws <= CLOSER_SPACE {
            if after.is_empty() {
                return Flow::Wait;
            }
            // The closer must stand first: a bounded look at a marker's
            // length of bytes.
            if let Some(set) = closes {
                let mut st = set.begin();
                match set.find(&mut st, after) {
                    Some(hit) if hit.end == hit.len => {
                        self.narrative_to(at, emit);
                        self.start = at + hit.len;
                        self.pos = self.start;
                        self.resume(None);
                        return Flow::Go;
                    }
                    // All of it could still begin the closer.
                    None if set.held(&st) == after.len() => return Flow::Wait,
                    _ => {}
                }
            }
            self.armed = Some((enc, at));
        }
        self.resume(None);
        Flow::Go
    }

    fn skip(&mut self, section: usize, _emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(set) = c.sections[section].close_set.as_ref() else {
            self.resume(None);
            return Flow::Go;
        };
        let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
        match set.find(&mut self.ms, hay) {
            Some(hit) => {
                self.pos += hit.end;
                self.resume(None);
                Flow::Go
            }
            None => {
                self.pos = self.end();
                Flow::Wait
            }
        }
    }

    // -- harmony headers ----------------------------------------------------

    fn open_header(&mut self, from: usize) {
        let c = self.c.clone();
        if let Some(h) = &c.harmony {
            self.ms = h.header.set.begin();
        }
        self.state = DState::Header { from };
    }

    /// Reads a harmony header up to `<|message|>`: the channel and the
    /// recipient decide what the message is.
    fn header(&mut self, from: usize, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(h) = &c.harmony else {
            self.resume(None);
            return Flow::Go;
        };
        loop {
            // A header longer than the block limit is dropped at the limit
            // (as one cut short is), whatever the chunks.
            self.cap = Some(from.saturating_add(self.shared.cfg.max_block_bytes));
            let found = self.seek(&h.header);
            let capped = self.end();
            self.cap = None;
            let Some((mark, at, to)) = found else {
                if self.pos >= capped && capped < self.end() {
                    self.start = capped;
                    self.pos = capped;
                    self.resume(None);
                    return Flow::Go;
                }
                return Flow::Wait;
            };
            match mark {
                HeaderMark::Inner => continue,
                HeaderMark::Stop => {
                    // A header cut short: it is dropped, the marker read anew.
                    self.start = at;
                    self.pos = at;
                    self.resume(None);
                    return Flow::Go;
                }
                HeaderMark::Message => {
                    let header = harmony_header(self.text(from, at));
                    self.route(from, to, header, None, emit);
                    return Flow::Go;
                }
                HeaderMark::Content(kind) => {
                    let header = harmony_header(self.text(from, at));
                    self.route(from, to, header, Some(kind), emit);
                    return Flow::Go;
                }
            }
        }
    }

    /// A header from `from` ended at `to`: its channel and recipient say
    /// what the message is (see `dialect::Envelope`).
    fn route(
        &mut self,
        from: usize,
        to: usize,
        header: HarmonyHeader,
        kind: Option<ContentKind>,
        emit: &mut Emit<'_>,
    ) {
        let c = self.c.clone();
        let Some(h) = &c.harmony else {
            self.resume(None);
            return;
        };
        let env = &h.env;
        // The word less a header opener the marker syntax leaves in it.
        let header = HarmonyHeader {
            word: env
                .header
                .iter()
                .find_map(|m| header.word.strip_prefix(m.as_str()))
                .unwrap_or(&header.word)
                .trim()
                .to_owned(),
            ..header
        };
        let header = match header.recipient {
            None if env.word_is_recipient && !header.word.is_empty() => HarmonyHeader {
                recipient: Some(header.word.clone()),
                ..header
            },
            _ => header,
        };
        let reasoning = match (kind, &header.recipient) {
            (Some(k), _) => k == ContentKind::Reasoning,
            (None, Some(r)) => env.reasoning_recipients.contains(r),
            (None, None) => env.reasoning_channels.contains(&header.channel),
        };
        let narrative = match (kind, &header.recipient) {
            (Some(k), _) => k == ContentKind::Narrative,
            (None, Some(r)) => env.narrative_recipients.contains(r),
            (None, None) => true,
        };
        // A content marker names no recipient: the header's word is the
        // call's name.
        let header = match (kind, header.recipient) {
            (Some(_), None) => HarmonyHeader {
                recipient: Some(header.word.clone()),
                ..header
            },
            (_, r) => HarmonyHeader {
                recipient: r,
                ..header
            },
        };
        self.start = to;
        if reasoning {
            self.state = DState::Reasoning(Some(h.analysis));
            self.ms = c.enclosures[h.analysis].set.begin();
        } else if narrative {
            self.resume(None);
        } else if let Some(r) = header.recipient {
            let name = env
                .name_prefix
                .as_deref()
                .and_then(|p| r.strip_prefix(p))
                .unwrap_or(&r)
                .to_owned();
            if let Some(body) = h.body {
                // The content is a call section of its own: its opener
                // must come first (after white space).
                self.pos = to;
                self.state = DState::Body { section: body };
            } else if env.code.contains(&name) {
                self.open_code_call(h.code, from, to, name, emit);
            } else {
                self.open_harmony_call(h.section, from, to, name, emit);
            }
        }
    }

    /// After a call header whose content is a section: its opener, after
    /// white space, or the message is narrative.
    fn body(&mut self, section: usize, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(_) = self.skip_space() else {
            self.narrative_to(self.pos, emit);
            return Flow::Wait;
        };
        self.narrative_to(self.pos, emit);
        let open = c.sections[section].open.as_str();
        let rest = self.rest();
        let n = rest.len().min(open.len());
        if rest.as_bytes()[..n] != open.as_bytes()[..n] {
            self.resume(None);
            return Flow::Go;
        }
        if n < open.len() {
            return Flow::Wait;
        }
        let at = self.pos;
        self.open_section(section, at, at + open.len(), false, None);
        Flow::Go
    }

    /// At the start of the response, a header with no opener (`to=R` +
    /// `message`), where the envelope allows one.
    fn bare(&mut self, from: usize, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(h) = &c.harmony else {
            self.resume(None);
            return Flow::Go;
        };
        let ends = h.env.header_ends();
        match crate::dialect::bare_header(self.text(from, self.end()), &ends) {
            None => {
                self.pos = self.end();
                Flow::Wait
            }
            Some(Err(())) => {
                self.pos = from;
                self.resume(None);
                Flow::Go
            }
            Some(Ok((word, len, end))) => {
                self.pos = from + len;
                let kind = h
                    .env
                    .contents
                    .iter()
                    .find(|c| ends.get(end) == Some(&c.marker))
                    .map(|c| c.kind);
                let header = harmony_header(&word);
                self.route(from, from + len, header, kind, emit);
                Flow::Go
            }
        }
    }

    // -- end of input -------------------------------------------------------

    pub fn finish(&mut self, emit: &mut Emit<'_>) {
        self.lane = None;
        let end = self.end();
        match std::mem::replace(&mut self.state, DState::Detached) {
            DState::Section(sec) => {
                self.state = DState::Section(sec);
                if self.section_at_eof(emit) {
                    // It ended at its first closer: the text after it is
                    // read as usual, then the input ends again.
                    self.run(emit);
                    return self.finish(emit);
                }
            }
            DState::Reasoning(_) => {
                self.pos = end;
                self.reasoning_to(end, emit);
            }
            DState::Header { .. } => {
                // An unfinished header is a marker: in no event.
                self.start = end;
            }
            _ => {}
        }
        self.pos = end;
        self.narrative_to(end, emit);
        self.inner_boundary(emit);
        self.state = DState::Text;
    }
}

/// Events of the main machine with their spans moved by `shift`.
fn shifted(mut events: Vec<Event>, shift: usize) -> Vec<Event> {
    if shift > 0 {
        for e in &mut events {
            let span = match e {
                Event::ActionComplete(a) => a.span.as_mut(),
                Event::ActionInvalid(a) => a.span.as_mut(),
                _ => None,
            };
            if let Some(span) = span {
                span.start += shift;
                span.end += shift;
            }
        }
    }
    events
}

/// What a harmony header says.
struct HarmonyHeader {
    channel: String,
    recipient: Option<String>,
    /// The header's text outside markers, trimmed (Inkling's name).
    word: String,
}

/// Reads a header's text (markers included): the channel after
/// `<|channel|>`, and a recipient `to=…` wherever it stands.
fn harmony_header(text: &str) -> HarmonyHeader {
    let mut channel = String::new();
    let mut recipient = None;
    let mut after_channel = false;
    for part in text.split("<|") {
        let (marker, rest) = match part.split_once("|>") {
            Some((m, r)) => (m, r),
            None => ("", part),
        };
        if marker == "channel" {
            after_channel = true;
        }
        for word in rest.split_whitespace() {
            if let Some(to) = word.strip_prefix("to=") {
                recipient = Some(to.to_owned());
            } else if after_channel && channel.is_empty() && marker == "channel" {
                channel = word.to_owned();
            }
        }
    }
    let word = text
        .split("<|")
        .map(|p| p.split_once("|>").map_or(p, |(_, r)| r))
        .collect::<String>()
        .trim()
        .to_owned();
    HarmonyHeader {
        channel,
        recipient,
        word,
    }
}

#[cfg(test)]
mod tests {
    use super::harmony_header;

    #[test]
    fn harmony_headers_give_channel_and_recipient() {
        for (text, channel, to) in [
            ("<|start|>assistant<|channel|>analysis", "analysis", None),
            (
                "<|channel|>commentary to=functions.get_weather <|constrain|>json",
                "commentary",
                Some("functions.get_weather"),
            ),
            (
                "<|start|>assistant to=functions.f<|channel|>commentary json",
                "commentary",
                Some("functions.f"),
            ),
            ("<|channel|>final", "final", None),
        ] {
            let h = harmony_header(text);
            assert_eq!(
                (h.channel.as_str(), h.recipient.as_deref()),
                (channel, to),
                "{text}"
            );
        }
    }
}
