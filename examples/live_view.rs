//! A live view of a streaming response: narrative is printed the moment it
//! is certain, and each action as one line the moment its block closes.
//!
//! ```text
//! some-llm-client | cargo run --example live_view
//! cargo run --example live_view < tests/data/run_input.txt
//! ```

use std::io::{self, Read, Write};

use actionstream::{Event, Parser};

fn main() -> io::Result<()> {
    let mut parser = Parser::default();
    let mut events = Vec::new();
    let mut stdin = io::stdin().lock();
    let mut out = io::stdout().lock();
    let mut buf = [0u8; 4096];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        parser.push_bytes(&buf[..n], &mut events);
        show(&mut out, events.drain(..))?;
    }
    parser.finish(&mut events);
    show(&mut out, events.drain(..))?;
    writeln!(out)
}

fn show(out: &mut impl Write, events: impl Iterator<Item = Event>) -> io::Result<()> {
    for e in events {
        match e {
            Event::Narrative(text) => write!(out, "{text}")?,
            Event::ActionStarted { id, name, .. } => {
                let name = name.as_deref().unwrap_or("(unnamed)");
                writeln!(out, "\x1b[36m[#{id} {name} …]\x1b[0m")?;
            }
            Event::ActionComplete(a) => {
                writeln!(out, "\x1b[32m[#{} {} {}]\x1b[0m", a.id, a.name, a.arguments)?;
            }
            Event::ActionInvalid(a) => {
                let errors: Vec<String> = a.errors.iter().map(|e| e.to_string()).collect();
                let name = a.name.as_deref().unwrap_or("(unnamed)");
                writeln!(
                    out,
                    "\x1b[31m[#{} {name} invalid: {}]\x1b[0m",
                    a.id,
                    errors.join("; ")
                )?;
            }
            // Deltas are off unless the config asks for them.
            _ => {}
        }
    }
    out.flush()
}
