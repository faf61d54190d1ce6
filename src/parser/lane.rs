//! The parser's side of the dialect machine's fast lane through a long raw
//! value (`dialect/section/lane.rs`).
//!
//! A push the lane takes whole makes one event at most, the next piece of
//! the value's JSON string, and no other. So the parser writes that piece
//! itself, straight to the caller's output (collecting path) or into one
//! string it keeps and lends as an event (borrowing path), with the
//! bookkeeping [`Parser::publish`] does for a delta: no round through the
//! machine's events. Bytes pushed that are plain ASCII (no stop, nothing
//! to escape) need no UTF-8 check either: they are their own text and
//! their own JSON.
//!
//! What a push gives is what the general path gives (the oracle runs both
//! paths at every chunking).

use super::dialect::DialectMachine;
use super::Parser;
use crate::event::{ActionId, Event, EventRef};
use crate::scan::escape::{escaped_room, push_json_str};
use crate::utf8::as_text;

/// The dialect machine and the parser's side of its lane, boxed together
/// (a parser with no dialect carries none of it).
#[derive(Debug)]
pub(super) struct Dialects {
    pub machine: DialectMachine,
    /// The text of the argument delta the borrowing path lends for a push
    /// the lane takes whole, kept for its room.
    piece: String,
    /// The call the lane streamed to last (internal and public id), its
    /// streamed mark set: the lane's pushes look nothing up. Reset whenever
    /// an action ends.
    call: Option<(u64, ActionId)>,
}

impl Dialects {
    pub fn new(machine: DialectMachine) -> Self {
        Dialects {
            machine,
            piece: String::new(),
            call: None,
        }
    }

    /// An action ended: the lane's call is forgotten.
    #[inline]
    pub fn action_ended(&mut self) {
        self.call = None;
    }
}

/// A push offered to the lane.
#[derive(Debug, Clone, Copy)]
pub(super) enum Piece<'a> {
    /// Text.
    Text(&'a str),
    /// Bytes; the lane takes them only if all are plain ASCII.
    Ascii(&'a [u8]),
}

/// What the lane took, to be streamed.
#[derive(Debug, Clone, Copy)]
enum Taken<'a> {
    /// Text, escaped as JSON.
    Text(&'a str),
    /// Text with nothing to escape.
    Plain(&'a str),
}

impl Taken<'_> {
    /// Appends it as the inside of a JSON string.
    #[inline]
    fn write_json(self, out: &mut String) {
        match self {
            Taken::Text(text) => push_json_str(out, text),
            Taken::Plain(text) => out.push_str(text),
        }
    }

    /// Room for it as JSON.
    #[inline]
    fn room(self) -> usize {
        match self {
            Taken::Text(text) => escaped_room(text),
            Taken::Plain(text) => text.len(),
        }
    }
}

impl Parser {
    /// Whether the dialect machine's fast lane is armed (one test: a push
    /// elsewhere pays nothing more).
    #[inline]
    pub(super) fn lane_armed(&self) -> bool {
        self.d.as_ref().is_some_and(|d| d.machine.lane_armed())
    }

    /// Offers `piece` to the lane: if it takes it whole, the public id of
    /// the call it is to be streamed to and what to stream, if anything
    /// (its streamed mark set, as `publish` sets it for a delta). `None`, with nothing
    /// changed, when the push takes the general path.
    #[inline(always)]
    fn lane<'t>(&'t mut self, piece: Piece<'t>) -> Option<Option<(ActionId, Taken<'t>)>> {
        let Parser {
            d, scratch, public, ..
        } = self;
        let Dialects {
            machine: d,
            call: lane_call,
            ..
        } = d.as_deref_mut()?;
        // Events waiting go out first (none do between pushes).
        if !scratch.is_empty() {
            return None;
        }
        let (delta, taken) = match piece {
            Piece::Text(text) => (d.lane_whole(text)?, Taken::Text(text)),
            Piece::Ascii(bytes) => {
                let (delta, text) = d.lane_ascii(bytes)?;
                (delta, Taken::Plain(text))
            }
        };
        Some(delta.map(|id| {
            let public = match *lane_call {
                Some((call, public)) if call == id => public,
                _ => {
                    // Noted as streamed, as `publish` notes a delta.
                    let public = match public.get_mut(id) {
                        Some((public, streamed)) => {
                            *streamed = true;
                            *public
                        }
                        None => ActionId(id),
                    };
                    *lane_call = Some((id, public));
                    public
                }
            };
            (public, taken)
        }))
    }

    /// [`Parser::push`] through the lane: the piece's delta written to
    /// `out` as `publish` writes one, joined to a delta of the same call
    /// just before it. Whether the lane took the push.
    #[inline(always)]
    fn lane_out(&mut self, piece: Piece<'_>, out: &mut Vec<Event>) -> bool {
        let Some(delta) = self.lane(piece) else {
            return false;
        };
        if let Some((id, taken)) = delta {
            if let Some(Event::ArgumentsDelta { id: prev, json }) = out.last_mut() {
                if *prev == id {
                    taken.write_json(json);
                    return true;
                }
            }
            let mut json = String::with_capacity(taken.room());
            taken.write_json(&mut json);
            out.push(Event::ArgumentsDelta { id, json });
        }
        true
    }

    /// [`Parser::push`] with the lane armed: through it if it takes the
    /// whole push (out of line: pushes elsewhere keep a small frame).
    #[inline(never)]
    pub(super) fn lane_out_text(&mut self, text: &str, out: &mut Vec<Event>) -> bool {
        self.lane_out(Piece::Text(text), out)
    }

    /// [`Parser::push_bytes`] with the lane armed and no character carried:
    /// through the lane if it takes the bytes whole as plain ASCII, else
    /// pushed as text if they are whole text. Whether they were pushed.
    #[inline(never)]
    pub(super) fn lane_out_bytes(&mut self, bytes: &[u8], out: &mut Vec<Event>) -> bool {
        if bytes.is_empty() || self.lane_out(Piece::Ascii(bytes), out) {
            return true;
        }
        let Some(text) = as_text(bytes) else {
            return false;
        };
        if !self.lane_out_text(text, out) {
            self.feed(text, false, None);
            self.publish(out);
        }
        true
    }

    /// [`Parser::push_with`] through the lane: the piece's delta lent as
    /// an event whose text is one string the parser keeps (no allocation
    /// once it has room). Whether the lane took the push.
    #[inline]
    pub(super) fn lane_lend(&mut self, piece: Piece<'_>, f: &mut impl FnMut(EventRef<'_>)) -> bool {
        let Some(mut json) = self.d.as_deref_mut().map(|d| std::mem::take(&mut d.piece)) else {
            return false;
        };
        let taken = self.lane(piece);
        let took = taken.is_some();
        if let Some(Some((id, taken))) = taken {
            json.clear();
            taken.write_json(&mut json);
            let event = Event::ArgumentsDelta { id, json };
            f(EventRef::Action(&event));
            let Event::ArgumentsDelta { json: back, .. } = event else {
                return true;
            };
            json = back;
        }
        if let Some(d) = self.d.as_deref_mut() {
            d.piece = json;
        }
        took
    }
}
