//! Draining the gateway on SIGTERM (contract, section 11): the built
//! `actionstream serve` run as a process, the signal sent with `kill`,
//! a stream open through it. Also its log lines: the first says the
//! gateway is open, one JSON line per request, never a key or a prompt;
//! and the process's own options: client keys, `--config FILE`.
#![cfg(all(feature = "serve", feature = "cli", unix))]

mod gateway;

use std::time::{Duration, Instant};

use gateway::process::Process;
use gateway::{Reply, Script, Upstream};
use serde_json::{json, Value};

const PROMPT: &str = "the secret prompt text";

fn request() -> Value {
    json!({"model": "qwen3-coder-test", "stream": true,
           "messages": [{"role": "user", "content": PROMPT}]})
}

/// Polls `/ready` until it answers `status`, at most 1 s.
async fn ready_turns(base: &str, status: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        if let Ok(r) = reqwest::get(format!("{base}/ready")).await {
            if r.status().as_u16() == status {
                return true;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn sigterm_lets_an_open_stream_finish_within_the_drain_time() {
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hello, world.").hold_at(5))).await;
    let mut gw = Process::start(&[
        "--upstream",
        &up.url,
        "--upstream-key-env",
        "ACTIONSTREAM_TEST_UPSTREAM_KEY",
        "--drain-seconds",
        "20",
    ]);
    assert!(ready_turns(&gw.base, 200).await);
    let response = reqwest::Client::new()
        .post(format!("{}/v1/chat/completions", gw.base))
        .json(&request())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        up.wait_for(Duration::from_secs(10), |u| u.reached(0) == 1)
            .await
    );

    gw.signal("TERM");
    assert!(ready_turns(&gw.base, 503).await, "/ready turns 503");
    // While the listener is still open, a new request is a 503.
    let refused = reqwest::Client::new()
        .post(format!("{}/v1/chat/completions", gw.base))
        .json(&request())
        .send()
        .await;
    let answered_503 = refused.is_ok();
    if let Ok(r) = refused {
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()["retry-after"], "1");
    }
    // Past the notice the listener is closed.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        reqwest::get(format!("{}/health", gw.base)).await.is_err(),
        "the listener closed"
    );

    up.release(1);
    let answer = gateway::read_stream(response, 0, |_| true).await;
    assert_eq!(answer.content, "Hello, world.");
    assert!(answer.errors.is_empty() && answer.done, "{answer:?}");
    let status = gw.exit_within(Duration::from_secs(10));
    assert!(status.success(), "{status:?}");

    let lines = gw.lines();
    assert!(lines[0].contains("open: no client keys"), "{lines:#?}");
    let access: Vec<Value> = lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["target"] == "actionstream::access")
        .collect();
    assert_eq!(
        access.len(),
        1 + usize::from(answered_503),
        "one line per request: {lines:#?}"
    );
    let ok = access.iter().find(|v| v["status"] == 200).unwrap();
    assert_eq!(ok["api"], "chat");
    assert_eq!(ok["route"], "*");
    assert_eq!(ok["model"], "qwen3-coder-test");
    assert_eq!(ok["calls"], 0);
    assert!(ok["ttfb_ms"].as_f64().unwrap() >= 0.0);
    assert!(ok["ms"].as_f64().unwrap() > 0.0);
    let all = lines.join("\n");
    assert!(!all.contains(PROMPT), "no prompt in the log");
    assert!(!all.contains("Hello, world"), "no answer in the log");
    assert!(!all.contains("sk-upstream-secret"), "no key in the log");
    assert!(!all.contains("/ready"), "health checks write no line");
}

#[tokio::test]
async fn a_stream_still_open_at_the_drain_deadline_ends_with_an_error_event() {
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hello, world.").hold_at(5))).await;
    let mut gw = Process::start(&["--upstream", &up.url, "--drain-seconds", "2"]);
    let response = reqwest::Client::new()
        .post(format!("{}/v1/chat/completions", gw.base))
        .json(&request())
        .send()
        .await
        .unwrap();
    assert!(
        up.wait_for(Duration::from_secs(10), |u| u.reached(0) == 1)
            .await
    );
    let signalled = Instant::now();
    gw.signal("TERM");
    let answer = gateway::read_stream(response, 0, |_| true).await;
    let took = signalled.elapsed();
    assert_eq!(answer.content, "Hello");
    assert_eq!(answer.errors.len(), 1, "{answer:?}");
    assert!(answer.errors[0].contains("drain time"), "{answer:?}");
    assert!(answer.done, "the answer still ends with [DONE]");
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(6),
        "{took:?}"
    );
    let status = gw.exit_within(Duration::from_secs(5));
    assert!(status.success(), "{status:?}");
    assert!(
        up.wait_for(Duration::from_secs(5), |u| u.closed() == 1)
            .await
    );
}

#[tokio::test]
async fn sigint_drains_too_and_an_idle_gateway_exits_at_once() {
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hi."))).await;
    let mut gw = Process::start(&["--upstream", &up.url]);
    let started = Instant::now();
    gw.signal("INT");
    let status = gw.exit_within(Duration::from_secs(5));
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

/// With client keys: no line says the gateway is open; a request with one
/// of the keys (`Authorization: Bearer`) is answered, one with another
/// (`x-api-key`) is a 401; the route's own key goes upstream, never the
/// client's; and no log line holds a key, the client's or the upstream's.
#[tokio::test]
async fn client_keys_are_checked_and_never_logged() {
    std::env::set_var(
        "ACTIONSTREAM_TEST_CLIENT_KEYS_LOG",
        "ck-secret-one,ck-secret-two",
    );
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hi."))).await;
    let gw = Process::start(&[
        "--upstream",
        &up.url,
        "--upstream-key-env",
        "ACTIONSTREAM_TEST_UPSTREAM_KEY",
        "--client-keys-env",
        "ACTIONSTREAM_TEST_CLIENT_KEYS_LOG",
    ]);
    let client = reqwest::Client::new();
    let url = format!("{}/v1/chat/completions", gw.base);
    let ok = client
        .post(&url)
        .bearer_auth("ck-secret-two")
        .json(&request())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(gateway::read_stream(ok, 0, |_| true).await.content, "Hi.");
    let denied = client
        .post(&url)
        .header("x-api-key", "ck-wrong-key")
        .json(&request())
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 401);
    assert_eq!(
        up.received()[0].authorization.as_deref(),
        Some("Bearer sk-upstream-secret")
    );

    let deadline = Instant::now() + Duration::from_secs(5);
    while gw.access().len() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut statuses: Vec<u64> = gw
        .access()
        .iter()
        .filter_map(|v| v["status"].as_u64())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 401], "one line per request");
    let all = gw.lines().join("\n");
    assert!(!all.contains("open: no client keys"), "{all}");
    for secret in [
        "ck-secret-one",
        "ck-secret-two",
        "ck-wrong-key",
        "sk-upstream-secret",
    ] {
        assert!(!all.contains(secret), "{secret} in the log:\n{all}");
    }
}

/// `serve --config FILE`: the file's routes and `client_keys_env` are
/// read, and `--upstream` beside them is the last, catch-all route.
#[tokio::test]
async fn a_config_files_routes_and_client_keys_are_served() {
    std::env::set_var("ACTIONSTREAM_TEST_FILE_KEYS", "fk-one");
    let routed = Upstream::start(|_| Reply::Stream(Script::new("Routed."))).await;
    let rest = Upstream::start(|_| Reply::Stream(Script::new("Rest."))).await;
    let dir = std::env::temp_dir().join(format!("actionstream-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("gateway.json");
    std::fs::write(
        &file,
        json!({
            "routes": [{"model": "coder-*", "upstream": [routed.url.clone()],
                        "upstream_model": "Qwen/Qwen3-Coder"}],
            "client_keys_env": "ACTIONSTREAM_TEST_FILE_KEYS",
        })
        .to_string(),
    )
    .unwrap();
    let gw = Process::start(&["--config", file.to_str().unwrap(), "--upstream", &rest.url]);
    let client = reqwest::Client::new();
    let url = format!("{}/v1/chat/completions", gw.base);
    let ask = |model: &str, key: Option<&str>| {
        let mut body = request();
        body["model"] = json!(model);
        let mut r = client.post(&url).json(&body);
        if let Some(k) = key {
            r = r.bearer_auth(k);
        }
        r.send()
    };
    assert_eq!(ask("coder-small", None).await.unwrap().status(), 401);
    let answer = gateway::read_stream(ask("coder-small", Some("fk-one")).await.unwrap(), 0, |_| {
        true
    })
    .await;
    assert_eq!(answer.content, "Routed.");
    assert_eq!(routed.received()[0].body["model"], "Qwen/Qwen3-Coder");
    let answer =
        gateway::read_stream(ask("llama-3", Some("fk-one")).await.unwrap(), 0, |_| true).await;
    assert_eq!(answer.content, "Rest.");
    assert_eq!(rest.received().len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
