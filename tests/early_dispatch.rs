//! Early dispatch over a real socket: a loopback HTTP/1.1 server streams a
//! chat-completions SSE response chunk by chunk and holds back the rest of
//! it until the handler of the first action has run. The test passes only
//! if the client dispatched that action before the response ended.
#![cfg(feature = "dispatch")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actionstream::dispatch::{handler_fn, DispatchOptions, Dispatcher};
use actionstream::sse::{SseItem, SseParser};
use actionstream::{Action, Config};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// The recorded response: up to the end of the first action, and the rest.
const FIRST: &str = "Let me check the weather first.\n\n```action\n{\"action\": \"get_weather\", \"city\": \"Paris\"}\n```\n";
const REST: &str = "Now I will note it down.\n\n<action_call name=\"note\">{\"text\": \"Paris: 21 C\"}</action_call>\n\nDone.";

/// One SSE event of an OpenAI chat-completions stream carrying a text delta.
fn delta_event(text: &str) -> String {
    let payload = json!({
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}}],
    });
    format!("data: {payload}\n\n")
}

/// The SSE events of `text`, cut into deltas of 7 bytes (ASCII text).
fn events(text: &str) -> Vec<String> {
    text.as_bytes()
        .chunks(7)
        .map(|c| delta_event(std::str::from_utf8(c).unwrap()))
        .collect()
}

/// Writes one HTTP/1.1 chunk and flushes it.
async fn send_chunk(sock: &mut TcpStream, data: &str) -> std::io::Result<()> {
    sock.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
        .await?;
    sock.flush().await
}

/// Serves one request: the first part, then waits for `handler_ran` (at most
/// 10 s), then the rest. Fails if the handler did not run first.
async fn serve(listener: TcpListener, handler_ran: oneshot::Receiver<()>) -> Result<(), String> {
    let (mut sock, _) = listener.accept().await.map_err(|e| e.to_string())?;
    // Read the request head.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = sock.read(&mut byte).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the client closed before its request ended".into());
        }
        head.push(byte[0]);
    }
    if !head.starts_with(b"POST /v1/chat/completions HTTP/1.1\r\n") {
        return Err(format!(
            "unexpected request: {}",
            String::from_utf8_lossy(&head)
        ));
    }
    let io = |e: std::io::Error| e.to_string();
    sock.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\n\r\n",
    )
    .await
    .map_err(io)?;
    for e in events(FIRST) {
        send_chunk(&mut sock, &e).await.map_err(io)?;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // Hold the rest back until the first action's handler has run.
    match tokio::time::timeout(Duration::from_secs(10), handler_ran).await {
        Ok(Ok(())) => {}
        Ok(Err(_)) => return Err("the handler's signal was dropped unsent".into()),
        Err(_) => return Err("the handler did not run before the response ended".into()),
    }
    for e in events(REST) {
        send_chunk(&mut sock, &e).await.map_err(io)?;
    }
    let stop = json!({
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    });
    send_chunk(&mut sock, &format!("data: {stop}\n\n"))
        .await
        .map_err(io)?;
    send_chunk(&mut sock, "data: [DONE]\n\n")
        .await
        .map_err(io)?;
    sock.write_all(b"0\r\n\r\n").await.map_err(io)?;
    sock.shutdown().await.map_err(io)
}

/// An incremental decoder of a chunked HTTP/1.1 body.
#[derive(Default)]
struct Dechunker {
    buf: Vec<u8>,
    /// Bytes left in the current chunk (plus its CRLF), when inside one.
    left: Option<usize>,
    done: bool,
}

impl Dechunker {
    /// Takes bytes from the socket; returns the body bytes now complete.
    fn push(&mut self, data: &[u8]) -> Result<Vec<u8>, String> {
        self.buf.extend_from_slice(data);
        let mut body = Vec::new();
        loop {
            match self.left {
                None => {
                    let Some(end) = self.buf.windows(2).position(|w| w == b"\r\n") else {
                        return Ok(body);
                    };
                    let line = String::from_utf8_lossy(&self.buf[..end]).to_string();
                    let size =
                        usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
                            .map_err(|e| format!("bad chunk size {line:?}: {e}"))?;
                    self.buf.drain(..end + 2);
                    if size == 0 {
                        self.done = true;
                        return Ok(body);
                    }
                    self.left = Some(size);
                }
                Some(size) => {
                    if self.buf.len() < size + 2 {
                        return Ok(body);
                    }
                    body.extend_from_slice(&self.buf[..size]);
                    if &self.buf[size..size + 2] != b"\r\n" {
                        return Err("a chunk does not end with CRLF".into());
                    }
                    self.buf.drain(..size + 2);
                    self.left = None;
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_action_is_dispatched_before_the_response_ends() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (signal, handler_ran) = oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, handler_ran));

    let response_ended = Arc::new(AtomicBool::new(false));
    let ran_while_streaming = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(Mutex::new(Some(signal)));
    let dispatcher = Dispatcher::new(DispatchOptions::default())
        .handler("get_weather", {
            let (ended, seen) = (response_ended.clone(), ran_while_streaming.clone());
            handler_fn(move |a: Action| {
                let (ended, seen, signal) = (ended.clone(), seen.clone(), signal.clone());
                async move {
                    seen.store(!ended.load(Ordering::SeqCst), Ordering::SeqCst);
                    if let Some(s) = signal.lock().unwrap_or_else(|e| e.into_inner()).take() {
                        let _ = s.send(());
                    }
                    Ok(json!({"city": a.arguments["city"], "temp_c": 21}))
                }
            })
        })
        .handler(
            "note",
            handler_fn(|a: Action| async move { Ok(json!({"noted": a.arguments["text"]})) }),
        );
    let session = dispatcher.start();

    let mut sock = TcpStream::connect(addr).await.unwrap();
    sock.write_all(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nContent-Length: 2\r\n\r\n{}",
    )
    .await
    .unwrap();

    let mut parser = SseParser::new(Config::default());
    let mut head = Vec::new();
    let mut in_body = false;
    let mut dechunker = Dechunker::default();
    let mut buf = vec![0u8; 4096];
    let mut narrative = String::new();
    let mut errors = Vec::new();
    let mut feed = |bytes: &[u8], finish: bool, parser: &mut SseParser| {
        let mut items = Vec::new();
        parser.push(bytes, &mut items);
        if finish {
            parser.finish(&mut items);
        }
        for item in items {
            match item {
                SseItem::Event(e) => {
                    if let actionstream::Event::Narrative(t) = &e {
                        narrative.push_str(t);
                    }
                    session.submit_event(&e);
                }
                SseItem::Error(m) => errors.push(m),
            }
        }
    };
    while !dechunker.done {
        let n = tokio::time::timeout(Duration::from_secs(20), sock.read(&mut buf))
            .await
            .expect("the server stalled")
            .unwrap();
        assert!(n > 0, "the server closed before the body ended");
        let data = &buf[..n];
        if !in_body {
            head.extend_from_slice(data);
            let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") else {
                continue;
            };
            let text = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
            assert!(text.starts_with("http/1.1 200"), "{text}");
            assert!(text.contains("transfer-encoding: chunked"), "{text}");
            let rest = head.split_off(end + 4);
            in_body = true;
            let body = dechunker.push(&rest).unwrap();
            feed(&body, dechunker.done, &mut parser);
            continue;
        }
        let body = dechunker.push(data).unwrap();
        if dechunker.done {
            response_ended.store(true, Ordering::SeqCst);
        }
        feed(&body, dechunker.done, &mut parser);
    }

    server.await.unwrap().expect("the server");
    assert!(
        ran_while_streaming.load(Ordering::SeqCst),
        "the handler ran only after the response ended"
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        narrative,
        "Let me check the weather first.\n\nNow I will note it down.\n\n\n\nDone."
    );
    let mut results = session.finish().await;
    results.sort_by_key(|r| r.id);
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(
        (results[0].name.as_str(), results[0].ok),
        ("get_weather", true)
    );
    assert_eq!(results[0].output, json!({"city": "Paris", "temp_c": 21}));
    assert_eq!((results[1].name.as_str(), results[1].ok), ("note", true));
    assert_eq!(results[1].output, json!({"noted": "Paris: 21 C"}));
}
