//! A scripted OpenAI-compatible upstream for the gateway bench
//! (`bench/sections/60-gateway.sh`): `POST /v1/chat/completions` answers a
//! plain-text stream of `pieces` pieces, `pace_us` apart, with no calls.
//! Each piece's content is the time it was sent (nanoseconds since the
//! Unix epoch) and a space, so a client behind any gateway reads, for each
//! piece, how long it took to reach it (`examples/stream_load.rs`).
//!
//! It is Rust on tokio and axum (the gateway's own stack), so that at 1,000
//! streams on two cores the upstream costs little beside the gateways it
//! feeds; a Python server would spend more on its side than the gateway
//! being measured.
//!
//! ```text
//! cargo run --release --features serve --example scripted_upstream -- --listen 127.0.0.1:0
//! # prints: listening on http://127.0.0.1:PORT
//! curl -s 127.0.0.1:PORT/control -d '{"pieces": 1000, "pace_us": 5000, "hold_after": 1}'
//! curl -s 127.0.0.1:PORT/release -d ''    # lets held answers go on
//! ```
//!
//! `POST /control` sets the script for the answers that start after it:
//! `pieces`, `pace_us`, and `hold_after` (each answer stops after that many
//! pieces until `POST /release`, so that a bench can count open streams).

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use serde::Deserialize;
use tokio::sync::watch;
use tokio::time::Instant;

/// What the answers that start next look like.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    /// Pieces of text in one answer.
    pieces: usize,
    /// Time between two pieces, in microseconds (0: as fast as read).
    pace_us: u64,
    /// After this many pieces, wait for `POST /release`.
    hold_after: Option<usize>,
}

#[derive(Clone)]
struct Upstream {
    script: Arc<Mutex<Script>>,
    /// Bumped by `POST /release`; a held answer waits for a change.
    release: watch::Sender<u64>,
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let listen = match args.as_slice() {
        [flag, addr] if flag == "--listen" => addr.clone(),
        [] => "127.0.0.1:0".to_string(),
        _ => return Err("usage: scripted_upstream [--listen ADDR]".into()),
    };
    let upstream = Upstream {
        script: Arc::new(Mutex::new(Script {
            pieces: 1000,
            pace_us: 0,
            hold_after: None,
        })),
        release: watch::channel(0).0,
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(answer))
        .route("/control", post(control))
        .route("/release", post(release))
        .with_state(upstream);
    let listener = tokio::net::TcpListener::bind(&listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on http://{addr}");
    axum::serve(listener, app)
        .await
        .map_err(|e| format!("serving on {addr}: {e}"))
}

async fn control(State(up): State<Upstream>, body: Bytes) -> (StatusCode, String) {
    match serde_json::from_slice::<Script>(&body) {
        Ok(script) => {
            if let Ok(mut current) = up.script.lock() {
                *current = script;
            }
            (StatusCode::OK, format!("{script:?}\n"))
        }
        Err(e) => (
            StatusCode::BAD_REQUEST,
            format!("expected {{\"pieces\", \"pace_us\", \"hold_after\"}}: {e}\n"),
        ),
    }
}

async fn release(State(up): State<Upstream>) -> &'static str {
    up.release.send_modify(|n| *n += 1);
    "released\n"
}

/// One SSE event of a chat-completions stream, written without building a
/// JSON value (the stream's content is digits and spaces, or nothing).
fn chunk(content: &str, finish: Option<&str>) -> Bytes {
    let finish = finish.map_or("null".to_owned(), |f| format!("\"{f}\""));
    Bytes::from(format!(
        "data: {{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\
         \"model\":\"bench\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{content}\"}},\
         \"finish_reason\":{finish}}}]}}\n\n"
    ))
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Where an answer is: the next piece to send and when.
struct Answer {
    script: Script,
    sent: usize,
    start: Instant,
    held: Option<watch::Receiver<u64>>,
    done: bool,
}

async fn answer(State(up): State<Upstream>, body: Bytes) -> Response {
    let script = up.script.lock().map(|s| *s).unwrap_or(Script {
        pieces: 1000,
        pace_us: 0,
        hold_after: None,
    });
    let streamed = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("stream").and_then(|s| s.as_bool()))
        .unwrap_or(false);
    if !streamed {
        let text: String = (0..script.pieces).map(|_| "0 ").collect();
        let whole = serde_json::json!({
            "id": "chatcmpl-bench", "object": "chat.completion", "created": 1_700_000_000,
            "model": "bench",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": script.pieces, "total_tokens": script.pieces + 1},
        });
        return Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(whole.to_string()))
            .unwrap_or_default();
    }
    let state = Answer {
        script,
        sent: 0,
        start: Instant::now(),
        held: script.hold_after.map(|_| up.release.subscribe()),
        done: false,
    };
    let stream = futures::stream::unfold(state, |mut a| async move {
        if a.done {
            return None;
        }
        if a.sent == a.script.pieces {
            a.done = true;
            let mut end = chunk("", Some("stop")).to_vec();
            end.extend_from_slice(b"data: [DONE]\n\n");
            return Some((Ok::<_, std::io::Error>(Bytes::from(end)), a));
        }
        if let (Some(after), Some(rx)) = (a.script.hold_after, a.held.as_mut()) {
            if a.sent == after {
                // Held until the next release; then the rest goes on at
                // its pace from here.
                let _ = rx.changed().await;
                a.held = None;
                a.start = Instant::now() - pace(&a.script) * a.sent as u32;
            }
        }
        let due = a.start + pace(&a.script) * a.sent as u32;
        if due > Instant::now() {
            tokio::time::sleep_until(due).await;
        }
        a.sent += 1;
        Some((Ok(chunk(&format!("{} ", now_ns()), None)), a))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

fn pace(script: &Script) -> Duration {
    Duration::from_micros(script.pace_us)
}
