//! The emitter: the one place events are written and action ids minted.
//!
//! Every machine (the main one and each shadow) writes through an [`Emit`]:
//! the id counter is shared by all of them, the output differs (a shadow
//! writes to its own pending list, a block whose fate is open to its held
//! list). Minting an id and writing its `ActionStarted` is one call,
//! [`Emit::start`], so an action can never start without an id or get two.

use crate::event::{push_narrative, ActionId, Event, Syntax};

/// Where events go, and the id counter they draw from.
#[derive(Debug)]
pub(super) struct Emit<'a> {
    ids: &'a mut u64,
    out: &'a mut Vec<Event>,
}

impl<'a> Emit<'a> {
    #[inline]
    pub fn new(ids: &'a mut u64, out: &'a mut Vec<Event>) -> Self {
        Emit { ids, out }
    }

    /// The same ids, writing to `out` instead (a shadow's pending events, a
    /// block's held ones).
    #[inline]
    pub fn to<'b>(&'b mut self, out: &'b mut Vec<Event>) -> Emit<'b> {
        Emit {
            ids: &mut *self.ids,
            out,
        }
    }

    /// The same ids and output, for a call that needs its own `Emit`.
    #[inline]
    pub fn reborrow(&mut self) -> Emit<'_> {
        Emit {
            ids: &mut *self.ids,
            out: &mut *self.out,
        }
    }

    /// Writes narrative, joined to narrative just written.
    #[inline]
    pub fn narrative(&mut self, text: &str) {
        push_narrative(self.out, text);
    }

    /// Mints an id and writes the action's `ActionStarted`.
    #[inline]
    pub fn start(&mut self, name: Option<String>, syntax: Syntax, tag: &str) -> u64 {
        let id = *self.ids;
        *self.ids += 1;
        self.out.push(Event::ActionStarted {
            id: ActionId(id),
            name,
            syntax,
            tag: tag.to_owned(),
        });
        id
    }

    /// Writes an event that is not a start.
    #[inline]
    pub fn push(&mut self, event: Event) {
        self.out.push(event);
    }

    /// Writes the next piece of action `id`'s arguments (`write` appends
    /// it): joined to the piece just written when that is the same
    /// action's, as the parser's output joins them anyway, so a push that
    /// writes its delta in several parts makes one string. Whether it
    /// wrote anything (an empty piece is no event).
    /// `room` is what the new string is made with (the piece's likely
    /// length: a string grown from nothing is reallocated on the way).
    #[inline]
    pub fn arguments(&mut self, id: u64, room: usize, write: impl FnOnce(&mut String)) -> bool {
        if let Some(Event::ArgumentsDelta { id: last, json }) = self.out.last_mut() {
            if last.0 == id {
                let before = json.len();
                write(json);
                return json.len() > before;
            }
        }
        // The event goes in first and its text is written in place.
        self.out.push(Event::ArgumentsDelta {
            id: ActionId(id),
            json: String::with_capacity(room),
        });
        if let Some(Event::ArgumentsDelta { json, .. }) = self.out.last_mut() {
            write(json);
            if !json.is_empty() {
                return true;
            }
        }
        self.out.pop();
        false
    }

    /// Writes events withheld while a block's fate was open.
    #[inline]
    pub fn extend(&mut self, events: Vec<Event>) {
        self.out.extend(events);
    }

    /// Takes the events written so far (a shadow's pending events, as it
    /// takes over).
    #[inline]
    pub fn append_from(&mut self, events: &mut Vec<Event>) {
        self.out.append(events);
    }
}
