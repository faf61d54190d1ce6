//! The gateway read by real clients: the `openai` Python package, and the
//! live page in headless Chromium (Debian's `chromium`, driven by
//! `playwright-core` from `tests/clients/gateway`).
//!
//! A test whose tool is missing is skipped with a message, unless
//! `ACTIONSTREAM_REQUIRE_CLIENTS` is set (as `.ci/run` sets it, after
//! `pip install -r tests/clients/requirements.txt`, `npm ci` in
//! `tests/clients/gateway` and `apt-get install chromium`).
#![cfg(feature = "serve")]

mod gateway;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use actionstream::serve::ServeConfig;
use gateway::{Reply, Script, Upstream};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

const QWEN: &str = "Qwen/Qwen3-Coder-30B-A3B-Instruct";
const LIMIT: Duration = Duration::from_secs(90);

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/gateway")
}

/// Runs `program args` and hands each JSON line of its standard output to
/// `each`; returns the lines. Fails with its standard error when it exits
/// unsuccessfully.
async fn run_lines(program: &str, args: &[&str], mut each: impl FnMut(&Value)) -> Vec<Value> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .current_dir(clients_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = child.stderr.take().unwrap();
    let err = tokio::spawn(async move {
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut text)
            .await
            .ok();
        text
    });
    let mut seen = Vec::new();
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not a JSON line from {program}: {e}: {line}"));
            each(&v);
            seen.push(v);
        }
        child.wait().await.unwrap()
    };
    let status = tokio::time::timeout(LIMIT, read)
        .await
        .unwrap_or_else(|_| panic!("{program} did not finish in time; it said {seen:?}"));
    let stderr = err.await.unwrap();
    assert!(status.success(), "{program} failed ({status}):\n{stderr}");
    seen
}

fn python_has_openai() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import openai"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn find<'a>(lines: &'a [Value], event: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["event"] == event)
        .unwrap_or_else(|| panic!("no {event} line in {lines:?}"))
}

/// The `openai` Python client: typed chunks accumulated by the SDK
/// (content, `reasoning_content`, `tool_calls`), the first call whole while
/// the upstream still holds back the rest, the SDK's streaming helper, the
/// non-streaming form, and the gateway's 400 raised by the SDK.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_python_client_reads_the_gateway() {
    if !gateway::have(
        "the openai Python package",
        python_has_openai(),
        "pip install -r tests/clients/requirements.txt",
    ) {
        return;
    }
    let output = format!("Checking both cities.\n{}", gateway::weather_output());
    let whole_output = output.clone();
    let upstream = Upstream::start(move |request| {
        if request["stream"] == true {
            Reply::Stream(
                Script::new(&output)
                    .reasoning("Two cities, two calls.")
                    .hold_after("</tool_call>"),
            )
        } else {
            Reply::Json(json!({
                "id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": QWEN,
                "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null, "message": {
                    "role": "assistant", "reasoning_content": "Two cities, two calls.",
                    "content": whole_output,
                }}],
            }))
        }
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let tools = gateway::weather_tools().to_string();
    let script = clients_dir().join("openai_gateway.py");
    let up = upstream.clone();
    let lines = run_lines(
        "python3",
        &[script.to_str().unwrap(), &url, QWEN, &tools],
        move |line| {
            if line["event"] == "first_call" {
                // The client has the first call whole; the upstream holds.
                assert_eq!(line["name"], "get_current_weather");
                assert_eq!(
                    line["arguments"],
                    json!({"city": "Dallas", "state": "TX", "unit": "fahrenheit"})
                );
                assert_eq!(line["finish"], Value::Null);
                assert_eq!(up.reached_blocking(0, 1), 1);
                assert_eq!(up.finished(), 0, "the upstream has not ended");
                up.release(1);
            }
        },
    )
    .await;
    let expected_calls = |calls: &Value| {
        let calls = calls.as_array().unwrap();
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(calls[0]["type"], "function");
        assert_eq!(calls[0]["name"], "get_current_weather");
        assert_eq!(calls[1]["arguments"]["city"], "Orlando");
        assert_ne!(calls[0]["id"], calls[1]["id"]);
    };
    find(&lines, "first_call");
    let stream = find(&lines, "stream");
    assert_eq!(stream["content"], "Checking both cities.\n\n");
    assert_eq!(stream["reasoning"], "Two cities, two calls.");
    assert_eq!(stream["finish"], "tool_calls");
    expected_calls(&stream["calls"]);
    let helper = find(&lines, "helper");
    expected_calls(&helper["calls"]);
    assert_eq!(helper["done_arguments"].as_array().unwrap().len(), 2);
    assert!(helper["kinds"]
        .as_array()
        .unwrap()
        .contains(&json!("tool_calls.function.arguments.delta")));
    let whole = find(&lines, "whole");
    assert_eq!(whole["content"], "Checking both cities.\n\n");
    assert_eq!(whole["reasoning"], "Two cities, two calls.");
    assert_eq!(whole["finish"], "tool_calls");
    expected_calls(&whole["calls"]);
    let bad = find(&lines, "bad_request");
    assert_eq!(bad["raised"], true);
    assert_eq!(bad["status"], 400);
    assert_eq!(bad["type"], "invalid_request_error");
    assert_eq!(bad["param"], "n");
    // Three answers went upstream (the refused one did not).
    assert_eq!(upstream.received().len(), 3);
}

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    path.exists().then_some(path)
}

fn playwright_installed() -> bool {
    clients_dir()
        .join("node_modules/playwright-core/package.json")
        .exists()
}

fn node_works() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The live page in headless Chromium: mid-stream (the upstream held inside
/// the first call's 20 KB parameter) the narrative is shown as Markdown and
/// the card's arguments are streaming; at the end two cards are complete
/// and one is invalid with its errors. The screenshot is kept in the
/// target directory, and in `docs/live-page.png` when `BLESS` is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_page_in_headless_chromium() {
    if !gateway::have(
        "Debian's chromium",
        chromium().is_some(),
        "apt-get install chromium",
    ) || !gateway::have("node", node_works(), "Node.js runs the page driver")
        || !gateway::have(
            "playwright-core",
            playwright_installed(),
            "npm ci in tests/clients/gateway",
        )
    {
        return;
    }
    let (text, _) = gateway::long_output();
    let text = format!(
        "{text}\nOne more check:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    );
    let middle = text.find("line 150:").unwrap();
    let script = Script::new(&text)
        .reasoning("The user wants a report written first, then the weather in Dallas.")
        .hold_at(middle)
        .delta_chars(6)
        .pace(Duration::from_micros(300));
    let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-page");
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(&tools, gateway::long_tools().to_string()).unwrap();
    let shot = dir.join("live-page.png");
    let driver = clients_dir().join("live_page.mjs");
    let up = upstream.clone();
    // The driver starts $CHROMIUM, else /usr/bin/chromium (inherited).
    let lines = run_lines(
        "node",
        &[
            driver.to_str().unwrap(),
            &url,
            QWEN,
            tools.to_str().unwrap(),
            shot.to_str().unwrap(),
        ],
        move |line| {
            if line["stage"] == "held" {
                assert_eq!(up.reached_blocking(0, 1), 1, "the upstream is held");
                assert_eq!(up.finished(), 0);
                let narrative = line["narrative"].as_str().unwrap();
                assert!(
                    narrative.contains("I will write the report to report.md"),
                    "{narrative}"
                );
                let html = line["narrativeHtml"].as_str().unwrap();
                assert!(html.contains("<h2>Plan</h2>"), "{html}");
                assert!(html.contains("<strong>write the report</strong>"), "{html}");
                assert!(html.contains("<code>report.md</code>"), "{html}");
                assert!(html.contains("<ol>"), "{html}");
                assert_eq!(line["reasoningShown"], true);
                assert_eq!(line["status"], "streaming");
                let cards = line["cards"].as_array().unwrap();
                assert_eq!(cards.len(), 1, "{cards:?}");
                assert_eq!(cards[0]["state"], "streaming");
                assert_eq!(cards[0]["name"], "write_file");
                assert!(cards[0]["args"].as_u64().unwrap() > 5_000);
                up.release(1);
            }
        },
    )
    .await;
    let done = lines
        .iter()
        .find(|l| l["stage"] == "done")
        .expect("the page finished");
    assert_eq!(done["failures"], json!([]));
    let cards = done["cards"].as_array().unwrap();
    let states: Vec<(&str, &str)> = cards
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [
            ("write_file", "complete"),
            ("get_current_weather", "complete"),
            ("get_current_weather", "invalid")
        ]
    );
    let args: Value = serde_json::from_str(cards[1]["args"].as_str().unwrap()).unwrap();
    assert_eq!(args["city"], "Dallas");
    assert!(
        cards[1]["args"].as_str().unwrap().contains("\n  \"city\""),
        "pretty JSON"
    );
    let errors = cards[2]["errors"].as_array().unwrap();
    assert!(
        errors.iter().any(|e| e.as_str().unwrap().contains("state")),
        "{errors:?}"
    );
    assert!(done["narrative"]
        .as_str()
        .unwrap()
        .ends_with("One more check:"));
    assert!(done["reasoning"]
        .as_str()
        .unwrap()
        .starts_with("The user wants a report"));
    assert!(done["status"]
        .as_str()
        .unwrap()
        .starts_with("done: tool_calls"));
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    if std::env::var_os("BLESS").is_some() {
        let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/live-page.png");
        std::fs::create_dir_all(keep.parent().unwrap()).unwrap();
        std::fs::write(keep, png).unwrap();
    }
}
