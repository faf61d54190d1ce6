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
}

/// Where a search stands between pieces of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MarkerState(Option<StateID>);

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
        let pats: Vec<&[u8]> = markers.iter().map(|m| m.as_ref().as_bytes()).collect();
        let lens = pats.iter().map(|p| p.len()).collect();
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
        }
    }

    /// A search at its beginning.
    pub fn begin(&self) -> MarkerState {
        MarkerState(self.start)
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
        let (Some(dfa), Some(start), Some(mut s)) = (&self.dfa, self.start, state.0) else {
            return None;
        };
        let mut i = 0;
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
                        state.0 = Some(s);
                        return None;
                    }
                }
            }
            s = dfa.next_state(Anchored::No, s, hay[i]);
            i += 1;
            if dfa.is_match(s) {
                let marker = (0..dfa.match_len(s))
                    .map(|k| dfa.match_pattern(s, k).as_usize())
                    .max_by_key(|&m| self.len_of(m))
                    .unwrap_or(0);
                state.0 = Some(start);
                return Some(Hit {
                    marker,
                    end: i,
                    len: self.len_of(marker),
                });
            }
        }
        state.0 = Some(s);
        None
    }

    /// Whether `hay` stepped from `state` would leave it where it is, at
    /// the start with nothing pending: the search is at its start and no
    /// byte of `hay` begins a marker. Such bytes can neither hold a marker
    /// nor begin one, so [`Self::find`] would step over them all and
    /// [`Self::held`] stay 0. Read with the byte table: meant for a short
    /// piece.
    #[inline]
    pub fn passes(&self, state: &MarkerState, hay: &[u8]) -> bool {
        state.0 == self.start && !hay.iter().any(|&b| self.first[usize::from(b)])
    }

    /// How many of the bytes stepped over so far could still begin a
    /// marker (the longest marker prefix they end with).
    #[inline]
    pub fn held(&self, state: &MarkerState) -> usize {
        state
            .0
            .and_then(|s| self.depth.get(s.as_usize() >> self.shift))
            .map_or(0, |&d| d as usize)
    }
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

    #[test]
    fn an_empty_set_finds_nothing() {
        let set = MarkerSet::new::<&str>(&[]);
        assert_eq!(scan(&set, "<tool_call>", 3), (vec![], 0));
    }
}
