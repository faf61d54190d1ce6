//! Text written as the inside of a JSON string, as serde_json writes it:
//! `"` and `\` escaped, the control characters as `\n`, `\r`, `\t`, `\b`,
//! `\f` or `\u00XX`, everything else as it is.
//!
//! Hand-written rather than `serde_json::to_string`, which makes a new
//! string (quotes included) for every piece: argument deltas escape a few
//! bytes a push straight into the event's text, and runs of bytes that
//! need no escape are copied whole.

/// Whether byte `b` must be escaped in a JSON string.
const ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Whether byte `b` is escaped in a JSON string.
#[inline]
pub(crate) fn escaped(b: u8) -> bool {
    ESCAPED[usize::from(b)]
}

/// Appends ASCII `bytes` to `out` (a byte that is not ASCII is dropped:
/// callers pass none). Bytes
/// with nothing to escape are also their own JSON string's inside.
#[inline]
pub(crate) fn push_ascii(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len());
    for &b in bytes {
        if b.is_ascii() {
            out.push(char::from(b));
        }
    }
}

/// Room for `text` escaped as JSON: its length and a little for escapes
/// (what a string made for one piece is made with).
#[inline]
pub(crate) fn escaped_room(text: &str) -> usize {
    text.len() + text.len() / 8 + 2
}

/// Appends `s` to `out` as the inside of a JSON string (no quotes).
///
/// Inline up to the first byte to escape: most pieces (a few bytes of a
/// value a push) have none and are copied whole.
#[inline]
pub(crate) fn push_json_str(out: &mut String, s: &str) {
    match s.bytes().position(|b| ESCAPED[usize::from(b)]) {
        None => out.push_str(s),
        Some(i) => push_escaped_from(out, s, i),
    }
}

/// [`push_json_str`] from `s`'s first byte to escape, at `i`.
fn push_escaped_from(out: &mut String, s: &str, mut i: usize) {
    let bytes = s.as_bytes();
    let mut from = 0;
    loop {
        out.push_str(&s[from..i]);
        match bytes[i] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        from = i + 1;
        match bytes[from..].iter().position(|&b| ESCAPED[usize::from(b)]) {
            Some(k) => i = from + k,
            None => break,
        }
    }
    out.push_str(&s[from..]);
}

#[cfg(test)]
mod tests {
    use super::push_json_str;

    #[test]
    fn escapes_as_serde_json_does() {
        let all: String = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain("é→😀\u{7f}\u{2028}".chars())
            .collect();
        for s in [all.as_str(), "", "plain", "a\"b\\c\nd", "\u{1}\u{1f}x"] {
            let mut out = String::new();
            push_json_str(&mut out, s);
            let q = serde_json::to_string(s).expect("a JSON string");
            assert_eq!(out, q[1..q.len() - 1], "{s:?}");
        }
    }
}
