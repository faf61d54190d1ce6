//! Contract section 8's amendment: a call goes out with its first argument
//! fragment, never on its name alone, so a malformed fenced, tagged or
//! dialect call whose arguments never began is no tool call in any format:
//! its raw text goes out as text (and in `ai-sdk` as a `tool-input-error`
//! too, its name being known). Each input goes through the every-chunking
//! oracle, then through every encoder at every chunking the oracle uses;
//! the CLI's `parse --output` is checked on the issue's own example.

use std::io::Write;
use std::process::{Command, Stdio};

use actionstream::chunking::random_chunks;
use actionstream::protocol::{Encoder, Format, Options};
use actionstream::{oracle, Config, Event, Parser};

/// The example of issue 31: a hermes call whose `arguments` is no object.
const HERMES: &str =
    r#"<tool_call>{"name": "delete_branch", "arguments": "not an object"}</tool_call>"#;

/// Malformed calls, each with the configuration it is read with.
fn cases() -> Vec<(&'static str, Config, String)> {
    let schema = actionstream::schema::SchemaValidator::new()
        .with(
            "delete_branch",
            serde_json::json!({
                "type": "object",
                "properties": {"branch": {"type": "string"}},
                "required": ["branch"],
            }),
        )
        .expect("a schema");
    vec![
        (
            "hermes",
            Config::default()
                .dialect_named("hermes")
                .expect("a built-in dialect"),
            format!("Cleaning up.\n{HERMES}\nDone."),
        ),
        (
            "tag",
            Config::default(),
            format!("Cleaning up.\n{HERMES}\nDone."),
        ),
        (
            "fence, bad JSON",
            Config::default(),
            "Cleaning up.\n```json\n{\"action\": \"delete_branch\", \"branch\": }\n```\nDone."
                .to_owned(),
        ),
        (
            "fence, refused by its schema",
            Config::default().validator(schema),
            "Cleaning up.\n```json\n{\"action\": \"delete_branch\", \"branch\": 5}\n```\nDone."
                .to_owned(),
        ),
    ]
}

/// Whether `out` holds a tool call in `format`.
fn has_call(format: Format, out: &str) -> bool {
    match format {
        Format::Events => out.contains("action_complete"),
        Format::OpenAiChat => out.contains("\"tool_calls\""),
        Format::OpenAiResponses => out.contains("function_call"),
        Format::Anthropic => out.contains("tool_use"),
        Format::AiSdk => out.contains("tool-input-start") || out.contains("tool-input-available"),
        Format::AgUi => out.contains("TOOL_CALL"),
        _ => panic!("a new format: say what its calls look like"),
    }
}

/// Parses `chunks` (unmerged events, as a server would encode them) and
/// encodes them as `format`.
fn encode<'a>(
    config: &Config,
    format: Format,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> String {
    let mut parser = Parser::new(config.clone().argument_deltas(true));
    let mut encoder = Encoder::new(format, Options::default().id("t").created(0));
    let (mut events, mut out) = (Vec::<Event>::new(), String::new());
    for chunk in chunks {
        parser.push_bytes(chunk, &mut events);
        for event in events.drain(..) {
            encoder.event(&event, &mut out);
        }
    }
    parser.finish(&mut events);
    for event in events.drain(..) {
        encoder.event(&event, &mut out);
    }
    encoder.finish(&mut out);
    out
}

#[test]
fn a_malformed_call_is_never_a_tool_call_at_any_chunking_in_any_format() {
    for (what, config, input) in cases() {
        let config = config.argument_deltas(true);
        let events = oracle::check(&config, &input);
        assert!(
            events.iter().any(|e| matches!(e, Event::ActionInvalid(a) if a.name.as_deref() == Some("delete_branch"))),
            "{what}: the call is read as invalid: {events:?}"
        );
        let bytes = input.as_bytes();
        let mut chunkings: Vec<Vec<&[u8]>> = vec![vec![bytes], bytes.chunks(1).collect()];
        for at in 1..bytes.len() {
            let (a, b) = bytes.split_at(at);
            chunkings.push(vec![a, b]);
        }
        for seed in 0..8u64 {
            chunkings.push(random_chunks(bytes, seed, 1 + (seed as usize * 9) % 64));
        }
        for format in Format::ALL {
            for chunks in &chunkings {
                let out = encode(&config, format, chunks.iter().copied());
                let cut: Vec<usize> = chunks.iter().map(|c| c.len()).collect();
                assert!(
                    !has_call(format, &out),
                    "{what}, {format}, chunks {cut:?}: a tool call:\n{out}"
                );
                if format != Format::Events {
                    // The raw text went out as text, in the format's JSON.
                    let raw = serde_json::to_string(
                        &input["Cleaning up.\n".len()..input.len() - "\nDone.".len()],
                    )
                    .expect("a string");
                    let raw = raw.trim_matches('"');
                    assert!(
                        out.contains(raw),
                        "{what}, {format}, chunks {cut:?}: the raw text as text:\n{out}"
                    );
                }
                if format == Format::AiSdk {
                    assert_eq!(out.matches("tool-input-error").count(), 1, "{what}: {out}");
                }
            }
        }
    }
}

/// The issue's command: `parse --dialect hermes --output openai-chat` (and
/// every other format) writes no call.
#[test]
fn the_issues_example_through_the_cli_is_no_call() {
    for format in Format::ALL {
        for chunk in ["0", "1", "7"] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_actionstream"));
            cmd.args(["parse", "--dialect", "hermes", "--output", format.as_str()]);
            if chunk != "0" {
                cmd.args(["--chunk-size", chunk]);
            }
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("run actionstream");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(HERMES.as_bytes())
                .expect("write the input");
            let out = child.wait_with_output().expect("the output");
            assert!(out.status.success());
            let out = String::from_utf8(out.stdout).expect("UTF-8");
            assert!(!has_call(format, &out), "{format}, chunk {chunk}:\n{out}");
            assert!(out.contains("delete_branch"), "{format}: the raw text");
        }
    }
}
