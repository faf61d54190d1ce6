//! Argument deltas: compact JSON pieces from the scanner's repaired copy, and the
//! pieces a parameter form writes.

use super::*;

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
    pub(super) fn param_delta(&mut self, sec: &mut Sec, json: String, emit: &mut Emit<'_>) {
        if let Some(call) = sec.calls.last_mut() {
            call.send(json, emit);
        }
    }
}

/// The argument deltas of the last started call of a JSON form, as far as
/// its scanner's copy is settled. They stream from the value of the
/// object's first arguments key when that is one of the form's argument
/// keys (the key [`json_arguments`] then takes); otherwise the arguments go
/// out whole when the call ends.
pub(super) fn json_deltas(
    scanner: &JsonScanner,
    slots: &[usize],
    calls: &mut [Call],
    keys: &[String],
    emit: &mut Emit<'_>,
) {
    let Some(si) = slots.iter().rposition(|&c| c != usize::MAX) else {
        return;
    };
    let call = &mut calls[slots[si]];
    // Keys the scanner does not know as arguments keys could still come
    // first: then nothing streams.
    let known = keys
        .iter()
        .all(|k| matches!(k.as_str(), "arguments" | "parameters" | "input"));
    if call.compact.at.is_none() && known {
        let slot = scanner.slot(si);
        let first_key = slot.and_then(|s| s.args_at().first()).map(|(k, _)| *k);
        if first_key.is_some_and(|k| keys.iter().any(|x| x == k)) {
            if let Some(at) = slot.and_then(|s| s.args_out()) {
                call.compact = Compact::from(at);
            }
        }
    }
    call.stream_json(scanner, emit);
}

impl Call {
    /// Sends the next piece of its arguments (nothing for an empty piece).
    pub(super) fn send(&mut self, json: String, emit: &mut Emit<'_>) {
        if json.is_empty() {
            return;
        }
        self.sent = true;
        if let Some(id) = self.id {
            emit.push(Event::ArgumentsDelta {
                id: ActionId(id),
                json,
            });
        }
    }

    /// Sends what `scanner` has settled of its JSON arguments since the
    /// last piece.
    pub(super) fn stream_json(&mut self, scanner: &JsonScanner, emit: &mut Emit<'_>) {
        let mut piece = String::new();
        self.compact
            .advance(scanner.repaired(), scanner.settled(), &mut piece);
        self.send(piece, emit);
    }
}

/// A JSON string's text (quotes and escapes) for `s`.
pub(super) fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A string's escaped content, without the quotes.
pub(super) fn json_str_body(s: &str) -> String {
    let q = json_str(s);
    q.get(1..q.len().saturating_sub(1)).unwrap_or("").to_owned()
}
