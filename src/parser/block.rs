//! Reading a block: closers, the JSON inside, speculation, and the events a
//! block ends with.

use std::sync::Arc;

use serde_json::Value;

use super::{
    find_closer, validate, Block, BlockFlow, Closer, Content, FirstCloser, Found, Machine, State,
    MAX_SPECULATION,
};
use crate::event::{Action, ActionError, ActionId, Event, InvalidAction, Repair, RepairKind, Span};
use crate::scan::fence::{CloseProbe, Probe};
use crate::scan::json::{JsonScanner, Naming};
use crate::shape;
use crate::validate::type_name;

/// Repairs found while shaping an action: kind and offset in the content.
type FoundRepairs = Vec<(RepairKind, usize)>;

/// An action's arguments and repairs, or what is wrong with it.
type Shaped = Result<(Value, FoundRepairs), Vec<ActionError>>;

/// How a block ended.
enum Ending {
    /// At a closer (or the end of input), its JSON complete.
    Complete { missing_closer: bool },
    /// Its JSON cannot be read, or is cut off: every action is invalid.
    Broken(String),
}

/// What a step inside a block decided.
enum Next {
    /// The block goes on.
    Keep(BlockFlow),
    /// The block is over; the machine's state is set.
    Over,
    /// The shadow took over.
    Replaced,
}

impl Machine {
    pub(super) fn block(&mut self, ids: &mut u64, out: &mut Vec<Event>) -> BlockFlow {
        let State::Block(mut b) = std::mem::replace(&mut self.state, State::Text) else {
            return BlockFlow::Go;
        };
        match self.block_step(&mut b, ids, out) {
            Next::Keep(flow) => {
                self.state = State::Block(b);
                flow
            }
            Next::Over => BlockFlow::Go,
            Next::Replaced => BlockFlow::Replaced,
        }
    }

    /// The offset past which the block is over its size limit.
    fn limit_end(&self) -> usize {
        let from = self.start - self.base;
        let mut at = (from + self.shared.cfg.max_block_bytes).min(self.buf.len());
        while !self.buf.is_char_boundary(at) {
            at -= 1;
        }
        self.base + at
    }

    fn block_step(&mut self, b: &mut Block, ids: &mut u64, out: &mut Vec<Event>) -> Next {
        let end = self.limit_end();
        // The loop ends when the block is over, at the limit, or waiting for
        // more text: a closer cut by the limit can only end past it.
        while self.pos < end {
            let next = match &mut b.closer {
                Closer::Fence { .. } => self.fence_content(b, end, ids, out),
                Closer::Tag { name } => {
                    let name = *name;
                    self.tag_content(b, name, end, ids, out)
                }
            };
            match next {
                // Lockstep: the shadow reads each piece right after the block.
                Next::Keep(BlockFlow::Go) => self.sync_shadow(ids),
                Next::Keep(BlockFlow::Wait) => break,
                other => return other,
            }
        }
        if self.end() > end {
            return self.over_limit(b, ids, out);
        }
        Next::Keep(BlockFlow::Wait)
    }

    /// Reads fence content up to `end`: whole lines to the scanner, and each
    /// line start through the closer probe first.
    fn fence_content(
        &mut self,
        b: &mut Block,
        end: usize,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) -> Next {
        let Closer::Fence {
            fence,
            probe,
            at_line_start,
        } = &mut b.closer
        else {
            return Next::Keep(BlockFlow::Go);
        };
        if *at_line_start && probe.is_none() {
            *probe = Some((CloseProbe::new(*fence), self.pos));
        }
        if let Some((p, from)) = probe {
            let from = *from;
            let bytes = self.buf.as_bytes();
            let mut verdict = Probe::More;
            while self.pos < end {
                verdict = p.step(bytes[self.pos - self.base]);
                match verdict {
                    Probe::More => self.pos += 1,
                    Probe::No => break,
                    Probe::Yes => {
                        self.pos += 1;
                        break;
                    }
                }
            }
            match verdict {
                Probe::More => return Next::Keep(BlockFlow::Go),
                Probe::No => {
                    *probe = None;
                    *at_line_start = false;
                    self.feed(b, from, self.pos);
                    return self.after_feed(b, ids, out);
                }
                Probe::Yes => {
                    *probe = None;
                    *at_line_start = true;
                    return self.on_closer(b, from, self.pos, ids, out);
                }
            }
        }
        let rest = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
        let (to, line_end) = match memchr::memchr(b'\n', rest) {
            Some(i) => (self.pos + i + 1, true),
            None => (end, false),
        };
        let from = self.pos;
        self.pos = to;
        if let Closer::Fence { at_line_start, .. } = &mut b.closer {
            *at_line_start = line_end;
        }
        self.feed(b, from, to);
        self.after_feed(b, ids, out)
    }

    fn tag_content(
        &mut self,
        b: &mut Block,
        name: usize,
        end: usize,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) -> Next {
        let closer = &self.shared.closers[name];
        let closer_len = closer.len();
        let hay = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
        match find_closer(hay, closer.as_bytes()) {
            Found::At(i) => {
                let from = self.pos;
                let at = from + i;
                self.feed(b, from, at);
                self.pos = at;
                match self.after_feed(b, ids, out) {
                    Next::Keep(BlockFlow::Go) => {
                        self.pos = at + closer_len;
                        self.on_closer(b, at, at + closer_len, ids, out)
                    }
                    other => other,
                }
            }
            Found::Partial(i) => {
                let from = self.pos;
                self.feed(b, from, from + i);
                self.pos = from + i;
                match self.after_feed(b, ids, out) {
                    Next::Keep(BlockFlow::Go) => Next::Keep(BlockFlow::Wait),
                    other => other,
                }
            }
        }
    }

    /// Gives `[from, to)` to the block's scanner.
    fn feed(&self, b: &mut Block, from: usize, to: usize) {
        if let Content::Json(s) = &mut b.content {
            if to > from {
                s.feed(&self.buf[from - self.base..to - self.base]);
            }
        }
    }

    /// Acts on what the scanner learnt: names, the generic decision, errors.
    fn after_feed(&mut self, b: &mut Block, ids: &mut u64, out: &mut Vec<Event>) -> Next {
        let Content::Json(scanner) = &mut b.content else {
            return Next::Keep(BlockFlow::Go);
        };
        if b.generic == Some(false) {
            // The shadow reads up to where the block's fate was sealed, so
            // that what it finds there happens in text order.
            let sealed = match (scanner.decision, &scanner.error) {
                (Some(true), _) => {
                    b.generic = Some(true);
                    None
                }
                (Some(false), _) => Some(scanner.decided_at),
                (None, Some(err)) => Some(err.offset),
                (None, None) => return Next::Keep(BlockFlow::Go),
            };
            if let Some(at) = sealed {
                self.feed_shadow_to((b.content_start + at).min(self.pos), ids);
                return self.not_an_action_block(b, ids, out);
            }
        }
        let Content::Json(scanner) = &mut b.content else {
            return Next::Keep(BlockFlow::Go);
        };
        let deltas = self.shared.cfg.action_deltas;
        if let Some(id) = b.attr_id {
            scanner.take_named();
            if deltas {
                let done = b.delta.map_or(0, |(_, d)| d);
                let to = scanner.scanned();
                self.push_delta(b, id, done, to, out);
                b.delta = Some((usize::MAX, to));
            }
        } else {
            let named = scanner.take_named();
            if deltas {
                self.deliver_current(b, out);
            }
            for i in named {
                if b.ids.len() <= i {
                    b.ids.resize(i + 1, None);
                }
                if b.ids[i].is_none() {
                    let id = *ids;
                    *ids += 1;
                    b.ids[i] = Some(id);
                    let (name, from) = match &b.content {
                        Content::Json(s) => s
                            .slots
                            .get(i)
                            .map_or((None, 0), |s| (s.name.clone(), s.raw_start)),
                        Content::Xml => (None, 0),
                    };
                    let event = Event::ActionStarted {
                        id: ActionId(id),
                        name,
                        syntax: b.syntax,
                        tag: b.tag.clone(),
                    };
                    match &mut b.first {
                        Some(first) => first.held.push(event),
                        None => out.push(event),
                    }
                    if deltas {
                        b.delta = Some((i, from));
                        self.deliver_current(b, out);
                    }
                }
            }
            if deltas {
                self.deliver_current(b, out);
            }
        }
        let Content::Json(scanner) = &b.content else {
            return Next::Keep(BlockFlow::Go);
        };
        if let (Some(err), Some(_)) = (scanner.error.clone(), &b.first) {
            self.feed_shadow_to((b.content_start + err.offset).min(self.pos), ids);
            let message = self.json_error(b, err.offset, &err.message);
            return self.fail_at_first_closer(b, message, ids, out);
        }
        Next::Keep(BlockFlow::Go)
    }

    /// Delivers the raw text of the action in delivery, up to its end or to
    /// what has been scanned.
    fn deliver_current(&self, b: &mut Block, out: &mut Vec<Event>) {
        let (Some((i, done)), Content::Json(scanner)) = (b.delta, &b.content) else {
            return;
        };
        let Some(slot) = scanner.slots.get(i) else {
            return;
        };
        let Some(Some(id)) = b.ids.get(i).copied() else {
            return;
        };
        let to = slot.raw_end.unwrap_or_else(|| scanner.scanned());
        let closed = slot.raw_end.is_some();
        self.push_delta(b, id, done, to, out);
        b.delta = if closed { None } else { Some((i, to)) };
    }

    /// Emits content `[from, to)` (offsets in the scanned content) as a delta.
    fn push_delta(&self, b: &mut Block, id: u64, from: usize, to: usize, out: &mut Vec<Event>) {
        if to <= from {
            return;
        }
        let at = b.content_start - self.base;
        let Some(text) = self.buf.get(at + from..at + to) else {
            return;
        };
        let event = Event::ActionDelta {
            id: ActionId(id),
            text: text.to_owned(),
        };
        match &mut b.first {
            Some(first) => first.held.push(event),
            None => out.push(event),
        }
    }

    /// A closer `[from, to)` was read.
    fn on_closer(
        &mut self,
        b: &mut Block,
        from: usize,
        to: usize,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) -> Next {
        let (error, at_rest) = match &mut b.content {
            Content::Xml => (None, true),
            Content::Json(s) => (s.error.clone(), s.error.is_none() && s.finish_value()),
        };
        if let Some(err) = error {
            let message = self.json_error(b, err.offset, &err.message);
            self.end_block(b, to, Ending::Broken(message), ids, out);
            return Next::Over;
        }
        if at_rest {
            if b.generic == Some(false) {
                // Complete, yet undecided: no value at all. Narrative, and
                // it ends here, at its closer.
                if b.first.is_some() {
                    return self.not_an_action_block(b, ids, out);
                }
                self.emit_narrative_to(to, out);
                self.new_line_at(to);
                return Next::Over;
            }
            let ending = Ending::Complete {
                missing_closer: false,
            };
            self.end_block(b, to, ending, ids, out);
            return Next::Over;
        }
        // The JSON is still open: the closer is content, unless the block
        // breaks or is cut off later, when it ends here.
        if b.first.is_none() {
            if self.depth + 1 >= MAX_SPECULATION {
                let message = "the JSON is not complete at the block's closer".to_owned();
                self.end_block(b, to, Ending::Broken(message), ids, out);
                return Next::Over;
            }
            self.speculate(b, to);
        }
        self.feed(b, from, to);
        self.after_feed(b, ids, out)
    }

    /// Starts a shadow at `at`, the end of the block's first closer.
    fn speculate(&mut self, b: &mut Block, at: usize) {
        let slots = snapshot(b);
        b.first = Some(FirstCloser {
            end: at,
            slots,
            held: Vec::new(),
        });
        let mut shadow = Machine::new(self.shared.clone(), at, self.depth + 1);
        shadow.line.list = self.line.list;
        if let Closer::Tag { .. } = b.closer {
            shadow.state = State::Text;
        }
        self.spec = Some(Box::new(shadow));
        self.spec_fed = at;
    }

    /// The block breaks, or is cut off, after it passed a closer: it ends at
    /// that first closer and the shadow takes over.
    fn fail_at_first_closer(
        &mut self,
        b: &mut Block,
        message: String,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) -> Next {
        let Some(first) = b.first.take() else {
            return Next::Keep(BlockFlow::Go);
        };
        let raw_end = first.end;
        if b.generic == Some(false) {
            self.emit_narrative_to(raw_end, out);
        } else {
            let slots = first.slots;
            self.end_block_invalid(
                b,
                raw_end,
                slots,
                vec![ActionError::whole(message)],
                ids,
                out,
            );
        }
        self.take_over(ids, out);
        Next::Replaced
    }

    /// The shadow becomes this machine; its events come out.
    fn take_over(&mut self, ids: &mut u64, out: &mut Vec<Event>) {
        let Some(mut shadow) = self.spec.take() else {
            return;
        };
        let mut m = Some(&mut *shadow);
        while let Some(machine) = m {
            machine.depth = machine.depth.saturating_sub(1);
            m = machine.spec.as_deref_mut();
        }
        // The shadow reads everything this machine held past its closer.
        let text = &self.buf[self.spec_fed - self.base..];
        let mut pending = std::mem::take(&mut shadow.pending);
        shadow.push(text, ids, &mut pending);
        *self = *shadow;
        out.append(&mut pending);
    }

    /// A generic block turned out not to hold actions: it is narrative.
    fn not_an_action_block(&mut self, b: &mut Block, ids: &mut u64, out: &mut Vec<Event>) -> Next {
        if b.first.is_some() {
            // It passed a closer: as narrative, it ended there.
            return self.fail_at_first_closer(b, String::new(), ids, out);
        }
        let Closer::Fence {
            fence,
            probe,
            at_line_start,
        } = &b.closer
        else {
            return Next::Keep(BlockFlow::Go);
        };
        let (probe, from) = match probe {
            Some((p, from)) => (Some(p.clone()), *from),
            None if *at_line_start => (Some(CloseProbe::new(*fence)), self.pos),
            None => (None, self.pos),
        };
        self.state = State::Fenced {
            fence: *fence,
            probe,
            from,
        };
        Next::Over
    }

    /// The block did not close within the size limit.
    fn over_limit(&mut self, b: &mut Block, ids: &mut u64, out: &mut Vec<Event>) -> Next {
        let limit = self.shared.cfg.max_block_bytes;
        if b.first.is_some() {
            self.sync_shadow(ids);
            let message = format!(
                "the JSON was still open at the block's first closer, and the block grew past the {limit}-byte limit"
            );
            return self.fail_at_first_closer(b, message, ids, out);
        }
        if b.generic == Some(false) {
            return self.not_an_action_block(b, ids, out);
        }
        let end = self.pos;
        let message =
            format!("the block is larger than the {limit}-byte limit; its actions were not read");
        self.end_block(b, end, Ending::Broken(message), ids, out);
        // The rest of the block up to its closer is narrative.
        self.state = match &b.closer {
            Closer::Fence {
                fence,
                probe,
                at_line_start,
            } => {
                let (probe, from) = match probe {
                    Some((p, from)) => (Some(p.clone()), *from),
                    None if *at_line_start => (Some(CloseProbe::new(*fence)), end),
                    None => (None, end),
                };
                State::Fenced {
                    fence: *fence,
                    probe,
                    from,
                }
            }
            Closer::Tag { name } => State::SkipTag { name: *name },
        };
        Next::Over
    }

    /// The input ended inside the block.
    pub(super) fn block_at_eof(&mut self, ids: &mut u64, out: &mut Vec<Event>) {
        let State::Block(mut b) = std::mem::replace(&mut self.state, State::Text) else {
            return;
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
                match self.on_closer(&mut b, from, end, ids, out) {
                    // The block may have turned into narrative, or a shadow
                    // taken over: whatever it is, it ends too.
                    Next::Over | Next::Replaced => return self.finish(ids, out),
                    Next::Keep(_) => {}
                }
            } else {
                self.feed(&mut b, from, end);
            }
        } else if self.pos < end {
            let from = self.pos;
            self.feed(&mut b, from, end);
        }
        self.pos = end;
        match self.after_feed(&mut b, ids, out) {
            Next::Over => return self.finish(ids, out),
            Next::Replaced => return self.finish(ids, out),
            Next::Keep(_) => {}
        }
        let complete = match &mut b.content {
            Content::Json(s) => s.error.is_none() && s.finish_value(),
            Content::Xml => true,
        };
        if b.generic == Some(false) {
            // Never decided: narrative, which ended at its first closer if
            // it passed one.
            if b.first.is_some() {
                if let Next::Replaced = self.fail_at_first_closer(&mut b, String::new(), ids, out) {
                    self.finish(ids, out);
                }
                return;
            }
            self.emit_narrative_to(end, out);
            return;
        }
        if complete {
            self.end_block(
                &mut b,
                end,
                Ending::Complete {
                    missing_closer: true,
                },
                ids,
                out,
            );
            return;
        }
        let message = match &b.content {
            Content::Json(s) => match &s.error {
                Some(err) => self.json_error(&b, err.offset, &err.message),
                None => "the response ended before the block's JSON was complete".to_owned(),
            },
            Content::Xml => "the response ended inside the block".to_owned(),
        };
        if b.first.is_some() {
            if let Next::Replaced = self.fail_at_first_closer(&mut b, message, ids, out) {
                self.finish(ids, out);
            }
            return;
        }
        self.end_block(&mut b, end, Ending::Broken(message), ids, out);
    }

    /// A JSON error, placed in the block.
    fn json_error(&self, b: &Block, offset: usize, message: &str) -> String {
        let raw = &self.buf[self.start - self.base..];
        let (line, column) = LineWalk::new(raw).to(b.content_start + offset - self.start);
        format!("the JSON cannot be read: {message} (line {line}, column {column} of the block)")
    }

    /// Ends the block at `to` and emits its events.
    fn end_block(
        &mut self,
        b: &mut Block,
        to: usize,
        ending: Ending,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) {
        match ending {
            Ending::Broken(message) => {
                self.spec = None;
                let slots = snapshot(b);
                self.end_block_invalid(b, to, slots, vec![ActionError::whole(message)], ids, out);
            }
            Ending::Complete { missing_closer } => {
                self.spec = None;
                if let Some(first) = b.first.take() {
                    out.extend(first.held);
                }
                if missing_closer && self.shared.cfg.strict {
                    let what = match b.closer {
                        Closer::Fence { .. } => "closing fence",
                        Closer::Tag { .. } => "closing tag",
                    };
                    let message = format!("the block has no {what} (strict mode repairs nothing)");
                    let slots = snapshot(b);
                    self.end_block_invalid(
                        b,
                        to,
                        slots,
                        vec![ActionError::whole(message)],
                        ids,
                        out,
                    );
                    return;
                }
                self.end_block_complete(b, to, missing_closer, ids, out);
            }
        }
    }

    /// Takes the block's raw text `[base, to)` out of the buffer.
    fn take_raw(&mut self, b: &mut Block, to: usize) -> (Arc<str>, Span) {
        let from = self.start - self.base;
        let n = (to - self.start).min(self.buf.len() - from);
        let raw: Arc<str> = self.buf[from..from + n].into();
        let span = Span {
            start: self.start,
            end: self.start + n,
        };
        self.start += n;
        self.pos = self.start;
        if let Content::Json(s) = std::mem::replace(&mut b.content, Content::Xml) {
            self.spare = Some(s);
        }
        match b.closer {
            Closer::Fence { .. } => self.new_line_at(self.start),
            Closer::Tag { .. } => {
                // After a tag, the line goes on; inline code counts afresh.
                self.line.new_line();
                self.state = State::Text;
            }
        }
        (raw, span)
    }

    fn end_block_invalid(
        &mut self,
        b: &mut Block,
        to: usize,
        slots: Vec<(Option<u64>, Option<String>)>,
        errors: Vec<ActionError>,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) {
        let (raw, span) = self.take_raw(b, to);
        let mut list: Vec<(u64, Option<String>)> = Vec::new();
        if let Some(id) = b.attr_id {
            list.push((id, b.name_attr.clone()));
        } else {
            let slots = if slots.is_empty() {
                vec![(None, None)]
            } else {
                slots
            };
            for (id, name) in slots {
                let id = match id {
                    Some(id) => id,
                    None => {
                        let id = *ids;
                        *ids += 1;
                        out.push(Event::ActionStarted {
                            id: ActionId(id),
                            name: name.clone(),
                            syntax: b.syntax,
                            tag: b.tag.clone(),
                        });
                        id
                    }
                };
                list.push((id, name));
            }
        }
        for (id, name) in list {
            out.push(Event::ActionInvalid(Box::new(InvalidAction {
                id: ActionId(id),
                name,
                errors: errors.clone(),
                syntax: b.syntax,
                tag: b.tag.clone(),
                raw: raw.clone(),
                span: Some(span),
            })));
        }
    }

    fn end_block_complete(
        &mut self,
        b: &mut Block,
        to: usize,
        missing_closer: bool,
        ids: &mut u64,
        out: &mut Vec<Event>,
    ) {
        let content_from = b.content_start - self.base;
        let content_to = match b.closer {
            // The content of a tag ends at its closing tag, when it has one.
            Closer::Tag { name } if !missing_closer => {
                to - self.base - (self.shared.cfg.xml_tags[name].len() + 3)
            }
            _ => to - self.base,
        };
        let content = match b.content {
            Content::Xml => self.buf[content_from.min(content_to)..content_to].to_owned(),
            Content::Json(_) => String::new(),
        };
        let shared = self.shared.clone();
        let cfg = &shared.cfg;
        let discriminators = shared.discriminators.clone();
        // Each action: (slot id, name, result).
        let mut actions: Vec<(Option<u64>, Option<String>, Shaped)> = Vec::new();
        let mut repairs: Vec<(RepairKind, usize)> = Vec::new();
        let is_xml = matches!(b.content, Content::Xml);
        let mut scanner_for_xml;
        let scanner: &mut JsonScanner = match &mut b.content {
            Content::Json(s) => {
                let rel = b.content_start - self.start;
                repairs.extend(s.repairs.iter().map(|&(k, o)| (k, rel + o)));
                s
            }
            Content::Xml => {
                // XML children become one object, named by the usual rules.
                let mut s =
                    JsonScanner::new(Naming::Action, false, cfg.max_depth, discriminators.clone());
                match shape::xml_children(&content) {
                    Ok(v) => s.feed(&v.to_string()),
                    Err(e) => {
                        if let Some(id) = b.attr_id {
                            actions.push((Some(id), b.name_attr.clone(), Err(vec![e])));
                        } else {
                            actions.push((None, None, Err(vec![e])));
                        }
                    }
                }
                let _ = s.finish_value();
                scanner_for_xml = s;
                &mut scanner_for_xml
            }
        };
        if actions.is_empty() {
            if let Some(id) = b.attr_id {
                let name = b.name_attr.clone().unwrap_or_default();
                let result = attr_arguments(scanner, &content, is_xml).and_then(|args| {
                    let errors = validate(cfg, &name, &args);
                    if errors.is_empty() {
                        Ok((args, Vec::new()))
                    } else {
                        Err(errors)
                    }
                });
                actions.push((Some(id), Some(name), result));
            } else if scanner.slots.is_empty() {
                actions.push((
                    None,
                    None,
                    Err(vec![ActionError::whole(
                        "the block holds no action object: expected a JSON object such as {\"action\": \"name\", …}",
                    )]),
                ));
            } else {
                let mut slots = std::mem::take(&mut scanner.slots);
                for (i, slot) in slots.iter_mut().enumerate() {
                    let id = b.ids.get(i).copied().flatten();
                    let result = slot_action(slot, cfg, &discriminators);
                    actions.push((id, slot.name.take(), result));
                }
            }
        }
        let rel = b.content_start - self.start;
        for (_, _, r) in &actions {
            if let Ok((_, found)) = r {
                repairs.extend(found.iter().map(|&(k, at)| (k, rel + at)));
            }
        }
        repairs.sort_by_key(|&(_, at)| at);
        let raw_text = &self.buf[self.start - self.base..to - self.base];
        let raw_len = raw_text.len();
        // Repairs are sorted: one walk over the raw text places them all.
        let mut walk = LineWalk::new(raw_text);
        let mut block_repairs: Vec<Repair> = repairs
            .iter()
            .map(|&(kind, at)| {
                let (line, column) = walk.to(at.min(raw_len));
                Repair { kind, line, column }
            })
            .collect();
        if missing_closer {
            let (line, column) = walk.to(raw_len);
            block_repairs.push(Repair {
                kind: RepairKind::MissingCloser,
                line,
                column,
            });
        }
        let block_repairs: Arc<[Repair]> = block_repairs.into();
        let (raw, span) = self.take_raw(b, to);
        // Unstarted actions start now, in order; then all end, in order.
        let mut ended = Vec::with_capacity(actions.len());
        for (id, name, result) in actions {
            let id = match id {
                Some(id) => id,
                None => {
                    let id = *ids;
                    *ids += 1;
                    out.push(Event::ActionStarted {
                        id: ActionId(id),
                        name: name.clone(),
                        syntax: b.syntax,
                        tag: b.tag.clone(),
                    });
                    id
                }
            };
            ended.push((id, name, result));
        }
        for (id, name, result) in ended {
            out.push(match (name, result) {
                (Some(name), Ok((arguments, _))) => Event::ActionComplete(Box::new(Action {
                    id: ActionId(id),
                    name,
                    arguments,
                    syntax: b.syntax,
                    tag: b.tag.clone(),
                    attributes: b.attrs.clone(),
                    raw: raw.clone(),
                    span: Some(span),
                    repairs: block_repairs.clone(),
                })),
                (name, result) => Event::ActionInvalid(Box::new(InvalidAction {
                    id: ActionId(id),
                    name,
                    errors: result
                        .err()
                        .unwrap_or_else(|| vec![ActionError::whole("the action has no name")]),
                    syntax: b.syntax,
                    tag: b.tag.clone(),
                    raw: raw.clone(),
                    span: Some(span),
                })),
            });
        }
    }
}

/// Each slot's id (if started) and name (if read whole): what the block's
/// actions would be if it ended now, broken.
fn snapshot(b: &Block) -> Vec<(Option<u64>, Option<String>)> {
    match &b.content {
        Content::Json(s) => s
            .slots
            .iter()
            .enumerate()
            .map(|(i, slot)| (b.ids.get(i).copied().flatten(), slot.name_or_guess()))
            .collect(),
        Content::Xml => Vec::new(),
    }
}

/// The arguments of a tag named by its `name` attribute: its content.
fn attr_arguments(
    scanner: &mut JsonScanner,
    content: &str,
    xml: bool,
) -> Result<Value, Vec<ActionError>> {
    let text = if xml {
        String::new()
    } else {
        scanner.repaired().trim().to_owned()
    };
    if xml {
        return shape::xml_children(content).map_err(|e| vec![e]);
    }
    if text.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    if scanner.values > 1 {
        return Err(vec![ActionError::whole(format!(
            "arguments must be a JSON object, found {} JSON values one after another",
            scanner.values
        ))]);
    }
    // The content is one value; the copy has no comments, so its first byte
    // tells which kind.
    let found = match text.as_bytes()[0] {
        b'{' => None,
        b'[' => Some("an array"),
        b'"' => Some("a string"),
        b't' | b'f' => Some("a boolean"),
        b'n' => Some("null"),
        _ => Some("a number"),
    };
    if let Some(found) = found {
        let mut start: String = text.chars().take(40).collect();
        if start.len() < text.len() {
            start.push('…');
        }
        return Err(vec![ActionError::whole(format!(
            "arguments must be a JSON object (or XML child elements), found {found}: {start}"
        ))]);
    }
    // The object was built as it was scanned, unless its first key made it
    // a wrapper: then it is read from the repaired text.
    if let [slot] = scanner.slots.as_mut_slice() {
        if let Some(v @ Value::Object(_)) = slot.value.take() {
            return Ok(v);
        }
    }
    serde_json::from_str(&text)
        .map_err(|e| vec![ActionError::whole(format!("the JSON cannot be read: {e}"))])
}

/// The arguments of one slot, validated.
fn slot_action(
    slot: &mut crate::scan::json::Slot,
    cfg: &crate::Config,
    discriminators: &[String],
) -> Shaped {
    // The value was built in the scanner's one pass, as the slot closed.
    let Some(value) = slot.value.take() else {
        return Err(vec![ActionError::whole("the action's JSON is incomplete")]);
    };
    let Value::Object(obj) = value else {
        return Err(vec![ActionError::whole(format!(
            "expected an action object, found {}",
            type_name(&value)
        ))]);
    };
    let (Some(name), Some(key)) = (&slot.name, slot.name_key) else {
        let d = discriminators
            .first()
            .map(String::as_str)
            .unwrap_or("action");
        let expected = if slot.name_alone() {
            format!("a string under \"{d}\", \"type\" or \"name\"")
        } else {
            format!("a string under \"{d}\" (or \"name\" with \"arguments\")")
        };
        // What came instead: a naming key whose value is no string, a name
        // without its arguments (generic blocks), or no such key.
        let found = [d, "type", "name", "tool_name", "function"]
            .into_iter()
            .filter(|k| *k != "type" || slot.name_alone())
            .find_map(|k| match obj.get(k)? {
                Value::String(_) if k == "name" => {
                    Some("\"name\" without \"arguments\"".to_owned())
                }
                Value::String(_) => Some(format!("\"{k}\" without \"input\" or \"arguments\"")),
                v => Some(format!("\"{k}\" holding {}", type_name(v))),
            })
            .unwrap_or_else(|| "no such key".to_owned());
        return Err(vec![ActionError::whole(format!(
            "the object has no name: expected {expected}, found {found}"
        ))]);
    };
    let (args, repair) =
        shape::arguments(obj, key, discriminators, cfg.strict).map_err(|e| vec![e])?;
    let errors = validate(cfg, name, &args);
    if errors.is_empty() {
        let at = |field: &str| {
            slot.args_at
                .iter()
                .find(|(k, _)| *k == field)
                .map_or(0, |&(_, at)| at)
        };
        Ok((
            args,
            repair
                .map(|f| (RepairKind::ArgumentsAsString, at(f)))
                .into_iter()
                .collect(),
        ))
    } else {
        Err(errors)
    }
}

/// Lines and columns of increasing offsets in one text, in one pass.
struct LineWalk<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    /// Characters between the line's start and `pos`.
    col: usize,
}

impl<'a> LineWalk<'a> {
    fn new(text: &'a str) -> Self {
        LineWalk {
            text,
            pos: 0,
            line: 1,
            col: 0,
        }
    }

    /// Line and column (from 1) of byte `at`, which is not before the last.
    fn to(&mut self, at: usize) -> (usize, usize) {
        let mut at = at.min(self.text.len()).max(self.pos);
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let seg = &self.text[self.pos.min(at)..at];
        match seg.rfind('\n') {
            Some(i) => {
                self.line += memchr::memchr_iter(b'\n', seg.as_bytes()).count();
                self.col = seg[i + 1..].chars().count();
            }
            None => self.col += seg.chars().count(),
        }
        self.pos = at;
        (self.line, self.col + 1)
    }
}
