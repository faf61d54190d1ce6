//! A linear server-sent-events decoder, after the field rules of the HTML
//! standard ("9.2.6 Interpreting an event stream").
//!
//! The decoder is pushed bytes in chunks of any size. It scans each byte once:
//! complete lines are read straight from the chunk, and only the unfinished
//! tail of the last line is copied into `line`, to be continued by the next
//! push. Nothing already scanned is scanned again, whatever the chunk sizes
//! (unlike decoders that search their whole buffer for `\n\n` on every push).
//!
//! The rules:
//! - lines end with CRLF, LF or CR (a CR at the end of a chunk followed by an
//!   LF at the start of the next is one line ending);
//! - a UTF-8 byte order mark at the very start of the stream is dropped;
//! - a line starting with `:` is a comment;
//! - `field:value` (one space after the colon is dropped), or a bare `field`
//!   with an empty value;
//! - `data` appends its value and a line feed to the data buffer; `event`
//!   sets the event type; `id` sets the last event id (ignored if it holds
//!   NUL); `retry` sets the reconnection time if it is all ASCII digits;
//!   other fields are ignored;
//! - an empty line dispatches the event (data without its last line feed)
//!   if the data buffer is not empty, and resets the buffers.
//!
//! One departure from the standard, for recorded streams: at the end of the
//! input an unterminated last line is read as a line, and an event not yet
//! dispatched (no blank line after it) is dispatched rather than dropped, so
//! a file that ends with `data: [DONE]` and no blank line still ends well.
//!
//! Invalid UTF-8 in a line becomes U+FFFD. An event larger than
//! [`MAX_EVENT_BYTES`] is dropped and reported, so memory stays bounded.

use memchr::memchr2;

/// Events (all their lines together) larger than this are dropped.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The event type (`event:` field); empty when not given, which the
    /// standard reads as `message`.
    pub event: String,
    /// The data lines, joined with `\n`.
    pub data: String,
    /// The last event id seen so far (`id:` field).
    pub id: Option<String>,
}

/// What the decoder reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameItem {
    /// A dispatched event.
    Frame(Frame),
    /// An event that could not be kept.
    Error(String),
}

/// The decoder state between pushes.
///
/// ```
/// use actionstream::sse::frame::{Frame, FrameDecoder, FrameItem};
///
/// let mut decoder = FrameDecoder::new();
/// let mut out = Vec::new();
/// decoder.push(b"retry: 500\r\nevent: ping\r\ndata: a\r", &mut out);
/// decoder.push(b"\ndata:b\r\n\r\ndata: [DONE]", &mut out);
/// decoder.finish(&mut out);
/// assert_eq!(decoder.retry(), Some(500));
/// assert_eq!(out, [
///     FrameItem::Frame(Frame { event: "ping".into(), data: "a\nb".into(), id: None }),
///     FrameItem::Frame(Frame { event: String::new(), data: "[DONE]".into(), id: None }),
/// ]);
/// ```
#[derive(Debug, Default)]
pub struct FrameDecoder {
    /// The unfinished line carried over from the last push.
    line: Vec<u8>,
    /// The current line has bytes from an earlier push (maybe dropped).
    carried: bool,
    /// The last push ended in CR: an LF at the start of the next is skipped.
    skip_lf: bool,
    /// Whether the start of the stream (and so a BOM) is behind us.
    started: bool,
    /// Bytes of the stream start held while they may be a BOM.
    bom: Vec<u8>,
    data: String,
    /// Whether any `data` line came (the buffer may be empty yet).
    has_data: bool,
    event: String,
    last_id: Option<String>,
    retry: Option<u64>,
    /// Bytes in the event being read.
    size: usize,
    /// The event being read outgrew [`MAX_EVENT_BYTES`].
    overflow: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl FrameDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        FrameDecoder::default()
    }

    /// The reconnection time (`retry:` field) last set, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Pushes the next bytes; dispatched events are appended to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<FrameItem>) {
        if !self.started {
            // Hold the first bytes until we know whether they are a BOM.
            let want = BOM.len() - self.bom.len();
            let take = want.min(bytes.len());
            self.bom.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if !BOM.starts_with(&self.bom) || self.bom.len() == BOM.len() {
                self.started = true;
                let held = std::mem::take(&mut self.bom);
                if held != BOM {
                    self.scan(&held, out);
                }
            } else {
                return;
            }
        }
        self.scan(bytes, out);
    }

    /// Ends the stream: an unterminated last line is read, a pending event
    /// is dispatched.
    pub fn finish(&mut self, out: &mut Vec<FrameItem>) {
        if !self.started {
            self.started = true;
            let held = std::mem::take(&mut self.bom);
            self.scan(&held, out);
        }
        if std::mem::replace(&mut self.carried, false) && !self.overflow {
            let line = std::mem::take(&mut self.line);
            self.field(&line);
        }
        self.line.clear();
        self.dispatch(out);
        self.skip_lf = false;
    }

    fn scan(&mut self, mut bytes: &[u8], out: &mut Vec<FrameItem>) {
        if self.skip_lf && !bytes.is_empty() {
            self.skip_lf = false;
            if let Some((b'\n', rest)) = bytes.split_first() {
                bytes = rest;
            }
        }
        while let Some(i) = memchr2(b'\r', b'\n', bytes) {
            let (part, rest) = bytes.split_at(i);
            let ending = rest.first().copied();
            bytes = rest.get(1..).unwrap_or_default();
            if ending == Some(b'\r') {
                match bytes.first() {
                    Some(b'\n') => bytes = bytes.get(1..).unwrap_or_default(),
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            self.grow(part.len() + 1);
            let blank = part.is_empty() && !self.carried;
            self.carried = false;
            if blank {
                self.dispatch(out);
            } else if self.overflow {
                self.line.clear();
            } else if self.line.is_empty() {
                self.field(part);
            } else {
                let mut held = std::mem::take(&mut self.line);
                held.extend_from_slice(part);
                self.field(&held);
                // Keep the allocation for the next long line.
                held.clear();
                self.line = held;
            }
        }
        if !bytes.is_empty() {
            self.grow(bytes.len());
            self.carried = true;
            if !self.overflow {
                self.line.extend_from_slice(bytes);
            }
        }
    }

    /// Counts `n` more bytes of the event being read.
    fn grow(&mut self, n: usize) {
        self.size = self.size.saturating_add(n);
        if self.size > MAX_EVENT_BYTES && !self.overflow {
            self.overflow = true;
            self.line = Vec::new();
            self.data = String::new();
        }
    }

    /// Reads one non-empty line.
    fn field(&mut self, line: &[u8]) {
        if line.first() == Some(&b':') {
            return;
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(i) => {
                let value = line.get(i + 1..).unwrap_or_default();
                let value = value.strip_prefix(b" ").unwrap_or(value);
                (line.get(..i).unwrap_or_default(), value)
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
                self.has_data = true;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits too many for a u64 keep the time set before.
                self.retry = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .or(self.retry);
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<FrameItem>) {
        let event = std::mem::take(&mut self.event);
        let mut data = std::mem::take(&mut self.data);
        let has_data = std::mem::replace(&mut self.has_data, false);
        self.size = 0;
        if std::mem::replace(&mut self.overflow, false) {
            out.push(FrameItem::Error(format!(
                "a server-sent event larger than {MAX_EVENT_BYTES} bytes was dropped"
            )));
            return;
        }
        if !has_data {
            return;
        }
        if data.ends_with('\n') {
            data.pop();
        }
        out.push(FrameItem::Frame(Frame {
            event,
            data,
            id: self.last_id.clone(),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(chunks: &[&[u8]]) -> Vec<FrameItem> {
        let mut d = FrameDecoder::new();
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn every_split(input: &[u8]) -> Vec<FrameItem> {
        let whole = frames(&[input]);
        let bytewise: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(frames(&bytewise), whole, "one byte at a time");
        for at in 1..input.len() {
            let (a, b) = input.split_at(at);
            assert_eq!(frames(&[a, b]), whole, "split at {at}");
        }
        whole
    }

    fn frame(event: &str, data: &str, id: Option<&str>) -> FrameItem {
        FrameItem::Frame(Frame {
            event: event.into(),
            data: data.into(),
            id: id.map(Into::into),
        })
    }

    #[test]
    fn fields_and_line_endings() {
        let input =
            b"\xEF\xBB\xBF: comment\r\nevent: add\rdata: a\ndata:b\r\ndata\nid: 7\nretry: 300\n\n\
                      data:  two spaces\r\n\r\nid\nfoo: bar\ndata: x\n\n";
        let got = every_split(input);
        assert_eq!(
            got,
            [
                frame("add", "a\nb\n", Some("7")),
                frame("", " two spaces", Some("7")),
                frame("", "x", Some("")),
            ]
        );
    }

    #[test]
    fn blank_lines_without_data_dispatch_nothing() {
        assert_eq!(every_split(b"event: x\n\n\n: hi\n\n"), []);
        assert_eq!(every_split(b"data:\n\n"), [frame("", "", None)]);
    }

    #[test]
    fn pending_event_at_end_is_dispatched() {
        assert_eq!(every_split(b"data: [DONE]"), [frame("", "[DONE]", None)]);
        assert_eq!(every_split(b"data: 1\r"), [frame("", "1", None)]);
        assert_eq!(every_split(b"\xEF\xBB"), []);
        assert_eq!(every_split(b"\xEF\xBBdata"), []);
    }

    #[test]
    fn bom_only_at_start() {
        assert_eq!(
            every_split(b"data: \xEF\xBB\xBFx\n\n"),
            [frame("", "\u{FEFF}x", None)]
        );
        // A BOM-like prefix that is not a BOM is part of the first line.
        assert_eq!(every_split(b"\xEFdata: x\n\n").len(), 0);
    }

    #[test]
    fn invalid_retry_and_id_with_nul_are_ignored() {
        let mut d = FrameDecoder::new();
        let mut out = Vec::new();
        d.push(
            b"retry: 10x\nretry: 25\nretry: 3a\nid: a\0b\ndata: q\n\n",
            &mut out,
        );
        assert_eq!(d.retry(), Some(25));
        assert_eq!(out, [frame("", "q", None)]);
    }

    #[test]
    fn oversize_event_is_dropped_and_reported() {
        let mut d = FrameDecoder::new();
        let mut out = Vec::new();
        let big = vec![b'x'; 1 << 20];
        d.push(b"data: ", &mut out);
        for _ in 0..17 {
            d.push(&big, &mut out);
        }
        d.push(b"\n\ndata: ok\n\n", &mut out);
        assert!(matches!(out.first(), Some(FrameItem::Error(_))));
        assert_eq!(out.get(1), Some(&frame("", "ok", None)));
        assert!(d.line.capacity() < 1 << 20);
    }
}
