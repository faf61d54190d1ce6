//! The scanner's runs: the common tokens of the pushed text read in bulk
//! (a container's white space, keys, separators and brackets; strings and
//! numbers whole in the piece), stopping in the same state wherever the
//! byte-level steps of [`JsonScanner::step`](super::JsonScanner) must take
//! over.
//!
//! These mirror the steps in `mod.rs`: for the same byte in the same state
//! they must do what the steps do, in the same order. A change to one is a
//! change to the other (the module comment there says so too); the oracle
//! and the tests comparing numbers and strings with serde_json check that
//! they agree at every cut.

use super::*;

/// The shortest run of a string's bytes that [`JsonScanner::string_run`]
/// hands to `memchr` (a shorter one is read byte by byte).
const SHORT_STRING: usize = 24;

/// How many bytes of a string [`plain_string_end`] reads a word at a time
/// before it hands over to `memchr`, which is faster only on long strings
/// (on the action-heavy corpus, handing over at 128 bytes costs fewer
/// instructions than at 24 or 64, and as few as at 4096).
const WORD_STRING: usize = 128;

/// How many of `hay`'s first bytes a string reads as plain text: up to its
/// closing quote (`'` too, for a Python string), an escape, or a raw
/// control byte. The one rule for both [`JsonScanner::string_run`] and
/// [`JsonScanner::take_string_piece`].
#[inline]
fn plain_run(hay: &[u8], py: bool) -> usize {
    // A short run (a small piece, the end of a string) is looked at byte
    // by byte, for all the bytes that stop it at once: `memchr`'s set-up
    // costs more than that.
    if hay.len() < SHORT_STRING {
        return hay
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20 || (py && b == b'\''))
            .unwrap_or(hay.len());
    }
    let stop = if py {
        memchr::memchr3(b'\'', b'"', b'\\', hay)
    } else {
        memchr::memchr2(b'"', b'\\', hay)
    }
    .unwrap_or(hay.len());
    // Control bytes are rare: test the run without stopping early (this
    // vectorises), then find the first.
    if hay[..stop].iter().fold(false, |c, &b| c | (b < 0x20)) {
        hay[..stop].iter().position(|&b| b < 0x20).unwrap_or(stop)
    } else {
        stop
    }
}

impl JsonScanner {
    /// Takes all of `text` if it is the middle of a JSON string: the
    /// scanner is inside one (no escape begun, nothing broken, no name
    /// waiting to be handed out) and `text` is plain string bytes to its
    /// end. Then the scanner is where [`JsonScanner::feed`] would leave it
    /// (the bytes kept in `out` as a string cut at a piece's end, the
    /// offset moved on), with none of its loop; otherwise nothing changes
    /// and `false` says so. For a lane through a long string value (the
    /// parser's `Machine::string_lane`).
    ///
    /// Out of line: inlined into the parser, it moved where the compiler
    /// split the crate, and the object maps' insertion was compiled as
    /// calls (1.3% more instructions on the action-heavy corpus whole;
    /// 0.8% with this one call, which a push in the lane pays).
    pub fn take_string_piece(&mut self, text: &str) -> bool {
        let Tok::Str { esc: Esc::None, .. } = self.tok else {
            return false;
        };
        if self.error.is_some()
            || !self.named.is_empty()
            || plain_run(text.as_bytes(), false) != text.len()
        {
            return false;
        }
        // What `scan` sets at a piece's start, and what `string_run` does
        // with a string cut at its end.
        self.just_done = false;
        self.str_from = usize::MAX;
        self.num_from = 0;
        self.out.push_str(text);
        self.pos += text.len();
        true
    }

    /// Reads the tokens of an open container from `i` in one loop: white
    /// space, keys, `:` and `,`, brackets, strings and numbers whole in
    /// `text` with nothing to repair. Anything else (a literal, a comment,
    /// a repair, an error, a token cut at the end of `text`, the top level)
    /// stops it where the byte-level steps take over, in the same state
    /// they would have reached. Returns where it stopped; an error with its
    /// offset in `text` and its message.
    ///
    /// Hand-written, not stepped: this is where the time goes on
    /// action-heavy text, and one loop with the common cases first keeps
    /// the branches predictable. Each case does what `step` and the
    /// functions it calls do for the same byte, in the same order; a
    /// change to one must change the other.
    pub(super) fn tokens(&mut self, text: &str, mut i: usize) -> Result<usize, (usize, String)> {
        let bytes = text.as_bytes();
        let found = |m: &str, at: usize| (at, format!("{m}, found {}", describe(text, at)));
        while let Some(&b) = bytes.get(i) {
            if self.stack.is_empty() {
                break;
            }
            if ws(b) {
                let run = bytes[i..].iter().take_while(|&&b| ws(b)).count();
                if self.copy {
                    self.out.push_str(&text[i..i + run]);
                }
                i += run;
                continue;
            }
            self.cursor = i;
            match (self.tok, b) {
                (Tok::Key { .. }, b'"') => {
                    let Some(end) = plain_string_end(bytes, i + 1) else {
                        break;
                    };
                    self.comma = None;
                    let cap = self.key_capture();
                    self.direct_string(text, i, end, cap)?;
                    i = end + 1;
                }
                (Tok::Colon, b':') => {
                    self.put(':');
                    self.tok = Tok::Value { close: false };
                    i += 1;
                }
                (Tok::Value { .. }, b'"' | b'-' | b'0'..=b'9' | b'{' | b'[') => {
                    let Some(enter) = self.value_enter(b).map_err(|m| found(m, i))? else {
                        i += 1;
                        continue;
                    };
                    if b == b'"' {
                        if let Some(end) = plain_string_end(bytes, i + 1) {
                            self.direct_string(text, i, end, enter.cap)?;
                            i = end + 1;
                            continue;
                        }
                    }
                    self.value_token(b, enter).map_err(|m| found(m, i))?;
                    i += 1;
                    match self.tok {
                        Tok::Num(n) => {
                            i = self
                                .number_run(text, i, n)
                                .map_err(|(at, m)| found(m, at))?;
                        }
                        Tok::Str { .. } => break,
                        _ => {}
                    }
                }
                (Tok::After, b',') => {
                    self.comma_read();
                    i += 1;
                }
                (Tok::After, b']' | b'}')
                | (Tok::Key { close: true }, b'}')
                | (Tok::Value { close: true }, b']') => {
                    self.close(b).map_err(|m| found(m, i))?;
                    i += 1;
                }
                _ => break,
            }
        }
        Ok(i)
    }

    /// A string `text[open..=end]` (its quotes at `open` and `end`) read
    /// whole from the piece with nothing to unescape or repair, read for
    /// `cap`.
    ///
    /// Always inlined into the container loop, its two callers: a call
    /// a string cost 1.3% of the instructions of the action-heavy corpus
    /// read whole (4-byte pieces: no change; `string_done` inlined as well
    /// cost them 2%, and is not).
    #[inline(always)]
    pub(super) fn direct_string(
        &mut self,
        text: &str,
        open: usize,
        end: usize,
        cap: Capture,
    ) -> Result<(), (usize, String)> {
        self.cursor = end;
        if self.copy {
            self.out.push_str(&text[open..=end]);
        }
        self.string_done(cap, text[open + 1..end].to_owned())
            .map_err(|m| (end, m.to_owned()))
    }

    /// Reads a run of a string's plain bytes from `i`, up to its closing
    /// quote, an escape, a raw control byte or the end of `text`, and what
    /// stops it. Returns where to go on; an error with its offset in `text`.
    #[inline]
    pub(super) fn string_run(
        &mut self,
        text: &str,
        i: usize,
        cap: Capture,
        py: bool,
    ) -> Result<usize, (usize, String)> {
        let bytes = text.as_bytes();
        let end = i + plain_run(&bytes[i..], py);
        let Some(&b) = bytes.get(end) else {
            // Cut at the end of the piece: keep what was read.
            self.out.push_str(&text[i..end]);
            return Ok(end);
        };
        match b {
            b'"' | b'\'' if (b == b'\'') == py => {
                self.cursor = end;
                // A string read whole from this piece, with nothing to
                // unescape or repair, is taken from the piece itself.
                let direct = !py && i == self.str_from;
                if direct {
                    if self.copy {
                        self.out.push_str(&text[i..end]);
                        self.out.push('"');
                    }
                } else {
                    self.out.push_str(&text[i..end]);
                    self.out.push('"');
                }
                let value = if direct {
                    Ok(text[i..end].to_owned())
                } else {
                    self.string_value()
                };
                if let Err(message) = value.and_then(|v| self.string_done(cap, v)) {
                    return Err((end, message.to_owned()));
                }
                Ok(end + 1)
            }
            // A double quote inside a single-quoted string.
            b'"' => {
                self.out.push_str(&text[i..end]);
                self.out.push_str("\\\"");
                Ok(end + 1)
            }
            b'\\' if py => {
                self.out.push_str(&text[i..end]);
                // The JSON escape is written once the Python one is read.
                self.tok = Tok::PyStr {
                    cap,
                    esc: PyEsc::Backslash,
                };
                Ok(end + 1)
            }
            b'\\' => {
                self.out.push_str(&text[i..end]);
                self.out.push('\\');
                self.tok = Tok::Str {
                    cap,
                    esc: Esc::Backslash,
                };
                Ok(end + 1)
            }
            _ => {
                if self.strict {
                    // The plain bytes before the break are kept, as at a
                    // piece's end (see `number_run`).
                    self.out.push_str(&text[i..end]);
                    return Err((
                        end,
                        format!(
                            "a raw control character (U+{:04X}) inside a string; write it escaped, as {}",
                            b,
                            escape_name(b)
                        ),
                    ));
                }
                self.out.push_str(&text[i..end]);
                self.repairs
                    .push((RepairKind::ControlCharacter, self.pos + end));
                self.out.push_str(&escape_name(b));
                Ok(end + 1)
            }
        }
    }

    /// Reads a number's bytes from `i` in state `n`, up to the byte that
    /// ends it or the end of `text`. A number ends only at the byte after
    /// it, which is then stepped as the next token's (not consumed here).
    /// Returns where to go on; an error with its offset in `text`.
    pub(super) fn number_run(
        &mut self,
        text: &str,
        i: usize,
        mut n: Num,
    ) -> Result<usize, (usize, &'static str)> {
        let bytes = text.as_bytes();
        let mut j = i;
        while let Some(&b) = bytes.get(j) {
            match n.next(b) {
                Some(next) => {
                    n = next;
                    j += 1;
                }
                None => break,
            }
        }
        // The number's bytes in this piece.
        let from = self.num_from.min(i);
        let Some(&b) = bytes.get(j) else {
            // Cut at the end of the piece: keep what was read.
            self.out.push_str(&text[from..j]);
            self.tok = Tok::Num(n);
            return Ok(j);
        };
        if !n.terminal() {
            // What was read before the break is in the copy, as it would be
            // had the piece been cut there: the copy (and the deltas streamed
            // from it) must not depend on the chunking.
            self.out.push_str(&text[from..j]);
            return Err((j, "a malformed number"));
        }
        self.cursor = j;
        self.end_at = Some(self.pos + j);
        // Begun in this piece: read from the piece itself.
        let direct = self.out.len() == self.num_start;
        if self.copy || !direct {
            self.out.push_str(&text[from..j]);
        }
        let v = if direct {
            number(&text[from..j])
        } else {
            self.number()
        }
        .map_err(|m| (j, m))?;
        self.complete(Some(v));
        if self.stack.is_empty() && !ws(b) && b != b'/' {
            return Err((j, "expected white space after a top-level number"));
        }
        Ok(j)
    }
}

/// Where the string whose text begins at `from` closes, when its text up
/// to there has no escape and no raw control byte: its closing quote.
///
/// Hand-written: most strings in actions are short (keys, names), where
/// `memchr`'s set-up costs more than the string; eight bytes are tested at
/// once (as serde_json's reader does), and a string longer than
/// `WORD_STRING` goes on with `memchr`.
fn plain_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let hay = bytes.get(from..)?;
    let short = hay.len().min(WORD_STRING);
    let mut words = hay[..short].chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        if let Some(i) = special_in_word(u64::from_le_bytes(w)) {
            return (word[i] == b'"').then_some(from + at + i);
        }
        at += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'"' {
            return Some(from + at + i);
        }
        if b == b'\\' || b < 0x20 {
            return None;
        }
    }
    let rest = &hay[short..];
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    // Control bytes are rare: test the run without stopping early (this
    // vectorises).
    if rest[end] != b'"' || rest[..end].iter().fold(false, |c, &b| c | (b < 0x20)) {
        return None;
    }
    Some(from + short + end)
}

/// The index of the first byte of `word` (little-endian) that is a quote,
/// a backslash or a control byte, if any: the classic test for a zero
/// byte, on the word XORed with each byte repeated (exact for the first
/// byte it finds, which is all this asks of it).
#[inline]
fn special_in_word(word: u64) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = zero(word ^ (ONES * u64::from(b'"')));
    let backslash = zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let found = (quote | backslash | control) & HIGH;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

#[cfg(test)]
mod tests {
    use super::plain_string_end;

    /// `plain_string_end` the slow way.
    fn naive(bytes: &[u8], from: usize) -> Option<usize> {
        for (i, &b) in bytes.get(from..)?.iter().enumerate() {
            match b {
                b'"' => return Some(from + i),
                b'\\' => return None,
                _ if b < 0x20 => return None,
                _ => {}
            }
        }
        None
    }

    #[test]
    fn words_find_what_bytes_find() {
        // Each stopping byte at each place in the words, the tail and past
        // the hand-over to memchr, behind plain bytes of every width (a
        // UTF-8 lead byte, DEL, a space) and with a later byte that could
        // be mistaken for it.
        for len in 0..150 {
            for stop in [b'"', b'\\', b'\n', 0x1f, 0] {
                for fill in ["a", "é", "\u{7f}", " "] {
                    let mut text = fill.repeat(len).into_bytes();
                    text.truncate(len);
                    text.push(stop);
                    text.extend_from_slice(b"\"\\\x01x");
                    for from in [0, 1, 7] {
                        assert_eq!(
                            plain_string_end(&text, from),
                            naive(&text, from),
                            "{len} {stop} {fill:?} {from}"
                        );
                    }
                }
            }
        }
        assert_eq!(plain_string_end(b"abc", 5), None);
        assert_eq!(plain_string_end(b"abc", 3), None);
    }
}
