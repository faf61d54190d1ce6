//! `parse --output FORMAT` read by the real client of each protocol.
//!
//! For every bundled response (`examples/responses`, `tests/data`,
//! `tests/data/protocols`, a generated response with a 20 KB string
//! parameter) and every recorded SSE stream (`tests/data`,
//! `tests/data/providers`, read with `--input sse`, errors included), the
//! CLI writes the protocol (in random chunks, with `--calls live` and
//! `--calls complete`), a client script in `tests/clients/` reads it with
//! the protocol's own package and prints what it reconstructed, and that
//! must equal what the CLI's `events` output says: the text (narrative,
//! plus the raw text of actions that ended invalid before their call went
//! out), the reasoning, the tool calls in order with their names and
//! parsed arguments (calls that failed as the protocol marks them), the
//! finish reason and the errors.
//!
//! A call goes out with its first argument fragment: a dialect's as the
//! parser's `ArgumentsDelta` pieces begin, a fence's or tag's when it
//! completes. A third stream per response comes from the library's
//! `Encoder` fed the parser's events with each started call's arguments cut
//! into 7-byte fragments right after its start (a valid-JSON prefix for
//! calls that then fail): the clients must join them to the same arguments.
//!
//! Clients: the `openai` Python package (Chat Completions and Responses),
//! the `anthropic` Python package, the `ai` npm package (v5 and v6), and
//! `@ag-ui/core` with `@ag-ui/client`. Install them with
//! `pip install -r tests/clients/requirements.txt` and `npm ci` in
//! `tests/clients/`. A test whose client is not installed says so and
//! passes, unless `ACTIONSTREAM_REQUIRE_CLIENTS` is set (as CI sets it):
//! then it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use actionstream::protocol::{Encoder, Format, Options};
use actionstream::sse::{SseItem, SseParser};
use actionstream::{ActionId, Config, Event, Parser};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn clients_dir() -> PathBuf {
    root().join("tests/clients")
}

/// A response to encode: a file, read as text or as an SSE stream.
struct Case {
    file: PathBuf,
    sse: bool,
    /// The model dialect the response is written in, if any.
    dialect: Option<String>,
}

impl Case {
    fn config(&self) -> Config {
        match &self.dialect {
            Some(d) => Config::default()
                .dialect_named(d)
                .expect("a built-in dialect"),
            None => Config::default(),
        }
    }
}

fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// A response whose one call has a 20 KB string parameter (unicode, quotes,
/// backslashes and line breaks in it).
fn long_parameter(dir: &Path) -> PathBuf {
    let mut content = String::new();
    let mut n = 0;
    while content.len() < 20_000 {
        content.push_str(&format!(
            "Line {n}: \"quoted\" \\ back-slashed, café ☕, 数据 {n}\n"
        ));
        n += 1;
    }
    let call =
        json!({"name": "write_file", "arguments": {"path": "notes/long.md", "content": content}});
    let text = format!("I'll write the whole file.\n\n<tool_call>{call}</tool_call>\n\nWritten.\n");
    let path = dir.join("long_parameter.md");
    std::fs::write(&path, text).expect("write the generated response");
    path
}

/// A Qwen3-Coder response with reasoning whose call has a 20 KB raw string
/// parameter, which the parser streams in pieces as it is written.
fn long_dialect_parameter(dir: &Path) -> PathBuf {
    let mut content = String::new();
    let mut n = 0;
    while content.len() < 20_000 {
        content.push_str(&format!(
            "fn f{n}() -> &'static str {{ \"café ☕ {n}\" }}\n"
        ));
        n += 1;
    }
    let text = format!(
        "<think>The file is long; write it in one call.</think>Writing it now.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/gen.rs\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
    );
    let path = dir.join("long_dialect_parameter.txt");
    std::fs::write(&path, text).expect("write the generated response");
    path
}

fn cases(dir: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for d in ["examples/responses", "tests/data", "tests/data/protocols"] {
        for file in files_in(&root().join(d), "md") {
            cases.push(Case {
                file,
                sse: false,
                dialect: None,
            });
        }
    }
    cases.push(Case {
        file: long_parameter(dir),
        sse: false,
        dialect: None,
    });
    // Model dialects: reasoning, raw-text values and JSON, streamed as
    // argument pieces by the parser itself (not cut by this test).
    for dialect in actionstream::dialect::BUILTIN {
        cases.push(Case {
            file: root().join(format!("examples/responses/dialects/{dialect}.txt")),
            sse: false,
            dialect: Some(dialect.to_owned()),
        });
    }
    cases.push(Case {
        file: long_dialect_parameter(dir),
        sse: false,
        dialect: Some("qwen3_coder".to_owned()),
    });
    for d in ["tests/data", "tests/data/providers"] {
        for file in files_in(&root().join(d), "sse") {
            cases.push(Case {
                file,
                sse: true,
                dialect: None,
            });
        }
    }
    cases
}

/// Runs `actionstream parse` on a case with `extra` options.
fn cli(case: &Case, extra: &[&str]) -> Vec<u8> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_actionstream"));
    cmd.arg("parse").args(extra).arg(&case.file);
    if let Some(d) = &case.dialect {
        cmd.args(["--dialect", d]);
    }
    if case.sse {
        cmd.args(["--input", "sse"]);
    }
    let out = cmd.output().expect("run actionstream");
    assert!(
        out.status.success(),
        "{}: {}",
        case.file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The parser's events of a case (and its stream-level errors), with each
/// named call's arguments cut into fragments of 7 bytes right after its
/// start: the whole compact arguments of a call that completes, and `{` for
/// one that ends invalid. A fence's or tag's call ignores them (it goes out
/// whole when it completes); a dialect's or native call goes out with the
/// first.
fn fragmented(case: &Case) -> Vec<Result<Event, String>> {
    let input = std::fs::read(&case.file).expect("read the case");
    let mut items: Vec<Result<Event, String>> = Vec::new();
    if case.sse {
        let mut parser = SseParser::new(Config::default());
        let mut out = Vec::new();
        parser.push(&input, &mut out);
        parser.finish(&mut out);
        items.extend(out.into_iter().map(|i| match i {
            SseItem::Event(e) => Ok(e),
            SseItem::Error(m) => Err(m),
        }));
    } else {
        let mut parser = Parser::new(case.config());
        let mut out = Vec::new();
        parser.push_bytes(&input, &mut out);
        parser.finish(&mut out);
        items.extend(out.into_iter().map(Ok));
    }
    // The JSON each started action's fragments stand for.
    let mut whole = std::collections::HashMap::new();
    for item in &items {
        match item {
            Ok(Event::ActionComplete(a)) => {
                whole.insert(a.id, serde_json::to_string(&a.arguments).unwrap());
            }
            Ok(Event::ActionInvalid(a)) => {
                whole.insert(a.id, "{".to_owned());
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for item in items {
        let named = match &item {
            Ok(Event::ActionStarted {
                id, name: Some(_), ..
            }) => Some(*id),
            _ => None,
        };
        out.push(item);
        if let Some(id) = named {
            out.extend(pieces(id, &whole[&id]));
        }
    }
    out
}

fn pieces(id: ActionId, json: &str) -> Vec<Result<Event, String>> {
    let mut out = Vec::new();
    let mut rest = json;
    while !rest.is_empty() {
        let mut cut = rest.len().min(7);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        out.push(Ok(Event::ArgumentsDelta {
            id,
            json: rest[..cut].to_owned(),
        }));
        rest = &rest[cut..];
    }
    out
}

/// Encodes events (and errors) as `format`, live.
fn encode(format: &str, items: &[Result<Event, String>], id: &str) -> Vec<u8> {
    let format: Format = format.parse().expect("a format");
    let mut encoder = Encoder::new(format, Options::default().id(id).created(1_700_000_000));
    let mut out = String::new();
    for item in items {
        match item {
            Ok(e) => encoder.event(e, &mut out),
            Err(m) => encoder.error(m, &mut out),
        }
    }
    encoder.finish(&mut out);
    out.into_bytes()
}

/// One client: the format it reads and the command that runs it.
struct Client {
    format: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    /// What must be installed: Python modules, or npm packages under
    /// `tests/clients/node_modules`.
    needs: &'static [&'static str],
}

const OPENAI_CHAT: Client = Client {
    format: "openai-chat",
    program: "python3",
    args: &["openai_chat.py"],
    needs: &["openai"],
};
const OPENAI_RESPONSES: Client = Client {
    format: "openai-responses",
    program: "python3",
    args: &["openai_responses.py"],
    needs: &["openai"],
};
const ANTHROPIC: Client = Client {
    format: "anthropic",
    program: "python3",
    args: &["anthropic_messages.py"],
    needs: &["anthropic"],
};
const AI_SDK_5: Client = Client {
    format: "ai-sdk",
    program: "node",
    args: &["ai_sdk.mjs", "ai"],
    needs: &["ai"],
};
const AI_SDK_6: Client = Client {
    format: "ai-sdk",
    program: "node",
    args: &["ai_sdk.mjs", "ai6"],
    needs: &["ai6"],
};
const AG_UI: Client = Client {
    format: "ag-ui",
    program: "node",
    args: &["ag_ui.mjs"],
    needs: &["@ag-ui/core", "@ag-ui/client"],
};

/// Why the client cannot run here, if it cannot.
fn missing(client: &Client) -> Option<String> {
    let runs = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if client.program == "python3" {
        for module in client.needs {
            if !runs("python3", &["-c", &format!("import {module}")]) {
                return Some(format!("the Python package `{module}` is not installed"));
            }
        }
    } else {
        if !runs("node", &["--version"]) {
            return Some("node is not installed".into());
        }
        for package in client.needs {
            let manifest = clients_dir()
                .join("node_modules")
                .join(package)
                .join("package.json");
            if !manifest.exists() {
                return Some(format!(
                    "the npm package `{package}` is not installed (npm ci in tests/clients)"
                ));
            }
        }
    }
    None
}

/// Whether this test may run: the client is there, or it is missing and
/// not required (then it says so).
fn ready(client: &Client) -> bool {
    let Some(why) = missing(client) else {
        return true;
    };
    let required = std::env::var_os("ACTIONSTREAM_REQUIRE_CLIENTS").is_some_and(|v| !v.is_empty());
    assert!(
        !required,
        "{} client: {why}, and ACTIONSTREAM_REQUIRE_CLIENTS is set",
        client.format
    );
    eprintln!(
        "SKIPPED: the {} client check: {why} (set ACTIONSTREAM_REQUIRE_CLIENTS to make this fail)",
        client.format
    );
    false
}

/// Runs the client on `files` at once: one JSON line each.
fn run_client(client: &Client, files: &[PathBuf]) -> Vec<Value> {
    let out = Command::new(client.program)
        .current_dir(clients_dir())
        .args(client.args)
        .args(files)
        .env("PYTHONUTF8", "1")
        .env("PYTHONIOENCODING", "utf-8")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run the client");
    assert!(
        out.status.success(),
        "the {} client failed:\n{}",
        client.format,
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .expect("UTF-8 from the client")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line from the client"))
        .collect();
    assert_eq!(lines.len(), files.len(), "one result per stream");
    lines
}

/// A call as the `events` output implies it.
#[derive(Debug)]
struct ExpectedCall {
    name: String,
    /// The arguments of a call that completed.
    arguments: Option<Value>,
    /// Ended invalid after it went out, or (AI SDK) an invalid action
    /// reported as an input error.
    failed: bool,
}

#[derive(Debug, Default)]
struct Expected {
    text: String,
    reasoning: String,
    calls: Vec<ExpectedCall>,
    completed: bool,
    errors: Vec<String>,
}

/// Where a live call's arguments begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fragments {
    /// At the `arguments_delta` lines of the events.
    AsParsed,
    /// Right after the action's start (the test's own fragments).
    AtStart,
}

/// What a client of `format` must reconstruct, from the `events` lines
/// (written with `--argument-deltas`). A live call goes out with its first
/// argument fragment if it is a dialect's or a native call, else when it
/// completes.
fn expected(events: &[Value], format: &str, live: Option<Fragments>) -> Expected {
    let mut exp = Expected::default();
    // Action id → (name it started with, whether its arguments stream,
    // index of its call if it went out).
    let mut started: std::collections::HashMap<u64, (Option<String>, bool, Option<usize>)> =
        Default::default();
    let mut last_raw: Option<Value> = None;
    let go_out = |exp: &mut Expected, name: &str| {
        exp.calls.push(ExpectedCall {
            name: name.to_owned(),
            arguments: None,
            failed: false,
        });
        Some(exp.calls.len() - 1)
    };
    for e in events {
        let id = e["id"].as_u64().unwrap_or(u64::MAX);
        match e["event"].as_str().unwrap() {
            "narrative" => exp.text.push_str(e["text"].as_str().unwrap()),
            "reasoning" => exp.reasoning.push_str(e["text"].as_str().unwrap()),
            "action_started" => {
                let name = e["name"].as_str().map(str::to_owned);
                let streams = matches!(e["syntax"].as_str(), Some("dialect" | "native"));
                let call = match (&name, live) {
                    (Some(name), Some(Fragments::AtStart)) if streams => go_out(&mut exp, name),
                    _ => None,
                };
                started.insert(id, (name, streams, call));
            }
            "arguments_delta" => {
                if let Some((Some(name), true, call @ None)) = started.get_mut(&id) {
                    if live == Some(Fragments::AsParsed) && !e["json"].as_str().unwrap().is_empty()
                    {
                        *call = go_out(&mut exp, name);
                    }
                }
            }
            "action_complete" => {
                exp.completed = true;
                let arguments = Some(e["arguments"].clone());
                match started.remove(&id) {
                    Some((_, _, Some(at))) => exp.calls[at].arguments = arguments,
                    _ => exp.calls.push(ExpectedCall {
                        name: e["name"].as_str().unwrap().to_owned(),
                        arguments,
                        failed: false,
                    }),
                }
            }
            "action_invalid" => {
                let (name, _, call) = started.remove(&id).unwrap_or((None, false, None));
                match call {
                    Some(at) => exp.calls[at].failed = true,
                    None => {
                        let span = &e["span"];
                        if span.is_null() || last_raw.as_ref() != Some(span) {
                            exp.text.push_str(e["raw"].as_str().unwrap());
                        }
                        last_raw = Some(span.clone());
                        let name = e["name"].as_str().map(str::to_owned).or(name);
                        if let (Some(name), "ai-sdk") = (name, format) {
                            exp.calls.push(ExpectedCall {
                                name,
                                arguments: None,
                                failed: true,
                            });
                        }
                    }
                }
            }
            "error" => exp.errors.push(e["message"].as_str().unwrap().to_owned()),
            other => panic!("unexpected line {other}"),
        }
    }
    exp
}

/// Compares what the client built with what the events say.
fn compare(format: &str, what: &str, got: &Value, exp: &Expected) {
    assert_eq!(got["text"], exp.text, "{what}: text");
    assert_eq!(got["reasoning"], exp.reasoning, "{what}: reasoning");
    let calls = got["calls"].as_array().expect("calls");
    let names: Vec<&str> = calls.iter().map(|c| c["name"].as_str().unwrap()).collect();
    let expected_names: Vec<&str> = exp.calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, expected_names, "{what}: the calls");
    let mut ids: Vec<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), calls.len(), "{what}: call ids are unique");
    for (i, (c, e)) in calls.iter().zip(&exp.calls).enumerate() {
        let status = c["status"].as_str();
        if e.failed {
            match format {
                "openai-responses" => assert_eq!(status, Some("incomplete"), "{what}: call {i}"),
                "ai-sdk" => assert_eq!(status, Some("output-error"), "{what}: call {i}"),
                // The protocol has no failed call: its fragments stopped.
                _ => {}
            }
        } else {
            let arguments = e.arguments.as_ref().expect("a completed call");
            assert_eq!(&c["arguments"], arguments, "{what}: arguments of call {i}");
            match format {
                "openai-responses" => assert_eq!(status, Some("completed"), "{what}: call {i}"),
                "ai-sdk" => assert_eq!(status, Some("input-available"), "{what}: call {i}"),
                _ => {}
            }
        }
    }
    let errored = !exp.errors.is_empty();
    let finish = got["finish"].as_str();
    let (errors, expected_finish) = match format {
        "openai-chat" => (
            exp.errors.clone(),
            match (errored, exp.completed) {
                (true, _) => None,
                (false, true) => Some("tool_calls"),
                (false, false) => Some("stop"),
            },
        ),
        "anthropic" => (
            exp.errors.clone(),
            match (errored, exp.completed) {
                (true, _) => None,
                (false, true) => Some("tool_use"),
                (false, false) => Some("end_turn"),
            },
        ),
        "openai-responses" => (
            exp.errors.clone(),
            Some(if errored { "failed" } else { "completed" }),
        ),
        "ai-sdk" => (
            exp.errors.clone(),
            Some(match (errored, exp.completed) {
                (true, _) => "error",
                (false, true) => "tool-calls",
                (false, false) => "stop",
            }),
        ),
        "ag-ui" => (
            if errored {
                vec![exp.errors.join("; ")]
            } else {
                Vec::new()
            },
            Some(if errored { "RUN_ERROR" } else { "RUN_FINISHED" }),
        ),
        other => panic!("unknown format {other}"),
    };
    assert_eq!(finish, expected_finish, "{what}: finish");
    assert_eq!(got["errors"], json!(errors), "{what}: errors");
}

/// Every case, live and complete, through `client`.
fn check_client(client: &Client, test: &str) {
    if !ready(client) {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("protocol_clients_{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let cases = cases(&dir);
    let mut files = Vec::new();
    let mut expectations = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let events: Vec<Value> = String::from_utf8(cli(case, &["--argument-deltas"]))
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        for calls in ["live", "complete"] {
            let id = format!("c{n}{calls}");
            let seed = (n + 1).to_string();
            let out = cli(
                case,
                &[
                    "--output",
                    client.format,
                    "--calls",
                    calls,
                    "--random-chunks",
                    &seed,
                    "--response-id",
                    &id,
                    "--created",
                    "1700000000",
                ],
            );
            let file = dir.join(format!("{n:02}_{calls}.sse"));
            std::fs::write(&file, out).expect("write the stream");
            files.push(file);
            expectations.push((
                format!("{} --calls {calls}", case.file.display()),
                expected(
                    &events,
                    client.format,
                    (calls == "live").then_some(Fragments::AsParsed),
                ),
            ));
        }
        let file = dir.join(format!("{n:02}_fragments.sse"));
        let out = encode(client.format, &fragmented(case), &format!("c{n}f"));
        std::fs::write(&file, out).expect("write the stream");
        files.push(file);
        expectations.push((
            format!("{} in fragments", case.file.display()),
            expected(&events, client.format, Some(Fragments::AtStart)),
        ));
    }
    let results = run_client(client, &files);
    for (got, (what, exp)) in results.iter().zip(&expectations) {
        compare(client.format, what, got, exp);
    }
    // The inputs cover what the protocols must carry.
    let all = |f: &dyn Fn(&Expected) -> bool| expectations.iter().any(|(_, e)| f(e));
    assert!(
        all(&|e| e.calls.len() >= 4),
        "a response with several calls"
    );
    assert!(all(&|e| !e.reasoning.is_empty()), "reasoning");
    assert!(
        all(&|e| e.calls.iter().any(|c| c.failed)),
        "a call that fails"
    );
    assert!(all(&|e| !e.errors.is_empty()), "a stream-level error");
    assert!(
        all(&|e| e.calls.iter().any(|c| c
            .arguments
            .as_ref()
            .is_some_and(|a| a.to_string().len() > 20_000))),
        "a 20 KB parameter"
    );
    eprintln!(
        "{} client: {} streams read and matched",
        client.format,
        files.len()
    );
}

#[test]
fn openai_chat_read_by_the_openai_python_package() {
    check_client(&OPENAI_CHAT, "openai_chat");
}

#[test]
fn openai_responses_read_by_the_openai_python_package() {
    check_client(&OPENAI_RESPONSES, "openai_responses");
}

#[test]
fn anthropic_read_by_the_anthropic_python_package() {
    check_client(&ANTHROPIC, "anthropic");
}

#[test]
fn ai_sdk_read_by_the_ai_package_v5() {
    check_client(&AI_SDK_5, "ai_sdk_5");
}

#[test]
fn ai_sdk_read_by_the_ai_package_v6() {
    check_client(&AI_SDK_6, "ai_sdk_6");
}

#[test]
fn ag_ui_read_by_the_ag_ui_packages() {
    check_client(&AG_UI, "ag_ui");
}
