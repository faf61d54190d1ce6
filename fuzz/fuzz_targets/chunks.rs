//! Arbitrary text, split at arbitrary points: chunking never matters,
//! nothing is lost, every started action ends once, nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    // First byte: configuration; next two: a seed for the cut points; the
    // rest: the text (seeds are test inputs behind three bytes).
    if data.len() < 3 || data.len() > 4096 {
        return;
    }
    let Ok(text) = std::str::from_utf8(&data[3..]) else {
        return;
    };
    let config = common::config(data[0]);
    let points = common::points(u16::from_le_bytes([data[1], data[2]]));
    common::check_chunkings(&config, text.as_bytes(), &points);
    // The same text pushed as `&str` chunks cut at character boundaries.
    let mut parser = actionstream::Parser::new(config.clone());
    let mut events = Vec::new();
    let mut from = 0;
    for &p in &points {
        let mut at = (p as usize % (text.len() + 1)).max(from);
        while !text.is_char_boundary(at) {
            at += 1;
        }
        parser.push(&text[from..at], &mut events);
        from = at;
    }
    parser.push(&text[from..], &mut events);
    parser.finish(&mut events);
    assert_eq!(
        actionstream::oracle::merge(events),
        actionstream::oracle::run_chunks(&config, [text.as_bytes()]),
        "str pushes"
    );
});
