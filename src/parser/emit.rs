//! The emitter: the one place events are written and action ids minted.
//!
//! Every machine (the main one and each shadow) writes through an [`Emit`]:
//! the id counter is shared by all of them, the output differs (a shadow
//! writes to its own pending list, a block whose fate is open to its held
//! list). Minting an id and writing its `ActionStarted` is one call,
//! [`Emit::start`], so an action can never start without an id or get two.
//!
//! On the borrowing path the parser's own output has a lender: narrative
//! and reasoning written while nothing waits before them go straight to
//! the caller's callback, lent from the machine's buffer, with no string
//! made ([`Emit::lending`]). Anything written after an event waits keeps
//! its place behind it. A shadow's or a held block's output ([`Emit::to`])
//! has no lender: what it writes may yet be withheld.

use crate::event::{push_narrative, ActionId, Event, EventRef, Syntax};

/// The borrowing path's callback.
pub(super) type Lend<'a> = &'a mut dyn FnMut(EventRef<'_>);

/// Where events go, and the id counter they draw from.
pub(super) struct Emit<'a> {
    ids: &'a mut u64,
    out: &'a mut Vec<Event>,
    lend: Option<Lend<'a>>,
}

impl std::fmt::Debug for Emit<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emit")
            .field("ids", &self.ids)
            .field("out", &self.out)
            .field("lending", &self.lend.is_some())
            .finish()
    }
}

impl<'a> Emit<'a> {
    #[inline]
    pub fn new(ids: &'a mut u64, out: &'a mut Vec<Event>) -> Self {
        Emit {
            ids,
            out,
            lend: None,
        }
    }

    /// [`Emit::new`] for the borrowing path: narrative and reasoning with
    /// nothing waiting before them in `out` go to `lend` at once.
    #[inline]
    pub fn lending(ids: &'a mut u64, out: &'a mut Vec<Event>, lend: Lend<'a>) -> Self {
        Emit {
            ids,
            out,
            lend: Some(lend),
        }
    }

    /// The same ids, writing to `out` instead (a shadow's pending events, a
    /// block's held ones), with no lender.
    #[inline]
    pub fn to<'b>(&'b mut self, out: &'b mut Vec<Event>) -> Emit<'b> {
        Emit {
            ids: &mut *self.ids,
            out,
            lend: None,
        }
    }

    /// [`Emit::to`] keeping the lender when nothing waits in this output:
    /// narrative written to `out` while `out` is still empty goes to the
    /// lender at once, ahead of everything that will be moved from `out`
    /// to this output (the dialect machine's inner machine, whose events
    /// it moves on after the push).
    #[inline]
    pub fn lending_to<'b>(&'b mut self, out: &'b mut Vec<Event>) -> Emit<'b> {
        let lend = match &mut self.lend {
            Some(f) if self.out.is_empty() => Some(&mut **f as Lend<'b>),
            _ => None,
        };
        Emit {
            ids: &mut *self.ids,
            out,
            lend,
        }
    }

    /// The same ids, output and lender, for a call that needs its own
    /// `Emit`.
    #[inline]
    pub fn reborrow(&mut self) -> Emit<'_> {
        Emit {
            ids: &mut *self.ids,
            out: &mut *self.out,
            lend: match &mut self.lend {
                Some(f) => Some(&mut **f),
                None => None,
            },
        }
    }

    /// The lender, when `text` may go to it: nothing waits before it.
    #[inline]
    fn lender(&mut self, text: &str) -> Option<&mut (dyn FnMut(EventRef<'_>) + 'a)> {
        match &mut self.lend {
            Some(f) if self.out.is_empty() && !text.is_empty() => Some(&mut **f),
            _ => None,
        }
    }

    /// Writes narrative, joined to narrative just written (or lent).
    #[inline]
    pub fn narrative(&mut self, text: &str) {
        match self.lender(text) {
            Some(f) => f(EventRef::Narrative(text)),
            None => push_narrative(self.out, text),
        }
    }

    /// Writes reasoning (or lends it).
    #[inline]
    pub fn reasoning(&mut self, text: &str) {
        match self.lender(text) {
            Some(f) => f(EventRef::Reasoning(text)),
            None => self.out.push(Event::Reasoning(text.to_owned())),
        }
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
