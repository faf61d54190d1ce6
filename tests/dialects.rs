//! Every model dialect on the peers' own test outputs (`tests/data/dialects`),
//! at every chunking: the calls they expect, and the invariants.

mod common;

use std::path::Path;

use actionstream::dialect::{Dialect, BUILTIN};
use actionstream::{Config, Event};
use serde_json::Value;

fn config(dialect: &str) -> Config {
    Config::default().dialect(Dialect::builtin(dialect).expect("a built-in dialect"))
}

/// `(name, arguments)` of each complete call, and the names of invalid ones.
fn calls(events: &[Event]) -> (Vec<Value>, Vec<String>) {
    let mut complete = Vec::new();
    let mut invalid = Vec::new();
    for e in events {
        match e {
            Event::ActionComplete(a) => {
                complete.push(serde_json::json!({"name": a.name, "arguments": a.arguments}))
            }
            Event::ActionInvalid(a) => invalid.push(format!(
                "{}: {}",
                a.name.as_deref().unwrap_or("-"),
                a.errors.first().map(|e| e.to_string()).unwrap_or_default()
            )),
            _ => {}
        }
    }
    (complete, invalid)
}

/// Outputs where the contract decides otherwise than the peer's test, with
/// what we give and why.
const DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "minimax_m2/vllm_multiple_params.txt",
        r#"[{"name":"get_weather","arguments":{"city":"Seattle","days":5}}]"#,
        "without a schema a raw value is JSON where the whole value reads as JSON (section 7); vLLM keeps `5` a string",
    ),
    (
        "llama3/vllm_multiple_json_surrounding_text.txt",
        "[]",
        "Llama 3 writes its JSON call as the whole response (or after <|python_tag|>); vLLM's parser also finds objects after prose, which section 7 leaves narrative",
    ),
];

#[test]
fn every_dialect_reads_the_peers_outputs_at_every_chunking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dialects");
    let mut failures = Vec::new();
    let mut seen = 0;
    for dialect in BUILTIN {
        let dir = root.join(dialect);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no outputs for {dialect}");
        for file in files {
            seen += 1;
            let text = std::fs::read_to_string(&file).unwrap();
            let name = format!("{dialect}/{}", file.file_name().unwrap().to_string_lossy());
            let want: Value = match DIFFERENCES.iter().find(|d| d.0 == name) {
                Some((_, ours, _)) => serde_json::from_str(ours).unwrap(),
                None => serde_json::from_str(
                    &std::fs::read_to_string(file.with_extension("expected.json")).unwrap(),
                )
                .unwrap(),
            };
            // Without and with argument deltas (the oracle then checks
            // that each call's pieces make its arguments).
            for deltas in [false, true] {
                let how = if deltas { " (argument deltas)" } else { "" };
                let cfg = config(dialect).argument_deltas(deltas);
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    common::parse_with(&cfg, &text)
                }));
                let events = match got {
                    Ok(ev) => ev,
                    Err(e) => {
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.push(format!("{name}{how}: invariant broken: {msg}"));
                        continue;
                    }
                };
                let (complete, invalid) = calls(&events);
                if Value::Array(complete.clone()) != want || !invalid.is_empty() {
                    failures.push(format!(
                        "{name}{how}:\n  want {want}\n  got  {}\n  invalid {invalid:?}\n  events {:?}",
                        Value::Array(complete),
                        common::summary(&events)
                    ));
                }
            }
        }
    }
    assert!(seen >= 50);
    assert!(
        failures.is_empty(),
        "{} of {seen} outputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A 20 KB file body with quotes, backslashes, tabs, line endings and
/// non-ASCII text.
fn file_body() -> String {
    let mut body = String::new();
    let mut i = 0;
    while body.len() < 20 << 10 {
        body.push_str(&format!(
            "line {i:05}: say \"hi\" \\ to ünïcödé ✓\tand {{braces}} [x]\n"
        ));
        i += 1;
    }
    body
}

#[test]
fn a_20kb_string_parameter_streams_in_pieces_in_every_dialect() {
    use common::dialects::{call, calls_text};
    let body = file_body();
    for dialect in BUILTIN {
        let args = serde_json::json!({"path": "notes.txt", "content": body});
        let text = format!(
            "Writing the file.\n{}",
            calls_text(dialect, &[call("write_file", args.clone())])
        );
        let at = text.find("line 00000").expect("the body is in the text");
        let cfg = config(dialect).argument_deltas(true);
        let mut parser = actionstream::Parser::new(cfg.clone());
        let mut events = Vec::new();
        let (mut first_delta, mut before_end, mut ended) = (None, 0, false);
        let mut pushed = 0;
        let mut all = Vec::new();
        for chunk in text.as_bytes().chunks(4) {
            parser.push_bytes(chunk, &mut events);
            pushed += chunk.len();
            for e in events.drain(..) {
                match &e {
                    Event::ArgumentsDelta { .. } if !ended => {
                        first_delta.get_or_insert(pushed);
                        before_end += 1;
                    }
                    Event::ActionComplete(_) | Event::ActionInvalid(_) => ended = true,
                    _ => {}
                }
                all.push(e);
            }
        }
        parser.finish(&mut events);
        all.append(&mut events);
        let all = actionstream::oracle::merge(all);
        actionstream::oracle::assert_argument_deltas(&all);
        assert_eq!(
            all,
            actionstream::oracle::run_chunks(&cfg, [text.as_bytes()]),
            "{dialect}: 4-byte pushes give the events of the whole text"
        );
        let complete: Vec<_> = all
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => Some((a.name.clone(), a.arguments.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            complete,
            [("write_file".to_owned(), args)],
            "{dialect}: the call"
        );
        assert!(
            before_end > 100,
            "{dialect}: only {before_end} argument deltas before the call ended"
        );
        let first = first_delta.expect("a delta");
        assert!(
            first < at + body.len() / 4,
            "{dialect}: the first delta came after {} of {} bytes of the value",
            first.saturating_sub(at),
            body.len()
        );
    }
}
