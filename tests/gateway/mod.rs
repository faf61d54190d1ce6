//! Support for the gateway tests: an upstream test server that replays raw
//! model outputs as OpenAI chat chunks in small deltas and holds back at
//! given places until the test releases it, the gateway started in-process,
//! and a client that reads the gateway's SSE.
#![allow(dead_code)]

#[cfg(all(unix, feature = "cli"))]
pub mod process;
pub mod raw;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actionstream::serve::{self, ServeConfig};
use actionstream::sse::frame::{FrameDecoder, FrameItem};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch, Notify};

/// One choice of a replayed answer.
#[derive(Debug, Clone, Default)]
pub struct ChoiceScript {
    /// Sent first, as `delta.reasoning_content` (a server's reasoning
    /// parser).
    pub reasoning: String,
    /// The raw model output, sent as `delta.content`.
    pub content: String,
    /// The choice's `finish_reason`.
    pub finish: &'static str,
}

/// How the upstream streams one answer.
#[derive(Debug, Clone)]
pub struct Script {
    pub choices: Vec<ChoiceScript>,
    /// Byte offsets in choice 0's content: the upstream stops there until
    /// the test has released that hold ([`Upstream::release`]).
    pub holds: Vec<usize>,
    /// Characters per delta.
    pub delta_chars: usize,
    /// A pause after each delta.
    pub pace: Duration,
    /// A usage chunk before `[DONE]`.
    pub usage: bool,
    /// Piece sizes in characters, used in turn (instead of
    /// `delta_chars`) when not empty.
    pub sizes: Vec<usize>,
    /// Byte offset in choice 0's content where the connection breaks off
    /// (the body ends with an error, mid-answer).
    pub break_at: Option<usize>,
}

impl Script {
    /// One choice of `content`, streamed a few characters at a time.
    pub fn new(content: &str) -> Self {
        Script {
            choices: vec![ChoiceScript {
                reasoning: String::new(),
                content: content.to_owned(),
                finish: "stop",
            }],
            holds: Vec::new(),
            delta_chars: 4,
            pace: Duration::ZERO,
            usage: false,
            sizes: Vec::new(),
            break_at: None,
        }
    }

    /// Pieces of these sizes, in turn.
    pub fn sizes(mut self, sizes: Vec<usize>) -> Self {
        self.sizes = sizes;
        self
    }

    /// A usage chunk before `[DONE]` (10 prompt, 20 completion tokens).
    pub fn usage(mut self) -> Self {
        self.usage = true;
        self
    }

    /// The connection breaks off at byte `at` of the content.
    pub fn break_at(mut self, at: usize) -> Self {
        self.break_at = Some(at);
        self.holds.push(at);
        self
    }

    /// The choice finishes with this reason.
    pub fn finish(mut self, reason: &'static str) -> Self {
        self.choices[0].finish = reason;
        self
    }

    pub fn reasoning(mut self, text: &str) -> Self {
        self.choices[0].reasoning = text.to_owned();
        self
    }

    /// Holds back after the first occurrence of `marker` (after its end).
    pub fn hold_after(mut self, marker: &str) -> Self {
        let at = self.choices[0]
            .content
            .find(marker)
            .expect("the marker is in the content")
            + marker.len();
        self.holds.push(at);
        self
    }

    /// Holds back at byte `at` of the content.
    pub fn hold_at(mut self, at: usize) -> Self {
        self.holds.push(at);
        self
    }

    pub fn pace(mut self, pace: Duration) -> Self {
        self.pace = pace;
        self
    }

    pub fn delta_chars(mut self, n: usize) -> Self {
        self.delta_chars = n;
        self
    }
}

/// What the upstream answers a request with.
#[derive(Debug, Clone)]
pub enum Reply {
    Stream(Script),
    /// A non-streaming answer.
    Json(Value),
    /// An error status, its body and content type.
    Status(u16, String, &'static str),
}

/// A request the upstream received.
#[derive(Debug, Clone)]
pub struct Received {
    pub body: Value,
    pub authorization: Option<String>,
    pub path: String,
}

type Choose = dyn Fn(&Value) -> Reply + Send + Sync;

struct UpState {
    choose: Box<Choose>,
    received: Mutex<Vec<Received>>,
    released: watch::Sender<usize>,
    /// Streams whose client went away before their end.
    closed: AtomicUsize,
    /// Streams sent to their end.
    finished: AtomicUsize,
    /// Streams that have reached hold k (index k).
    reached: Mutex<Vec<usize>>,
    changed: Notify,
}

/// The upstream test server.
#[derive(Clone)]
pub struct Upstream {
    /// Its base URL, `/v1` included.
    pub url: String,
    state: Arc<UpState>,
}

impl Upstream {
    /// Starts an upstream on loopback that answers each chat completion
    /// with `choose(request)`.
    pub async fn start(choose: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Upstream {
        let (released, _) = watch::channel(0usize);
        let state = Arc::new(UpState {
            choose: Box::new(choose),
            received: Mutex::new(Vec::new()),
            released,
            closed: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            reached: Mutex::new(Vec::new()),
            changed: Notify::new(),
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", axum::routing::post(chat))
            .route("/v1/models", axum::routing::get(models))
            .route("/tokenize", axum::routing::post(tokenize))
            .with_state(state.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Upstream {
            url: format!("http://{addr}/v1"),
            state,
        }
    }

    /// Lets the streams go on past their first `holds` holds.
    pub fn release(&self, holds: usize) {
        self.state.released.send_replace(holds);
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap().clone()
    }

    pub fn closed(&self) -> usize {
        self.state.closed.load(Ordering::SeqCst)
    }

    pub fn finished(&self) -> usize {
        self.state.finished.load(Ordering::SeqCst)
    }

    /// How many streams have reached hold `k`.
    pub fn reached(&self, k: usize) -> usize {
        self.state
            .reached
            .lock()
            .unwrap()
            .get(k)
            .copied()
            .unwrap_or(0)
    }

    /// How many streams have reached hold `k`, once `n` have or 10 s
    /// passed, blocking this thread (a test's callback): the last piece
    /// before a hold goes out just before its stream counts itself held.
    pub fn reached_blocking(&self, k: usize, n: usize) -> usize {
        for _ in 0..1000 {
            if self.reached(k) >= n {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.reached(k)
    }

    /// Waits until `f` holds of this upstream (checked on every change),
    /// at most `limit`.
    pub async fn wait_for(&self, limit: Duration, f: impl Fn(&Upstream) -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let changed = self.state.changed.notified();
            if f(self) {
                return true;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return f(self);
            }
        }
    }
}

/// vLLM's `/tokenize` for chat messages: `{"count": N}`, here one token
/// per message (and the request recorded, path `/tokenize`).
async fn tokenize(State(state): State<Arc<UpState>>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let count = body["messages"].as_array().map_or(0, Vec::len);
    state.received.lock().unwrap().push(Received {
        body,
        authorization: None,
        path: "/tokenize".into(),
    });
    json_response(json!({"count": count, "max_model_len": 32768}))
}

async fn models() -> Response {
    json_response(json!({"object": "list", "data": [{"id": "test-model", "object": "model"}]}))
}

async fn chat(State(state): State<Arc<UpState>>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    state.received.lock().unwrap().push(Received {
        body: body.clone(),
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        path: "/v1/chat/completions".into(),
    });
    match (state.choose)(&body) {
        Reply::Status(status, text, content_type) => (
            StatusCode::from_u16(status).unwrap(),
            [("content-type", content_type)],
            text,
        )
            .into_response(),
        Reply::Json(v) => json_response(v),
        Reply::Stream(script) => {
            let model = body["model"].as_str().unwrap_or("test-model").to_owned();
            let (tx, rx) = mpsc::channel::<Bytes>(16);
            tokio::spawn(replay(state, script, model, tx));
            let stream = futures::stream::unfold(rx, |mut rx| async move {
                let b = rx.recv().await?;
                if b == BREAK {
                    let e = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "broken off");
                    return Some((Err(e), rx));
                }
                Some((Ok(b), rx))
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    }
}

/// What the replay sends to break the connection off.
const BREAK: &[u8] = b"\0break";

fn json_response(v: Value) -> Response {
    ([("content-type", "application/json")], v.to_string()).into_response()
}

enum Step {
    Frame(String),
    Hold(usize),
}

fn chunk(model: &str, index: usize, delta: Value, finish: Option<&str>) -> String {
    let v = json!({
        "id": "chatcmpl-upstream",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": index, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    format!("data: {v}\n\n")
}

/// Cuts `text` into pieces of `n` characters; `cuts` are byte offsets
/// where a piece must end.
fn pieces(text: &str, n: usize, cuts: &[usize]) -> Vec<(usize, String)> {
    sized_pieces(text, &[n], cuts)
}

/// As [`pieces`], the sizes used in turn.
fn sized_pieces(text: &str, sizes: &[usize], cuts: &[usize]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut piece = String::new();
    let mut count = 0;
    let mut start = 0;
    let mut turn = 0;
    for (at, c) in text.char_indices() {
        let n = sizes[turn % sizes.len()].max(1);
        if !piece.is_empty() && (count == n || cuts.contains(&at)) {
            out.push((start, std::mem::take(&mut piece)));
            count = 0;
            start = at;
            turn += 1;
        }
        piece.push(c);
        count += 1;
    }
    if !piece.is_empty() {
        out.push((start, piece));
    }
    out
}

fn steps(script: &Script, model: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for (i, _) in script.choices.iter().enumerate() {
        steps.push(Step::Frame(chunk(
            model,
            i,
            json!({"role": "assistant", "content": ""}),
            None,
        )));
    }
    let n = script.delta_chars.max(1);
    // Reasoning, then content, the choices interleaved piece by piece.
    for part in 0..2 {
        let lists: Vec<Vec<(usize, String)>> = script
            .choices
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if part == 0 {
                    pieces(&c.reasoning, n, &[])
                } else if i == 0 && !script.sizes.is_empty() {
                    sized_pieces(&c.content, &script.sizes, &script.holds)
                } else if i == 0 {
                    pieces(&c.content, n, &script.holds)
                } else {
                    pieces(&c.content, n, &[])
                }
            })
            .collect();
        let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
        for k in 0..longest {
            for (i, list) in lists.iter().enumerate() {
                let Some((at, piece)) = list.get(k) else {
                    continue;
                };
                if part == 1 && i == 0 {
                    for (h, &hold) in script.holds.iter().enumerate() {
                        if hold == *at {
                            steps.push(Step::Hold(h));
                        }
                    }
                }
                let key = if part == 0 {
                    "reasoning_content"
                } else {
                    "content"
                };
                steps.push(Step::Frame(chunk(model, i, json!({ key: piece }), None)));
            }
        }
    }
    let total = script.choices[0].content.len();
    for (h, &hold) in script.holds.iter().enumerate() {
        if hold >= total {
            steps.push(Step::Hold(h));
        }
    }
    for (i, c) in script.choices.iter().enumerate() {
        steps.push(Step::Frame(chunk(model, i, json!({}), Some(c.finish))));
    }
    if script.usage {
        let v = json!({
            "id": "chatcmpl-upstream", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": model, "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
        });
        steps.push(Step::Frame(format!("data: {v}\n\n")));
    }
    steps.push(Step::Frame("data: [DONE]\n\n".into()));
    steps
}

async fn replay(state: Arc<UpState>, script: Script, model: String, tx: mpsc::Sender<Bytes>) {
    let mut released = state.released.subscribe();
    for step in steps(&script, &model) {
        match step {
            Step::Frame(frame) => {
                if tx.send(Bytes::from(frame)).await.is_err() {
                    state.closed.fetch_add(1, Ordering::SeqCst);
                    state.changed.notify_waiters();
                    return;
                }
                if !script.pace.is_zero() {
                    tokio::time::sleep(script.pace).await;
                }
            }
            Step::Hold(k)
                if script
                    .break_at
                    .is_some_and(|at| script.holds.get(k) == Some(&at)) =>
            {
                tx.send(Bytes::from_static(BREAK)).await.ok();
                state.closed.fetch_add(1, Ordering::SeqCst);
                state.changed.notify_waiters();
                return;
            }
            Step::Hold(k) => {
                {
                    let mut reached = state.reached.lock().unwrap();
                    if reached.len() <= k {
                        reached.resize(k + 1, 0);
                    }
                    reached[k] += 1;
                }
                state.changed.notify_waiters();
                tokio::select! {
                    r = released.wait_for(|r| *r > k) => { r.unwrap(); }
                    () = tx.closed() => {
                        state.closed.fetch_add(1, Ordering::SeqCst);
                        state.changed.notify_waiters();
                        return;
                    }
                }
            }
        }
    }
    state.finished.fetch_add(1, Ordering::SeqCst);
    state.changed.notify_waiters();
}

/// Starts the gateway in-process on loopback; returns its base URL
/// (`http://127.0.0.1:PORT`).
pub async fn gateway(config: ServeConfig) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        serve::serve(listener, config).await.unwrap();
    });
    format!("http://{addr}")
}

/// One tool call as a client accumulates it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallSeen {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// How many argument fragments came.
    pub fragments: usize,
}

/// What a client has read of a streamed answer (choice 0 unless told).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub content: String,
    pub reasoning: String,
    pub calls: Vec<CallSeen>,
    pub finish: Option<String>,
    pub errors: Vec<String>,
    pub done: bool,
    /// The gateway's `event: actionstream` frames.
    pub ext: Vec<Value>,
    pub usage: Option<Value>,
    pub chunks: usize,
    pub ids: std::collections::BTreeSet<String>,
}

impl Answer {
    /// Takes one SSE frame.
    pub fn frame(&mut self, event: &str, data: &str, choice: u64) {
        if event == "actionstream" {
            self.ext.push(serde_json::from_str(data).unwrap());
            return;
        }
        assert!(event.is_empty(), "chat chunks have no event name: {event}");
        if data == "[DONE]" {
            self.done = true;
            return;
        }
        assert!(!self.done, "nothing after [DONE]");
        let v: Value = serde_json::from_str(data).unwrap();
        if let Some(e) = v.get("error") {
            self.errors
                .push(e["message"].as_str().unwrap_or("").to_owned());
            return;
        }
        self.chunks += 1;
        assert_eq!(v["object"], "chat.completion.chunk");
        self.ids.insert(v["id"].as_str().unwrap().to_owned());
        if let Some(u) = v.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(u.clone());
        }
        for c in v["choices"].as_array().unwrap() {
            if c["index"].as_u64() != Some(choice) {
                continue;
            }
            let d = &c["delta"];
            if let Some(t) = d["content"].as_str() {
                self.content.push_str(t);
            }
            if let Some(t) = d["reasoning_content"].as_str() {
                self.reasoning.push_str(t);
            }
            for tc in d["tool_calls"].as_array().into_iter().flatten() {
                let i = tc["index"].as_u64().unwrap() as usize;
                if i == self.calls.len() {
                    self.calls.push(CallSeen::default());
                }
                let call = &mut self.calls[i];
                if let Some(id) = tc["id"].as_str() {
                    call.id = id.to_owned();
                }
                if let Some(n) = tc["function"]["name"].as_str() {
                    call.name.push_str(n);
                }
                if let Some(a) = tc["function"]["arguments"].as_str() {
                    if !a.is_empty() {
                        call.fragments += 1;
                    }
                    call.arguments.push_str(a);
                }
            }
            if let Some(f) = c["finish_reason"].as_str() {
                self.finish = Some(f.to_owned());
            }
        }
    }

    /// The arguments of call `i` as JSON, once they parse.
    pub fn arguments(&self, i: usize) -> Option<Value> {
        self.calls
            .get(i)
            .and_then(|c| serde_json::from_str(&c.arguments).ok())
    }
}

/// Reads a streamed answer, calling `each` after every batch of frames
/// (return `false` to stop reading: the response is dropped).
pub async fn read_stream(
    response: reqwest::Response,
    choice: u64,
    mut each: impl FnMut(&Answer) -> bool,
) -> Answer {
    let mut answer = Answer::default();
    let mut decoder = FrameDecoder::new();
    let mut items = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(bytes) = body.next().await {
        decoder.push(&bytes.unwrap(), &mut items);
        for item in items.drain(..) {
            match item {
                FrameItem::Frame(f) => answer.frame(&f.event, &f.data, choice),
                FrameItem::Error(e) => panic!("malformed SSE from the gateway: {e}"),
            }
        }
        if !each(&answer) {
            return answer;
        }
    }
    answer
}

/// A streaming chat request body.
pub fn request(model: &str, tools: Value) -> Value {
    json!({
        "model": model,
        "stream": true,
        "messages": [{"role": "user", "content": "What is the weather in Dallas and Orlando?"}],
        "tools": tools,
    })
}

/// The OpenAI tool list of the weather sample.
pub fn weather_tools() -> Value {
    json!([{"type": "function", "function": {
        "name": "get_current_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "required": ["city", "state", "unit"], "properties": {
            "city": {"type": "string"}, "state": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        }},
    }}])
}

/// The raw model output of the weather sample (two parallel calls).
pub fn weather_output() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/dialects/qwen3_coder/vllm_parallel_tools.txt"
    ))
    .unwrap()
}

/// A longer output: narrative in Markdown, a `write_file` call whose
/// `content` is about 20 KB, a second call, a closing line.
pub fn long_output() -> (String, String) {
    let mut big = String::from("# Report\n\n");
    let mut i = 0;
    while big.len() < 20_000 {
        big.push_str(&format!(
            "- line {i}: \"quoted\" <tags> & symbols, tabs\tand unicode é ✓\n"
        ));
        i += 1;
    }
    let text = format!(
        "## Plan\n\nI will **write the report** to `report.md`, then check the *weather*:\n\n\
         1. write the file\n2. look up Dallas\n\n\
         <tool_call>\n<function=write_file>\n<parameter=path>\nreport.md\n</parameter>\n\
         <parameter=content>\n{big}\n</parameter>\n</function>\n</tool_call>\n\
         <tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n\
         <parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>\n\
         Both calls are on their way."
    );
    (text, big)
}

/// The tools of [`long_output`].
pub fn long_tools() -> Value {
    let mut tools = weather_tools();
    tools
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "function", "function": {
            "name": "write_file",
            "parameters": {"type": "object", "required": ["path", "content"], "properties": {
                "path": {"type": "string"}, "content": {"type": "string"},
            }},
        }}));
    tools
}

/// Whether a test that needs an outside tool must fail when it is missing.
pub fn clients_required() -> bool {
    std::env::var_os("ACTIONSTREAM_REQUIRE_CLIENTS").is_some_and(|v| !v.is_empty())
}

/// Skips (returns false, with a message) or fails when `tool` is missing.
pub fn have(tool: &str, ok: bool, why: &str) -> bool {
    if ok {
        return true;
    }
    assert!(
        !clients_required(),
        "{tool} is needed: {why}, and ACTIONSTREAM_REQUIRE_CLIENTS is set"
    );
    eprintln!(
        "SKIPPED: {tool} is missing ({why}); set ACTIONSTREAM_REQUIRE_CLIENTS to make this fail"
    );
    false
}
