//! A minimal gateway: reads a model's response from standard input, as plain
//! text or as an SSE stream of an OpenAI-compatible or Anthropic endpoint
//! (told apart by its first bytes), and dispatches each action to the
//! built-in handlers of a configuration file the moment the action
//! completes. Narrative goes to standard error, one JSON result line per
//! handled action to standard output.
//!
//! ```text
//! curl -sN https://api.example.com/v1/chat/completions ... \
//!   | cargo run --example dispatch_gateway -- tests/data/run_config.json
//! cargo run --example dispatch_gateway -- tests/data/run_config.json < tests/data/run_input.txt
//! ```
//!
//! (It reads standard input rather than calling the endpoint itself: an HTTP
//! client with TLS would weigh more than the rest of the crate.)

use std::io::{self, Read, Write};
use std::path::Path;

use actionstream::dispatch::{Dispatcher, Session};
use actionstream::sse::{SseItem, SseParser};
use actionstream::{ConfigFile, Event, Parser};
use tokio::sync::mpsc;

enum Input {
    Undecided(Vec<u8>),
    Text(Box<Parser>),
    Sse(Box<SseParser>),
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: dispatch_gateway CONFIG.json < response")?;
    let file = ConfigFile::load(Path::new(&path)).map_err(|e| e.to_string())?;
    let config = file
        .apply(actionstream::Config::default())
        .map_err(|e| e.to_string())?;
    let base = Path::new(&path).parent().unwrap_or(Path::new("."));
    let dispatcher = Dispatcher::from_config(&file.dispatch_config(Default::default()), base)
        .map_err(|e| e.to_string())?;
    let mut session = dispatcher.start();

    // Standard input is read on a thread of its own, chunk by chunk as it arrives.
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut buf = [0u8; 8192];
        while let Ok(n) = stdin.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });

    let mut input = Input::Undecided(Vec::new());
    loop {
        tokio::select! {
            chunk = rx.recv() => match chunk {
                Some(bytes) => feed(&mut input, &config, &bytes, false, &session),
                None => break,
            },
            Some(r) = session.next() => println!("{}", actionstream::wire::result_line(&r)),
        }
    }
    feed(&mut input, &config, &[], true, &session);
    session.close();
    while let Some(r) = session.next().await {
        println!("{}", actionstream::wire::result_line(&r));
    }
    Ok(())
}

/// Pushes `bytes` into the parser (choosing text or SSE on the first
/// non-blank bytes) and submits each completed action.
fn feed(
    input: &mut Input,
    config: &actionstream::Config,
    bytes: &[u8],
    end: bool,
    session: &Session,
) {
    if let Input::Undecided(held) = input {
        held.extend_from_slice(bytes);
        let start = held.iter().position(|b| !b.is_ascii_whitespace());
        let decided = match start {
            Some(i) if held.len() - i >= 6 || end => true,
            _ => end,
        };
        if !decided {
            return;
        }
        let head = &held[start.unwrap_or(held.len())..];
        let sse = [&b"data:"[..], b"event:", b":", b"id:"]
            .iter()
            .any(|p| head.starts_with(p));
        let held = std::mem::take(held);
        *input = if sse {
            Input::Sse(Box::new(SseParser::new(config.clone())))
        } else {
            Input::Text(Box::new(Parser::new(config.clone())))
        };
        return feed_decided(input, &held, end, session);
    }
    feed_decided(input, bytes, end, session)
}

fn feed_decided(input: &mut Input, bytes: &[u8], end: bool, session: &Session) {
    let mut events = Vec::new();
    match input {
        Input::Undecided(_) => {}
        Input::Text(p) => {
            p.push_bytes(bytes, &mut events);
            if end {
                p.finish(&mut events);
            }
        }
        Input::Sse(p) => {
            let mut items = Vec::new();
            p.push(bytes, &mut items);
            if end {
                p.finish(&mut items);
            }
            for item in items {
                match item {
                    SseItem::Event(e) => events.push(e),
                    SseItem::Error(m) => eprintln!("\n[stream error: {m}]"),
                }
            }
        }
    }
    let mut err = io::stderr().lock();
    for e in &events {
        match e {
            Event::Narrative(t) => {
                let _ = write!(err, "{t}");
            }
            Event::ActionInvalid(a) => {
                let _ = writeln!(err, "\n[#{} invalid: {:?}]", a.id, a.errors);
            }
            _ => {}
        }
        session.submit_event(e);
    }
    let _ = err.flush();
}
