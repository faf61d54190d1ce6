//! Many literal markers at once, found in text that arrives in pieces.
//!
//! # Design
//!
//! A model dialect's markers (`<tool_call>`, `[TOOL_CALLS]`,
//! `<｜tool▁calls▁begin｜>`, `<think>`, …) are literals, so a set of them is an
//! Aho–Corasick automaton. The `aho-corasick` crate builds it; what it does
//! not offer is a search that stops at the end of one piece of text and goes
//! on with the next (its stream mode reads from an `io::Read` it drives
//! itself, and its searches start afresh). Its [`Automaton`] trait does
//! expose the transition function, and a state id is all a search needs to
//! carry between pieces: [`MarkerSet::find`] steps the state over the new
//! bytes only and never looks at a byte twice.
//!
//! Liveness needs one more fact: how many of the bytes seen could still be
//! the start of a marker. In an Aho–Corasick automaton that is the depth of
//! the current state (the length of the longest suffix of the text that is
//! a prefix of some marker). The crate does not report it, so it is
//! computed once per set, by a breadth-first walk from the start state (a
//! transition adds at most one to the depth, and the trie path reaches each
//! state in exactly its depth), and looked up only when a caller asks
//! ([`MarkerSet::held`]), once per push. The table is indexed by state id:
//! the crate's ids are premultiplied by its row width, so they are shifted
//! down by the zero bits they all share, which keeps the table as long as
//! the automaton has states (a hash map cost a SipHash per push).
//!
//! While the automaton sits in its start state nothing can be pending, so
//! the search skips ahead with `memchr` to the next byte that begins a
//! marker: prose runs at memchr speed. A short piece (a streamed token is
//! a few bytes) is looked at with the byte table instead, which costs less
//! than a call into memchr for so few bytes.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};

/// Below this many bytes the skip to a marker's first byte reads the byte
/// table rather than calling memchr.
const SHORT: usize = 16;

/// Marks the place in a marker where a token suffix may stand: a marker
/// `P` + `SUFFIX_SLOT` + `L` + `T` (one closing byte `T`) is found as
/// `P T` and as `P L S T`, where the suffix `S` is up to [`SUFFIX_MAX`]
/// bytes, none of them white space, `<`, or `T` (Hunyuan's
/// `<tool_calls:opensource>` for `<tool_calls>`, with lead `:`). A
/// noncharacter: it never stands in text. `dialect::suffix` writes such
/// markers from a descriptor's `token_suffix`.
pub(crate) const SUFFIX_SLOT: char = '\u{FDD0}';

/// The longest token suffix (after its lead) a marker may carry.
pub(crate) const SUFFIX_MAX: usize = 64;

/// A set of markers and the automaton that finds them.
#[derive(Debug, Clone)]
pub(crate) struct MarkerSet {
    dfa: Option<DFA>,
    start: Option<StateID>,
    /// Depth of each state, at its id shifted right by `shift`.
    depth: Vec<u32>,
    shift: u32,
    /// Bytes that begin a marker.
    first: [bool; 256],
    /// Up to three such bytes, for memchr; `None` when there are more.
    first3: Option<(u8, u8, u8)>,
    lens: Vec<usize>,
    /// For each pattern of the automaton: the marker it finds, and, for the
    /// `P L` pattern of a marker with a suffix slot, the byte that ends the
    /// suffix.
    /// And the pattern's length.
    pats: Vec<(usize, Option<u8>, usize)>,
}

/// Where a search stands between pieces of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MarkerState {
    state: Option<StateID>,
    /// Inside a token suffix: the pattern whose lead was found, and the
    /// bytes of the marker seen so far.
    suffix: Option<(u32, u32)>,
}

/// A marker found: its index in the set and where it ends in the text
/// searched (one past its last byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub marker: usize,
    pub end: usize,
    pub len: usize,
}

impl MarkerSet {
    /// A set of `markers` (empty markers are ignored; none may be empty of
    /// meaning: an empty set finds nothing).
    pub fn new<S: AsRef<str>>(markers: &[S]) -> MarkerSet {
        let mut slot = [0u8; 4];
        let slot: &str = SUFFIX_SLOT.encode_utf8(&mut slot);
        let mut owned: Vec<Vec<u8>> = Vec::new();
        let mut pat_roles: Vec<(usize, Option<u8>, usize)> = Vec::new();
        let mut lens = Vec::new();
        for (i, m) in markers.iter().enumerate() {
            let m = m.as_ref();
            match m.split_once(slot) {
                Some((head, tail)) if tail.len() >= 2 => {
                    let (lead, term) = tail.split_at(tail.len() - 1);
                    let literal = [head.as_bytes(), term.as_bytes()].concat();
                    lens.push(literal.len());
                    pat_roles.push((i, None, literal.len()));
                    owned.push(literal);
                    let with_lead = [head.as_bytes(), lead.as_bytes()].concat();
                    pat_roles.push((i, term.as_bytes().first().copied(), with_lead.len()));
                    owned.push(with_lead);
                }
                // An empty marker is no pattern: it would match everywhere.
                _ if m.is_empty() => lens.push(0),
                _ => {
                    lens.push(m.len());
                    owned.push(m.as_bytes().to_vec());
                    pat_roles.push((i, None, m.len()));
                }
            }
        }
        let pats: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut first = [false; 256];
        for p in &pats {
            if let Some(&b) = p.first() {
                first[usize::from(b)] = true;
            }
        }
        let firsts: Vec<u8> = (0..=255u8).filter(|&b| first[usize::from(b)]).collect();
        let first3 = match firsts[..] {
            [a] => Some((a, a, a)),
            [a, b] => Some((a, b, b)),
            [a, b, c] => Some((a, b, c)),
            _ => None,
        };
        let nonempty: Vec<&[u8]> = pats.iter().copied().filter(|p| !p.is_empty()).collect();
        let dfa = if nonempty.is_empty() {
            None
        } else {
            DFA::builder()
                .match_kind(MatchKind::Standard)
                .start_kind(aho_corasick::StartKind::Unanchored)
                .build(&pats)
                .ok()
        };
        let start = dfa.as_ref().and_then(|d| d.start_state(Anchored::No).ok());
        let mut found: Vec<(StateID, u32)> = Vec::new();
        if let (Some(dfa), Some(start)) = (&dfa, start) {
            // Seen states by raw id (a hash set cost a SipHash for each of
            // 256 transitions of every state: milliseconds for a dialect
            // with many long markers).
            let mut seen: Vec<bool> = Vec::new();
            let mut mark = |s: StateID| {
                let i = s.as_usize();
                if i >= seen.len() {
                    seen.resize(i + 1, false);
                }
                !std::mem::replace(&mut seen[i], true)
            };
            let mut queue = std::collections::VecDeque::new();
            mark(start);
            queue.push_back((start, 0u32));
            while let Some((s, d)) = queue.pop_front() {
                found.push((s, d));
                for b in 0..=255u8 {
                    let n = dfa.next_state(Anchored::No, s, b);
                    if !dfa.is_dead(n) && mark(n) {
                        queue.push_back((n, d + 1));
                    }
                }
            }
        }
        let shift = found
            .iter()
            .map(|(s, _)| s.as_usize())
            .filter(|&s| s != 0)
            .map(usize::trailing_zeros)
            .min()
            .unwrap_or(0);
        let rows = found
            .iter()
            .map(|(s, _)| (s.as_usize() >> shift) + 1)
            .max()
            .unwrap_or(0);
        let mut depth = vec![0u32; rows];
        for (s, d) in found {
            depth[s.as_usize() >> shift] = d;
        }
        MarkerSet {
            dfa,
            start,
            depth,
            shift,
            first,
            first3,
            lens,
            pats: pat_roles,
        }
    }

    /// A search at its beginning.
    pub fn begin(&self) -> MarkerState {
        MarkerState {
            state: self.start,
            suffix: None,
        }
    }

    /// The length of marker `i`.
    pub fn len_of(&self, i: usize) -> usize {
        self.lens.get(i).copied().unwrap_or(0)
    }

    /// Steps `state` over `hay` and stops just after the first marker that
    /// ends in it; `None` when none does (the state then covers all of
    /// `hay`). Where several markers end at one byte, the longest is
    /// reported.
    #[inline]
    pub fn find(&self, state: &mut MarkerState, hay: &[u8]) -> Option<Hit> {
        let (Some(dfa), Some(start), Some(mut s)) = (&self.dfa, self.start, state.state) else {
            return None;
        };
        let mut i = 0;
        if let Some((pat, seen)) = state.suffix {
            match self.step_suffix(pat, seen, hay) {
                Suffix::Found(hit) => {
                    state.suffix = None;
                    return Some(hit);
                }
                Suffix::Pending(seen) => {
                    state.suffix = Some((pat, seen));
                    return None;
                }
                // Not a suffix: the byte that broke it is read afresh.
                Suffix::Broken(at) => {
                    state.suffix = None;
                    i = at;
                }
            }
        }
        while i < hay.len() {
            if s == start {
                // Nothing pending: skip to a byte that begins a marker.
                let rest = &hay[i..];
                let skip = match self.first3 {
                    Some((a, b, c)) if rest.len() >= SHORT => memchr::memchr3(a, b, c, rest),
                    _ => rest.iter().position(|&b| self.first[usize::from(b)]),
                };
                match skip {
                    Some(k) => i += k,
                    None => {
                        state.state = Some(s);
                        return None;
                    }
                }
            }
            s = dfa.next_state(Anchored::No, s, hay[i]);
            i += 1;
            if dfa.is_match(s) {
                let pat = (0..dfa.match_len(s))
                    .map(|k| dfa.match_pattern(s, k).as_usize())
                    .max_by_key(|&m| self.pat_len(m))
                    .unwrap_or(0);
                state.state = Some(start);
                let (marker, term, _) = self.pats.get(pat).copied().unwrap_or((pat, None, 0));
                if term.is_some() {
                    // A marker's lead: its suffix follows.
                    let seen = u32::try_from(self.pat_len(pat)).unwrap_or(u32::MAX);
                    let pat = u32::try_from(pat).unwrap_or(u32::MAX);
                    match self.step_suffix(pat, seen, &hay[i..]) {
                        Suffix::Found(hit) => {
                            return Some(Hit {
                                end: i + hit.end,
                                ..hit
                            })
                        }
                        Suffix::Pending(seen) => {
                            state.suffix = Some((pat, seen));
                            return None;
                        }
                        Suffix::Broken(at) => {
                            s = start;
                            i += at;
                            continue;
                        }
                    }
                }
                return Some(Hit {
                    marker,
                    end: i,
                    len: self.len_of(marker),
                });
            }
        }
        state.state = Some(s);
        None
    }

    /// The length of automaton pattern `pat` (a marker, or a marker's head
    /// and suffix lead).
    fn pat_len(&self, pat: usize) -> usize {
        self.pats.get(pat).map_or(0, |p| p.2)
    }

    /// Steps over a token suffix in `hay`: `seen` bytes of the marker were
    /// seen before it.
    fn step_suffix(&self, pat: u32, seen: u32, hay: &[u8]) -> Suffix {
        let pat_us = pat as usize;
        let Some(&(marker, Some(term), head)) = self.pats.get(pat_us) else {
            return Suffix::Broken(0);
        };
        let mut seen = seen as usize;
        for (k, &b) in hay.iter().enumerate() {
            if b == term && seen > head {
                return Suffix::Found(Hit {
                    marker,
                    end: k + 1,
                    len: seen + 1,
                });
            }
            if b == term || b == b'<' || b.is_ascii_whitespace() || seen - head >= SUFFIX_MAX {
                return Suffix::Broken(k);
            }
            seen += 1;
        }
        Suffix::Pending(u32::try_from(seen).unwrap_or(u32::MAX))
    }

    /// Whether `hay` stepped from `state` would leave it where it is, at
    /// the start with nothing pending: the search is at its start and no
    /// byte of `hay` begins a marker. Such bytes can neither hold a marker
    /// nor begin one, so [`Self::find`] would step over them all and
    /// [`Self::held`] stay 0. Read with the byte table: meant for a short
    /// piece.
    #[inline]
    pub fn passes(&self, state: &MarkerState, hay: &[u8]) -> bool {
        state.state == self.start
            && state.suffix.is_none()
            && !hay.iter().any(|&b| self.first[usize::from(b)])
    }

    /// How many of the bytes stepped over so far could still begin a
    /// marker (the longest marker prefix they end with).
    #[inline]
    pub fn held(&self, state: &MarkerState) -> usize {
        if let Some((_, seen)) = state.suffix {
            return seen as usize;
        }
        state
            .state
            .and_then(|s| self.depth.get(s.as_usize() >> self.shift))
            .map_or(0, |&d| d as usize)
    }
}

/// How a token suffix read on.
enum Suffix {
    /// It ended: the marker, ending in the text read.
    Found(Hit),
    /// The text ended inside it: the marker's bytes so far.
    Pending(u32),
    /// It is no suffix: the byte at this offset broke it.
    Broken(usize),
}

/// A set of bytes, as a bitmap: what a fast path may skip over is
/// whatever is not in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    pub fn add(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    #[inline]
    pub fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// Where the first byte of `hay` in the set is.
    #[inline]
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        hay.iter().position(|&b| self.contains(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finds every marker in `text` pushed in `chunks`-byte pieces: (marker,
    /// absolute end) pairs, and the held count after each piece.
    fn scan(set: &MarkerSet, text: &str, chunk: usize) -> (Vec<(usize, usize)>, usize) {
        let mut st = set.begin();
        let mut hits = Vec::new();
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let piece = &bytes[at..(at + chunk).min(bytes.len())];
            let mut off = 0;
            while let Some(h) = set.find(&mut st, &piece[off..]) {
                off += h.end;
                hits.push((h.marker, at + off));
            }
            at += piece.len();
        }
        (hits, set.held(&st))
    }

    #[test]
    fn finds_markers_cut_at_every_byte() {
        let set = MarkerSet::new(&[
            "<tool_call>",
            "</tool_call>",
            "<｜tool▁sep｜>",
            "[TOOL_CALLS]",
        ]);
        let text = "a <tool_call>{}</tool_call> b <｜tool▁sep｜>[TOOL_CALLS]x [TOOL_CALL";
        let (whole, held) = scan(&set, text, text.len());
        assert_eq!(
            whole,
            [
                (0, 13),
                (1, 27),
                (2, 30 + "<｜tool▁sep｜>".len()),
                (3, 30 + "<｜tool▁sep｜>".len() + 12)
            ]
        );
        assert_eq!(held, "[TOOL_CALL".len());
        for chunk in 1..text.len() {
            assert_eq!(
                scan(&set, text, chunk),
                (whole.clone(), held),
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn held_is_the_longest_marker_prefix() {
        let set = MarkerSet::new(&["<think>", "<|tool_call|>"]);
        for (text, held) in [
            ("x<", 1),
            ("x<t", 2),
            ("x<|tool", 6),
            ("x<|x", 0),
            ("<thin", 5),
            ("", 0),
        ] {
            assert_eq!(scan(&set, text, 1).1, held, "{text:?}");
        }
    }

    #[test]
    fn a_byte_set_holds_what_was_added() {
        let mut set = ByteSet::default();
        for b in [0u8, 63, 64, b'<', 200, 255] {
            set.add(b);
        }
        let members: Vec<u8> = (0..=255u8).filter(|&b| set.contains(b)).collect();
        assert_eq!(members, [0u8, b'<', 63, 64, 200, 255]);
        assert_eq!(set.find(b"ab<c"), Some(2));
        assert_eq!(set.find(b"abc"), None);
    }

    /// `passes` says yes only where stepping would change nothing: from
    /// every state a prefix leaves, over every short piece of a text with
    /// markers, their prefixes and plain bytes.
    #[test]
    fn passes_only_where_a_step_changes_nothing() {
        let text = "ab <th x<think> <|tool <|tool_call|>cd <";
        for set in [
            MarkerSet::new(&["<think>", "<|tool_call|>"]),
            MarkerSet::new::<&str>(&[]),
        ] {
            for at in 0..=text.len() {
                let mut state = set.begin();
                let _ = set.find(&mut state, &text.as_bytes()[..at]);
                for len in 0..=8.min(text.len() - at) {
                    let hay = &text.as_bytes()[at..at + len];
                    let mut stepped = state;
                    let found = set.find(&mut stepped, hay);
                    let unchanged = found.is_none() && stepped == state && set.held(&stepped) == 0;
                    if set.passes(&state, hay) {
                        assert!(unchanged, "{at} {hay:?}");
                    } else {
                        // Refused: something pending, or a byte that could
                        // begin a marker.
                        assert!(set.held(&state) > 0 || hay.contains(&b'<'), "{at} {hay:?}");
                    }
                }
            }
        }
    }

    /// A marker with a suffix slot is found bare and with any suffix, cut
    /// at every byte; what breaks a suffix is read afresh.
    #[test]
    fn finds_markers_with_a_token_suffix_cut_at_every_byte() {
        let slot = |m: &str| format!("{}{SUFFIX_SLOT}:>", &m[..m.len() - 1]);
        let set = MarkerSet::new(&[slot("<tool_calls>"), slot("<tool_call>"), s("[X]")]);
        let text = "a<tool_calls:ab(c>b<tool_call>c<tool_call:x <tool_calls:>d<tool_call:y>[X]<tool_call:z";
        let (whole, held) = scan(&set, text, text.len());
        let at = |m: &str| text.find(m).unwrap() + m.len();
        assert_eq!(
            whole,
            [
                (0, at("<tool_calls:ab(c>")),
                (1, at("b<tool_call>")),
                (1, at("d<tool_call:y>")),
                (2, at("[X]")),
            ]
        );
        assert_eq!(held, "<tool_call:z".len());
        for chunk in 1..text.len() {
            assert_eq!(
                scan(&set, text, chunk),
                (whole.clone(), held),
                "chunk {chunk}"
            );
        }
        let long = format!("<tool_call:{}>", "a".repeat(SUFFIX_MAX + 1));
        assert_eq!(scan(&set, &long, 1).0, []);
    }

    fn s(x: &str) -> String {
        x.to_owned()
    }

    #[test]
    fn an_empty_set_finds_nothing() {
        let set = MarkerSet::new::<&str>(&[]);
        assert_eq!(scan(&set, "<tool_call>", 3), (vec![], 0));
    }
}
