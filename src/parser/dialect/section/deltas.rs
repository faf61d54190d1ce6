//! Argument deltas: compact JSON pieces from the scanner's repaired copy, and the
//! pieces a parameter form writes.

use super::*;
use crate::scan::escape::{escaped_room, push_json_str};

/// Compact JSON from a scanner's repaired copy: white space outside strings
/// dropped, stopping where the value that begins at `at` ends.
#[derive(Debug, Default, Clone)]
pub(super) struct Compact {
    at: Option<usize>,
    depth: usize,
    in_str: bool,
    esc: bool,
    /// The value is not an object: nothing is sent until the call ends.
    refused: bool,
    done: bool,
}

impl Compact {
    pub(super) fn from(at: usize) -> Compact {
        Compact {
            at: Some(at),
            ..Compact::default()
        }
    }

    /// Room for the next piece, up to `upto` (none once nothing more is
    /// sent; at most 4 KiB, as a piece longer than that grows its string).
    pub(super) fn room(&self, upto: usize) -> usize {
        match self.at {
            Some(at) if !self.refused && !self.done => upto.saturating_sub(at).min(4096),
            _ => 0,
        }
    }

    /// Appends the compact form of `copy[at..upto]` to `out`.
    pub(super) fn advance(&mut self, copy: &str, upto: usize, out: &mut String) {
        let Some(mut i) = self.at else { return };
        if self.refused || self.done {
            return;
        }
        let bytes = copy.as_bytes();
        let upto = upto.min(bytes.len());
        let mut keep = i;
        while i < upto {
            let b = bytes[i];
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if b == b'\\' {
                    self.esc = true;
                } else if b == b'"' {
                    self.in_str = false;
                }
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                out.push_str(&copy[keep..i]);
                keep = i + 1;
            } else {
                if self.depth == 0 && b != b'{' {
                    self.refused = true;
                    return;
                }
                match b {
                    b'"' => self.in_str = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            i += 1;
                            self.done = true;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        out.push_str(&copy[keep..i]);
        self.at = Some(i);
    }
}

impl DialectMachine {
    pub(super) fn param_delta(&mut self, sec: &mut Sec, json: &str, emit: &mut Emit<'_>) {
        if let Some(call) = sec.calls.last_mut() {
            call.send(json, emit);
        }
    }
}

/// The argument deltas of the last started call of a JSON form, as far as
/// its scanner's copy is settled. They stream from the value of the
/// object's first arguments key when that is one of the form's argument
/// keys (the key [`json_arguments`] then takes; the scanner knows them all,
/// see `JsonScanner::set_call_keys`), or, where the name is the key, from
/// that key's value; otherwise the arguments go out whole when the call
/// ends.
pub(super) fn json_deltas(
    scanner: &JsonScanner,
    slots: &[usize],
    calls: &mut [Call],
    keys: &[String],
    name_is_key: bool,
    emit: &mut Emit<'_>,
) {
    let Some(si) = slots.iter().rposition(|&c| c != usize::MAX) else {
        return;
    };
    let call = &mut calls[slots[si]];
    if call.compact.at.is_none() {
        let slot = scanner.slot(si);
        let first_key = slot.and_then(|s| s.args_at().first()).map(|(k, _)| k);
        if name_is_key || first_key.is_some_and(|k| keys.iter().any(|x| x == k)) {
            if let Some(at) = slot.and_then(|s| s.args_out()) {
                call.compact = Compact::from(at);
            }
        }
    }
    call.stream_json(scanner, emit);
}

impl Call {
    /// Sends the next piece of its arguments (nothing for an empty piece).
    pub(super) fn send(&mut self, json: &str, emit: &mut Emit<'_>) {
        send_piece(self.id, &mut self.sent, emit, json.len(), |out| {
            out.push_str(json)
        });
    }

    /// Sends the next key of an object of arguments written key by key:
    /// `{` or `,`, the key as a JSON string, `:`.
    pub(super) fn send_key(&mut self, key: &str, emit: &mut Emit<'_>) {
        let lead = if self.sent { ',' } else { '{' };
        send_piece(self.id, &mut self.sent, emit, key.len() + 4, |out| {
            out.push(lead);
            out.push('"');
            push_json_str(out, key);
            out.push_str("\":");
        });
    }

    /// Sends `text` as the next piece of a JSON string in its arguments,
    /// escaped straight into the event.
    pub(super) fn send_str_body(&mut self, text: &str, emit: &mut Emit<'_>) {
        send_piece(self.id, &mut self.sent, emit, escaped_room(text), |out| {
            push_json_str(out, text)
        });
    }

    /// Sends what `scanner` has settled of its JSON arguments since the
    /// last piece.
    pub(super) fn stream_json(&mut self, scanner: &JsonScanner, emit: &mut Emit<'_>) {
        let Call {
            id, sent, compact, ..
        } = self;
        let room = compact.room(scanner.settled());
        send_piece(*id, sent, emit, room, |out| {
            compact.advance(scanner.repaired(), scanner.settled(), out)
        });
    }
}

/// Sends the piece `write` appends as call `id`'s next argument delta,
/// written straight into the event (no string of its own); `sent` notes
/// that a piece went out. Nothing for an empty piece.
fn send_piece(
    id: Option<u64>,
    sent: &mut bool,
    emit: &mut Emit<'_>,
    room: usize,
    write: impl FnOnce(&mut String),
) {
    let wrote = match id {
        Some(id) => emit.arguments(id, room, write),
        None => {
            let mut piece = String::new();
            write(&mut piece);
            !piece.is_empty()
        }
    };
    *sent |= wrote;
}
