//! An upstream written on raw TCP, for the faults an HTTP server library
//! will not make: a connection reset before the answer, an answer that
//! breaks off, malformed SSE, silence, and a body of hundreds of
//! megabytes written as fast as the socket takes it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the upstream does with one connection, once it has read the
/// request.
#[derive(Debug, Clone)]
pub enum Act {
    /// Resets the connection (no answer at all).
    Reset,
    /// Writes these bytes (the head included), then closes.
    Write(Vec<u8>),
    /// Writes these bytes, then stays silent, holding the connection.
    WriteThenHang(Vec<u8>),
    /// Stays silent this long (no byte, not even the head), then writes
    /// these bytes and closes: an upstream slow to start its answer.
    WriteAfter(Duration, Vec<u8>),
    /// An SSE answer of `total` bytes of content chunks, written as fast as
    /// the socket takes them.
    Flood(u64),
}

/// The raw upstream.
#[derive(Clone)]
pub struct Raw {
    /// Its base URL, `/v1` included.
    pub url: String,
    connections: Arc<AtomicUsize>,
    written: Arc<AtomicU64>,
}

impl Raw {
    /// Starts it: connection `k` (from 0) gets `act(k)`.
    pub async fn start(act: impl Fn(usize) -> Act + Send + Sync + 'static) -> Raw {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let written = Arc::new(AtomicU64::new(0));
        let act = Arc::new(act);
        let (c, w) = (connections.clone(), written.clone());
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let k = c.fetch_add(1, Ordering::SeqCst);
                let act = act(k);
                let w = w.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, act, w).await;
                });
            }
        });
        Raw {
            url,
            connections,
            written,
        }
    }

    /// Connections taken so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Bytes of body written so far (by `Flood`).
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }
}

/// Reads one request: its head, then `content-length` bytes.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return Ok(());
        }
    }
}

async fn serve(mut stream: TcpStream, act: Act, written: Arc<AtomicU64>) -> std::io::Result<()> {
    read_request(&mut stream).await?;
    match act {
        Act::Reset => {
            // A zero linger sends a reset at once; the drop does not block.
            #[allow(deprecated)]
            stream.set_linger(Some(Duration::ZERO))?;
            drop(stream);
        }
        Act::Write(bytes) => {
            stream.write_all(&bytes).await?;
            stream.shutdown().await?;
        }
        Act::WriteAfter(wait, bytes) => {
            tokio::time::sleep(wait).await;
            stream.write_all(&bytes).await?;
            stream.shutdown().await?;
        }
        Act::WriteThenHang(bytes) => {
            stream.write_all(&bytes).await?;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Act::Flood(total) => {
            stream.write_all(sse_head().as_bytes()).await?;
            let piece = chunk("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            let block = piece.repeat(64);
            let mut sent = 0u64;
            while sent < total {
                stream.write_all(block.as_bytes()).await?;
                sent += block.len() as u64;
                written.fetch_add(block.len() as u64, Ordering::SeqCst);
            }
            stream.write_all(b"data: [DONE]\n\n").await?;
            stream.shutdown().await?;
        }
    }
    Ok(())
}

/// The head of an SSE answer whose body ends when the connection closes.
pub fn sse_head() -> String {
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n".into()
}

/// One chat chunk of `content`, as an SSE frame.
pub fn chunk(content: &str) -> String {
    let v = serde_json::json!({
        "id": "chatcmpl-raw", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}],
    });
    format!("data: {v}\n\n")
}

/// An SSE answer: the head and these frames.
pub fn answer(frames: &[String]) -> Vec<u8> {
    let mut out = sse_head();
    for f in frames {
        out.push_str(f);
    }
    out.into_bytes()
}

/// A whole, well-formed answer of `content`.
pub fn whole(content: &str) -> Vec<u8> {
    let end = serde_json::json!({
        "id": "chatcmpl-raw", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    });
    answer(&[
        chunk(content),
        format!("data: {end}\n\n"),
        "data: [DONE]\n\n".into(),
    ])
}
