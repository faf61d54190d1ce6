//! Speculation: the shadow machine that reads past a block's first closer
//! while the block's JSON is still open.
//!
//! A block whose JSON is open at a closer (a fence line inside a string,
//! say) may complete at a later closer, or break, in which case it ends at
//! *that first* closer and the text after it is parsed as usual. Rather than
//! parse that text again later, a shadow machine starts at the closer and is
//! fed, in lockstep, each piece the block reads ([`Machine::sync_shadow`]).
//! If the block completes, the shadow is dropped; if it breaks or is cut
//! off, the block ends at its first closer and the shadow, with everything
//! it has found, takes over ([`Machine::take_over`]). Lockstep keeps the
//! chain of shadows a function of the text alone: the shadow reads each piece
//! right after the block does, and up to the very byte where the block
//! breaks before it takes over. Shadows nest at most [`MAX_SPECULATION`](super::state::MAX_SPECULATION)
//! deep: a block that would need a deeper one ends at that closer.
//!
//! What must change together: a new way for a block to end (a new
//! [`super::ending::Ending`]) must drop the shadow (complete) or hand over
//! to it (broken after a closer), and anything a block emits while
//! [`Block::first`](super::state::Block::first) is set goes through [`held`](super::state::held) so that it is withheld
//! until the block's fate is known.

use super::emit::Emit;
use super::state::{Block, FirstCloser, Flow, Machine, Shadow, State};
use super::syntax::Closer;
use crate::event::ActionError;

impl Machine {
    /// Feeds the shadow, in lockstep, the text this machine has read past
    /// its block's first closer.
    #[inline]
    pub(super) fn sync_shadow(&mut self, emit: &mut Emit<'_>) {
        self.feed_shadow_to(self.pos, emit);
    }

    /// Feeds the shadow, if there is one, the text up to `to`. Called on
    /// every step of a block: the common case, no shadow, is inline.
    #[inline]
    pub(super) fn feed_shadow_to(&mut self, to: usize, emit: &mut Emit<'_>) {
        if self.spec.shadow.is_some() {
            self.feed_shadow(to, emit);
        }
    }

    fn feed_shadow(&mut self, to: usize, emit: &mut Emit<'_>) {
        if let Some(shadow) = self.spec.shadow.as_deref_mut() {
            if to <= shadow.fed {
                return;
            }
            let text = &self.buf[shadow.fed - self.base..to - self.base];
            shadow.machine.push(text, &mut emit.to(&mut shadow.pending));
            shadow.fed = to;
        }
    }

    /// Starts a shadow at `at`, the end of the block's first closer.
    pub(super) fn speculate(&mut self, b: &mut Block, at: usize) {
        b.first = Some(FirstCloser {
            end: at,
            slots: b.snapshot(),
            held: Vec::new(),
        });
        let mut shadow = Machine::new(self.shared.clone(), at, self.spec.depth + 1);
        shadow.line = self.line.list_only();
        if let Closer::Tag { .. } = b.closer {
            shadow.state = State::Text;
        }
        self.spec.shadow = Some(Box::new(Shadow {
            machine: shadow,
            fed: at,
            pending: Vec::new(),
        }));
    }

    /// The block breaks, or is cut off, after it passed a closer: it ends at
    /// that first closer and the shadow takes over.
    pub(super) fn fail_at_first_closer(
        &mut self,
        b: &mut Block,
        error: ActionError,
        emit: &mut Emit<'_>,
    ) -> Flow {
        let Some(first) = b.first.take() else {
            return Flow::Go;
        };
        let raw_end = first.end;
        if b.undecided() {
            self.emit_narrative_to(raw_end, emit);
        } else {
            self.end_block_invalid(b, raw_end, first.slots, vec![error], emit);
        }
        self.take_over(emit);
        Flow::Replaced
    }

    /// The shadow becomes this machine; its events come out.
    fn take_over(&mut self, emit: &mut Emit<'_>) {
        let Some(shadow) = self.spec.shadow.take() else {
            self.state = State::Text;
            return;
        };
        let Shadow {
            machine: mut shadow,
            fed,
            mut pending,
        } = *shadow;
        let mut m = Some(&mut shadow);
        while let Some(machine) = m {
            machine.spec.depth = machine.spec.depth.saturating_sub(1);
            m = machine.spec.shadow.as_deref_mut().map(|s| &mut s.machine);
        }
        // The shadow reads everything this machine held past its closer.
        let text = &self.buf[fed - self.base..];
        shadow.push(text, &mut emit.to(&mut pending));
        *self = shadow;
        emit.append_from(&mut pending);
    }
}
