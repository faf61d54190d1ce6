//! Escapes in Python strings: read as Python reads them, as one pure step
//! ([`decode_step`]) shared by the JSON scanner's repair `python literal`
//! (single-quoted strings, written as JSON to the text it gathers by
//! [`escape_step`]) and the reader of Python calls
//! ([`python`](super::python)). All state is in [`PyEsc`], so an escape may
//! be cut between pushes at any byte.

/// Where a single-quoted (Python) string is in an escape. The repaired copy
/// gets the JSON escape once the Python one is read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PyEsc {
    None,
    Backslash,
    /// `\x`, `\u` or `\U` (`kind`), with `left` hex digits still to come.
    Hex {
        kind: u8,
        left: u8,
        val: u32,
    },
    /// An octal escape of `n` digits so far (at most 3).
    Oct {
        n: u8,
        val: u32,
    },
    /// A backslash and a carriage return: a line continuation, whose `\n`
    /// may follow.
    Cr,
}

/// Steps byte `b` of an escape in a single-quoted string, read as Python
/// reads it, and writes its JSON escape to `out` once it is whole. Returns
/// the next escape state and whether `b` must be read again as string text.
pub(crate) fn escape_step(
    esc: PyEsc,
    b: u8,
    out: &mut String,
) -> Result<(PyEsc, bool), &'static str> {
    let (next, code, again) = decode_step(esc, b)?;
    if let Some(val) = code {
        if esc == PyEsc::Backslash {
            push_named(val, out)?;
        } else {
            push_char(val, out)?;
        }
    }
    Ok((next, again))
}

/// Steps byte `b` of an escape in a Python string, as Python reads it.
/// Returns the next escape state, the code point the escape stands for once
/// it is read whole (a surrogate included, as Python keeps it; `\\` for an
/// escape Python does not know, whose backslash stays), and whether `b` must
/// be read again as string text.
pub(crate) fn decode_step(esc: PyEsc, b: u8) -> Result<(PyEsc, Option<u32>, bool), &'static str> {
    let mut next = PyEsc::None;
    let mut code = None;
    let mut again = false;
    match esc {
        PyEsc::Backslash => match b {
            b'\'' | b'"' | b'\\' => code = Some(u32::from(b)),
            b'n' => code = Some(0x0a),
            b't' => code = Some(0x09),
            b'r' => code = Some(0x0d),
            b'b' => code = Some(0x08),
            b'f' => code = Some(0x0c),
            b'a' => code = Some(0x07),
            b'v' => code = Some(0x0b),
            // A line continuation: nothing.
            b'\n' => {}
            b'\r' => next = PyEsc::Cr,
            b'x' | b'u' | b'U' => {
                let left = match b {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                next = PyEsc::Hex {
                    kind: b,
                    left,
                    val: 0,
                };
            }
            b'0'..=b'7' => {
                next = PyEsc::Oct {
                    n: 1,
                    val: u32::from(b - b'0'),
                }
            }
            b'N' => {
                return Err("a \\N{…} escape in a single-quoted string, which is not read: write the character itself")
            }
            _ => {
                // Not an escape in Python: the backslash stays, and the
                // byte is read again as string text.
                code = Some(u32::from(b'\\'));
                again = true;
            }
        },
        PyEsc::Hex { kind, left, val } => {
            let Some(d) = char::from(b).to_digit(16) else {
                return Err(match kind {
                    b'x' => "expected two hex digits after \\x",
                    b'u' => "expected four hex digits after \\u",
                    _ => "expected eight hex digits after \\U",
                });
            };
            let val = val << 4 | d;
            if left > 1 {
                next = PyEsc::Hex {
                    kind,
                    left: left - 1,
                    val,
                };
            } else if val > 0x10FFFF {
                return Err("a \\U escape beyond U+10FFFF");
            } else {
                code = Some(val);
            }
        }
        PyEsc::Oct { n, val } => match b {
            b'0'..=b'7' => {
                let val = val * 8 + u32::from(b - b'0');
                if n == 2 {
                    code = Some(val);
                } else {
                    next = PyEsc::Oct { n: n + 1, val };
                }
            }
            _ => {
                code = Some(val);
                again = true;
            }
        },
        PyEsc::Cr => {
            if b != b'\n' {
                again = true;
            }
        }
        // Plain string bytes are taken by the callers' fast paths.
        PyEsc::None => {}
    }
    Ok((next, code, again))
}

/// Writes the character a named escape (`\n`, `\'`, …) stands for, as
/// JSON.
fn push_named(val: u32, out: &mut String) -> Result<(), &'static str> {
    match val {
        0x27 => out.push('\''),
        0x22 => out.push_str("\\\""),
        0x5c => out.push_str("\\\\"),
        0x0a => out.push_str("\\n"),
        0x09 => out.push_str("\\t"),
        0x0d => out.push_str("\\r"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => push_char(val, out)?,
    }
    Ok(())
}

/// Writes the character with code point `val` to `out`, as JSON.
fn push_char(val: u32, out: &mut String) -> Result<(), &'static str> {
    if val <= 0xFFFF {
        // Surrogates included: the copy's string reader judges them as
        // it judges JSON's own `\u` escapes.
        out.push_str(&format!("\\u{val:04x}"));
        return Ok(());
    }
    let c = char::from_u32(val).ok_or("a \\U escape beyond U+10FFFF")?;
    out.push(c);
    Ok(())
}
