//! The gateway (`actionstream serve`, contract section 8) in front of an
//! upstream test server that replays raw model outputs in small deltas.
#![cfg(feature = "serve")]

mod gateway;

use std::time::Duration;

use actionstream::serve::ServeConfig;
use gateway::{Reply, Script, Upstream};
use serde_json::{json, Value};

const QWEN: &str = "Qwen/Qwen3-Coder-30B-A3B-Instruct";
const LIMIT: Duration = Duration::from_secs(30);

fn client() -> reqwest::Client {
    reqwest::Client::builder().build().unwrap()
}

async fn post(url: &str, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{url}/v1/chat/completions"))
        .json(body)
        .send()
        .await
        .unwrap()
}

fn dallas() -> Value {
    json!({"city": "Dallas", "state": "TX", "unit": "fahrenheit"})
}

fn orlando() -> Value {
    json!({"city": "Orlando", "state": "FL", "unit": "fahrenheit"})
}

/// The first call reaches the client while the upstream holds back
/// everything after that call's closing marker: the upstream is released
/// only when the client has the call whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_call_arrives_before_the_upstream_ends() {
    let upstream = Upstream::start(|_| {
        Reply::Stream(Script::new(&gateway::weather_output()).hold_after("</tool_call>"))
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let response = post(&url, &gateway::request(QWEN, gateway::weather_tools())).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    assert_eq!(response.headers()["x-actionstream-dialects"], "qwen3_coder");
    let up = upstream.clone();
    let mut released = false;
    let answer = tokio::time::timeout(
        LIMIT,
        gateway::read_stream(response, 0, move |a| {
            if !released && a.arguments(0).is_some() {
                // The call is whole and the upstream is still held.
                assert_eq!(a.arguments(0).unwrap(), dallas());
                assert_eq!(up.finished(), 0);
                assert_eq!(up.reached_blocking(0, 1), 1);
                assert_eq!(a.calls.len(), 1);
                assert!(a.finish.is_none() && !a.done);
                up.release(1);
                released = true;
            }
            true
        }),
    )
    .await
    .expect("the first call came before the upstream was released");
    assert_eq!(upstream.finished(), 1);
    assert!(answer.done);
    assert_eq!(answer.calls.len(), 2);
    assert_eq!(answer.calls[0].name, "get_current_weather");
    assert_eq!(answer.arguments(1).unwrap(), orlando());
    assert!(answer.calls[0].id.starts_with("call_"));
    assert_ne!(answer.calls[0].id, answer.calls[1].id);
    assert_eq!(answer.finish.as_deref(), Some("tool_calls"));
    assert!(answer.errors.is_empty(), "{:?}", answer.errors);
    assert!(answer.ext.is_empty(), "no extension frames unless asked");
    assert_eq!(answer.ids.len(), 1);
    // Only white space between the calls is narrative.
    assert_eq!(answer.content.trim(), "");
    // The request went upstream as it came.
    let received = upstream.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].body,
        gateway::request(QWEN, gateway::weather_tools())
    );
}

/// Reasoning from the upstream's `reasoning_content`, Markdown narrative,
/// a ~20 KB string parameter that streams in pieces while the upstream
/// is held inside it, and a second call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_parameter_streams_in_pieces_with_reasoning_passed_on() {
    let (text, big) = gateway::long_output();
    let middle = text.find("line 150:").unwrap();
    let script = Script::new(&text)
        .reasoning("The user wants a report. Then the weather.")
        .hold_at(middle)
        .hold_after("</tool_call>")
        .delta_chars(7);
    let upstream = Upstream::start(move |_| Reply::Stream(script.clone())).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let response = post(&url, &gateway::request(QWEN, gateway::long_tools())).await;
    let up = upstream.clone();
    let mut stage = 0;
    let answer = tokio::time::timeout(
        LIMIT,
        gateway::read_stream(response, 0, move |a| {
            if stage == 0
                && a.calls
                    .first()
                    .is_some_and(|c| c.arguments.contains("line 149:"))
            {
                // Held inside the parameter: what was written is out.
                assert_eq!(up.reached_blocking(0, 1), 1);
                assert!(a.reasoning.starts_with("The user wants a report."));
                assert!(a.content.contains("**write the report**"));
                assert_eq!(a.calls[0].name, "write_file");
                assert!(a.calls[0].fragments > 10, "{}", a.calls[0].fragments);
                assert!(a.arguments(0).is_none());
                up.release(1);
                stage = 1;
            } else if stage == 1 && a.arguments(0).is_some() {
                assert_eq!(up.reached_blocking(1, 1), 1);
                assert_eq!(up.finished(), 0);
                up.release(2);
                stage = 2;
            }
            true
        }),
    )
    .await
    .expect("the held parts came before the upstream was released");
    assert_eq!(
        answer.reasoning,
        "The user wants a report. Then the weather."
    );
    assert!(answer
        .content
        .starts_with("## Plan\n\nI will **write the report**"));
    assert!(answer.content.ends_with("Both calls are on their way."));
    assert_eq!(
        answer.arguments(0).unwrap(),
        json!({"path": "report.md", "content": big})
    );
    assert_eq!(answer.arguments(1).unwrap(), dallas());
    assert_eq!(answer.finish.as_deref(), Some("tool_calls"));
}

/// The same answer, not streamed: one message with the calls typed.
#[tokio::test]
async fn a_whole_answer_is_one_message_with_tool_calls() {
    let upstream = Upstream::start(|_| {
        Reply::Json(json!({
            "id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": QWEN,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant",
                "reasoning_content": "Two cities.",
                "content": format!("Checking both.\n{}", gateway::weather_output()),
            }}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
        }))
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let mut body = gateway::request(QWEN, gateway::weather_tools());
    body["stream"] = json!(false);
    let response = post(&url, &body).await;
    assert_eq!(response.status(), 200);
    let v: Value = response.json().await.unwrap();
    let message = &v["choices"][0]["message"];
    assert_eq!(
        message["content"], "Checking both.\n\n",
        "the narrative around the calls"
    );
    assert_eq!(message["reasoning_content"], "Two cities.");
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "get_current_weather");
    let args: Value =
        serde_json::from_str(calls[1]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, orlando());
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(v["usage"]["total_tokens"], 3, "the rest is kept");
}

/// `n: 2`: one parser per choice, each choice's chunks under its index.
#[tokio::test]
async fn each_choice_is_parsed_apart() {
    let upstream = Upstream::start(|_| {
        let mut script = Script::new(&gateway::weather_output());
        script.choices.push(gateway::ChoiceScript {
            reasoning: String::new(),
            content: "No call here, <b>just</b> text.".into(),
            finish: "length",
        });
        script.usage = true;
        Reply::Stream(script)
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let mut body = gateway::request(QWEN, gateway::weather_tools());
    body["n"] = json!(2);
    let text = post(&url, &body).await.text().await.unwrap();
    let mut a0 = gateway::Answer::default();
    let mut a1 = gateway::Answer::default();
    for frame in text.trim_end().split("\n\n") {
        let data = frame.strip_prefix("data: ").expect("data frames only");
        a0.frame("", data, 0);
        a1.frame("", data, 1);
    }
    assert_eq!(a0.calls.len(), 2);
    assert_eq!(a0.finish.as_deref(), Some("tool_calls"));
    assert!(a1.calls.is_empty());
    assert_eq!(a1.content, "No call here, <b>just</b> text.");
    assert_eq!(a1.finish.as_deref(), Some("length"), "passed on");
    assert_eq!(a0.usage.as_ref().unwrap()["total_tokens"], 30);
    assert_eq!(text.matches("data: [DONE]").count(), 1);
}

/// The extension frames the live page asks for, and an invalid call.
#[tokio::test]
async fn extension_frames_say_how_each_action_ended() {
    let output = format!(
        "{}\nAnd a broken one:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        gateway::weather_output()
    );
    let upstream = Upstream::start(move |_| Reply::Stream(Script::new(&output))).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let response = client()
        .post(format!("{url}/v1/chat/completions"))
        .header("x-actionstream-events", "1")
        .json(&gateway::request(QWEN, gateway::weather_tools()))
        .send()
        .await
        .unwrap();
    let answer = gateway::read_stream(response, 0, |_| true).await;
    assert_eq!(answer.calls.len(), 3);
    let states: Vec<(&str, Value)> = answer
        .ext
        .iter()
        .map(|e| (e["state"].as_str().unwrap(), e["index"].clone()))
        .collect();
    assert_eq!(
        states,
        [
            ("complete", json!(0)),
            ("complete", json!(1)),
            ("invalid", json!(2))
        ]
    );
    assert_eq!(answer.ext[0]["arguments"], dallas());
    let errors = answer.ext[2]["errors"].as_array().unwrap();
    assert!(
        errors.iter().any(|e| e.as_str().unwrap().contains("state")),
        "{errors:?}"
    );
    assert_eq!(answer.finish.as_deref(), Some("tool_calls"));
}

/// A malformed call is never a tool call (contract section 8's amendment):
/// a hermes call whose `arguments` is no object, streamed 1, 3 and 4
/// characters at a time, is text, and its extension frame has no index;
/// the non-streaming answer keeps it in `content`.
#[tokio::test]
async fn a_malformed_call_is_text_streamed_or_whole() {
    let broken =
        r#"<tool_call>{"name": "delete_branch", "arguments": "not an object"}</tool_call>"#;
    let output = format!("Cleaning up.\n{broken}");
    for n in [1, 3, 4] {
        let output = output.clone();
        let upstream =
            Upstream::start(move |_| Reply::Stream(Script::new(&output).delta_chars(n))).await;
        let url = gateway::gateway(ServeConfig::new(&upstream.url).dialect("hermes")).await;
        let response = client()
            .post(format!("{url}/v1/chat/completions"))
            .header("x-actionstream-events", "1")
            .json(&gateway::request("any-model", json!([])))
            .send()
            .await
            .unwrap();
        let answer = gateway::read_stream(response, 0, |_| true).await;
        assert!(answer.calls.is_empty(), "{n}: {:?}", answer.calls);
        assert_eq!(answer.content, format!("Cleaning up.\n{broken}"), "{n}");
        assert_eq!(answer.finish.as_deref(), Some("stop"), "{n}");
        assert_eq!(answer.ext.len(), 1, "{n}");
        assert_eq!(answer.ext[0]["state"], "invalid");
        assert_eq!(
            answer.ext[0]["index"],
            Value::Null,
            "{n}: it never went out"
        );
    }
    let upstream = Upstream::start(move |_| {
        Reply::Json(json!({
            "id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": format!("Cleaning up.\n{broken}"),
            }}],
        }))
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url).dialect("hermes")).await;
    let mut body = gateway::request("any-model", json!([]));
    body["stream"] = json!(false);
    let v: Value = post(&url, &body).await.json().await.unwrap();
    let message = &v["choices"][0]["message"];
    assert!(message.get("tool_calls").is_none(), "{v}");
    assert_eq!(message["content"], format!("Cleaning up.\n{broken}"));
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
}

/// `--calls complete`: a call goes out whole when it completes; one that
/// fails never goes out as a call, its text is narrative.
#[tokio::test]
async fn held_calls_go_out_whole_and_failed_ones_as_text() {
    let broken = "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
    let output = format!("{}\n{broken}", gateway::weather_output());
    let upstream = Upstream::start(move |_| Reply::Stream(Script::new(&output))).await;
    let config = ServeConfig::new(&upstream.url)
        .dialect("qwen3_coder")
        .calls(actionstream::protocol::Calls::Complete);
    let url = gateway::gateway(config).await;
    let response = post(
        &url,
        &gateway::request("any-model", gateway::weather_tools()),
    )
    .await;
    assert_eq!(response.headers()["x-actionstream-dialects"], "qwen3_coder");
    let answer = gateway::read_stream(response, 0, |_| true).await;
    assert_eq!(answer.calls.len(), 2);
    assert!(answer.calls.iter().all(|c| c.fragments == 1), "whole");
    assert_eq!(answer.arguments(1).unwrap(), orlando());
    assert!(answer.content.ends_with(broken), "{}", answer.content);
    assert_eq!(answer.finish.as_deref(), Some("tool_calls"));
}

#[tokio::test]
async fn bad_request_json_is_400_with_an_openai_error() {
    let upstream = Upstream::start(|_| Reply::Json(json!({}))).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    for (body, param) in [
        ("{\"model\": ", Value::Null),
        ("[1, 2]", Value::Null),
        (r#"{"model": "m", "stream": "yes"}"#, json!("stream")),
        (
            r#"{"model": "m", "tools": [{"type": "function"}]}"#,
            json!("tools"),
        ),
    ] {
        let response = client()
            .post(format!("{url}/v1/chat/completions"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let v: Value = response.json().await.unwrap();
        assert_eq!(v["error"]["type"], "invalid_request_error");
        assert!(v["error"]["message"].as_str().unwrap().len() > 10);
        assert_eq!(v["error"]["param"], param);
    }
    assert!(upstream.received().is_empty(), "nothing went upstream");
}

#[tokio::test]
async fn an_unreachable_upstream_is_502() {
    // A port that was free a moment ago.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = gateway::gateway(ServeConfig::new(format!("http://127.0.0.1:{port}/v1"))).await;
    for stream in [true, false] {
        let mut body = gateway::request(QWEN, gateway::weather_tools());
        body["stream"] = json!(stream);
        let response = post(&url, &body).await;
        assert_eq!(response.status(), 502);
        let v: Value = response.json().await.unwrap();
        assert_eq!(v["error"]["type"], "upstream_error");
        assert_eq!(v["error"]["code"], "upstream_unreachable");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("the upstream could not be reached"),
            "{v}"
        );
    }
}

#[tokio::test]
async fn an_upstream_error_status_is_passed_on_with_its_body() {
    let body = r#"{"error":{"message":"The model `nope` does not exist.","type":"NotFoundError","param":null,"code":404}}"#;
    let upstream = Upstream::start(move |request| {
        if request["model"] == "nope" {
            Reply::Status(404, body.to_owned(), "application/json")
        } else {
            Reply::Status(429, "slow down".to_owned(), "text/plain")
        }
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let response = post(&url, &gateway::request("nope", json!([]))).await;
    assert_eq!(response.status(), 404);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    assert_eq!(response.text().await.unwrap(), body);
    let response = post(&url, &gateway::request("other", json!([]))).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.text().await.unwrap(), "slow down");
}

/// A client that goes away mid-stream: the gateway drops its upstream
/// request, and the upstream sees its connection closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_cancels_its_upstream_request() {
    let upstream = Upstream::start(|_| {
        Reply::Stream(Script::new(&gateway::weather_output()).hold_after("</tool_call>"))
    })
    .await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let response = post(&url, &gateway::request(QWEN, gateway::weather_tools())).await;
    let answer = tokio::time::timeout(
        LIMIT,
        gateway::read_stream(response, 0, |a| a.arguments(0).is_none()),
    )
    .await
    .unwrap();
    // The response is dropped here, held at the first call.
    assert_eq!(answer.arguments(0).unwrap(), dallas());
    assert!(
        upstream
            .wait_for(Duration::from_secs(10), |u| u.reached(0) == 1
                && u.closed() == 1)
            .await,
        "the upstream saw its connection closed"
    );
    assert_eq!(upstream.finished(), 0);
}

#[tokio::test]
async fn the_page_and_the_model_list() {
    let upstream = Upstream::start(|_| Reply::Json(json!({}))).await;
    let url = gateway::gateway(ServeConfig::new(&upstream.url)).await;
    let page = client().get(format!("{url}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = page.text().await.unwrap();
    for needle in [
        "id=\"narrative\"",
        "id=\"reasoning\"",
        "/v1/chat/completions",
    ] {
        assert!(html.contains(needle), "{needle}");
    }
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no outside resource"
    );
    let models: Value = client()
        .get(format!("{url}/v1/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["data"][0]["id"], "test-model");
    let missing = client().get(format!("{url}/nope")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let v: Value = missing.json().await.unwrap();
    assert_eq!(v["error"]["type"], "invalid_request_error");
}

/// A writer into a shared buffer, for the log capture.
#[derive(Clone, Default)]
struct Capture(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every log line of a gateway with a key, at every level, through a
/// streamed answer, a whole one, a passed-on error, a cancelled stream and
/// an unreachable upstream: the key goes upstream and into no log line.
#[test]
fn the_upstream_key_is_never_logged() {
    const KEY: &str = "sk-test-9f8e7d6c5b4a-never-log-me";
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // One thread: every task of the gateway logs into the capture.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let work = async {
        let upstream = Upstream::start(|request| match request["model"].as_str() {
            Some("whole") => Reply::Json(json!({"choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": gateway::weather_output()}}]})),
            Some("denied") => Reply::Status(
                401,
                r#"{"error":{"message":"bad key"}}"#.into(),
                "application/json",
            ),
            Some("held") => {
                Reply::Stream(Script::new(&gateway::weather_output()).hold_after("</tool_call>"))
            }
            _ => Reply::Stream(Script::new(&gateway::weather_output())),
        })
        .await;
        let config = ServeConfig::new(&upstream.url)
            .upstream_key(KEY)
            .dialect("qwen3_coder");
        let url = gateway::gateway(config).await;
        let answer = gateway::read_stream(
            post(&url, &gateway::request(QWEN, gateway::weather_tools())).await,
            0,
            |_| true,
        )
        .await;
        assert_eq!(answer.calls.len(), 2);
        let mut whole = gateway::request("whole", gateway::weather_tools());
        whole["stream"] = json!(false);
        assert_eq!(post(&url, &whole).await.status(), 200);
        assert_eq!(
            post(&url, &gateway::request("denied", json!([])))
                .await
                .status(),
            401
        );
        let held = post(&url, &gateway::request("held", json!([]))).await;
        gateway::read_stream(held, 0, |a| a.arguments(0).is_none()).await;
        assert!(
            upstream
                .wait_for(Duration::from_secs(10), |u| u.closed() == 1)
                .await
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dead = gateway::gateway(
            ServeConfig::new(format!("http://127.0.0.1:{port}/v1")).upstream_key(KEY),
        )
        .await;
        assert_eq!(
            post(&dead, &gateway::request(QWEN, json!([])))
                .await
                .status(),
            502
        );
        upstream
    };
    let upstream = runtime
        .block_on(async { tokio::time::timeout(LIMIT, work).await })
        .expect("the requests end");
    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    for line in [
        "chat completion streamed",
        "chat completion answered",
        "the upstream answered an error status",
        "the client went away",
        "the upstream could not be reached",
    ] {
        assert!(logs.contains(line), "the log has {line:?}:\n{logs}");
    }
    assert!(!logs.contains(KEY), "the key is in the log:\n{logs}");
    assert!(!logs.contains("never-log-me"));
    for r in upstream.received() {
        assert_eq!(
            r.authorization.as_deref(),
            Some(format!("Bearer {KEY}").as_str())
        );
    }
}
