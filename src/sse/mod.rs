//! Server-sent events: placeholder until the SSE decoders land (issue 4).

use crate::{Config, Event};

/// One output of the SSE parser.
#[derive(Debug, Clone, PartialEq)]
pub enum SseItem {
    /// A parser event.
    Event(Event),
    /// A stream-level problem.
    Error(String),
}

/// Parses an SSE stream of an LLM provider.
#[derive(Debug)]
pub struct SseParser {
    _config: Config,
}

impl SseParser {
    /// A parser for one stream.
    pub fn new(config: Config) -> Self {
        SseParser { _config: config }
    }

    /// Pushes bytes of the stream.
    pub fn push(&mut self, _bytes: &[u8], _out: &mut Vec<SseItem>) {}

    /// Ends the stream.
    pub fn finish(&mut self, out: &mut Vec<SseItem>) {
        out.push(SseItem::Error("SSE input is not built yet".into()));
    }
}
