//! Protocols out: arbitrary text read with a built-in dialect (or the
//! default syntaxes) and argument deltas, its events written in every
//! format, live and complete. Nothing may panic, every `data:` payload but
//! `[DONE]` is one JSON value, and in the `events` format every line is.
#![no_main]

use actionstream::dialect::{Dialect, BUILTIN};
use actionstream::protocol::{Calls, Encoder, Format, Options};
use actionstream::{Config, Parser};
use libfuzzer_sys::fuzz_target;

const FORMATS: [&str; 6] = [
    "events",
    "openai-chat",
    "openai-responses",
    "anthropic",
    "ai-sdk",
    "ag-ui",
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 || data.len() > 4096 {
        return;
    }
    // The first byte picks the syntaxes (a dialect, or fences and tags), the
    // second how the text is pushed.
    let pick = usize::from(data[0]);
    let config = match BUILTIN.get(pick % (BUILTIN.len() + 1)) {
        Some(name) => Config::default().dialect(Dialect::builtin(name).expect("a built-in")),
        None => Config::default(),
    }
    .argument_deltas(true);
    let chunk = 1 + usize::from(data[1] % 16);
    let mut parser = Parser::new(config);
    let mut events = Vec::new();
    for piece in data[2..].chunks(chunk) {
        parser.push_bytes(piece, &mut events);
    }
    parser.finish(&mut events);
    for name in FORMATS {
        let format: Format = name.parse().expect("a format");
        for calls in [Calls::Live, Calls::Complete] {
            let options = Options::default().calls(calls).id("f").created(0);
            let mut encoder = Encoder::new(format, options);
            let mut out = String::new();
            encoder.start(&mut out);
            for e in &events {
                encoder.event(e, &mut out);
            }
            encoder.finish(&mut out);
            for line in out.lines() {
                let payload = if name == "events" {
                    line
                } else {
                    match line.strip_prefix("data: ") {
                        Some(p) if p != "[DONE]" => p,
                        _ => continue,
                    }
                };
                if let Err(e) = serde_json::from_str::<serde_json::Value>(payload) {
                    panic!("{name}: a payload that is not JSON ({e}): {payload}");
                }
            }
        }
    }
});
