//! JSON lines, the protocols, and the human view.

use std::io::Write;

use actionstream::protocol::{Encoder, Format, Options};
use actionstream::{wire, Event, EventRef};
use serde_json::Value;

/// How events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One JSON object per line, or the frames of a protocol (the
    /// writer's encoder).
    Json,
    /// For people: narrative as text, actions as short coloured lines.
    Pretty,
    /// Only the counts, at the end.
    Summary,
}

/// Counts for `--summary`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub narrative_bytes: usize,
    pub actions: usize,
    pub invalid: usize,
}

/// Writes events in a style, keeping counts.
pub struct Writer<W: Write> {
    out: W,
    style: Style,
    encoder: Encoder,
    buf: String,
    pub counts: Counts,
}

impl<W: Write> Writer<W> {
    /// A writer of the JSON lines (or of `style`).
    pub fn new(out: W, style: Style) -> Self {
        Self::with_encoder(out, style, Encoder::new(Format::Events, Options::default()))
    }

    /// A writer of `encoder`'s format (used in the `Json` style).
    pub fn with_encoder(out: W, style: Style, encoder: Encoder) -> Self {
        Writer {
            out,
            style,
            encoder,
            buf: String::new(),
            counts: Counts::default(),
        }
    }

    /// Writes what the encoder appended to the buffer.
    fn emit(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.out.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes `e` (or, with `--summary`, only counts it). What is written
    /// stays in the output's buffer until [`Writer::flush`].
    pub fn event(&mut self, e: &Event) -> std::io::Result<()> {
        match e {
            Event::Narrative(t) => self.counts.narrative_bytes += t.len(),
            Event::ActionComplete(_) => self.counts.actions += 1,
            Event::ActionInvalid(_) => self.counts.invalid += 1,
            _ => {}
        }
        match self.style {
            Style::Json => {
                self.encoder.event(e, &mut self.buf);
                self.emit()
            }
            Style::Pretty => self.pretty(e),
            Style::Summary => Ok(()),
        }
    }

    /// Whether [`Writer::event_ref`] writes borrowed narrative as
    /// [`Writer::event`] writes it owned. Not for JSON lines: there each
    /// narrative event is a line, and the borrowing path may cut a push's
    /// narrative in two, so the lines (and the golden files) would change.
    pub fn borrows(&self) -> bool {
        self.style != Style::Json
    }

    /// [`Writer::event`] for an event lent by the borrowing push path:
    /// narrative is counted (or, for people, written) without a copy.
    pub fn event_ref(&mut self, e: EventRef<'_>) -> std::io::Result<()> {
        match (e, self.style) {
            (EventRef::Narrative(t), Style::Summary) => {
                self.counts.narrative_bytes += t.len();
                Ok(())
            }
            (EventRef::Narrative(t), Style::Pretty) => {
                self.counts.narrative_bytes += t.len();
                self.out.write_all(t.as_bytes())
            }
            (EventRef::Action(e), _) => self.event(e),
            (e, _) => self.event(&e.to_event()),
        }
    }

    /// Sends what has been written on: called once per batch of events, so
    /// that what one read of the input produced goes out in one write.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    /// Writes any other JSON line (errors, results).
    pub fn line(&mut self, v: &Value) -> std::io::Result<()> {
        match self.style {
            Style::Json => writeln!(self.out, "{v}")?,
            Style::Pretty => writeln!(self.out, "\x1b[2m{v}\x1b[0m")?,
            Style::Summary => {}
        }
        self.out.flush()
    }

    /// Writes a stream-level error line (sent on with the batch it is in).
    pub fn error(&mut self, message: &str) -> std::io::Result<()> {
        match self.style {
            Style::Pretty => writeln!(self.out, "\x1b[31m! {message}\x1b[0m"),
            Style::Json => {
                self.encoder.error(message, &mut self.buf);
                self.emit()
            }
            Style::Summary => Ok(()),
        }
    }

    /// Ends the output: the protocol's closing frames, or the summary line
    /// if asked for.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if self.style == Style::Json {
            self.encoder.finish(&mut self.buf);
            self.emit()?;
        }
        if self.style == Style::Summary {
            let c = self.counts;
            writeln!(
                self.out,
                "{}",
                wire::summary_line(c.narrative_bytes, c.actions, c.invalid)
            )?;
        }
        self.out.flush()
    }

    fn pretty(&mut self, e: &Event) -> std::io::Result<()> {
        match e {
            Event::Narrative(t) => write!(self.out, "{t}"),
            Event::ActionDelta { text, .. }
            | Event::ArgumentsDelta { json: text, .. }
            | Event::Reasoning(text) => {
                write!(self.out, "\x1b[2m{text}\x1b[0m")
            }
            Event::ActionStarted {
                id,
                name,
                syntax,
                tag,
            } => writeln!(
                self.out,
                "\x1b[36m▶ #{id} {} \x1b[2m({} {tag})\x1b[0m",
                name.as_deref().unwrap_or("(unnamed)"),
                syntax.as_str()
            ),
            Event::ActionComplete(a) => {
                let mut args = a.arguments.to_string();
                if args.len() > 120 {
                    let mut cut = 117;
                    while !args.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    args.truncate(cut);
                    args.push_str("...");
                }
                writeln!(self.out, "\x1b[32m✔ #{} {} {args}\x1b[0m", a.id, a.name)
            }
            Event::ActionInvalid(a) => {
                let errors: Vec<String> = a.errors.iter().map(|e| e.to_string()).collect();
                writeln!(
                    self.out,
                    "\x1b[31m✘ #{} {}: {}\x1b[0m",
                    a.id,
                    a.name.as_deref().unwrap_or("(unnamed)"),
                    errors.join("; ")
                )
            }
            _ => Ok(()),
        }
    }
}
