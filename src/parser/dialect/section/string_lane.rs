//! The lane through a long string in a value being read: a JSON form's
//! calls (a file body in `hermes`'s `"content"`), a named or harmony call's
//! JSON arguments (`mistral`, `deepseek_v3`, `kimi_k2`, `gpt_oss`), or a
//! Python call's (`pythonic`).
//!
//! Inside such a string a push is most often a few bytes of it and nothing
//! else. The general path runs the machine's loop, the section's step (the
//! block limit, the reader's loop, the watch for a first closer) and the
//! flush for those bytes. A push that falls wholly inside a plain string
//! of the value is taken here as that path would take it, when all of
//! these hold:
//!
//! - all the text before it was read, and it stays within the block limit;
//! - the watch for a first closer passes over it ([`Sec::watch_passes`]);
//! - the reader takes it as plain string bytes
//!   ([`JsonScanner::take_string_piece`], [`PyCalls::take_string_piece`]:
//!   no quote, escape or byte that ends the string's run, nothing broken,
//!   nothing waiting).
//!
//! Then it is appended, the watch moved past it, and the call's argument
//! deltas sent as the reader's own step sends them (`json_value`,
//! `named_args`, `python`). The events are the same for any chunking (the
//! oracle runs both paths); the lane only skips the walk. The main machine
//! has the same lane over the same JSON scanner step
//! (`Machine::string_lane`); raw values have theirs (`lane.rs`).

use super::*;

impl DialectMachine {
    /// Takes `text` through the lane if it can (see the module docs):
    /// whether it did; nothing changed if not.
    pub(in crate::parser::dialect) fn string_lane(
        &mut self,
        text: &str,
        emit: &mut Emit<'_>,
    ) -> bool {
        let DState::Section(sec) = &mut self.state else {
            return false;
        };
        if !matches!(
            sec.read,
            Read::Json { .. } | Read::Args(_) | Read::Python(_)
        ) {
            return false;
        }
        let sc = &self.c.sections[sec.idx];
        let limit = sec.from.saturating_add(self.shared.cfg.max_block_bytes);
        if self.pos != self.base + self.buf.len()
            || self.pos.saturating_add(text.len()) > limit
            || !sec.watch_passes(sc, self.pos, text.as_bytes())
        {
            return false;
        }
        let deltas = self.shared.cfg.argument_deltas;
        match &mut sec.read {
            Read::Json { scanner, slots } => {
                if !scanner.take_string_piece(text) {
                    return false;
                }
                if deltas {
                    let (keys, name_is_key) = match sec.form.map(|f| &sc.forms[f]) {
                        Some(Form::Json {
                            argument_keys,
                            name_is_key,
                            ..
                        }) => (&argument_keys[..], *name_is_key),
                        _ => (&[][..], false),
                    };
                    json_deltas(scanner, slots, &mut sec.calls, keys, name_is_key, emit);
                }
            }
            Read::Args(scanner) => {
                if !scanner.take_string_piece(text) {
                    return false;
                }
                if let Some(call) = sec.calls.last_mut().filter(|_| deltas) {
                    call.stream_json(scanner, emit);
                }
            }
            Read::Python(reader) => {
                if !reader.take_string_piece(text) {
                    return false;
                }
                // Without deltas the piece's JSON waits in the reader: the
                // next step reports it, and its report is dropped.
                if deltas {
                    let mut events = Vec::new();
                    reader.report(&mut events);
                    for e in events {
                        if let PyEvent::Args(json) = e {
                            if let Some(call) = sec.calls.last_mut() {
                                call.send(&json, emit);
                            }
                        }
                    }
                }
            }
            _ => return false,
        }
        self.buf.push_str(text);
        self.pos += text.len();
        sec.watched_to(self.pos);
        true
    }
}
