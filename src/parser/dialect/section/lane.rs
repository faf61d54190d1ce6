//! The fast lane through a long raw value (a file body in a parameter
//! form, `glm`'s `<arg_value>`, `qwen3_coder`'s `<parameter=…>`).
//!
//! Inside such a value a push is most often a few bytes of the value and
//! nothing else: no byte that can begin the value's end marker or the
//! section's closer, nothing held back. The general path walks the whole
//! machine for those bytes (the run loop, the section's block limit, the
//! form's markers, the watch for a first closer, the line endings held
//! back), which is most of the cost of a small push. So when a push leaves
//! a value in that state (both searches at their start, every byte read
//! streamed or the value not streamed at all), the machine arms a lane: the
//! next pushes' bytes before the first one that is a stop
//! ([`Form::Params`]'s `stops`) go straight on (appended to the buffer,
//! both searches moved past them, sent as the next piece of the JSON
//! string), within the block limit; the rest of a push takes the general
//! path, which arms the lane again if it can.
//!
//! What the lane does with a byte is what the general path would do with
//! it: a byte that is no stop leaves both searches at their start, holds
//! nothing back, and decides nothing. The events are the same, for any
//! chunking; the lane only skips the walk.
//!
//! A push the lane takes whole makes nothing but its argument delta, so
//! the parser writes that itself (`parser/lane.rs`: [`DialectMachine::lane_whole`],
//! and [`DialectMachine::lane_ascii`] for bytes that are plain ASCII, which need no
//! UTF-8 check and no escaping).

use super::*;
use crate::scan::escape::{escaped_room, push_ascii, push_json_str};
use crate::scan::markers::ByteSet;

/// An armed lane.
#[derive(Debug, Clone, Copy)]
pub(in crate::parser::dialect) struct Lane {
    stops: ByteSet,
    /// The stops, the bytes JSON escapes and those not ASCII: bytes with
    /// none of them go through as they are (`lane_ascii`).
    ascii_stops: ByteSet,
    /// The value may run up to here: the section's block limit.
    limit: usize,
    /// The call the value's bytes are streamed to, as argument deltas.
    delta: Option<u64>,
}

impl DialectMachine {
    /// At the end of a push that read a value up to `pos` and found no
    /// end: arms the lane if the value is in the state it keeps.
    pub(super) fn arm_lane(&mut self, sec: &Sec) {
        let sc = &self.c.sections[sec.idx];
        let Some(Form::Params {
            value_end,
            stops,
            ascii_stops,
            ..
        }) = sec.form.map(|f| &sc.forms[f])
        else {
            return;
        };
        let Read::Value {
            streamed, plain, ..
        } = sec.read
        else {
            return;
        };
        let limit = sec.from.saturating_add(self.shared.cfg.max_block_bytes);
        let read_all = self.pos == self.base + self.buf.len() && self.pos <= limit;
        // The watch for a first closer has nothing pending.
        let watch_idle = sec.watch_passes(sc, self.pos, b"");
        let deltas = self.shared.cfg.argument_deltas;
        let sent_all = !deltas || plain || streamed == Some(self.pos);
        if read_all && watch_idle && sent_all && value_end.held(&self.ms) == 0 {
            self.lane = Some(Lane {
                stops: *stops,
                ascii_stops: *ascii_stops,
                limit,
                delta: if deltas && streamed.is_some() {
                    sec.calls.last().and_then(|c| c.id)
                } else {
                    None
                },
            });
        }
    }

    /// How many bytes of `text` the armed lane takes (those before its
    /// first stop; none when the push would pass the block limit), and the
    /// call they are streamed to. Nothing is changed.
    #[inline]
    fn lane_run(&self, text: &str) -> Option<(usize, Option<u64>)> {
        let lane = self.lane.as_ref()?;
        if self.pos.saturating_add(text.len()) > lane.limit {
            return None;
        }
        let n = lane.stops.find(text.as_bytes()).unwrap_or(text.len());
        (n > 0).then_some((n, lane.delta))
    }

    /// Takes `run` (bytes the lane may take) as the general path would:
    /// appended, both searches moved past it, the value streamed up to its
    /// end (the delta itself is written by the caller).
    #[inline]
    fn lane_take(&mut self, run: &str) {
        self.buf.push_str(run);
        self.lane_took(run.len());
    }

    /// The lane's bookkeeping for `n` bytes just appended to the buffer.
    #[inline]
    fn lane_took(&mut self, n: usize) {
        self.pos += n;
        if let DState::Section(sec) = &mut self.state {
            sec.watched_to(self.pos);
            if let Read::Value {
                streamed: Some(s), ..
            } = &mut sec.read
            {
                *s = self.pos;
            }
        }
    }

    /// Takes the bytes of `text` before its first stop through the armed
    /// lane; how many. Nothing when the push would pass the block limit.
    pub(in crate::parser::dialect) fn lane_push(
        &mut self,
        text: &str,
        emit: &mut Emit<'_>,
    ) -> usize {
        let Some((n, delta)) = self.lane_run(text) else {
            return 0;
        };
        // A stop is the first byte of a marker or a line ending: a
        // character boundary.
        let Some(run) = text.get(..n) else {
            return 0;
        };
        self.lane_take(run);
        if let Some(id) = delta {
            emit.arguments(id, escaped_room(run), |out| push_json_str(out, run));
        }
        n
    }

    /// Whether a lane is armed.
    #[inline]
    pub(in crate::parser) fn lane_armed(&self) -> bool {
        self.lane.is_some()
    }

    /// The lane for a push it takes whole (no stop in it, within the
    /// limit): taken, and the call its text is to be streamed to, as the
    /// next piece of a JSON string, by the caller (the parser writes it
    /// straight to its output, with no round through the machine's events).
    /// `None`, with nothing changed, for any other push.
    #[inline]
    pub(in crate::parser) fn lane_whole(&mut self, text: &str) -> Option<Option<u64>> {
        match self.lane_run(text) {
            Some((n, delta)) if n == text.len() => {
                self.lane_take(text);
                Some(delta)
            }
            _ => None,
        }
    }

    /// The lane for a push of bytes, none of which is a stop, escaped in
    /// JSON, or not ASCII, within the limit: taken (appended as the text
    /// they are, with no UTF-8 check to make); the call they are to be
    /// streamed to, as they are, by the caller, and their text. `None`,
    /// with nothing changed, for any other push.
    #[inline]
    pub(in crate::parser) fn lane_ascii(&mut self, bytes: &[u8]) -> Option<(Option<u64>, &str)> {
        let lane = self.lane.as_ref()?;
        if bytes.is_empty()
            || self.pos.saturating_add(bytes.len()) > lane.limit
            || lane.ascii_stops.find(bytes).is_some()
        {
            return None;
        }
        let delta = lane.delta;
        let from = self.buf.len();
        push_ascii(&mut self.buf, bytes);
        self.lane_took(bytes.len());
        Some((delta, self.buf.get(from..).unwrap_or_default()))
    }
}
