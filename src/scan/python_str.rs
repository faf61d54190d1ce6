//! Escapes in single-quoted (Python) strings, for the repair `python
//! literal`: read as Python reads them, written to the JSON scanner's
//! repaired copy as JSON. All state is in [`PyEsc`], so an escape may be cut
//! between pushes at any byte.

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
    let mut next = PyEsc::None;
    let mut again = false;
    match esc {
            PyEsc::Backslash => match b {
                b'\'' => out.push('\''),
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b'n' | b't' | b'r' | b'b' | b'f' => {
                    out.push('\\');
                    out.push(b as char);
                }
                b'a' => out.push_str("\\u0007"),
                b'v' => out.push_str("\\u000b"),
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
                    out.push_str("\\\\");
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
                } else {
                    push_char(val, out)?;
                }
            }
            PyEsc::Oct { n, val } => match b {
                b'0'..=b'7' => {
                    let val = val * 8 + u32::from(b - b'0');
                    if n == 2 {
                        push_char(val, out)?;
                    } else {
                        next = PyEsc::Oct { n: n + 1, val };
                    }
                }
                _ => {
                    push_char(val, out)?;
                    again = true;
                }
            },
            PyEsc::Cr => {
                if b != b'\n' {
                    again = true;
                }
            }
            // Plain string bytes are taken by the fast path in `feed`.
            PyEsc::None => {}
        }
    Ok((next, again))
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
