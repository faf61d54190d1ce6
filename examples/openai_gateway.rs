//! A gateway that calls an OpenAI-compatible chat-completions endpoint
//! itself, streams the SSE response through the parser, and dispatches each
//! action to the handlers of a configuration file the moment it completes,
//! while the model is still writing.
//!
//! It speaks plain HTTP/1.1 over tokio (a local server such as Ollama, vLLM
//! or llama.cpp, or a TLS-terminating proxy in front of a hosted API), so
//! the build pulls in no HTTP or TLS stack. An `OPENAI_API_KEY` in the
//! environment is sent as a bearer token.
//!
//! ```text
//! cargo run --example openai_gateway -- \
//!     http://127.0.0.1:11434/v1/chat/completions llama3 "Plan the release" examples/agent.json
//! ```
//!
//! Narrative goes to standard error as it arrives; standard output gets one
//! JSON line per completed or invalid action and per handler result.

use std::path::Path;

use actionstream::dispatch::{DispatchResult, Dispatcher};
use actionstream::sse::{SseItem, SseParser};
use actionstream::{ConfigFile, Event};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, model, prompt, config_path] = args.as_slice() else {
        return Err("usage: openai_gateway URL MODEL PROMPT CONFIG.json".into());
    };
    let file = ConfigFile::load(Path::new(config_path)).map_err(|e| e.to_string())?;
    let config = file
        .apply(actionstream::Config::default())
        .map_err(|e| e.to_string())?;
    let base = Path::new(config_path).parent().unwrap_or(Path::new("."));
    let dispatcher = Dispatcher::from_config(&file.dispatch_config(Default::default()), base)
        .map_err(|e| e.to_string())?;
    let mut session = dispatcher.start();

    let (host, path) = split_url(url)?;
    let mut stream = TcpStream::connect(&host)
        .await
        .map_err(|e| format!("cannot connect to {host}: {e}"))?;
    let body = json!({
        "model": model,
        "stream": true,
        "messages": [{"role": "user", "content": prompt}],
    })
    .to_string();
    let auth = std::env::var("OPENAI_API_KEY")
        .map(|k| format!("Authorization: Bearer {k}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: text/event-stream\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("cannot send the request: {e}"))?;

    let mut reader = BufReader::new(stream);
    let chunked = read_head(&mut reader).await?;
    let mut parser = SseParser::new(config);
    let mut items = Vec::new();
    loop {
        let piece = if chunked {
            read_chunk(&mut reader).await?
        } else {
            let mut buf = vec![0u8; 8192];
            let n = reader.read(&mut buf).await.map_err(io)?;
            buf.truncate(n);
            buf
        };
        if piece.is_empty() {
            break;
        }
        parser.push(&piece, &mut items);
        show(&mut items, &session);
        while let Some(r) = session.try_next() {
            result(&r);
        }
    }
    parser.finish(&mut items);
    show(&mut items, &session);
    session.close();
    for r in session.finish().await {
        result(&r);
    }
    Ok(())
}

/// `http://host[:port]/path` into `host:port` and `/path`.
fn split_url(url: &str) -> Result<(String, String), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("only http:// URLs (put a TLS-terminating proxy in front of https)")?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = if host.contains(':') {
        host.to_owned()
    } else {
        format!("{host}:80")
    };
    let path = if path.is_empty() { "/" } else { path };
    Ok((host, path.to_owned()))
}

/// Reads the status line and headers; says whether the body is chunked.
async fn read_head(reader: &mut BufReader<TcpStream>) -> Result<bool, String> {
    let mut line = String::new();
    reader.read_line(&mut line).await.map_err(io)?;
    if !line.split_whitespace().nth(1).is_some_and(|s| s == "200") {
        return Err(format!("the endpoint answered: {}", line.trim()));
    }
    let mut chunked = false;
    loop {
        line.clear();
        if reader.read_line(&mut line).await.map_err(io)? == 0 || line.trim().is_empty() {
            return Ok(chunked);
        }
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
}

/// One piece of a chunked body; empty at its end.
async fn read_chunk(reader: &mut BufReader<TcpStream>) -> Result<Vec<u8>, String> {
    let mut line = String::new();
    if reader.read_line(&mut line).await.map_err(io)? == 0 {
        return Ok(Vec::new());
    }
    let size_text = line.trim().split(';').next().unwrap_or("");
    let size = usize::from_str_radix(size_text, 16)
        .map_err(|_| format!("a malformed chunk size: {:?}", line.trim()))?;
    let mut piece = vec![0u8; size];
    reader.read_exact(&mut piece).await.map_err(io)?;
    let mut crlf = [0u8; 2];
    if size > 0 {
        reader.read_exact(&mut crlf).await.map_err(io)?;
    }
    Ok(piece)
}

fn io(e: std::io::Error) -> String {
    format!("cannot read the response: {e}")
}

/// Prints the parser's output and hands completed actions to the session.
fn show(items: &mut Vec<SseItem>, session: &actionstream::dispatch::Session) {
    for item in items.drain(..) {
        match item {
            SseItem::Event(Event::Narrative(text)) => eprint!("{text}"),
            SseItem::Event(event @ Event::ActionComplete(_)) => {
                if let Event::ActionComplete(a) = &event {
                    println!(
                        "{}",
                        json!({"event": "action_complete", "id": a.id, "name": a.name, "arguments": a.arguments})
                    );
                }
                session.submit_event(&event);
            }
            SseItem::Event(Event::ActionInvalid(a)) => {
                let errors: Vec<String> = a.errors.iter().map(|e| e.to_string()).collect();
                println!(
                    "{}",
                    json!({"event": "action_invalid", "id": a.id, "name": a.name, "errors": errors})
                );
            }
            SseItem::Error(message) => eprintln!("\n[stream error] {message}"),
            _ => {}
        }
    }
}

fn result(r: &DispatchResult) {
    println!(
        "{}",
        json!({"event": "result", "id": r.id, "name": r.name, "ok": r.ok, "output": r.output, "error": r.error})
    );
}
