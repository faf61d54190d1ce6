//! Byte chunks to text, carrying a character cut between chunks.

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
        for bytes in inputs {
            let want = String::from_utf8_lossy(bytes);
            for at in 0..=bytes.len() {
                assert_eq!(decode_split(bytes, at), want, "{bytes:?} at {at}");
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
