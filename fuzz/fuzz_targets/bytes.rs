//! Arbitrary bytes (invalid UTF-8 included), split anywhere, also inside a
//! character: the chunking invariants hold against the lossy decoding.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    // First byte: configuration; next two: a seed for the cut points.
    if data.len() < 3 || data.len() > 4096 {
        return;
    }
    let config = common::config(data[0]);
    let points = common::points(u16::from_le_bytes([data[1], data[2]]));
    let bytes = &data[3..];
    common::check_chunkings(&config, bytes, &points);
    let mut parser = actionstream::Parser::new(config);
    let mut events = Vec::new();
    for chunk in common::cut(bytes, &points) {
        parser.push_bytes(chunk, &mut events);
    }
    // Invalid sequences replaced so far: those of the lossy decoding, but
    // for a character still cut at the end (finish replaces that one).
    let fffd = "\u{FFFD}".as_bytes();
    let mut want = String::from_utf8_lossy(bytes).matches('\u{FFFD}').count()
        - bytes.windows(3).filter(|w| *w == fffd).count();
    let mut rest = bytes;
    while let Err(e) = std::str::from_utf8(rest) {
        match e.error_len() {
            Some(n) => rest = &rest[e.valid_up_to() + n..],
            None => {
                want -= 1;
                break;
            }
        }
    }
    assert_eq!(parser.replaced() as usize, want, "replacements counted");
    parser.finish(&mut events);
});
