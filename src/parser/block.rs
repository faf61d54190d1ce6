//! Reading a block: its content up to a closer, what the scanner learns on
//! the way (names, the generic decision, deltas), the size limit, and the
//! end of input inside a block.

use super::emit::Emit;
use super::ending::Ending;
use super::state::{held, Block, Flow, Machine, State, MAX_SPECULATION};
use super::syntax::{Closer, Content};
use crate::event::{ActionError, ActionId, ErrorKind, Event};
use crate::scan::fence::{CloseProbe, Probe};
use crate::scan::tag::{find_closer, Found};
use crate::utf8::floor_boundary;

/// The least buffered block text worth looking ahead through for the
/// lines that cannot close the fence (see `fence_content`).
const MANY_LINES: usize = 64;

impl Machine {
    /// Steps the block in the state; see [`State::Detached`].
    pub(super) fn block(&mut self, emit: &mut Emit<'_>) -> Flow {
        let State::Block(mut b) = std::mem::replace(&mut self.state, State::Detached) else {
            return Flow::Go;
        };
        let flow = self.block_step(&mut b, emit);
        match (&flow, &self.state) {
            (Flow::Replaced, _) => {}
            (_, State::Detached) => self.state = State::Block(b),
            _ => {}
        }
        flow
    }

    /// Whether the block taken out of the state has ended (or the machine
    /// was replaced).
    pub(super) fn block_ended(&self, flow: &Flow) -> bool {
        matches!(flow, Flow::Replaced) || !matches!(self.state, State::Detached)
    }

    /// The block lane: `text`, just taken into the buffer, goes straight to
    /// the block's scanner, in one piece, when nothing in it can close the
    /// block: for a tag, no `<`; for a fence, every line that starts in
    /// `text` (or was being probed when it came) is decided within `text`
    /// not to be the closer, by the probe [`Machine::fence_content`] uses,
    /// save the last, which may be left undecided: held from its start,
    /// unread, as `fence_content` holds it. The machine must be inside
    /// the block with everything before `text` read, no shadow, no first
    /// closer passed and the block within its limit. That is what
    /// [`Machine::block_step`] would do, without its loop and its pieces:
    /// the scanner reads the same bytes, and what it learns is acted on
    /// once, at the end of `text` (no line in `text` closes the block, so
    /// nothing there can end differently). Returns `None`, having changed
    /// nothing, for any other push.
    pub(super) fn block_lane(&mut self, text: &str, emit: &mut Emit<'_>) -> Option<Flow> {
        let end = self.end();
        if self.pos + text.len() != end
            || self.spec.shadow.is_some()
            || end - self.start > self.shared.cfg.max_block_bytes
        {
            return None;
        }
        let State::Block(b) = &mut self.state else {
            return None;
        };
        if b.first.is_some() {
            return None;
        }
        let bytes = text.as_bytes();
        // The scanner's piece: from a line start the probe held, to one it
        // holds now.
        let (mut from, mut to) = (self.pos, end);
        match &mut b.closer {
            Closer::Tag { .. } => {
                // Mostly a token: `contains` loops over a short slice, where
                // memchr's set-up would cost more.
                if bytes.contains(&b'<') {
                    return None;
                }
            }
            Closer::Fence {
                fence,
                probe,
                at_line_start,
            } => {
                // The line being probed: its probe and where it starts.
                let at = end - bytes.len();
                let mut line = match probe {
                    Some((p, line_from)) => {
                        from = *line_from;
                        Some((p.clone(), *line_from))
                    }
                    None if *at_line_start => Some((CloseProbe::new(*fence), at)),
                    None => None,
                };
                let mut i = 0;
                let held = loop {
                    if let Some((p, line_from)) = &mut line {
                        let (verdict, k) = p.run(&bytes[i..]);
                        i += k;
                        match verdict {
                            // Undecided at the end of `text`: held, as
                            // `fence_content` holds it, unread.
                            Probe::More => break Some((p.clone(), *line_from)),
                            Probe::Yes => return None,
                            // The byte that said no is read as content.
                            Probe::No => {}
                        }
                    }
                    match bytes[i..].iter().position(|&c| c == b'\n') {
                        Some(j) if i + j + 1 == bytes.len() => break None,
                        Some(j) => {
                            i += j + 1;
                            line = Some((CloseProbe::new(*fence), at + i));
                        }
                        None => break None,
                    }
                };
                *at_line_start = held.is_some() || bytes.last() == Some(&b'\n');
                if let Some((_, line_from)) = held {
                    to = line_from;
                }
                *probe = held;
            }
        }
        let State::Block(mut b) = std::mem::replace(&mut self.state, State::Detached) else {
            return None;
        };
        self.pos = end;
        self.feed(&mut b, from, to);
        let flow = self.after_feed(&mut b, emit);
        if !self.block_ended(&flow) {
            self.state = State::Block(b);
            return Some(Flow::Wait);
        }
        Some(flow)
    }

    /// The lane through a long string value: `text` is the middle of a
    /// JSON string in a block, so all a push does is keep its bytes (the
    /// block's raw text, the string so far), move on, and, with action
    /// deltas on, send them as the action's delta. [`Machine::block_lane`]
    /// would read it so: no closer can stand in `text` (no `<` for a tag,
    /// no line end for a fence, whose closer probe is idle mid-line), the
    /// scanner takes it whole as plain string bytes
    /// ([`JsonScanner::take_string_piece`]), nothing is named, and the
    /// block stays within its limit, with no shadow and no first closer
    /// passed; what `after_feed` then does is the delta alone
    /// ([`Machine::name_and_deliver`]). Returns `false`, having changed
    /// nothing, for any other push.
    ///
    /// `bench_report`'s "one long string value" rows measure it: a 100 KB
    /// string value in 4-byte pieces took 28.5 ns a push before the lane,
    /// 15.5 ns with it; whole, 116 µs before, 63 µs with it (a whole push
    /// is read in slices, each of them a piece the lane takes).
    #[inline]
    pub(super) fn string_lane(&mut self, text: &str, emit: &mut Emit<'_>) -> bool {
        let end = self.end();
        if self.pos != end
            || self.spec.shadow.is_some()
            || end + text.len() - self.start > self.shared.cfg.max_block_bytes
        {
            return false;
        }
        let State::Block(b) = &mut self.state else {
            return false;
        };
        if b.first.is_some() || b.undecided() {
            return false;
        }
        let closer_free = match &b.closer {
            Closer::Tag { .. } => !text.as_bytes().contains(&b'<'),
            // A fence's closer probe idle mid-line: only a line end could
            // wake it, and a line end is a raw control byte, which ends a
            // string's plain run (the scanner declines the piece).
            Closer::Fence {
                probe: None,
                at_line_start: false,
                ..
            } => true,
            Closer::Fence { .. } => false,
        };
        let Content::Json(scanner) = &mut b.content else {
            return false;
        };
        if !closer_free || !scanner.take_string_piece(text) {
            return false;
        }
        self.buf.push_str(text);
        self.pos = self.end();
        if self.shared.cfg.action_deltas {
            // Out of the state for the time of it, as `block_lane` takes it.
            if let State::Block(mut b) = std::mem::replace(&mut self.state, State::Detached) {
                self.name_and_deliver(&mut b, emit);
                self.state = State::Block(b);
            }
        }
        self.drop_dead();
        true
    }

    /// The offset past which the block is over its size limit.
    fn limit_end(&self) -> usize {
        let from = self.start - self.base;
        self.base + floor_boundary(&self.buf, from + self.shared.cfg.max_block_bytes)
    }

    fn block_step(&mut self, b: &mut Block, emit: &mut Emit<'_>) -> Flow {
        let end = self.limit_end();
        // The loop ends when the block is over, at the limit, or waiting for
        // more text: a closer cut by the limit can only end past it.
        while self.pos < end {
            let flow = match &b.closer {
                Closer::Fence { .. } => self.fence_content(b, end, emit),
                Closer::Tag { name } => {
                    let name = *name;
                    self.tag_content(b, name, end, emit)
                }
            };
            if self.block_ended(&flow) {
                return flow;
            }
            match flow {
                // Lockstep: the shadow reads each piece right after the block.
                Flow::Go => self.sync_shadow(emit),
                _ => break,
            }
        }
        if self.end() > end {
            return self.over_limit(b, emit);
        }
        Flow::Wait
    }

    /// Reads fence content up to `end`: whole lines to the scanner, and each
    /// line start through the closer probe first.
    fn fence_content(&mut self, b: &mut Block, end: usize, emit: &mut Emit<'_>) -> Flow {
        let Closer::Fence {
            fence,
            probe,
            at_line_start,
        } = &mut b.closer
        else {
            return Flow::Go;
        };
        if *at_line_start && probe.is_none() {
            *probe = Some((CloseProbe::new(*fence), self.pos));
        }
        if let Some((p, from)) = probe {
            let from = *from;
            let (verdict, k) = p.run(&self.buf.as_bytes()[self.pos - self.base..end - self.base]);
            self.pos += k;
            match verdict {
                Probe::More => return Flow::Go,
                Probe::No => {
                    *probe = None;
                    *at_line_start = false;
                    self.feed(b, from, self.pos);
                    return self.after_feed(b, emit);
                }
                Probe::Yes => {
                    *probe = None;
                    *at_line_start = true;
                    return self.on_closer(b, from, self.pos, emit);
                }
            }
        }
        let rest = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
        // The lines up to the first that could hold a closer go to the
        // scanner at once: a closer's fence character stands within its
        // line's first `closer_indent() + 1` bytes, so a line that starts
        // more than that before the next fence character closes nothing.
        // (A short piece goes line by line: the look-ahead would cost more
        // than it saves.)
        let reach = if rest.len() < MANY_LINES {
            0
        } else {
            memchr::memchr(fence.ch, rest)
                .unwrap_or(rest.len())
                .saturating_sub(fence.closer_indent())
        };
        let many = match reach {
            0 => None,
            _ => memchr::memrchr(b'\n', &rest[..reach]),
        };
        let (to, line_end) = match many.or_else(|| memchr::memchr(b'\n', rest)) {
            Some(i) => (self.pos + i + 1, true),
            None => (end, false),
        };
        let from = self.pos;
        self.pos = to;
        *at_line_start = line_end;
        self.feed(b, from, to);
        self.after_feed(b, emit)
    }

    fn tag_content(&mut self, b: &mut Block, name: usize, end: usize, emit: &mut Emit<'_>) -> Flow {
        let closer_len = self.shared.closers[name].len();
        let hay = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
        let from = self.pos;
        match find_closer(hay, self.shared.closers[name].as_bytes()) {
            Found::At(i) => {
                let at = from + i;
                self.feed(b, from, at);
                self.pos = at;
                let flow = self.after_feed(b, emit);
                if self.block_ended(&flow) {
                    return flow;
                }
                self.pos = at + closer_len;
                self.on_closer(b, at, at + closer_len, emit)
            }
            Found::Partial(i) => {
                self.feed(b, from, from + i);
                self.pos = from + i;
                let flow = self.after_feed(b, emit);
                if self.block_ended(&flow) {
                    return flow;
                }
                Flow::Wait
            }
        }
    }

    /// Gives `[from, to)` to the block's scanner.
    fn feed(&self, b: &mut Block, from: usize, to: usize) {
        if let Content::Json(s) = &mut b.content {
            if to > from {
                s.feed(self.text(from, to));
            }
        }
    }

    /// Acts on what the scanner learnt: names, the generic decision, errors.
    fn after_feed(&mut self, b: &mut Block, emit: &mut Emit<'_>) -> Flow {
        let Content::Json(scanner) = &mut b.content else {
            return Flow::Go;
        };
        if b.generic == Some(false) {
            // The shadow reads up to where the block's fate was sealed, so
            // that what it finds there happens in text order.
            let sealed = match (scanner.decision(), scanner.error()) {
                (Some((true, _)), _) => {
                    b.generic = Some(true);
                    None
                }
                (Some((false, at)), _) => Some(at),
                (None, Some(err)) => Some(err.offset),
                (None, None) => return Flow::Go,
            };
            if let Some(at) = sealed {
                self.feed_shadow_to((b.content_start + at).min(self.pos), emit);
                return self.not_an_action_block(b, emit);
            }
        }
        self.name_and_deliver(b, emit);
        let Content::Json(scanner) = &b.content else {
            return Flow::Go;
        };
        if let (Some(err), Some(_)) = (scanner.error().cloned(), &b.first) {
            self.feed_shadow_to((b.content_start + err.offset).min(self.pos), emit);
            let error = self.json_error(b, err.offset, &err.message);
            return self.fail_at_first_closer(b, error, emit);
        }
        Flow::Go
    }

    /// Starts the actions whose names became certain and, with action
    /// deltas on, sends what was scanned of the action in delivery.
    fn name_and_deliver(&self, b: &mut Block, emit: &mut Emit<'_>) {
        let deltas = self.shared.cfg.action_deltas;
        if let Some(id) = b.attr_id {
            if let Content::Json(scanner) = &mut b.content {
                while scanner.next_named().is_some() {}
                if deltas {
                    let done = b.delta.map_or(0, |(_, d)| d);
                    let to = scanner.scanned();
                    self.push_delta(b, id, done, to, emit);
                    b.delta = Some((usize::MAX, to));
                }
            }
        } else {
            self.start_named(b, deltas, emit);
        }
    }

    /// Starts the actions whose names became certain, delivering deltas.
    fn start_named(&self, b: &mut Block, deltas: bool, emit: &mut Emit<'_>) {
        let Content::Json(scanner) = &mut b.content else {
            return;
        };
        let mut next = scanner.next_named();
        if deltas {
            self.deliver_current(b, emit);
        }
        while let Some(i) = next {
            next = match &mut b.content {
                Content::Json(s) => s.next_named(),
                Content::Xml => None,
            };
            while b.ids.len() <= i {
                b.ids.push(None);
            }
            if b.ids.get(i).copied().flatten().is_some() {
                continue;
            }
            let (name, from) = match &b.content {
                Content::Json(s) => s
                    .slot(i)
                    .map_or((None, 0), |s| (s.name().map(str::to_owned), s.raw_start())),
                Content::Xml => (None, 0),
            };
            let id = held(&mut b.first, emit).start(name, b.syntax, &b.tag);
            if let Some(slot) = b.ids.get_mut(i) {
                *slot = Some(id);
            }
            if deltas {
                b.delta = Some((i, from));
                self.deliver_current(b, emit);
            }
        }
        if deltas {
            self.deliver_current(b, emit);
        }
    }

    /// Delivers the raw text of the action in delivery, up to its end or to
    /// what has been scanned.
    fn deliver_current(&self, b: &mut Block, emit: &mut Emit<'_>) {
        let (Some((i, done)), Content::Json(scanner)) = (b.delta, &b.content) else {
            return;
        };
        let Some(slot) = scanner.slot(i) else {
            return;
        };
        let Some(Some(id)) = b.ids.get(i).copied() else {
            return;
        };
        let to = slot.raw_end().unwrap_or_else(|| scanner.scanned());
        let closed = slot.raw_end().is_some();
        self.push_delta(b, id, done, to, emit);
        b.delta = if closed { None } else { Some((i, to)) };
    }

    /// Emits content `[from, to)` (offsets in the scanned content) as a delta.
    fn push_delta(&self, b: &mut Block, id: u64, from: usize, to: usize, emit: &mut Emit<'_>) {
        if to <= from {
            return;
        }
        let at = b.content_start - self.base;
        let Some(text) = self.buf.get(at + from..at + to) else {
            return;
        };
        held(&mut b.first, emit).push(Event::ActionDelta {
            id: ActionId(id),
            text: text.to_owned(),
        });
    }

    /// A closer `[from, to)` was read.
    fn on_closer(&mut self, b: &mut Block, from: usize, to: usize, emit: &mut Emit<'_>) -> Flow {
        let (error, at_rest) = match &mut b.content {
            Content::Xml => (None, true),
            Content::Json(s) => (s.error().cloned(), s.error().is_none() && s.finish_value()),
        };
        if let Some(err) = error {
            let error = self.json_error(b, err.offset, &err.message);
            self.end_block(b, to, Ending::Broken(error), emit);
            return Flow::Go;
        }
        if at_rest {
            if b.undecided() {
                // Complete, yet undecided: no value at all. Narrative, and
                // it ends here, at its closer.
                if b.first.is_some() {
                    return self.not_an_action_block(b, emit);
                }
                self.emit_narrative_to(to, emit);
                self.new_line_at(to);
                return Flow::Go;
            }
            let ending = Ending::Complete {
                missing_closer: false,
            };
            self.end_block(b, to, ending, emit);
            return Flow::Go;
        }
        // The JSON is still open: the closer is content, unless the block
        // breaks or is cut off later, when it ends here.
        if b.first.is_none() {
            if self.spec.depth() + 1 >= MAX_SPECULATION {
                let error = ActionError::new(
                    ErrorKind::CutOff,
                    "",
                    "the JSON is not complete at the block's closer",
                );
                self.end_block(b, to, Ending::Broken(error), emit);
                return Flow::Go;
            }
            self.speculate(b, to);
        }
        self.feed(b, from, to);
        self.after_feed(b, emit)
    }

    /// A generic block turned out not to hold actions: it is narrative.
    fn not_an_action_block(&mut self, b: &mut Block, emit: &mut Emit<'_>) -> Flow {
        if b.first.is_some() {
            // It passed a closer: as narrative, it ended there.
            return self.fail_at_first_closer(b, not_actions(), emit);
        }
        match b.closer.fence_resume(self.pos) {
            Some((fence, probe, from)) => {
                self.narrative_fence(fence, probe, from);
                Flow::Go
            }
            None => Flow::Go,
        }
    }

    /// The block did not close within the size limit.
    fn over_limit(&mut self, b: &mut Block, emit: &mut Emit<'_>) -> Flow {
        let limit = self.shared.cfg.max_block_bytes;
        if b.first.is_some() {
            self.sync_shadow(emit);
            let message = format!(
                "the JSON was still open at the block's first closer, and the block grew past the {limit}-byte limit"
            );
            let error = ActionError::new(ErrorKind::TooLarge, "", message);
            return self.fail_at_first_closer(b, error, emit);
        }
        if b.undecided() {
            return self.not_an_action_block(b, emit);
        }
        let end = self.pos;
        let message =
            format!("the block is larger than the {limit}-byte limit; its actions were not read");
        let error = ActionError::new(ErrorKind::TooLarge, "", message);
        self.end_block(b, end, Ending::Broken(error), emit);
        // The rest of the block up to its closer is narrative.
        match (&b.closer, b.closer.fence_resume(end)) {
            (_, Some((fence, probe, from))) => self.narrative_fence(fence, probe, from),
            (Closer::Tag { name }, None) => self.state = State::SkipTag { name: *name },
            (Closer::Fence { .. }, None) => {}
        }
        Flow::Go
    }

    /// The input ended inside the block. Returns whether the machine's new
    /// state must be finished in turn (the block turned into narrative that
    /// ended at its first closer, or a shadow took over).
    pub(super) fn block_at_eof(&mut self, emit: &mut Emit<'_>) -> bool {
        let State::Block(mut b) = std::mem::replace(&mut self.state, State::Detached) else {
            return false;
        };
        let end = self.end();
        // A closing fence line without its line ending closes the block.
        if let Closer::Fence {
            probe: Some((p, from)),
            ..
        } = &b.closer
        {
            let from = *from;
            if p.complete_at_eof() {
                self.pos = end;
                let flow = self.on_closer(&mut b, from, end, emit);
                if self.block_ended(&flow) {
                    // The block may have turned into narrative, or a shadow
                    // taken over: whatever it is, it ends too.
                    return true;
                }
            } else {
                self.feed(&mut b, from, end);
            }
        } else if self.pos < end {
            let from = self.pos;
            self.feed(&mut b, from, end);
        }
        self.pos = end;
        let flow = self.after_feed(&mut b, emit);
        if self.block_ended(&flow) {
            return true;
        }
        let complete = match &mut b.content {
            Content::Json(s) => s.error().is_none() && s.finish_value(),
            Content::Xml => true,
        };
        if b.undecided() {
            // Never decided: narrative, which ended at its first closer if
            // it passed one.
            if b.first.is_some() {
                let flow = self.fail_at_first_closer(&mut b, not_actions(), emit);
                return matches!(flow, Flow::Replaced);
            }
            self.state = State::Text;
            self.emit_narrative_to(end, emit);
            return false;
        }
        if complete {
            let ending = Ending::Complete {
                missing_closer: true,
            };
            self.end_block(&mut b, end, ending, emit);
            return false;
        }
        let cut_off = |message: &str| ActionError::new(ErrorKind::CutOff, "", message);
        let error = match &b.content {
            Content::Json(s) => match s.error() {
                Some(err) => self.json_error(&b, err.offset, &err.message),
                None => cut_off("the response ended before the block's JSON was complete"),
            },
            Content::Xml => cut_off("the response ended inside the block"),
        };
        if b.first.is_some() {
            let flow = self.fail_at_first_closer(&mut b, error, emit);
            return matches!(flow, Flow::Replaced);
        }
        self.end_block(&mut b, end, Ending::Broken(error), emit);
        false
    }
}

/// The ending of a generic block that turned out to be narrative: no action
/// gets it (the block's text goes out as narrative).
fn not_actions() -> ActionError {
    ActionError::new(ErrorKind::NoAction, "", "")
}
