//! The narrative machine: text, line starts, tag openers and fenced blocks
//! that are narrative; it hands blocks to [`super::block`].

use memchr::{memchr, memchr3};

use super::emit::Emit;
use super::state::{Block, Flow, Machine, Prose, State};
use super::syntax::{Closer, Content, Opened, Reader};
use crate::config::Config;
use crate::event::Syntax;
use crate::scan::fence::{CloseProbe, Fence, OpenProbe, Probe};
use crate::scan::json::JsonScanner;
use crate::scan::line::{opening, plain_line_start, LineContext, Opening};
use crate::scan::naming::Naming;
use crate::scan::tag::{find_closer, Found, TagProbe, MAX_OPENER};

impl Machine {
    #[inline]
    pub fn cfg(&self) -> &Config {
        &self.shared.cfg
    }

    /// Offset just past the text taken so far.
    #[inline]
    pub fn end(&self) -> usize {
        self.base + self.buf.len()
    }

    #[inline]
    fn byte(&self, at: usize) -> u8 {
        self.buf.as_bytes()[at - self.base]
    }

    /// Text `[from, to)` (absolute offsets).
    #[inline]
    pub fn text(&self, from: usize, to: usize) -> &str {
        &self.buf[from - self.base..to - self.base]
    }

    pub fn push(&mut self, text: &str, emit: &mut Emit<'_>) {
        let (settled, rest) = self.take_settled(text);
        emit.narrative(settled);
        if !rest.is_empty() {
            self.push_unsettled(rest, emit);
        }
    }

    /// Runs the machine over `text`, which [`Machine::take_settled`] has
    /// just declined (the borrowing path asks it first): not asked again.
    pub fn push_unsettled(&mut self, text: &str, emit: &mut Emit<'_>) {
        if self.string_lane(text, emit) {
            return;
        }
        self.buf.push_str(text);
        match self.block_lane(text, emit) {
            None | Some(Flow::Go) => self.run(emit),
            Some(Flow::Wait) => self.flush_narrative(emit),
            Some(Flow::Replaced) => {}
        }
        self.note_prose();
    }

    /// Runs the machine over what is buffered.
    fn run(&mut self, emit: &mut Emit<'_>) {
        loop {
            let flow = match &self.state {
                State::Text => self.narrative_text(),
                State::LineStart { .. } => self.line_start(emit),
                State::TagOpen { .. } => self.tag_open(emit),
                State::Fenced { .. } => self.fenced(),
                State::SkipTag { .. } => self.skip_tag(),
                State::Block(_) => {
                    let flow = self.block(emit);
                    self.sync_shadow(emit);
                    flow
                }
                State::Detached => Flow::Go,
            };
            match flow {
                Flow::Go => {}
                Flow::Wait => break,
                Flow::Replaced => return,
            }
        }
        self.flush_narrative(emit);
    }

    /// Emits narrative that can no longer begin anything.
    fn flush_narrative(&mut self, emit: &mut Emit<'_>) {
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
            State::Block(_) | State::Detached => self.start,
        };
        self.emit_narrative_to(keep_from, emit);
        self.drop_dead();
    }

    /// Drops the buffered text before `start` (given out, or read and
    /// passed) once it is half the buffer: the buffer does not grow with
    /// what is done, and is not moved for every few bytes.
    #[inline]
    pub fn drop_dead(&mut self) {
        let dead = self.start - self.base;
        if dead > 0 && dead >= self.buf.len() / 2 {
            self.buf.drain(..dead);
            self.base = self.start;
        }
    }

    /// Gives out the text up to `to` as narrative.
    pub fn emit_narrative_to(&mut self, to: usize, emit: &mut Emit<'_>) {
        if to > self.start {
            emit.narrative(self.text(self.start, to));
            self.start = to;
        }
    }

    // -- narrative ----------------------------------------------------------

    fn narrative_text(&mut self) -> Flow {
        let from = self.pos;
        let rest = &self.buf.as_bytes()[from - self.base..];
        match scan_text(&mut self.line, &self.shared.tag_first, rest) {
            Stop::End => {
                self.pos = self.end();
                Flow::Wait
            }
            Stop::LineStart(i) => {
                self.pos = from + i;
                self.state = State::LineStart {
                    probe: self.line.fence_probe(),
                    from: self.pos,
                };
                Flow::Go
            }
            Stop::TagOpen(i) => {
                self.pos = from + i + 1;
                self.tag_open_at(from + i);
                Flow::Go
            }
        }
    }

    /// The borrowing path: when the machine holds nothing and reads
    /// narrative mid-line, the front of `text` that is certain narrative is
    /// read straight from `text`, never copied into the buffer. Returns that
    /// narrative and the rest of `text`, which the machine must read next
    /// (through [`Machine::push`]); the state is moved past the narrative.
    ///
    /// The rule is [`scan_text`]'s, the one the buffered path uses: the
    /// same bytes decide the same way whichever path reads them.
    #[inline(always)]
    pub fn take_settled<'t>(&mut self, text: &'t str) -> (&'t str, &'t str) {
        if self.take_prose(text) {
            return (text, "");
        }
        self.take_settled_rest(text)
    }

    /// [`Machine::take_settled`] once [`Machine::take_prose`] has declined
    /// `text`.
    pub fn take_settled_rest<'t>(&mut self, text: &'t str) -> (&'t str, &'t str) {
        // Inside a block, or a tag being probed: the machine reads it all.
        if !matches!(self.state, State::Text | State::LineStart { .. }) {
            return self.take_settled_fenced(text);
        }
        let taken = self.take_settled_stop(text);
        self.note_prose();
        taken
    }

    /// The hot case of [`Machine::take_settled`], kept small enough to
    /// inline: prose with nothing held (see [`Machine::prose`]), mid-line
    /// or at a line start that `text` begins as a plain line, and no byte
    /// in `text` that could end it. Then all of `text` is narrative, given
    /// out, and the machine is in prose mid-line. The rules are those of
    /// [`Machine::take_settled_stop`], for text that stops nowhere. A
    /// short push mid-line whose special bytes are a token's common ones
    /// goes to [`Machine::take_prose_stops`], which may leave the machine
    /// at a line start or in inline code. Returns whether `text` was taken.
    #[inline(always)]
    pub fn take_prose(&mut self, text: &str) -> bool {
        let bytes = text.as_bytes();
        match self.prose {
            Prose::MidLine if !has_special(bytes) => {}
            Prose::LineStart
                if bytes.first().is_some_and(|&c| plain_line_start(c)) && !has_special(bytes) =>
            {
                self.line.plain_line();
                self.state = State::Text;
                self.prose = Prose::MidLine;
            }
            // Special bytes mid-line: the ones read here without the
            // machine (out of line: the hot push stays small).
            Prose::MidLine => return self.take_prose_stops(bytes),
            _ => return false,
        }
        self.given_out(text.len());
        true
    }

    /// [`Machine::take_prose`] for prose mid-line with special bytes, when
    /// they are the common ones of a token: backticks alone (inline code),
    /// or line ends alone, each opening a line its first byte decides (a
    /// plain line, a blank line, or the end of `bytes`). The rules are
    /// those of [`scan_text`] and [`Machine::take_settled_stop`]: a
    /// backtick run through [`LineContext::backtick_run`], a line start
    /// through [`opening`]. Anything else (a `<`, both kinds at once, a
    /// line the fence probe must read) is left to the machine, with nothing
    /// changed.
    #[inline(never)]
    fn take_prose_stops(&mut self, bytes: &[u8]) -> bool {
        // A token's bytes, one pass: which special bytes it holds.
        if bytes.len() > 16 {
            return false;
        }
        let kinds = bytes.iter().fold(0, |k, &b| k | KIND[usize::from(b)]);
        if kinds == TICK {
            let mut i = 0;
            while let Some(j) = bytes[i..].iter().position(|&b| b == b'`') {
                i = self.line.backtick_run(bytes, i + j);
            }
            self.given_out(bytes.len());
            // A run at the end may go on: then no prose is cached, and the
            // machine reads the next push.
            self.note_prose();
            return true;
        }
        if kinds != LINE_END {
            return false;
        }
        // Read on a copy of the line context: a line only the probe can
        // decide leaves the machine as it was.
        let mut line = self.line;
        for (j, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                line.new_line();
                match opening(bytes.get(j + 1).copied()) {
                    Opening::Plain => line.plain_line(),
                    Opening::Probe => return false,
                    Opening::Blank | Opening::Unread => {}
                }
            }
        }
        self.line = line;
        self.given_out(bytes.len());
        if bytes.last() == Some(&b'\n') {
            self.hold_line_start();
        }
        self.note_prose();
        true
    }

    /// A line begun at `start` by the last byte given out, nothing of it
    /// read: held open for its probe, as both push paths leave it.
    fn hold_line_start(&mut self) {
        self.state = State::LineStart {
            probe: self.line.fence_probe(),
            from: self.start,
        };
    }

    /// Works out [`Machine::prose`] again: called at the end of every entry
    /// that may change what it caches.
    #[inline]
    fn note_prose(&mut self) {
        self.prose =
            if self.start != self.end() || self.line.run != 0 || self.spec.shadow().is_some() {
                Prose::No
            } else {
                match self.state {
                    State::Text => Prose::MidLine,
                    // A line start with nothing of it stepped yet.
                    State::LineStart { from, .. } if from == self.start => Prose::LineStart,
                    _ => Prose::No,
                }
            };
    }

    /// The borrowing path's way through a line start held from the last
    /// push (the indentation or list marker of a line, all stepped, nothing
    /// else held): when `text` decides that the line opens no fence, and
    /// what was held needs no reading as text (no special byte after the
    /// indentation), the line context takes the line in, the held bytes go
    /// to `lend` as the narrative that comes before `text`, and the machine
    /// goes on in prose with nothing held. The rule is
    /// [`Machine::line_start`]'s; nothing changes when it cannot be decided
    /// so.
    #[inline]
    pub fn lend_held_line(&mut self, text: &str, lend: impl FnOnce(&str)) {
        if let State::LineStart { from, .. } = self.state {
            if from == self.start && from < self.pos {
                if let Some(held) = self.decide_held_line(text) {
                    lend(held);
                    self.given_out(0);
                }
            }
        }
    }

    #[inline(never)]
    fn decide_held_line(&mut self, text: &str) -> Option<&str> {
        let end = self.end();
        let State::LineStart { probe, from } = &self.state else {
            return None;
        };
        let from = *from;
        if self.pos != end
            || self.line.run != 0
            || self.spec.shadow().is_some()
            || !probe.tag.is_empty()
        {
            return None;
        }
        let held = end - from;
        // Stepped on a copy: a line left undecided, or a fence, is the
        // machine's to read, from where the probe stands now.
        let mut probe = probe.clone();
        let bytes = text.as_bytes();
        let (Probe::No, k) = step_line_start(&mut probe, bytes, held) else {
            return None;
        };
        let at = from - self.base;
        let resume = probe.indent_bytes;
        if resume < held && has_special(&self.buf.as_bytes()[at + resume..]) {
            return None;
        }
        self.line.not_a_fence_at(&probe, bytes, k);
        self.state = State::Text;
        self.buf.get(at..)
    }

    /// [`Machine::take_settled`] inside a fenced block that is narrative,
    /// mid-line: text with no line end is narrative, as [`Machine::fenced`]
    /// would find (only a line start can close the fence).
    fn take_settled_fenced<'t>(&mut self, text: &'t str) -> (&'t str, &'t str) {
        if matches!(self.state, State::Fenced { probe: None, .. })
            && self.start == self.end()
            && self.spec.shadow().is_none()
            && !text.as_bytes().contains(&b'\n')
        {
            self.given_out(text.len());
            return (text, "");
        }
        ("", text)
    }

    /// [`Machine::take_settled`] where the text may stop the narrative. A
    /// line start decided within `text` (a blank line, a list item, a line
    /// indented) is read here too, with the rule [`Machine::line_start`]
    /// uses; one still open at the end of `text` is left to the machine.
    fn take_settled_stop<'t>(&mut self, text: &'t str) -> (&'t str, &'t str) {
        if self.start != self.end() || self.spec.shadow().is_some() {
            return ("", text);
        }
        let bytes = text.as_bytes();
        let mut i = match self.state {
            State::Text => 0,
            // A line begun by the last push's last byte: nothing of it is
            // stepped yet (nothing is held).
            State::LineStart { from, .. } if from == self.start => {
                match self.plain_line_at(bytes, 0) {
                    Some(resume) => {
                        self.state = State::Text;
                        resume
                    }
                    None => return ("", text),
                }
            }
            _ => return ("", text),
        };
        let stop = loop {
            match scan_text(&mut self.line, &self.shared.tag_first, &bytes[i..]) {
                Stop::End => break Stop::End,
                Stop::TagOpen(j) => break Stop::TagOpen(i + j),
                Stop::LineStart(j) => match self.plain_line_at(bytes, i + j) {
                    Some(resume) => i = resume,
                    None => break Stop::LineStart(i + j),
                },
            }
        };
        let n = match stop {
            Stop::End => text.len(),
            Stop::LineStart(i) | Stop::TagOpen(i) => i,
        };
        self.given_out(n);
        let at = self.start;
        match stop {
            Stop::End => {}
            Stop::LineStart(_) => self.hold_line_start(),
            Stop::TagOpen(_) => {
                // The `<` is the first byte of the rest.
                self.pos = at + 1;
                self.tag_open_at(at);
            }
        }
        text.split_at(n)
    }

    /// Whether the line beginning at `bytes[at]` is decided in `bytes` to
    /// open no fence; if so, the line context takes it in and the offset
    /// to read on from as text is returned. A line that opens a fence, or
    /// that `bytes` ends before deciding, leaves the context as it was.
    fn plain_line_at(&mut self, bytes: &[u8], at: usize) -> Option<usize> {
        let line = &bytes[at..];
        // What the probe would say, without making one, where the first
        // byte decides it.
        match opening(line.first().copied()) {
            Opening::Plain => {
                self.line.plain_line();
                return Some(at);
            }
            Opening::Unread => return None,
            Opening::Blank => return Some(at),
            Opening::Probe => {}
        }
        let mut probe = self.line.fence_probe();
        match step_line_start(&mut probe, line, 0) {
            (Probe::No, k) => Some(at + self.line.not_a_fence_at(&probe, line, k)),
            _ => None,
        }
    }

    /// `n` bytes read from pushed text were given out, nothing being held:
    /// the buffer restarts at the first byte not given out.
    #[inline]
    fn given_out(&mut self, n: usize) {
        let at = self.end() + n;
        self.buf.clear();
        self.base = at;
        self.start = at;
        self.pos = at;
    }

    /// Moves to the start of a new line at `at`.
    pub fn new_line_at(&mut self, at: usize) {
        self.pos = at;
        self.line.new_line();
        self.state = State::LineStart {
            probe: self.line.fence_probe(),
            from: at,
        };
    }

    fn line_start(&mut self, emit: &mut Emit<'_>) -> Flow {
        let end = self.end();
        let State::LineStart { probe, from } = &mut self.state else {
            return Flow::Go;
        };
        let from = *from;
        let line = &self.buf.as_bytes()[from - self.base..end - self.base];
        let stepped = self.pos - from;
        let (verdict, k) = step_line_start(probe, &line[stepped..], stepped);
        let at = stepped + k;
        self.pos = from + at;
        match verdict {
            Probe::More => Flow::Wait,
            Probe::No => {
                let resume = self.line.not_a_fence_at(probe, line, at);
                self.pos = from + resume;
                self.state = State::Text;
                Flow::Go
            }
            Probe::Yes => {
                let mut probe = std::mem::replace(probe, OpenProbe::new(0));
                self.line.fence_line(&probe);
                self.fence_opened(&mut probe, from, emit);
                Flow::Go
            }
        }
    }

    fn fence_opened(&mut self, probe: &mut OpenProbe, from: usize, emit: &mut Emit<'_>) {
        let fence = probe.fence();
        let tag = probe.take_tag();
        let cfg = self.cfg();
        let generic = if cfg.is_action_fence_tag(&tag) {
            false
        } else if cfg.is_generic_fence_tag(&tag) {
            true
        } else {
            self.state = State::Fenced {
                fence,
                probe: Some(CloseProbe::new(fence)),
                from: self.pos,
            };
            return;
        };
        let naming = if generic {
            Naming::Generic
        } else {
            Naming::Action
        };
        let opened = Opened {
            syntax: Syntax::Fence,
            tag,
            closer: Closer::fence(fence),
            reader: Reader::Json(naming),
            from,
            content_start: self.pos,
            generic,
            name_attr: None,
            attrs: Vec::new(),
        };
        self.open_block(opened, emit);
    }

    /// Probes the `<` at `from`, with the last `<`'s probe made new (no
    /// allocation a `<`).
    fn tag_open_at(&mut self, from: usize) {
        let probe = match self.spare_tag.take() {
            Some(mut p) => {
                p.reset();
                p
            }
            None => Box::new(TagProbe::new()),
        };
        self.state = State::TagOpen { probe, from };
    }

    /// Keeps a finished `<`'s probe for the next one (the one way back to
    /// `spare_tag`, as `tag_open_at` is the one way out).
    fn keep_tag_probe(&mut self, probe: Box<TagProbe>) {
        self.spare_tag = Some(probe);
    }

    fn tag_open(&mut self, emit: &mut Emit<'_>) -> Flow {
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
                if let State::TagOpen { probe, .. } =
                    std::mem::replace(&mut self.state, State::Text)
                {
                    self.keep_tag_probe(probe);
                }
                Flow::Go
            }
            Probe::Yes => {
                let first = self.byte(self.pos);
                if let State::TagOpen { mut probe, .. } =
                    std::mem::replace(&mut self.state, State::Text)
                {
                    self.tag_opened(&mut probe, from, first, emit);
                    self.keep_tag_probe(probe);
                }
                Flow::Go
            }
        }
    }

    fn tag_opened(&mut self, probe: &mut TagProbe, from: usize, first: u8, emit: &mut Emit<'_>) {
        let names = &self.shared.cfg.xml_tags;
        let Some(name) = probe.name.filter(|&i| i < names.len()) else {
            self.state = State::Text;
            return;
        };
        let tag = names[name].clone();
        let mut attrs = std::mem::take(&mut probe.attrs);
        let name_attr = attrs
            .iter()
            .position(|(k, _)| k == "name")
            .map(|i| attrs.remove(i).1);
        let opened = Opened {
            syntax: Syntax::Tag,
            tag,
            closer: Closer::Tag { name },
            reader: if first == b'<' {
                Reader::Xml
            } else {
                Reader::Json(Naming::Action)
            },
            from,
            // The white space between `>` and the content is scanned as
            // content.
            content_start: from + 1 + probe.open_len,
            generic: false,
            name_attr,
            attrs,
        };
        self.open_block(opened, emit);
    }

    /// A block begins: the narrative before it goes out, and one named by
    /// an attribute starts its action at once.
    fn open_block(&mut self, o: Opened, emit: &mut Emit<'_>) {
        self.emit_narrative_to(o.from, emit);
        let content = match o.reader {
            Reader::Json(naming) => {
                let mut scanner = self.scanner(naming);
                // Only a tag named by its attribute reads its JSON again,
                // from the repaired copy, and takes its object whole as the
                // arguments; other blocks need no copy, and shape each
                // action object by taking out the key that named it.
                let attr = o.name_attr.is_some();
                scanner.set_copy(attr);
                scanner.set_leave_name_key(!attr);
                Content::Json(scanner)
            }
            Reader::Xml => Content::Xml,
        };
        let attr_id = o
            .name_attr
            .as_ref()
            .map(|n| emit.start(Some(n.clone()), o.syntax, &o.tag));
        self.pos = o.content_start;
        self.state = State::Block(Box::new(Block::new(o, content, attr_id)));
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
                self.shared.cfg.discriminators.clone(),
            )),
        }
    }

    /// Keeps a finished block's scanner for the next block.
    pub fn keep_spare(&mut self, content: Content) {
        if let Content::Json(mut s) = content {
            s.shed();
            self.spare = Some(s);
        }
    }

    /// A fenced block whose text is narrative: read on to its closer.
    pub fn narrative_fence(&mut self, fence: Fence, probe: Option<CloseProbe>, from: usize) {
        self.state = State::Fenced { fence, probe, from };
    }

    fn fenced(&mut self) -> Flow {
        let end = self.end();
        let State::Fenced { fence, probe, from } = &mut self.state else {
            return Flow::Go;
        };
        if let Some(p) = probe {
            let (verdict, k) = p.run(&self.buf.as_bytes()[self.pos - self.base..end - self.base]);
            self.pos += k;
            match verdict {
                Probe::More => return Flow::Wait,
                Probe::No => *probe = None,
                Probe::Yes => {
                    self.new_line_at(self.pos);
                    return Flow::Go;
                }
            }
        }
        let rest = &self.buf.as_bytes()[self.pos - self.base..];
        match memchr(b'\n', rest) {
            Some(i) => {
                self.pos += i + 1;
                *probe = Some(CloseProbe::new(*fence));
                *from = self.pos;
                Flow::Go
            }
            None => {
                self.pos = end;
                Flow::Wait
            }
        }
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

    /// Ends the input: everything held is decided.
    ///
    /// A block ending at the end of input may hand over to a shadow, or turn
    /// into narrative that ended at its first closer: then the new state is
    /// decided in turn.
    pub fn finish(&mut self, emit: &mut Emit<'_>) {
        loop {
            let end = self.end();
            match std::mem::replace(&mut self.state, State::Text) {
                State::LineStart { mut probe, from } if probe.complete_at_eof() => {
                    self.pos = end;
                    self.fence_opened(&mut probe, from, emit);
                    if !matches!(self.state, State::Block(_)) {
                        break;
                    }
                }
                State::Block(b) => self.state = State::Block(b),
                _ => break,
            }
            if !self.block_at_eof(emit) {
                return;
            }
        }
        self.spec.drop_shadow();
        let end = self.end();
        self.pos = end;
        self.emit_narrative_to(end, emit);
        self.state = State::Text;
        self.note_prose();
    }
}

/// Where [`scan_text`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// All of the text is narrative (a backtick run at its end may go on).
    End,
    /// A line begins at this index whose start must be probed (it may open
    /// a fence); the text before it is narrative.
    LineStart(usize),
    /// A `<` at this index may open a call tag; the text before it is
    /// narrative.
    TagOpen(usize),
}

/// Reads narrative mid-line: `bytes` follow the last byte read. Keeps the
/// line context (inline code, the backtick run that may go on) and stops
/// where the machine must leave the text state. The one rule for narrative,
/// used on the buffer and, by the borrowing path, on pushed text.
#[inline(always)]
fn scan_text(line: &mut LineContext, tag_first: &[u64; 4], bytes: &[u8]) -> Stop {
    let mut i = 0;
    // A backtick run cut by the last push may continue.
    if line.run > 0 {
        while i < bytes.len() && bytes[i] == b'`' {
            line.run += 1;
            i += 1;
        }
        if i == bytes.len() {
            return Stop::End;
        }
        line.end_run();
    }
    loop {
        let Some(j) = find_special(&bytes[i..]) else {
            return Stop::End;
        };
        let at = i + j;
        match bytes[at] {
            b'\n' => {
                i = at + 1;
                line.new_line();
                // Most lines start with a byte that can begin neither a
                // fence nor a list item: no probe for them.
                if bytes.get(i).is_some_and(|&c| plain_line_start(c)) {
                    line.plain_line();
                    continue;
                }
                return Stop::LineStart(i);
            }
            b'`' => {
                i = line.backtick_run(bytes, at);
                if i == bytes.len() {
                    return Stop::End;
                }
            }
            _ => {
                i = at + 1;
                // A `<` followed by a byte that begins no tag name is text.
                let next = bytes.get(i).copied();
                if next.is_some_and(|c| tag_first[usize::from(c >> 6)] >> (c & 63) & 1 == 0) {
                    continue;
                }
                if !line.in_code() {
                    return Stop::TagOpen(at);
                }
            }
        }
    }
}

/// Steps `probe` along the start of a line: `rest` is its next bytes, after
/// the `stepped` bytes of the line stepped already (a line start longer
/// than any opener is not one). Returns the verdict and where in `rest` it
/// came: at the byte that said no, just past the byte that said yes, or at
/// the end of `rest` (more is needed). The one loop for both push paths
/// and a line start held between pushes.
#[inline]
fn step_line_start(probe: &mut OpenProbe, rest: &[u8], stepped: usize) -> (Probe, usize) {
    for (i, &b) in rest.iter().enumerate() {
        if stepped + i > MAX_OPENER {
            return (Probe::No, i);
        }
        match probe.step(b) {
            Probe::No => return (Probe::No, i),
            Probe::Yes => return (Probe::Yes, i + 1),
            Probe::More => {}
        }
    }
    (Probe::More, rest.len())
}

/// The first byte that can end plain narrative: a line end, a `<`, a
/// backtick. Pushes are often a few bytes (a token), where memchr's set-up
/// costs more than a plain loop: short slices take the loop.
#[inline]
fn find_special(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 16 {
        bytes.iter().position(|&b| KIND[usize::from(b)] != 0)
    } else {
        memchr3(b'\n', b'<', b'`', bytes)
    }
}

/// Whether `bytes` hold a byte [`find_special`] finds. A token-sized push
/// (4 to 15 bytes) is read as two overlapping words, each tested for the
/// three bytes at once (the classic test for a zero byte, on the word
/// XORed with each byte repeated): no loop, no branch per byte.
#[inline]
fn has_special(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    #[inline]
    fn any(word: u64) -> bool {
        let zero = |b: u8| {
            let x = word ^ (ONES * u64::from(b));
            x.wrapping_sub(ONES) & !x & HIGH
        };
        zero(b'\n') | zero(b'<') | zero(b'`') != 0
    }
    if let (Some(a), Some(b)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        if bytes.len() <= 16 {
            return any(u64::from_ne_bytes(*a)) || any(u64::from_ne_bytes(*b));
        }
        return memchr3(b'\n', b'<', b'`', bytes).is_some();
    }
    if let (Some(a), Some(b)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return any(u64::from(u32::from_ne_bytes(*a)) | u64::from(u32::from_ne_bytes(*b)) << 32);
    }
    bytes.iter().any(|&b| KIND[usize::from(b)] != 0)
}

/// [`KIND`] of a line end.
const LINE_END: u8 = 1;
/// [`KIND`] of a backtick.
const TICK: u8 = 2;
/// [`KIND`] of a `<`.
const TAG_OPEN: u8 = 4;

/// The bytes that can end plain narrative ([`find_special`]), by kind
/// ([`Machine::take_prose_stops`]); 0 for every other byte. The one table
/// of them.
static KIND: [u8; 256] = {
    let mut t = [0; 256];
    t[b'\n' as usize] = LINE_END;
    t[b'`' as usize] = TICK;
    t[b'<' as usize] = TAG_OPEN;
    t
};

#[cfg(test)]
mod tests {
    use super::{find_special, has_special};

    /// `has_special` against a byte-by-byte look.
    fn check(bytes: &[u8]) {
        assert_eq!(
            has_special(bytes),
            find_special(bytes).is_some(),
            "{bytes:?}"
        );
    }

    /// The word test against a byte-by-byte look, at every length a push
    /// takes the words for, with each special byte at every position among
    /// bytes that differ from one only in the high bit (UTF-8's
    /// continuation and lead bytes) or by one (the test's borrows).
    #[test]
    fn has_special_agrees_with_a_byte_by_byte_look() {
        let fillers: &[u8] = &[
            b'a', 0x8a, 0xbc, 0xe0, 0x0b, 0x3b, 0x61, 0x09, 0x5f, 0xff, 0x00, 0x01,
        ];
        for len in 0..=24 {
            for &fill in fillers {
                let mut bytes = vec![fill; len];
                check(&bytes);
                for at in 0..len {
                    for special in [b'\n', b'<', b'`'] {
                        bytes[at] = special;
                        assert!(has_special(&bytes), "{bytes:?}");
                        bytes[at] = fill;
                    }
                    // Mixed fillers: the borrow of one byte into the next.
                    bytes[at] = fillers[(at + len) % fillers.len()];
                    check(&bytes);
                }
            }
        }
    }
}
