//! Seeded pseudo-random chunk sizes: how the CLI's `--random-chunks SEED`
//! cuts its input, how the test oracle splits inputs at random, and where the
//! benchmarks' generated corpora draw their choices from.
//!
//! The generator is a small xorshift: fast, deterministic across platforms
//! and builds, and not for anything that needs real randomness. The same seed
//! always gives the same sizes, so a chunking that shows a problem can be
//! replayed.
//!
//! ```
//! use actionstream::chunking::{random_chunks, ChunkSizes};
//!
//! let sizes: Vec<usize> = ChunkSizes::new(7, 64).take(4).collect();
//! assert!(sizes.iter().all(|n| (1..=64).contains(n)));
//! assert_eq!(sizes, ChunkSizes::new(7, 64).take(4).collect::<Vec<_>>());
//!
//! let text = b"Read this in pieces.";
//! assert_eq!(random_chunks(text, 7, 5).concat(), text);
//! ```

/// A small deterministic generator (xorshift64).
///
/// ```
/// let mut rng = actionstream::chunking::Rng::new(1);
/// let n = rng.next_in(6);
/// assert!((1..=6).contains(&n));
/// assert!(rng.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (every seed, 0 included, gives a usable one).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next raw 64-bit number.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// The next number in `0..n` (`n` of 0 counts as 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// The next number in `1..=max` (`max` of 0 counts as 1).
    pub fn next_in(&mut self, max: usize) -> usize {
        self.below(max) + 1
    }
}

/// An endless iterator of chunk sizes in `1..=max`, drawn from a seed.
///
/// `--random-chunks SEED` pushes its input in chunks of
/// `ChunkSizes::new(SEED, 64)`.
#[derive(Debug, Clone)]
pub struct ChunkSizes {
    rng: Rng,
    max: usize,
}

impl ChunkSizes {
    /// Sizes in `1..=max` drawn from `seed`.
    pub fn new(seed: u64, max: usize) -> Self {
        ChunkSizes {
            rng: Rng::new(seed),
            max,
        }
    }
}

impl Iterator for ChunkSizes {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        Some(self.rng.next_in(self.max))
    }
}

/// Cuts `bytes` into pieces of pseudo-random sizes `1..=max` drawn from
/// `seed` (the last piece may be shorter).
pub fn random_chunks(bytes: &[u8], seed: u64, max: usize) -> Vec<&[u8]> {
    let mut sizes = ChunkSizes::new(seed, max);
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let n = sizes.next().unwrap_or(1).min(bytes.len() - at);
        out.push(&bytes[at..at + n]);
        at += n;
    }
    out
}
