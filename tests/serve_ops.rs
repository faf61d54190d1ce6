//! Operating the gateway (contract, section 11), over real loopback HTTP:
//! routes, retries before the first byte, the upstream's faults, limits,
//! client keys, health and metrics, and memory under a client that reads
//! nothing.
#![cfg(feature = "serve")]

mod common;
mod gateway;

use std::time::{Duration, Instant};

use actionstream::serve::{RouteSpec, ServeConfig};
use gateway::raw::{self, Act, Raw};
use gateway::{Reply, Script, Upstream};
use serde_json::{json, Value};

fn chat(model: &str) -> Value {
    json!({"model": model, "stream": true, "messages": [{"role": "user", "content": "hi"}]})
}

async fn post(base: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{base}/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn read(response: reqwest::Response) -> gateway::Answer {
    gateway::read_stream(response, 0, |_| true).await
}

async fn metrics(base: &str) -> String {
    reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// A port nothing listens on.
fn refusing_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

#[tokio::test]
async fn an_upstream_that_refuses_is_tried_three_times_then_502() {
    let base = gateway::gateway(ServeConfig::new(refusing_url())).await;
    let started = Instant::now();
    let response = post(&base, &chat("m")).await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstream_unreachable");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("after 3 tries"),
        "{body}"
    );
    // Backoff: 50 ms, then 100 ms.
    assert!(started.elapsed() >= Duration::from_millis(150));
    let text = metrics(&base).await;
    assert!(
        text.contains("actionstream_upstream_errors_total{kind=\"refused\"} 3"),
        "{text}"
    );
    assert!(
        text.contains("actionstream_upstream_retries_total{kind=\"refused\"} 2"),
        "{text}"
    );
}

#[tokio::test]
async fn a_refused_upstream_is_passed_over_for_the_next_one_of_its_route() {
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hello."))).await;
    let route = RouteSpec {
        model: "m*".into(),
        upstream: vec![refusing_url(), up.url.clone()],
        ..RouteSpec::default()
    };
    let base = gateway::gateway(ServeConfig::routed().routes(vec![route])).await;
    for _ in 0..4 {
        let answer = read(post(&base, &chat("m1")).await).await;
        assert_eq!(answer.content, "Hello.");
        assert!(answer.done && answer.errors.is_empty());
    }
    // The refusing one was tried once, then passed over for 10 s.
    let text = metrics(&base).await;
    assert!(
        text.contains("actionstream_upstream_errors_total{kind=\"refused\"} 1"),
        "{text}"
    );
    assert_eq!(up.received().len(), 4);
}

/// Two upstreams of one route take its requests in turn; a model no route
/// matches goes to `--upstream`, the last, catch-all route.
#[tokio::test]
async fn a_routes_upstreams_share_its_requests_round_robin_and_upstream_is_the_catch_all() {
    let one = Upstream::start(|_| Reply::Stream(Script::new("One."))).await;
    let two = Upstream::start(|_| Reply::Stream(Script::new("Two."))).await;
    let rest = Upstream::start(|_| Reply::Stream(Script::new("Rest."))).await;
    let route = RouteSpec {
        model: "m*".into(),
        upstream: vec![one.url.clone(), two.url.clone()],
        ..RouteSpec::default()
    };
    let base = gateway::gateway(ServeConfig::new(rest.url.clone()).routes(vec![route])).await;
    let mut said = Vec::new();
    for _ in 0..4 {
        let answer = read(post(&base, &chat("m1")).await).await;
        assert!(answer.done && answer.errors.is_empty(), "{answer:?}");
        said.push(answer.content);
    }
    assert!(
        said == ["One.", "Two.", "One.", "Two."] || said == ["Two.", "One.", "Two.", "One."],
        "{said:?}"
    );
    assert_eq!((one.received().len(), two.received().len()), (2, 2));
    assert_eq!(
        read(post(&base, &chat("other")).await).await.content,
        "Rest."
    );
    assert_eq!(rest.received().len(), 1);
}

/// An upstream that says nothing for a while before its answer is waited
/// for, never tried again (it would generate twice).
#[tokio::test]
async fn an_upstream_slow_to_start_is_waited_for_and_never_retried() {
    let up = Raw::start(|_| {
        Act::WriteAfter(
            Duration::from_millis(1500),
            raw::answer(&[raw::chunk("Late."), "data: [DONE]\n\n".into()]),
        )
    })
    .await;
    let base = gateway::gateway(ServeConfig::new(up.url.clone())).await;
    let started = Instant::now();
    let answer = read(post(&base, &chat("m")).await).await;
    assert!(started.elapsed() >= Duration::from_millis(1500));
    assert_eq!(answer.content, "Late.");
    assert!(answer.done && answer.errors.is_empty(), "{answer:?}");
    assert_eq!(up.connections(), 1, "one try only");
    assert!(!metrics(&base)
        .await
        .contains("actionstream_upstream_retries_total{"));
}

#[tokio::test]
async fn a_reset_before_the_first_byte_is_retried() {
    let up = Raw::start(|k| {
        if k < 2 {
            Act::Reset
        } else {
            Act::Write(raw::whole("Fine."))
        }
    })
    .await;
    let base = gateway::gateway(ServeConfig::new(up.url.clone())).await;
    let answer = read(post(&base, &chat("m")).await).await;
    assert_eq!(answer.content, "Fine.");
    assert!(answer.done && answer.errors.is_empty(), "{answer:?}");
    assert_eq!(up.connections(), 3);
    let text = metrics(&base).await;
    assert!(
        text.contains("actionstream_upstream_retries_total{kind=\"reset\"} 2"),
        "{text}"
    );
}

#[tokio::test]
async fn an_answer_that_breaks_off_ends_with_an_error_event_and_is_not_retried() {
    let up =
        Raw::start(|_| Act::Write(raw::answer(&[raw::chunk("Half"), raw::chunk(" way")]))).await;
    let base = gateway::gateway(ServeConfig::new(up.url.clone())).await;
    let response = post(&base, &chat("m")).await;
    assert_eq!(response.status(), 200);
    let answer = read(response).await;
    assert_eq!(answer.content, "Half way");
    assert_eq!(answer.errors.len(), 1, "{answer:?}");
    assert!(answer.done, "the answer still ends properly");
    assert_eq!(up.connections(), 1, "never retried after a byte");
    assert!(metrics(&base)
        .await
        .contains("actionstream_requests_total{api=\"chat\",route=\"*\",status=\"200\"} 1"));
}

#[tokio::test]
async fn malformed_sse_is_an_error_event() {
    let up = Raw::start(|_| {
        Act::Write(raw::answer(&[
            raw::chunk("Before"),
            "data: {\"choices\": [oops\n\n".into(),
            "data: [DONE]\n\n".into(),
        ]))
    })
    .await;
    let base = gateway::gateway(ServeConfig::new(up.url.clone())).await;
    let answer = read(post(&base, &chat("m")).await).await;
    assert_eq!(answer.content, "Before");
    assert_eq!(answer.errors.len(), 1, "{answer:?}");
    assert!(answer.done);
}

#[tokio::test]
async fn a_silent_upstream_ends_the_answer_at_the_idle_time() {
    let up = Raw::start(|_| Act::WriteThenHang(raw::answer(&[raw::chunk("Wait")]))).await;
    let base = gateway::gateway(ServeConfig::new(up.url.clone()).upstream_idle_seconds(0.5)).await;
    let started = Instant::now();
    let answer = read(post(&base, &chat("m")).await).await;
    let took = started.elapsed();
    assert_eq!(answer.content, "Wait");
    assert_eq!(answer.errors.len(), 1, "{answer:?}");
    assert!(
        answer.errors[0].contains("upstream-idle-seconds"),
        "{answer:?}"
    );
    assert!(answer.done);
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(metrics(&base)
        .await
        .contains("actionstream_upstream_errors_total{kind=\"idle\"} 1"));
}

#[tokio::test]
async fn an_upstream_error_status_is_passed_on_with_its_body() {
    for (status, body) in [
        (
            429,
            r#"{"error":{"message":"slow down","type":"rate_limit"}}"#,
        ),
        (500, r#"{"error":{"message":"boom","type":"server_error"}}"#),
    ] {
        let up =
            Upstream::start(move |_| Reply::Status(status, body.into(), "application/json")).await;
        let base = gateway::gateway(ServeConfig::new(up.url.clone())).await;
        let response = post(&base, &chat("m")).await;
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(response.text().await.unwrap(), body);
        assert_eq!(up.received().len(), 1, "an answered error is not retried");
    }
}

#[tokio::test]
async fn routes_choose_the_upstream_key_dialects_and_model_and_a_miss_is_a_404() {
    std::env::set_var("ACTIONSTREAM_TEST_ROUTE_KEY", "sk-route");
    let coder = Upstream::start(|_| {
        Reply::Stream(Script::new(
            "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>",
        ))
    })
    .await;
    let other = Upstream::start(|_| Reply::Stream(Script::new("Other."))).await;
    let routes = vec![
        RouteSpec {
            model: "Coder-*".into(),
            upstream: vec![coder.url.clone()],
            key_env: Some("ACTIONSTREAM_TEST_ROUTE_KEY".into()),
            dialects: vec!["qwen3_coder".into()],
            upstream_model: Some("Qwen/Qwen3-Coder".into()),
            tools: Some(json!([{"type": "function", "function": {"name": "f",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}}])),
        },
        RouteSpec {
            model: "gpt-?o".into(),
            upstream: vec![other.url.clone()],
            ..RouteSpec::default()
        },
    ];
    let base = gateway::gateway(ServeConfig::routed().routes(routes)).await;
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{base}/v1/chat/completions"))
        .bearer_auth("sk-client")
        .json(&chat("coder-small"))
        .send()
        .await
        .unwrap();
    let answer = read(response).await;
    assert_eq!(answer.calls.len(), 1, "{answer:?}");
    assert_eq!(
        answer.arguments(0),
        Some(json!({"n": 5})),
        "typed by the route's tools"
    );
    let seen = &coder.received()[0];
    assert_eq!(seen.authorization.as_deref(), Some("Bearer sk-route"));
    assert_eq!(seen.body["model"], "Qwen/Qwen3-Coder");

    let response = client
        .post(format!("{base}/v1/chat/completions"))
        .bearer_auth("sk-client")
        .json(&chat("gpt-4o"))
        .send()
        .await
        .unwrap();
    assert_eq!(read(response).await.content, "Other.");
    assert_eq!(
        other.received()[0].authorization.as_deref(),
        Some("Bearer sk-client"),
        "a route without its own key passes the client's on"
    );

    let response = post(&base, &chat("llama-3")).await;
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("llama-3") && message.contains("Coder-*, gpt-?o"),
        "{message}"
    );
    assert_eq!(body["error"]["type"], "invalid_request_error");
}

#[tokio::test]
async fn client_keys_limits_and_health_answer_in_the_api_shape() {
    std::env::set_var("ACTIONSTREAM_TEST_CLIENT_KEYS", "k1,k2");
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hello.").hold_at(2))).await;
    let config = ServeConfig::new(up.url.clone())
        .client_keys_env("ACTIONSTREAM_TEST_CLIENT_KEYS")
        .unwrap()
        .max_body_bytes(1000)
        .max_streams(1);
    let base = gateway::gateway(config).await;
    let client = reqwest::Client::new();
    let url = format!("{base}/v1/chat/completions");

    // 401 without a key, in OpenAI's shape; health, readiness and metrics
    // need none.
    let response = client.post(&url).json(&chat("m")).send().await.unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "authentication_error");
    for path in ["/health", "/ready", "/metrics"] {
        let r = client.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
    }

    // 413 over the body limit.
    let big = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(2000)}]});
    let response = client
        .post(&url)
        .header("x-api-key", "k2")
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--max-body-bytes"));

    // One stream open (held by the upstream): the second is a 503 with
    // Retry-After.
    let first = client
        .post(&url)
        .bearer_auth("k1")
        .json(&chat("m"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    let second = client
        .post(&url)
        .bearer_auth("k1")
        .json(&chat("m"))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 503);
    assert_eq!(second.headers()["retry-after"], "1");
    let body: Value = second.json().await.unwrap();
    assert_eq!(body["error"]["type"], "overloaded_error");
    up.release(1);
    assert_eq!(read(first).await.content, "Hello.");

    let text = metrics(&base).await;
    for line in [
        "actionstream_requests_total{api=\"chat\",route=\"-\",status=\"401\"} 1",
        "actionstream_requests_total{api=\"chat\",route=\"-\",status=\"413\"} 1",
        "actionstream_requests_total{api=\"chat\",route=\"-\",status=\"503\"} 1",
        "actionstream_requests_total{api=\"chat\",route=\"*\",status=\"200\"} 1",
        "actionstream_streams_in_flight 0",
        "actionstream_upstream_ttfb_seconds_count{route=\"*\"} 1",
        "actionstream_answer_duration_seconds_count{route=\"*\"} 1",
        "actionstream_calls_total",
    ] {
        if line == "actionstream_calls_total" {
            // No call in this answer: the family is declared, empty.
            assert!(text.contains("# TYPE actionstream_calls counter"), "{text}");
        } else {
            assert!(text.contains(line), "{line} missing in\n{text}");
        }
    }
    assert!(!text.contains("k1") && !text.contains("k2"));
    // `/health`, `/ready` and `/metrics` were asked and count as no
    // request: the four above are all.
    let counted: f64 = text
        .lines()
        .filter(|l| l.starts_with("actionstream_requests_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(counted, 4.0, "{text}");
}

#[tokio::test]
async fn calls_are_counted_by_dialect_and_outcome() {
    let up = Upstream::start(|_| {
        Reply::Stream(Script::new(
            "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>",
        ))
    })
    .await;
    let base = gateway::gateway(ServeConfig::new(up.url.clone()).dialect("qwen3_coder")).await;
    let answer = read(post(&base, &chat("m")).await).await;
    assert_eq!(answer.calls.len(), 1);
    let text = metrics(&base).await;
    assert!(
        text.contains("actionstream_calls_total{dialect=\"qwen3_coder\",outcome=\"complete\"} 1"),
        "{text}"
    );
}

/// The upstream writes 200 MB as fast as it can; the client sends its
/// request and reads nothing. The gateway reads the upstream only as fast
/// as the client takes the answer, so the upstream soon stalls, and the
/// memory the stalled answer costs (the peak resident set's growth from
/// after a first, whole answer, upstream and client included) stays under
/// 4 MiB.
#[test]
fn a_client_that_reads_nothing_costs_bounded_memory() {
    if common::rss::in_child() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (up, base) = rt.block_on(async {
            let up = Raw::start(|k| {
                if k == 0 {
                    Act::Write(raw::whole("warm"))
                } else {
                    Act::Flood(200 << 20)
                }
            })
            .await;
            let base = gateway::gateway(ServeConfig::new(up.url.clone())).await;
            // A first, whole answer: the runtime, the connection pools and
            // the parser are warm before the measure.
            assert_eq!(read(post(&base, &chat("m")).await).await.content, "warm");
            (up, base)
        });
        common::rss::report(|| {
            rt.block_on(async {
                use tokio::io::AsyncWriteExt;
                let addr = base.trim_start_matches("http://");
                let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
                let body = chat("m").to_string();
                let request = format!(
                    "POST /v1/chat/completions HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
                socket.write_all(request.as_bytes()).await.unwrap();
                // Wait until the upstream stalls.
                let mut last = 0;
                let mut still = 0;
                for _ in 0..200 {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let now = up.written();
                    if now == last && now > 0 {
                        still += 1;
                        if still >= 10 {
                            break;
                        }
                    } else {
                        still = 0;
                    }
                    last = now;
                }
                let written = up.written();
                println!("UPSTREAM_WRITTEN_KIB={}", written >> 10);
                assert!(written < 100 << 20, "the gateway read {written} bytes");
                drop(socket);
            });
        });
        return;
    }
    let growth = common::rss::growth_kib("a_client_that_reads_nothing_costs_bounded_memory");
    assert!(growth < 4 << 10, "grew {growth} KiB");
}

#[tokio::test]
async fn the_layer_answers_each_api_in_its_own_shape() {
    std::env::set_var("ACTIONSTREAM_TEST_SHAPE_KEYS", "k1");
    let up = Upstream::start(|_| Reply::Stream(Script::new("Hello."))).await;
    let route = RouteSpec {
        model: "claude-*".into(),
        upstream: vec![up.url.clone()],
        ..RouteSpec::default()
    };
    let config = ServeConfig::routed()
        .routes(vec![route])
        .client_keys_env("ACTIONSTREAM_TEST_SHAPE_KEYS")
        .unwrap()
        .max_body_bytes(2000);
    let base = gateway::gateway(config).await;
    let client = reqwest::Client::new();
    let messages = json!({"model": "claude-x", "max_tokens": 10,
                          "messages": [{"role": "user", "content": "hi"}]});
    let responses = json!({"model": "claude-x", "input": "hi"});
    let big = json!({"model": "claude-x", "input": "x".repeat(3000)});
    let miss = json!({"model": "gpt-4o", "max_tokens": 10, "input": "hi",
                      "messages": [{"role": "user", "content": "hi"}]});
    for (path, body, key, status) in [
        ("/v1/messages", &messages, None, 401),
        ("/v1/responses", &responses, None, 401),
        ("/v1/messages", &big, Some("k1"), 413),
        ("/v1/responses", &big, Some("k1"), 413),
        ("/v1/messages", &miss, Some("k1"), 404),
        ("/v1/responses", &miss, Some("k1"), 404),
    ] {
        let mut request = client.post(format!("{base}{path}")).json(body);
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{path}");
        let v: Value = response.json().await.unwrap();
        if path == "/v1/messages" {
            assert_eq!(v["type"], "error", "{v}");
            let kind = match status {
                401 => "authentication_error",
                413 => "request_too_large",
                _ => "not_found_error",
            };
            assert_eq!(v["error"]["type"], kind, "{v}");
        } else {
            assert!(v["error"]["message"].is_string(), "{v}");
        }
        if status == 404 {
            assert!(v["error"]["message"].as_str().unwrap().contains("claude-*"));
        }
    }
}
