//! Shared by the fuzz targets: configurations and the chunking check.
#![allow(dead_code)]

use actionstream::{oracle, Config, Event};

/// One of a few configurations, chosen by a fuzzed byte: the defaults,
/// strict mode, a tiny block limit, a shallow depth limit, action deltas
/// streamed, extra tags.
pub fn config(pick: u8) -> Config {
    match pick % 6 {
        0 => Config::default(),
        1 => Config::default().strict(true),
        2 => Config::default().max_block_bytes(40),
        3 => Config::default().max_depth(3),
        4 => Config::default().action_deltas(true),
        _ => Config::default()
            .fence_tag("Tool")
            .xml_tag("invoke")
            .discriminator("kind")
            .generic_tag("yaml"),
    }
}

/// Up to 16 pseudo-random cut points drawn from `seed`.
pub fn points(seed: u16) -> Vec<u16> {
    let mut x = seed as u32 | 1;
    (0..seed % 17)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u16
        })
        .collect()
}

/// Cuts `bytes` at the given points (each taken modulo the length, sorted).
pub fn cut<'a>(bytes: &'a [u8], points: &[u16]) -> Vec<&'a [u8]> {
    if bytes.is_empty() {
        return vec![bytes];
    }
    let mut at: Vec<usize> = points.iter().map(|&p| p as usize % bytes.len()).collect();
    at.sort_unstable();
    at.dedup();
    let mut out = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for p in at {
        out.push(&bytes[from..p]);
        from = p;
    }
    out.push(&bytes[from..]);
    out
}

/// Invariants 1-3 on `bytes`: the whole-input run, a run cut at `points`
/// and a run one byte at a time give the same merged events; narrative and
/// block raws give back the (lossily decoded) input; every started id ends
/// once. Returns the whole-input events.
pub fn check_chunkings(config: &Config, bytes: &[u8], points: &[u16]) -> Vec<Event> {
    let whole = oracle::run_chunks(config, [bytes]);
    let text = String::from_utf8_lossy(bytes);
    oracle::assert_lossless(&whole, &text);
    oracle::assert_ids(&whole);

    let cut_run = oracle::run_chunks(config, cut(bytes, points));
    assert_eq!(whole, cut_run, "cut at {points:?}");
    let bytewise = oracle::run_chunks(config, bytes.chunks(1));
    assert_eq!(whole, bytewise, "one byte at a time");
    whole
}
