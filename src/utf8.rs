//! Byte chunks to text, carrying a character cut between chunks.

/// `bytes` as text when they are a token's worth of ASCII (1 to 16 bytes),
/// the common push; `None` for anything else, which the caller checks with
/// `std::str::from_utf8`.
///
/// Why not `std::str::from_utf8` alone: its per-call set-up (the alignment
/// of the slice, the word loop it may enter) costs more than a few bytes
/// are worth. Here a piece is tested as two overlapping words for a byte
/// with its high bit set. Measured with `bench_report -- throughput`,
/// narrative in 4-byte pieces through `Parser::push_bytes_with`: 368 →
/// 548 MB/s (1.49x), action-heavy 62 → 74 MB/s. That win is the crate's
/// one exception to its rule against `unsafe` (`deny(unsafe_code)` at the
/// root, allowed here alone).
#[inline]
pub(crate) fn short_ascii(bytes: &[u8]) -> Option<&str> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let ascii = if let (Some(a), Some(b)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        bytes.len() <= 16 && (u64::from_ne_bytes(*a) | u64::from_ne_bytes(*b)) & HIGH == 0
    } else if let (Some(a), Some(b)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        (u32::from_ne_bytes(*a) | u32::from_ne_bytes(*b)) & 0x8080_8080 == 0
    } else {
        !bytes.is_empty() && bytes.iter().all(u8::is_ascii)
    };
    if !ascii {
        return None;
    }
    // SAFETY: every byte of `bytes` is below 0x80: the two words (or the
    // bytes one by one) tested above cover the whole slice, and the high
    // bit of each byte in them is clear. A sequence of ASCII bytes is valid
    // UTF-8, so the slice is a valid `str`. The test is checked against
    // `std::str::from_utf8` in this file's tests.
    #[allow(unsafe_code)]
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// The last character boundary of `text` at or before `at` (its length,
/// past the end): where a cut must fall so both sides stay text.
///
/// Hand-written: `str::floor_char_boundary` needs Rust 1.91, above the
/// crate's `rust-version`.
pub(crate) fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `bytes` as text if they are UTF-8: [`short_ascii`] first, then
/// `std::str::from_utf8`.
#[inline]
pub(crate) fn as_text(bytes: &[u8]) -> Option<&str> {
    short_ascii(bytes).or_else(|| std::str::from_utf8(bytes).ok())
}

/// The longest chunk a carried character is joined to before decoding
/// (see `Utf8Decoder::decode_dyn`): a token's size, with room to spare.
const JOIN: usize = 64;

/// Decodes UTF-8 that arrives in chunks of any size. A character split
/// across chunks is carried to the next chunk; bytes that are not UTF-8
/// become U+FFFD (one per maximal invalid sequence, as
/// [`String::from_utf8_lossy`] does) and are counted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Utf8Decoder {
    carry: [u8; 4],
    /// Bytes of `carry` in use (at most 3 between chunks).
    carried: u8,
    replaced: u64,
}

impl Utf8Decoder {
    /// A decoder with nothing carried.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many invalid sequences were replaced by U+FFFD so far.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    /// Whether no character is carried to the next chunk.
    #[inline]
    pub fn is_clear(&self) -> bool {
        self.carried == 0
    }

    /// Decodes `bytes`, calling `emit` with each run of text.
    #[inline]
    pub fn decode(&mut self, mut bytes: &[u8], mut emit: impl FnMut(&str)) {
        // The common case, inline (the borrowing push path's hot path):
        // nothing carried, the chunk whole text, or whole text up to a
        // character cut at its end, which the slow path then carries.
        if self.carried == 0 {
            if let Some(text) = short_ascii(bytes) {
                emit(text);
                return;
            }
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    if !text.is_empty() {
                        emit(text);
                    }
                    return;
                }
                Err(e) => {
                    let (good, rest) = bytes.split_at(e.valid_up_to());
                    if !good.is_empty() {
                        // Valid by construction.
                        emit(std::str::from_utf8(good).unwrap_or_default());
                    }
                    bytes = rest;
                }
            }
        }
        self.decode_dyn(bytes, &mut emit);
    }

    fn decode_dyn(&mut self, mut bytes: &[u8], emit: &mut dyn FnMut(&str)) {
        if self.carried > 0 && !bytes.is_empty() && bytes.len() <= JOIN {
            // A short chunk after a cut character (raw bytes in token-sized
            // pieces cut characters often): the carried bytes and the chunk
            // are decoded as one, so the character and the text after it go
            // out as one piece, one push of the parser rather than two or
            // three. The same text and replacements as completing the
            // character byte by byte (below): `from_utf8` reports the same
            // maximal invalid prefixes.
            let carried = usize::from(self.carried);
            let mut joined = [0u8; JOIN + 3];
            joined[..carried].copy_from_slice(&self.carry[..carried]);
            joined[carried..carried + bytes.len()].copy_from_slice(bytes);
            self.carried = 0;
            return self.decode_dyn(&joined[..carried + bytes.len()], emit);
        }
        // Complete a carried character first.
        while self.carried > 0 && !bytes.is_empty() {
            let n = usize::from(self.carried) + 1;
            self.carry[n - 1] = bytes[0];
            self.carried += 1;
            bytes = &bytes[1..];
            match std::str::from_utf8(&self.carry[..n]) {
                Ok(s) => {
                    emit(s);
                    self.carried = 0;
                }
                Err(e) if e.error_len().is_none() && n < 4 => {}
                Err(e) => {
                    // Invalid: replace the bad prefix, re-feed what follows it.
                    let bad = e.valid_up_to() + e.error_len().unwrap_or(n);
                    let rest: Vec<u8> = self.carry[bad.min(n)..n].to_vec();
                    self.replaced += 1;
                    emit("\u{FFFD}");
                    self.carried = 0;
                    if !rest.is_empty() {
                        self.decode_dyn(&rest, emit);
                    }
                }
            }
        }
        loop {
            match std::str::from_utf8(bytes) {
                Ok(s) => {
                    if !s.is_empty() {
                        emit(s);
                    }
                    return;
                }
                Err(e) => {
                    let (good, rest) = bytes.split_at(e.valid_up_to());
                    if !good.is_empty() {
                        // Safe split: `good` is valid by construction.
                        emit(std::str::from_utf8(good).unwrap_or_default());
                    }
                    match e.error_len() {
                        Some(n) => {
                            self.replaced += 1;
                            emit("\u{FFFD}");
                            bytes = &rest[n..];
                        }
                        None => {
                            self.carry[..rest.len()].copy_from_slice(rest);
                            // A cut character: at most 3 bytes.
                            self.carried = rest.len() as u8;
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Ends the input: a character still cut becomes U+FFFD.
    pub fn finish(&mut self, mut emit: impl FnMut(&str)) {
        if self.carried > 0 {
            self.carried = 0;
            self.replaced += 1;
            emit("\u{FFFD}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word test against `std::str::from_utf8` and a byte-by-byte look,
    /// at every length up to past the words, with a byte whose high bit is
    /// set (a lead, a continuation, 0xff) at each position.
    #[test]
    fn short_ascii_takes_exactly_short_ascii() {
        for len in 0..=24 {
            let mut bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let whole = short_ascii(&bytes);
            assert_eq!(whole.is_some(), (1..=16).contains(&len), "{len}");
            if let Some(text) = whole {
                assert_eq!(Some(text), std::str::from_utf8(&bytes).ok());
            }
            for at in 0..len {
                for high in [0x80, 0xc3, 0xe2, 0xbf, 0xff] {
                    let keep = bytes[at];
                    bytes[at] = high;
                    assert_eq!(short_ascii(&bytes), None, "{bytes:?}");
                    bytes[at] = keep;
                }
            }
        }
    }

    fn decode_split(bytes: &[u8], at: usize) -> String {
        let mut d = Utf8Decoder::new();
        let mut s = String::new();
        d.decode(&bytes[..at], |t| s.push_str(t));
        d.decode(&bytes[at..], |t| s.push_str(t));
        d.finish(|t| s.push_str(t));
        s
    }

    #[test]
    fn every_split_matches_lossy() {
        let inputs: &[&[u8]] = &[
            "héllo wörld 😀 ok".as_bytes(),
            b"a\xffb\xc3",
            b"\xe2\x82",
            b"\xf0\x9f\x98x\xe2\x82\xac",
            b"\xc3\x28\xa0\xa1",
            b"\xed\xa0\x80z",
        ];
        // The same after a long run: a second piece longer than `JOIN`
        // completes a carried character byte by byte.
        let long: Vec<Vec<u8>> = inputs
            .iter()
            .map(|b| [*b, &[b'x'; JOIN + 8][..], *b].concat())
            .collect();
        for bytes in inputs.iter().copied().chain(long.iter().map(Vec::as_slice)) {
            let want = String::from_utf8_lossy(bytes);
            for at in 0..=bytes.len() {
                assert_eq!(decode_split(bytes, at), want, "{bytes:?} at {at}");
            }
            // And in pieces of every size up to 5, with the replacements
            // counted as the lossy decoding makes them.
            for size in 1..=5 {
                let mut d = Utf8Decoder::new();
                let mut s = String::new();
                for piece in bytes.chunks(size) {
                    d.decode(piece, |t| s.push_str(t));
                }
                d.finish(|t| s.push_str(t));
                assert_eq!(s, want, "{bytes:?} in pieces of {size}");
                assert_eq!(
                    d.replaced() as usize,
                    want.matches('\u{FFFD}').count(),
                    "{bytes:?} in pieces of {size}: replacements"
                );
            }
            // One byte at a time.
            let mut d = Utf8Decoder::new();
            let mut s = String::new();
            for b in bytes.iter() {
                d.decode(std::slice::from_ref(b), |t| s.push_str(t));
            }
            d.finish(|t| s.push_str(t));
            assert_eq!(s, want, "{bytes:?} bytewise");
        }
    }
}
