//! [`Format::Events`](super::Format::Events): this crate's own JSON lines
//! ([`crate::wire`]), one object per line, exactly as `actionstream parse`
//! prints them.

use crate::event::Event;
use crate::wire;

/// The event's line, if it has one.
pub(super) fn event(e: &Event, out: &mut String) {
    if let Some(line) = wire::event_line(e) {
        out.push_str(&line.to_string());
        out.push('\n');
    }
}

/// A stream-level error line.
pub(super) fn error(message: &str, out: &mut String) {
    out.push_str(&wire::error_line(message).to_string());
    out.push('\n');
}
