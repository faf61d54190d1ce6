//! Model dialects: arbitrary text read with one or two built-in dialects,
//! with or without argument deltas, starting inside reasoning or not. The
//! oracle checks every chunking (markers cut at every byte), losslessness
//! less the dialects' markers, ids, and that each call's argument deltas
//! make its arguments.
#![no_main]

use actionstream::dialect::{Dialect, BUILTIN};
use actionstream::{oracle, Config};
use libfuzzer_sys::fuzz_target;

/// The two configuration bytes: the first picks the dialect (its
/// remainder by the number of built-ins, so every one is reached with every
/// option set), the second the options (its low four bits): 1 argument
/// deltas, 2 reasoning open, 4 a second dialect, 8 calls in reasoning; 14
/// and 15 also a small block limit.
fn config(pick: u8, mode: u8) -> Config {
    let first = usize::from(pick) % BUILTIN.len();
    let mode = mode & 15;
    let mut config = Config::default()
        .dialect(Dialect::builtin(BUILTIN[first]).expect("a built-in"))
        .argument_deltas(mode & 1 != 0)
        .reasoning_open(mode & 2 != 0)
        .calls_in_reasoning(mode & 8 != 0);
    if mode & 4 != 0 {
        let second = (first + 5) % BUILTIN.len();
        config = config.dialect(Dialect::builtin(BUILTIN[second]).expect("a built-in"));
    }
    if mode >= 14 {
        config = config.max_block_bytes(64);
    }
    config
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 || data.len() > 4096 {
        return;
    }
    let config = config(data[0], data[1]);
    oracle::check_bytes(&config, &data[2..]);
});
