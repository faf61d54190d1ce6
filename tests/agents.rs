//! Real coding agents through the gateway, end to end (contract, section
//! 10): Claude Code over Anthropic Messages, Codex CLI over the Responses
//! API, opencode and Qwen Code over Chat Completions, each running a
//! three-turn tool loop against a model server that writes a real model's
//! raw format.
//!
//! Each case starts, on loopback:
//!
//! - the scripted model server `tests/agents/upstream.py` (Chat
//!   Completions, streaming), which answers in Qwen3-Coder's, GLM-4.5's or
//!   MiniMax-M2's raw text (`<think>` reasoning, prose, the model's own
//!   call markers) cut into pieces of one size (the whole answer, one
//!   character, or seeded random sizes): turn 1 writes a 20 KB file with
//!   the agent's write tool, turn 2 checks that the history carries that
//!   call and a tool message with its `tool_call_id` and reads the file
//!   back, turn 3 checks again and answers in prose;
//! - the gateway, the built binary: `actionstream serve --upstream … --dialect …`;
//! - the agent, the pinned npm package's program, as a user runs it
//!   (`claude -p`, `codex exec`, `opencode run`, `qwen -p`), with a time
//!   limit.
//!
//! The case holds when the agent exits successfully, its last words carry
//! the server's marker, the file on disk has exactly the bytes the model
//! wrote, and the server found nothing wrong in the histories it was sent.
//!
//! The agents come from `npm ci --ignore-scripts` in `tests/agents/` (as
//! `.ci/run` does). When one is missing (or `python3`, or `node` for Qwen
//! Code), its test says
//! so and passes, unless `ACTIONSTREAM_REQUIRE_CLIENTS` is set: then it
//! fails.
//!
//! The requests the agents sent, recorded on loopback
//! (`tests/agents/record.py`), are in `tests/data/agents/`; they are also
//! replayed through the in-process gateway, which needs no agent.
#![cfg(all(feature = "serve", feature = "cli"))]

mod gateway;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actionstream::serve::ServeConfig;
use gateway::{Reply, Script, Upstream};
use serde_json::{json, Value};

/// How long one agent run may take (a run takes a few seconds).
const AGENT_LIMIT: Duration = Duration::from_secs(90);

/// What the scripted server's final answer ends with.
const MARKER: &str = "[agent-loop-ok]";

/// What the user asks.
const PROMPT: &str = "Write notes.txt, read it back, then say done.";

fn agents_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents")
}

/// Where a pinned agent's program is under `tests/agents/node_modules`.
/// Claude Code's is its native binary (the npm package's `claude` is a
/// stub until a postinstall script, which `--ignore-scripts` skips,
/// replaces it); Qwen Code's is a script for `node`.
fn installed(path: &str) -> PathBuf {
    agents_dir().join("node_modules").join(path)
}

#[derive(Clone, Copy, Debug)]
enum Agent {
    /// Claude Code 2.1.328, over Anthropic Messages.
    Claude,
    /// Codex CLI 0.169.0, over the Responses API.
    Codex,
    /// opencode 1.18.33, over Chat Completions (`@ai-sdk/openai-compatible`).
    OpenCode,
    /// Qwen Code 0.24.4, over Chat Completions.
    Qwen,
}

impl Agent {
    /// Its name for `tests/agents/upstream.py --agent`.
    fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::OpenCode => "opencode",
            Agent::Qwen => "qwen",
        }
    }

    fn program(self) -> PathBuf {
        match self {
            Agent::Claude => installed("@anthropic-ai/claude-code-linux-x64/claude"),
            Agent::Codex => {
                installed("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
            }
            Agent::OpenCode => installed("opencode-linux-x64/bin/opencode"),
            Agent::Qwen => installed("@qwen-code/qwen-code/cli-entry.js"),
        }
    }

    /// The other programs it needs on `PATH`.
    fn needs(self) -> &'static [&'static str] {
        match self {
            Agent::Qwen => &["python3", "node"],
            _ => &["python3"],
        }
    }
}

/// Whether `program --version` runs.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether the agent and what it needs are there; when not, a skip
/// message, or a failure under `ACTIONSTREAM_REQUIRE_CLIENTS`.
fn available(agent: Agent) -> bool {
    let missing = agent.needs().iter().find(|p| !runs(p));
    let why = if !agent.program().is_file() {
        format!(
            "{} is not installed (run `npm ci --ignore-scripts` in tests/agents)",
            agent.program().display()
        )
    } else if let Some(program) = missing {
        format!("{program} is not installed")
    } else {
        return true;
    };
    let required = std::env::var_os("ACTIONSTREAM_REQUIRE_CLIENTS").is_some_and(|v| !v.is_empty());
    assert!(
        !required,
        "the {} agent test: {why}, and ACTIONSTREAM_REQUIRE_CLIENTS is set",
        agent.name()
    );
    eprintln!(
        "SKIPPED: the {} agent test: {why} (set ACTIONSTREAM_REQUIRE_CLIENTS to make this fail)",
        agent.name()
    );
    false
}

/// A child process killed when dropped; its standard error collected.
struct Running {
    name: &'static str,
    child: Child,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `command` and reads its output until a line has `needle`
/// followed by a port number; returns the process and the port. The
/// process's standard error is read on (into [`Running::stderr`]) so that
/// it never blocks on a full pipe.
fn start_listening(name: &'static str, command: &mut Command, needle: &str) -> (Running, u16) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
    let stderr = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel::<u16>();
    for pipe in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let (tx, needle, stderr) = (tx.clone(), needle.to_owned(), stderr.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(at) = line.find(&needle) {
                    let digits: String = line[at + needle.len()..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    if let Ok(port) = digits.parse() {
                        let _ = tx.send(port);
                    }
                }
                let mut all = stderr.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        });
    }
    let mut running = Running {
        name,
        child,
        stderr,
    };
    let port = match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(port) => port,
        Err(_) => {
            let status = running.child.try_wait().ok().flatten();
            panic!(
                "{} did not say `{needle}PORT` in 20 s (exit: {status:?}); it said:\n{}",
                running.name,
                running.stderr()
            )
        }
    };
    (running, port)
}

/// The scripted model server.
fn start_upstream(
    agent: Agent,
    dialect: &str,
    chunking: &str,
    dir: &Path,
    report: &Path,
) -> (Running, u16) {
    start_listening(
        "tests/agents/upstream.py",
        Command::new("python3")
            .arg(agents_dir().join("upstream.py"))
            .args(["--agent", agent.name(), "--dialect", dialect])
            .args(["--chunking", chunking, "--seed", "20260727"])
            .arg("--dir")
            .arg(dir)
            .arg("--report")
            .arg(report),
        "listening on ",
    )
}

/// The gateway, the built binary, in front of `upstream_port`.
fn start_gateway(upstream_port: u16, dialect: &str) -> (Running, u16) {
    start_listening(
        "actionstream serve",
        Command::new(env!("CARGO_BIN_EXE_actionstream"))
            .arg("serve")
            .arg("--upstream")
            .arg(format!("http://127.0.0.1:{upstream_port}/v1"))
            .args(["--listen", "127.0.0.1:0", "--dialect", dialect])
            .env("RUST_LOG", "actionstream=info"),
        "listening on http://127.0.0.1:",
    )
}

/// The agent's command line, environment and configuration, as
/// docs/agents.md gives them.
fn agent_command(agent: Agent, gateway_port: u16, scratch: &Path, work: &Path) -> Command {
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let gateway = format!("http://127.0.0.1:{gateway_port}");
    let mut cmd = match agent {
        Agent::Qwen => {
            let mut cmd = Command::new("node");
            cmd.arg(agent.program());
            cmd
        }
        _ => Command::new(agent.program()),
    };
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .current_dir(work);
    match agent {
        Agent::Claude => {
            cmd.env("ANTHROPIC_BASE_URL", &gateway)
                .env("ANTHROPIC_API_KEY", "test")
                .env("ANTHROPIC_MODEL", "qwen3-coder")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .args(["-p", PROMPT, "--allowedTools", "Write,Read,Bash"]);
        }
        Agent::Codex => {
            let codex_home = scratch.join("codex");
            std::fs::create_dir_all(&codex_home).unwrap();
            std::fs::write(
                codex_home.join("config.toml"),
                format!(
                    "model_provider = \"gateway\"\nmodel = \"qwen3-coder\"\n\n\
                     [model_providers.gateway]\nname = \"actionstream\"\n\
                     base_url = \"{gateway}/v1\"\n\
                     env_key = \"GATEWAY_KEY\"\nwire_api = \"responses\"\n"
                ),
            )
            .unwrap();
            cmd.env("CODEX_HOME", &codex_home)
                .env("GATEWAY_KEY", "test")
                .args([
                    "exec",
                    "--skip-git-repo-check",
                    "--dangerously-bypass-approvals-and-sandbox",
                    "-C",
                ])
                .arg(work)
                .arg(PROMPT);
        }
        Agent::OpenCode => {
            let config = home.join(".config/opencode");
            std::fs::create_dir_all(&config).unwrap();
            let settings = json!({
                "provider": {"gateway": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "actionstream",
                    "options": {"baseURL": format!("{gateway}/v1"), "apiKey": "test"},
                    "models": {"qwen3-coder": {"name": "Qwen3-Coder", "tool_call": true}},
                }},
                "model": "gateway/qwen3-coder",
                "autoupdate": false,
                "share": "disabled",
            });
            std::fs::write(config.join("opencode.json"), settings.to_string()).unwrap();
            cmd.env("OPENCODE_DISABLE_MODELS_FETCH", "1")
                .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
                .args(["run", PROMPT]);
        }
        Agent::Qwen => {
            cmd.env("OPENAI_BASE_URL", format!("{gateway}/v1"))
                .env("OPENAI_API_KEY", "test")
                .env("OPENAI_MODEL", "qwen3-coder")
                .args(["-p", PROMPT, "--yolo"]);
        }
    }
    cmd
}

/// What an agent run left: its exit, standard output and error.
struct Run {
    status: Option<std::process::ExitStatus>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Runs `cmd` to its end or the time limit (then kills it); its output
/// goes to files, so a full pipe never blocks it.
fn run_agent(mut cmd: Command, scratch: &Path) -> Run {
    let out = scratch.join("agent.out");
    let err = scratch.join("agent.err");
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the agent: {e}"));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > AGENT_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Run {
        status,
        stdout: read(&out),
        stderr: read(&err),
        took: start.elapsed(),
    }
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> &str {
    let mut at = s.len().saturating_sub(n);
    while !s.is_char_boundary(at) {
        at += 1;
    }
    &s[at..]
}

/// One agent, one dialect, one chunking: the whole tool loop.
fn run_case(agent: Agent, dialect: &str, chunking: &str) {
    let label = format!("{} / {dialect} / {chunking}", agent.name());
    let scratch = std::env::temp_dir().join(format!(
        "actionstream-agents-{}-{}-{dialect}-{chunking}",
        std::process::id(),
        agent.name()
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    let work = scratch.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let report_path = scratch.join("report.json");

    let (upstream, upstream_port) = start_upstream(agent, dialect, chunking, &work, &report_path);
    let (gateway, gateway_port) = start_gateway(upstream_port, dialect);
    let run = run_agent(
        agent_command(agent, gateway_port, &scratch, &work),
        &scratch,
    );

    let report: Value = std::fs::read_to_string(&report_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let context = || {
        format!(
            "{label}: the agent ran {:.1} s, exit {:?}\n--- its output:\n{}\n--- its errors (end):\n{}\n\
             --- the model server's report:\n{report:#}\n--- the model server's errors:\n{}\n\
             --- the gateway's log (end):\n{}",
            run.took.as_secs_f64(),
            run.status,
            tail(&run.stdout, 3000),
            tail(&run.stderr, 3000),
            tail(&upstream.stderr(), 3000),
            tail(&gateway.stderr(), 3000),
        )
    };
    assert!(
        run.status.is_some_and(|s| s.success()),
        "the agent failed or timed out\n{}",
        context()
    );
    assert_eq!(
        report["failures"],
        json!([]),
        "the model server found the history wrong\n{}",
        context()
    );
    assert_eq!(report["calls_written"], 2, "{}", context());
    assert_eq!(report["calls_answered"], 2, "calls lost\n{}", context());
    assert_eq!(report["answered"], true, "{}", context());
    let expected = std::fs::read(scratch.join("report.json.expected")).unwrap();
    let written = std::fs::read(work.join("notes.txt"))
        .unwrap_or_else(|e| panic!("no notes.txt: {e}\n{}", context()));
    assert!(
        written == expected,
        "notes.txt differs from what the model wrote ({} bytes, expected {})\n{}",
        written.len(),
        expected.len(),
        context()
    );
    assert!(
        run.stdout.contains(MARKER),
        "the agent's answer lacks {MARKER}\n{}",
        context()
    );
    eprintln!("{label}: done in {:.1} s", run.took.as_secs_f64());
    drop((upstream, gateway));
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The dialects and chunkings each agent runs at: Qwen3-Coder at every
/// chunking, GLM-4.5 and MiniMax-M2 at random sizes.
const CASES: &[(&str, &str)] = &[
    ("qwen3_coder", "whole"),
    ("qwen3_coder", "char"),
    ("qwen3_coder", "random"),
    ("glm", "random"),
    ("minimax_m2", "random"),
];

#[test]
fn claude_code_completes_its_tool_loop() {
    if !available(Agent::Claude) {
        return;
    }
    for (dialect, chunking) in CASES {
        run_case(Agent::Claude, dialect, chunking);
    }
}

#[test]
fn codex_completes_its_tool_loop() {
    if !available(Agent::Codex) {
        return;
    }
    for (dialect, chunking) in CASES {
        run_case(Agent::Codex, dialect, chunking);
    }
}

/// opencode and Qwen Code speak Chat Completions: one case each (each
/// takes 15 to 30 s to start).
#[test]
fn opencode_completes_its_tool_loop() {
    if available(Agent::OpenCode) {
        run_case(Agent::OpenCode, "qwen3_coder", "random");
    }
}

#[test]
fn qwen_code_completes_its_tool_loop() {
    if available(Agent::Qwen) {
        run_case(Agent::Qwen, "glm", "random");
    }
}

// ---- the recorded requests, replayed through the in-process gateway ----

fn recorded(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agents")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Posts a recorded request (its path, headers and body) to a gateway in
/// front of an upstream that answers `Done.`; returns the answer's status
/// and text, and the one request the upstream received.
async fn replay(entry: &Value) -> (u16, String, Value) {
    let upstream = Upstream::start(|_| Reply::Stream(Script::new("Done."))).await;
    let url = gateway::gateway(ServeConfig::new(upstream.url.clone()).dialect("qwen3_coder")).await;
    let mut req = reqwest::Client::new().post(format!(
        "{url}{}",
        entry["path"].as_str().expect("a recorded path")
    ));
    for (k, v) in entry["headers"].as_object().expect("recorded headers") {
        req = req.header(k, v.as_str().expect("a header value"));
    }
    let resp = req.json(&entry["body"]).send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let received = upstream.received();
    let sent = received
        .last()
        .map(|r| r.body.clone())
        .unwrap_or(Value::Null);
    (status, text, sent)
}

/// The upstream's messages: (index of the assistant message with the call
/// id, index of the tool message with that `tool_call_id`) for `id`.
fn call_and_result(messages: &[Value], id: &str) -> (Option<usize>, Option<usize>) {
    let call = messages.iter().position(|m| {
        m["role"] == "assistant"
            && m["tool_calls"]
                .as_array()
                .is_some_and(|calls| calls.iter().any(|c| c["id"] == id))
    });
    let result = messages
        .iter()
        .position(|m| m["role"] == "tool" && m["tool_call_id"] == id);
    (call, result)
}

#[tokio::test]
async fn claude_codes_recorded_request_translates() {
    let entry = recorded("claude_code_2.1.328_messages.json");
    let (status, text, sent) = replay(&entry).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("message_stop"), "{text}");
    assert!(!text.contains("event: error"), "{text}");
    let messages = sent["messages"].as_array().expect("upstream messages");
    assert_eq!(messages[0]["role"], "system", "{sent:#}");
    // Claude Code's environment comes as a `system` message inside
    // `messages`: it joins the leading system message.
    let system = messages[0]["content"].as_str().unwrap_or("");
    assert!(system.contains("Primary working directory"), "{system}");
    assert_eq!(
        messages.iter().filter(|m| m["role"] == "system").count(),
        1,
        "{sent:#}"
    );
    let mut calls = 0;
    for m in entry["body"]["messages"].as_array().unwrap() {
        for block in m["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_use" {
                let id = block["id"].as_str().unwrap();
                let (call, result) = call_and_result(messages, id);
                let (Some(call), Some(result)) = (call, result) else {
                    panic!("the call {id} or its result is missing: {sent:#}");
                };
                assert!(call < result, "{id}: the result comes before the call");
                let c = messages[call]["tool_calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["id"] == id)
                    .unwrap();
                assert_eq!(c["function"]["name"], block["name"]);
                let args: Value =
                    serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap();
                assert_eq!(args, block["input"]);
                calls += 1;
            }
        }
    }
    assert_eq!(calls, 2);
    let tools: Vec<&str> = sent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    for name in ["Write", "Read", "Bash"] {
        assert!(tools.contains(&name), "{name} not offered: {tools:?}");
    }
}

#[tokio::test]
async fn codexs_recorded_request_translates() {
    let entry = recorded("codex_0.169.0_responses.json");
    let (status, text, sent) = replay(&entry).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("response.completed"), "{text}");
    let messages = sent["messages"].as_array().expect("upstream messages");
    assert_eq!(messages[0]["role"], "system", "{sent:#}");
    let mut calls = 0;
    for item in entry["body"]["input"].as_array().unwrap() {
        if item["type"] == "function_call" {
            let id = item["call_id"].as_str().unwrap();
            let (call, result) = call_and_result(messages, id);
            let (Some(call), Some(result)) = (call, result) else {
                panic!("the call {id} or its result is missing: {sent:#}");
            };
            assert!(call < result, "{id}: the result comes before the call");
            calls += 1;
        }
    }
    assert_eq!(calls, 2);
    let tools: Vec<&str> = sent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(tools.contains(&"exec_command"), "{tools:?}");
    assert!(
        tools.contains(&"spawn_agent"),
        "a namespace's tool: {tools:?}"
    );
    assert!(
        !sent["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["type"] == "web_search"),
        "web_search reached the upstream: {sent:#}"
    );
}
