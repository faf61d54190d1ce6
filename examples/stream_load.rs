//! The load client of the gateway bench (`bench/sections/60-gateway.sh`):
//! opens `--streams` chat-completions streams at once against a URL (the
//! scripted upstream, `examples/scripted_upstream.rs`, or a gateway in
//! front of it), and for every piece of text that arrives takes its arrival
//! time minus the send time the upstream wrote into it. Prints one JSON
//! line: the delays' percentiles, the answers complete, the pieces read and
//! what went wrong.
//!
//! One process on tokio, hyper underneath (reqwest), so that 1,000 streams
//! cost the client little beside the gateway it measures.
//!
//! ```text
//! cargo run --release --features serve --example stream_load -- \
//!     --url http://127.0.0.1:PORT/v1/chat/completions --streams 100 --pieces 1000
//! ```
//!
//! `--hold`: the upstream holds every answer after its first piece; once
//! every stream has a piece (or ended without one), the client prints
//! `open N` on a line of its own, N the streams open (a bench then reads the
//! gateway's memory and releases the upstream), and reads the answers to
//! their end.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use serde_json::json;

struct Args {
    url: String,
    streams: usize,
    pieces: usize,
    model: String,
    hold: bool,
    deadline: Duration,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        url: String::new(),
        streams: 1,
        pieces: 1000,
        model: "bench".into(),
        hold: false,
        deadline: Duration::from_secs(120),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => args.url = value()?,
            "--streams" => args.streams = number(&flag, &value()?)?,
            "--pieces" => args.pieces = number(&flag, &value()?)?,
            "--model" => args.model = value()?,
            "--deadline-seconds" => {
                args.deadline = Duration::from_secs(number(&flag, &value()?)? as u64)
            }
            "--hold" => args.hold = true,
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    if args.url.is_empty() {
        return Err("usage: stream_load --url URL [--streams N] [--pieces N] [--model M] [--hold] [--deadline-seconds S]".into());
    }
    Ok(args)
}

fn number(flag: &str, text: &str) -> Result<usize, String> {
    text.parse()
        .map_err(|_| format!("{flag}: expected a whole number, got `{text}`"))
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// What one stream saw.
#[derive(Default)]
struct Seen {
    /// Each piece's delay, in nanoseconds.
    delays: Vec<u64>,
    done: bool,
    /// Cut at the deadline.
    cut: bool,
    error: Option<String>,
}

/// Reads one answer until `deadline`; `first` is called once, at its first
/// piece. A stream cut at the deadline keeps the pieces it had.
async fn one_stream(
    client: &reqwest::Client,
    args: &Args,
    deadline: tokio::time::Instant,
    first: impl FnOnce(),
) -> Seen {
    let mut seen = Seen {
        delays: Vec::with_capacity(args.pieces),
        ..Seen::default()
    };
    let body = json!({
        "model": args.model,
        "stream": true,
        "messages": [{"role": "user", "content": "bench"}],
    });
    let sent = tokio::time::timeout_at(deadline, client.post(&args.url).json(&body).send()).await;
    let response = match sent {
        Err(_) => {
            seen.cut = true;
            return seen;
        }
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            seen.error = Some(format!("request: {e}"));
            return seen;
        }
    };
    if !response.status().is_success() {
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        seen.error = Some(format!("status {status}: {}", text.trim()));
        return seen;
    }
    let mut first = Some(first);
    let mut bytes = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    let mut carry = String::new();
    loop {
        let piece = match tokio::time::timeout_at(deadline, bytes.next()).await {
            Err(_) => {
                seen.cut = true;
                return seen;
            }
            Ok(None) => break,
            Ok(Some(piece)) => piece,
        };
        let arrived = now_ns();
        let piece = match piece {
            Ok(p) => p,
            Err(e) => {
                seen.error = Some(format!(
                    "stream broke after {} pieces: {e}",
                    seen.delays.len()
                ));
                return seen;
            }
        };
        buffer.extend_from_slice(&piece);
        // Every whole line; a cut line waits for the rest.
        let mut start = 0;
        while let Some(end) = buffer[start..].iter().position(|&b| b == b'\n') {
            let line = &buffer[start..start + end];
            start += end + 1;
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.trim_ascii();
            if data == b"[DONE]" {
                seen.done = true;
                continue;
            }
            let Ok(event) = serde_json::from_slice::<Chunk>(data) else {
                continue;
            };
            if let Some(text) = event
                .choices
                .first()
                .and_then(|c| c.delta.content.as_deref())
            {
                carry.push_str(text);
            }
            if event.error.is_some() {
                seen.error = Some(format!("error event: {}", String::from_utf8_lossy(data)));
            }
        }
        buffer.drain(..start);
        // Each whole stamp (digits and a space) is one piece.
        let mut taken = 0;
        while let Some(space) = carry[taken..].find(' ') {
            if let Ok(sent) = carry[taken..taken + space].trim().parse::<u64>() {
                seen.delays.push(arrived.saturating_sub(sent));
                if let Some(f) = first.take() {
                    f();
                }
            }
            taken += space + 1;
        }
        carry.drain(..taken);
        if seen.done {
            break;
        }
    }
    seen
}

/// The part of a chat-completions chunk the client reads (typed, so that a
/// piece costs one small parse, not a map of every field).
#[derive(serde::Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    error: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Delta,
}

#[derive(serde::Deserialize, Default)]
struct Delta {
    content: Option<String>,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)] as f64 / 1000.0
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args = Arc::new(parse_args()?);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.streams)
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    // Streams that have their first piece, and streams settled (a first
    // piece, or an end without one).
    let opened = Arc::new(AtomicUsize::new(0));
    let settled = Arc::new(AtomicUsize::new(0));
    let settle = {
        let (opened, settled, streams, hold) =
            (opened.clone(), settled.clone(), args.streams, args.hold);
        move |with_piece: bool| {
            if with_piece {
                opened.fetch_add(1, Ordering::SeqCst);
            }
            if hold && settled.fetch_add(1, Ordering::SeqCst) + 1 == streams {
                println!("open {}", opened.load(Ordering::SeqCst));
            }
        }
    };
    let results = Arc::new(Mutex::new(Vec::<Seen>::new()));
    let began = Instant::now();
    let deadline = tokio::time::Instant::now() + args.deadline;
    let mut tasks = Vec::with_capacity(args.streams);
    for _ in 0..args.streams {
        let (client, args, results, settle) = (
            client.clone(),
            args.clone(),
            results.clone(),
            settle.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let seen = one_stream(&client, &args, deadline, || settle(true)).await;
            if seen.delays.is_empty() {
                settle(false);
            }
            if let Ok(mut all) = results.lock() {
                all.push(seen);
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let wall = began.elapsed().as_secs_f64();
    let all = std::mem::take(&mut *results.lock().map_err(|e| e.to_string())?);
    let mut delays: Vec<u64> = all.iter().flat_map(|s| s.delays.iter().copied()).collect();
    delays.sort_unstable();
    let complete = all
        .iter()
        .filter(|s| s.done && s.error.is_none() && s.delays.len() == args.pieces)
        .count();
    let mut errors: Vec<String> = all.iter().filter_map(|s| s.error.clone()).collect();
    errors.sort();
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for e in errors {
        let short: String = e.chars().take(300).collect();
        match kinds.last_mut() {
            Some((k, n)) if *k == short => *n += 1,
            _ => kinds.push((short, 1)),
        }
    }
    println!(
        "{}",
        json!({
            "streams": args.streams,
            "complete": complete,
            "cut": all.iter().filter(|s| s.cut).count(),
            "pieces": delays.len(),
            "p50_us": percentile(&delays, 0.50),
            "p99_us": percentile(&delays, 0.99),
            "max_us": percentile(&delays, 1.0),
            "wall_s": wall,
            "errors": kinds.iter().map(|(k, n)| json!({"count": n, "error": k})).collect::<Vec<_>>(),
        })
    );
    Ok(())
}
