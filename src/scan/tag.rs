//! Call tags (`<action_call name="search">`), recognised one byte at a time.
//!
//! The probe starts after a `<` seen in narrative and says, byte by byte,
//! whether the text is still an opener of one of the configured tag names.
//! An opener is a call only if, after optional white space, its content
//! starts with `{`, `[` or `<` (the closing tag included); prose that merely
//! mentions `<action_call>` stays narrative.
//!
//! A probe never consumes `<`, `` ` `` or a line ending before the opener's
//! `>`, so narrative scanning can resume exactly where it gave up without
//! looking at any byte twice; after `>` it consumes white space, and on
//! refusal reports the first line ending in it as the place to resume.

use super::fence::Probe;

/// Longest opener (tag, attributes and the white space after `>`) held back.
pub(crate) const MAX_OPENER: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Name,
    BeforeAttr,
    AttrName,
    AfterAttrName,
    BeforeValue,
    Value(u8),
    AfterValue,
    AfterOpen,
}

/// The probe; see the module docs.
#[derive(Debug, Clone)]
pub(crate) struct TagProbe {
    phase: Phase,
    /// Bytes consumed after `<`.
    pub len: usize,
    /// Bytes consumed up to and including `>`.
    pub open_len: usize,
    /// Offset (after `<`) of the first line ending after `>`.
    pub first_newline: Option<usize>,
    matched: usize,
    /// Names (by index, at most 64) that agree with every byte so far.
    alive: u64,
    /// The tag name, once matched.
    pub name: Option<usize>,
    /// Attributes, in order.
    pub attrs: Vec<(String, String)>,
    key: Vec<u8>,
    value: Vec<u8>,
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.')
}

impl TagProbe {
    /// A probe positioned just after `<`.
    pub fn new() -> Self {
        TagProbe {
            phase: Phase::Name,
            len: 0,
            open_len: 0,
            first_newline: None,
            matched: 0,
            alive: u64::MAX,
            name: None,
            attrs: Vec::new(),
            key: Vec::new(),
            value: Vec::new(),
        }
    }

    /// Makes the probe new again, positioned just after a `<`, keeping
    /// the room its lists have (a machine reuses one probe for every `<`).
    pub fn reset(&mut self) {
        let (mut attrs, mut key, mut value) = (
            std::mem::take(&mut self.attrs),
            std::mem::take(&mut self.key),
            std::mem::take(&mut self.value),
        );
        attrs.clear();
        key.clear();
        value.clear();
        *self = TagProbe {
            attrs,
            key,
            value,
            ..TagProbe::new()
        };
    }

    /// Steps one byte. [`Probe::Yes`] comes at the content's first
    /// character, which is *not* consumed.
    pub fn step(&mut self, b: u8, names: &[String]) -> Probe {
        if self.len >= MAX_OPENER {
            return Probe::No;
        }
        if self.phase != Phase::AfterOpen && matches!(b, b'<' | b'`' | b'\n') {
            return Probe::No;
        }
        let verdict = match self.phase {
            Phase::Name => {
                let m = self.matched;
                let ends = matches!(b, b' ' | b'\t' | b'\r' | b'>');
                if ends {
                    let alive = self.alive;
                    let hit = names
                        .iter()
                        .take(64)
                        .enumerate()
                        .position(|(i, n)| alive >> i & 1 == 1 && n.len() == m && m > 0);
                    if let Some(i) = hit {
                        self.name = Some(i);
                        self.phase = if b == b'>' {
                            self.open_len = self.len + 1;
                            Phase::AfterOpen
                        } else {
                            Phase::BeforeAttr
                        };
                        self.len += 1;
                        return Probe::More;
                    }
                    return Probe::No;
                }
                for (i, n) in names.iter().take(64).enumerate() {
                    if n.as_bytes().get(m) != Some(&b) {
                        self.alive &= !(1u64 << i);
                    }
                }
                if self.alive == 0 {
                    Probe::No
                } else {
                    self.matched += 1;
                    Probe::More
                }
            }
            Phase::BeforeAttr => match b {
                b' ' | b'\t' | b'\r' => Probe::More,
                b'>' => self.opened(),
                _ if name_byte(b) => {
                    self.key.push(b);
                    self.phase = Phase::AttrName;
                    Probe::More
                }
                _ => Probe::No,
            },
            Phase::AttrName => match b {
                _ if name_byte(b) => {
                    self.key.push(b);
                    Probe::More
                }
                b'=' => {
                    self.phase = Phase::BeforeValue;
                    Probe::More
                }
                b' ' | b'\t' | b'\r' => {
                    self.phase = Phase::AfterAttrName;
                    Probe::More
                }
                b'>' => {
                    self.push_attr();
                    self.opened()
                }
                _ => Probe::No,
            },
            Phase::AfterAttrName => match b {
                b' ' | b'\t' | b'\r' => Probe::More,
                b'=' => {
                    self.phase = Phase::BeforeValue;
                    Probe::More
                }
                b'>' => {
                    self.push_attr();
                    self.opened()
                }
                _ if name_byte(b) => {
                    self.push_attr();
                    self.key.push(b);
                    self.phase = Phase::AttrName;
                    Probe::More
                }
                _ => Probe::No,
            },
            Phase::BeforeValue => match b {
                b' ' | b'\t' | b'\r' => Probe::More,
                b'"' | b'\'' => {
                    self.phase = Phase::Value(b);
                    Probe::More
                }
                _ => Probe::No,
            },
            Phase::Value(q) => {
                if b == q {
                    self.push_attr();
                    self.phase = Phase::AfterValue;
                } else {
                    self.value.push(b);
                }
                Probe::More
            }
            Phase::AfterValue => match b {
                b' ' | b'\t' | b'\r' => {
                    self.phase = Phase::BeforeAttr;
                    Probe::More
                }
                b'>' => self.opened(),
                _ => Probe::No,
            },
            Phase::AfterOpen => match b {
                b'{' | b'[' | b'<' => return Probe::Yes,
                b' ' | b'\t' | b'\r' => Probe::More,
                b'\n' => {
                    self.first_newline.get_or_insert(self.len);
                    Probe::More
                }
                _ => Probe::No,
            },
        };
        if verdict == Probe::More {
            self.len += 1;
        }
        verdict
    }

    fn opened(&mut self) -> Probe {
        self.open_len = self.len + 1;
        self.phase = Phase::AfterOpen;
        Probe::More
    }

    fn push_attr(&mut self) {
        let key = String::from_utf8_lossy(&std::mem::take(&mut self.key)).into_owned();
        let value = String::from_utf8_lossy(&std::mem::take(&mut self.value)).into_owned();
        self.attrs.push((key, value));
    }
}

/// Where a closing tag stands in a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// At this index.
    At(usize),
    /// Not there; a prefix of it may begin at this index (or `hay.len()`):
    /// the text before it is certainly not part of a closer.
    Partial(usize),
}

/// Finds `closer` (`</NAME>`) in `hay`, or the start of a prefix of it cut
/// by the end of `hay`.
pub(crate) fn find_closer(hay: &[u8], closer: &[u8]) -> Found {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'<', &hay[from..]) {
        let at = from + i;
        let tail = &hay[at..];
        if tail.len() >= closer.len() {
            if &tail[..closer.len()] == closer {
                return Found::At(at);
            }
        } else if closer.starts_with(tail) {
            return Found::Partial(at);
        }
        from = at + 1;
    }
    Found::Partial(hay.len())
}

#[cfg(test)]
mod closer_tests {
    use super::*;

    #[test]
    fn a_closer_is_found_whole_or_as_a_cut_prefix() {
        let c = b"</tool_call>";
        assert_eq!(find_closer(b"{}</tool_call> x", c), Found::At(2));
        assert_eq!(find_closer(b"{} </tool_c", c), Found::Partial(3));
        assert_eq!(find_closer(b"a < b </x>", c), Found::Partial(10));
        assert_eq!(find_closer(b"", c), Found::Partial(0));
    }
}
