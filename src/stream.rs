//! Async adapters: parse a [`Stream`] of byte chunks, or an
//! [`AsyncRead`], as it arrives.
//!
//! [`ParseExt::parse_events`] turns any `Stream<Item = Result<B, E>>` whose
//! chunks are bytes (`B: AsRef<[u8]>`: `Bytes`, `String`,
//! `Vec<u8>`, `&[u8]`, …) into a stream of `Result<Event, Error<E>>`;
//! [`ParseExt::parse_sse`] does the same for a server-sent-event stream and
//! yields [`SseItem`]s. [`events_from_reader`] and [`sse_from_reader`] read
//! an [`AsyncRead`] (a socket, a child's stdout, a file).
//!
//! # How the adapter runs
//!
//! [`Decoded`] is built in the manner of tokio-util's `FramedImpl`: the
//! inner stream is pinned, the decoder state sits beside it, and
//! `poll_next` loops over a small state machine:
//!
//! ```text
//!                 queue not empty: yield the front item
//!                ┌──────────┐
//!                ▼          │
//!   ┌────────► Reading ─────┘
//!   │            │ queue empty: poll the inner stream
//!   │            ├─ Pending ──────────────► return Pending (nothing lost)
//!   │            ├─ Some(Ok(chunk)) ─► push it, queue its items ─┐
//!   └────────────┼───────────────────────────────────────────────┘
//!                ├─ None ─► finish the decoder, queue its items ─► Draining
//!                └─ Some(Err(e)) ────────────────────────────────► Failed(e)
//!
//!   Draining: yield the queue, then ───────────────────────────────► Done
//!   Failed(e): yield Err(e) once (the queue is empty there) ───────► Done
//!   Done: return None forever (fused)
//! ```
//!
//! **Backpressure.** The inner stream is polled only when the queue is
//! empty: one chunk is pulled, its items are yielded one by one, and only
//! then is the next chunk pulled. The queue holds the items of one chunk at
//! most, and the parser holds only what is not decided yet (bounded by the
//! block size limit), so a slow consumer slows the producer rather than
//! filling memory.
//!
//! **Fused.** After the inner stream ends, and after it yields an error
//! (which is passed through as [`Error::Transport`]), the adapter returns
//! `None` forever and never polls the inner stream again. After a transport
//! error the response is cut off: actions started and not ended stay so; the
//! error says why.
//!
//! **Many streams.** A stream made with [`ParseExt::parse_events`] builds
//! its own configuration (about 700 bytes of heap for the default one);
//! one made with [`ParseExt::parse_events_with`] and a
//! [`Parser::sibling`] of one template shares the template's, so an idle
//! stream costs only the adapter's own size. In a spawned task, take the
//! sibling inside the task (from an `Arc` or `Rc` of the template): a
//! parser moved into an `async move` block stays in the task's state
//! beside the adapter that it was moved into, so the task holds it twice.
//!
//! **Cancellation safety.** All state lives in the adapter, none in the
//! future of a `poll_next`: a chunk taken from the inner stream is pushed to
//! the parser and its items queued within the same poll, before that poll
//! returns. So dropping a `next()` future (as `tokio::select!` does when
//! another branch wins) loses nothing: the next call to `next()` yields the
//! same item the dropped one would have.

use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;
use pin_project_lite::pin_project;
use tokio::io::{AsyncRead, ReadBuf};

use crate::sse::{SseItem, SseParser};
use crate::{Config, Event, Parser};

/// An error of a parsing stream.
///
/// ```
/// use actionstream::stream::Error;
/// let e: Error<std::io::Error> = Error::Transport(std::io::Error::other("reset"));
/// assert_eq!(e.to_string(), "the input stream failed: reset");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error<E> {
    /// The inner stream yielded an error; it is passed through as it came.
    #[error("the input stream failed: {0}")]
    Transport(#[source] E),
}

/// A push decoder that a [`Decoded`] stream drives: the text [`Parser`] or
/// the [`SseParser`].
///
/// This trait is sealed: it is implemented for those two only.
///
/// ```
/// use actionstream::stream::Decoder;
/// use actionstream::Parser;
///
/// let mut parser = Parser::default();
/// let mut events = Vec::new();
/// Decoder::push(&mut parser, b"hello", &mut events);
/// Decoder::finish(&mut parser, &mut events);
/// assert_eq!(actionstream::narrative(&events), "hello");
/// ```
pub trait Decoder: sealed::Sealed {
    /// What the decoder yields.
    type Item;
    /// Pushes the next bytes; items made certain are appended to `out`.
    fn push(&mut self, bytes: &[u8], out: &mut Vec<Self::Item>);
    /// Ends the input; the items left are appended to `out`.
    fn finish(&mut self, out: &mut Vec<Self::Item>);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Parser {}
    impl Sealed for crate::sse::SseParser {}
}

impl Decoder for Parser {
    type Item = Event;

    fn push(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.push_bytes(bytes, out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        Parser::finish(self, out);
    }
}

impl Decoder for SseParser {
    type Item = SseItem;

    fn push(&mut self, bytes: &[u8], out: &mut Vec<SseItem>) {
        SseParser::push(self, bytes, out);
    }

    fn finish(&mut self, out: &mut Vec<SseItem>) {
        SseParser::finish(self, out);
    }
}

/// The most items a [`Decoded`] stream keeps room for between chunks; a
/// chunk that made more has its buffer freed once they are yielded.
const KEEP_ITEMS: usize = 32;

/// Where a [`Decoded`] stream stands (see the diagram in the module docs).
#[derive(Debug)]
enum State<E> {
    Reading,
    Draining,
    Failed(E),
    Done,
}

pin_project! {
    /// A stream of decoded items over a stream of byte chunks; made by
    /// [`ParseExt::parse_events`] ([`Events`]) and [`ParseExt::parse_sse`]
    /// ([`SseEvents`]).
    ///
    /// ```
    /// use actionstream::stream::{Decoded, ParseExt};
    /// use actionstream::{Config, Parser};
    /// use futures::{stream, StreamExt};
    ///
    /// let chunks = stream::iter([Ok::<_, std::io::Error>("hi")]);
    /// let events: Decoded<_, Parser> = chunks.parse_events(Config::default());
    /// let got = futures::executor::block_on(events.collect::<Vec<_>>());
    /// assert_eq!(got.len(), 1);
    /// ```
    #[must_use = "streams do nothing unless polled"]
    pub struct Decoded<S, D>
    where
        S: TryStreamItem,
        D: Decoder,
    {
        #[pin]
        inner: S,
        decoder: D,
        // The items of the last chunk not yet yielded, last first: the
        // decoder appends a chunk's items, they are reversed once, and
        // each is popped off the end. One buffer, no second copy.
        ready: Vec<D::Item>,
        state: State<<S as TryStreamItem>::Error>,
    }
}

/// The text parser over a stream of chunks: yields `Result<Event, Error<E>>`.
pub type Events<S> = Decoded<S, Parser>;

/// The SSE parser over a stream of chunks: yields `Result<SseItem, Error<E>>`.
pub type SseEvents<S> = Decoded<S, SseParser>;

/// The chunk and error types of a stream of `Result<B, E>`.
///
/// It names `B` and `E` for [`Decoded`], and is implemented for every
/// stream of results.
///
/// ```
/// fn error_of<S: actionstream::stream::TryStreamItem>(_: &S) -> &'static str {
///     std::any::type_name::<S::Error>()
/// }
/// let s = futures::stream::iter([Ok::<String, std::fmt::Error>(String::new())]);
/// assert!(error_of(&s).ends_with("Error"));
/// ```
pub trait TryStreamItem {
    /// The chunk type.
    type Chunk;
    /// The error type.
    type Error;
}

impl<S, B, E> TryStreamItem for S
where
    S: Stream<Item = Result<B, E>> + ?Sized,
{
    type Chunk = B;
    type Error = E;
}

impl<S, D> Decoded<S, D>
where
    S: TryStreamItem,
    D: Decoder,
{
    /// An adapter that drives `decoder` over `inner`.
    ///
    /// ```
    /// use actionstream::stream::Decoded;
    /// use actionstream::Parser;
    /// use futures::StreamExt;
    ///
    /// let inner = futures::stream::iter([Ok::<_, std::io::Error>(b"ok".to_vec())]);
    /// let events = Decoded::new(inner, Parser::default());
    /// let got = futures::executor::block_on(events.collect::<Vec<_>>());
    /// assert!(matches!(&got[..], [Ok(actionstream::Event::Narrative(t))] if t == "ok"));
    /// ```
    pub fn new(inner: S, decoder: D) -> Self {
        Decoded {
            inner,
            decoder,
            ready: Vec::new(),
            state: State::Reading,
        }
    }

    /// The decoder, for its counters (e.g. [`Parser::replaced`]).
    ///
    /// ```
    /// use actionstream::stream::ParseExt;
    /// use actionstream::Config;
    ///
    /// let events = futures::stream::empty::<Result<Vec<u8>, std::io::Error>>()
    ///     .parse_events(Config::default());
    /// assert_eq!(events.decoder().replaced(), 0);
    /// ```
    pub fn decoder(&self) -> &D {
        &self.decoder
    }
}

impl<S, B, E, D> Stream for Decoded<S, D>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    D: Decoder,
{
    type Item = Result<D::Item, Error<E>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            if let Some(item) = this.ready.pop() {
                return Poll::Ready(Some(Ok(item)));
            }
            if this.ready.capacity() > KEEP_ITEMS {
                // A chunk with many items: do not hold their room while
                // the stream waits.
                *this.ready = Vec::new();
            }
            match std::mem::replace(this.state, State::Done) {
                State::Done | State::Draining => return Poll::Ready(None),
                State::Failed(e) => return Poll::Ready(Some(Err(Error::Transport(e)))),
                State::Reading => {}
            }
            match this.inner.as_mut().poll_next(cx) {
                Poll::Pending => {
                    *this.state = State::Reading;
                    return Poll::Pending;
                }
                Poll::Ready(Some(Ok(chunk))) => {
                    *this.state = State::Reading;
                    this.decoder.push(chunk.as_ref(), this.ready);
                    this.ready.reverse();
                }
                Poll::Ready(Some(Err(e))) => {
                    tracing::debug!("actionstream: the input stream failed; the stream ends");
                    *this.state = State::Failed(e);
                }
                Poll::Ready(None) => {
                    this.decoder.finish(this.ready);
                    this.ready.reverse();
                    *this.state = State::Draining;
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self.state {
            State::Reading => (self.ready.len(), None),
            State::Draining => (self.ready.len(), Some(self.ready.len())),
            State::Failed(_) => (1, Some(1)),
            State::Done => (0, Some(0)),
        }
    }
}

impl<S, B, E, D> futures::stream::FusedStream for Decoded<S, D>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    D: Decoder,
{
    fn is_terminated(&self) -> bool {
        matches!(self.state, State::Done) && self.ready.is_empty()
    }
}

impl<S, D> fmt::Debug for Decoded<S, D>
where
    S: TryStreamItem + fmt::Debug,
    D: Decoder + fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoded")
            .field("inner", &self.inner)
            .field("decoder", &self.decoder)
            .field("queued", &self.ready.len())
            .finish_non_exhaustive()
    }
}

/// Parsing adapters for any stream of byte chunks.
///
/// ```
/// use actionstream::stream::ParseExt;
/// use actionstream::{Config, Event};
/// use futures::{stream, StreamExt};
///
/// let chunks = stream::iter(["Sure.\n<action_call name=\"se", "arch\">{\"q\": 1}</action_call>"])
///     .map(Ok::<_, std::io::Error>);
/// let events: Vec<Event> = futures::executor::block_on(
///     chunks
///         .parse_events(Config::default())
///         .map(|e| e.expect("no transport error"))
///         .collect(),
/// );
/// assert!(matches!(&events[1], Event::ActionStarted { name: Some(n), .. } if n == "search"));
/// ```
pub trait ParseExt<B, E>: Stream<Item = Result<B, E>> + Sized
where
    B: AsRef<[u8]>,
{
    /// Parses the chunks as the response text (bytes; a chunk may end inside
    /// a UTF-8 character), yielding its events.
    ///
    /// ```
    /// use actionstream::stream::ParseExt;
    /// use actionstream::Config;
    /// use bytes::Bytes;
    /// use futures::{stream, StreamExt};
    ///
    /// let chunks = stream::iter([Bytes::from_static(b"caf\xc3"), Bytes::from_static(b"\xa9")])
    ///     .map(Ok::<_, std::io::Error>);
    /// let events = futures::executor::block_on(chunks.parse_events(Config::default()).collect::<Vec<_>>());
    /// let text: String = events.into_iter().filter_map(|e| match e {
    ///     Ok(actionstream::Event::Narrative(t)) => Some(t),
    ///     _ => None,
    /// }).collect();
    /// assert_eq!(text, "café");
    /// ```
    fn parse_events(self, config: Config) -> Events<Self> {
        Decoded::new(self, Parser::new(config))
    }

    /// Parses the chunks as the response text with `parser`: the way to
    /// share one configuration among many streams. Each stream takes a
    /// [`Parser::sibling`] of one template, which shares the template's
    /// configuration (and its compiled dialects) instead of building its own,
    /// so a stream costs only its own state (see "Many streams" in the
    /// [module docs](self)).
    ///
    /// ```
    /// use actionstream::stream::ParseExt;
    /// use actionstream::{Config, Event, Parser};
    /// use futures::{stream, StreamExt};
    ///
    /// let template = Parser::new(Config::default().fence_tag("plan"));
    /// let responses = ["```plan\n{\"action\": \"a\"}\n```", "```plan\n{\"action\": \"b\"}\n```"];
    /// let names: Vec<String> = futures::executor::block_on(async {
    ///     let mut names = Vec::new();
    ///     for text in responses {
    ///         let chunks = stream::iter(text.as_bytes().chunks(4)).map(Ok::<_, std::io::Error>);
    ///         let mut events = chunks.parse_events_with(template.sibling());
    ///         while let Some(event) = events.next().await {
    ///             if let Ok(Event::ActionComplete(a)) = event {
    ///                 names.push(a.name.clone());
    ///             }
    ///         }
    ///     }
    ///     names
    /// });
    /// assert_eq!(names, ["a", "b"]);
    /// ```
    fn parse_events_with(self, parser: Parser) -> Events<Self> {
        Decoded::new(self, parser)
    }

    /// Parses the chunks as a server-sent-event stream (OpenAI chat
    /// completions or Anthropic Messages), yielding [`SseItem`]s.
    ///
    /// ```
    /// use actionstream::stream::ParseExt;
    /// use actionstream::sse::SseItem;
    /// use actionstream::{Config, Event};
    /// use futures::{stream, StreamExt};
    ///
    /// let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    /// let chunks = stream::iter(sse.as_bytes().chunks(7)).map(Ok::<_, std::io::Error>);
    /// let items = futures::executor::block_on(chunks.parse_sse(Config::default()).collect::<Vec<_>>());
    /// assert!(matches!(&items[..], [Ok(SseItem::Event(Event::Narrative(t)))] if t == "Hi"));
    /// ```
    fn parse_sse(self, config: Config) -> SseEvents<Self> {
        Decoded::new(self, SseParser::new(config))
    }

    /// Parses the chunks as a server-sent-event stream with `parser`: with
    /// [`SseParser::with_parser`] and a [`Parser::sibling`] of one template,
    /// many streams share one configuration.
    ///
    /// ```
    /// use actionstream::sse::{SseItem, SseParser};
    /// use actionstream::stream::ParseExt;
    /// use actionstream::{Config, Event, Parser};
    /// use futures::{stream, StreamExt};
    ///
    /// let template = Parser::new(Config::default());
    /// let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    /// let chunks = stream::iter(sse.as_bytes().chunks(7)).map(Ok::<_, std::io::Error>);
    /// let items = chunks.parse_sse_with(SseParser::with_parser(template.sibling()));
    /// let items = futures::executor::block_on(items.collect::<Vec<_>>());
    /// assert!(matches!(&items[..], [Ok(SseItem::Event(Event::Narrative(t)))] if t == "Hi"));
    /// ```
    fn parse_sse_with(self, parser: SseParser) -> SseEvents<Self> {
        Decoded::new(self, parser)
    }
}

impl<S, B, E> ParseExt<B, E> for S
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
{
}

/// How many bytes a [`ReaderChunks`] reads at a time.
const READ_CHUNK: usize = 8 * 1024;

pin_project! {
    /// The chunks read from an [`AsyncRead`], as a stream of
    /// `io::Result<Bytes>`; it ends at end of file and is fused after an
    /// error.
    ///
    /// ```
    /// use actionstream::stream::ReaderChunks;
    /// use futures::StreamExt;
    ///
    /// let reader: &[u8] = b"some bytes";
    /// let chunks = futures::executor::block_on(ReaderChunks::new(reader).collect::<Vec<_>>());
    /// assert_eq!(chunks.len(), 1);
    /// ```
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct ReaderChunks<R> {
        #[pin]
        reader: R,
        buf: Box<[u8]>,
        done: bool,
    }
}

impl<R: AsyncRead> ReaderChunks<R> {
    /// Reads `reader` in chunks of up to 8 KiB.
    ///
    /// ```
    /// let chunks = actionstream::stream::ReaderChunks::new(&b""[..]);
    /// # drop(chunks);
    /// ```
    pub fn new(reader: R) -> Self {
        ReaderChunks {
            reader,
            buf: vec![0; READ_CHUNK].into_boxed_slice(),
            done: false,
        }
    }
}

impl<R: AsyncRead> Stream for ReaderChunks<R> {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.project();
        if *this.done {
            return Poll::Ready(None);
        }
        let mut buf = ReadBuf::new(this.buf);
        match this.reader.poll_read(cx, &mut buf) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) if buf.filled().is_empty() => {
                *this.done = true;
                Poll::Ready(None)
            }
            Poll::Ready(Ok(())) => Poll::Ready(Some(Ok(Bytes::copy_from_slice(buf.filled())))),
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {
                // Try again at once.
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Poll::Ready(Err(e)) => {
                *this.done = true;
                Poll::Ready(Some(Err(e)))
            }
        }
    }
}

/// Parses the response text read from `reader` as it arrives.
///
/// ```
/// use actionstream::stream::events_from_reader;
/// use actionstream::{Config, Event};
/// use futures::StreamExt;
///
/// let reader: &[u8] = b"Hi.\n```json\n{\"action\": \"wave\"}\n```\n";
/// let events: Vec<Event> = futures::executor::block_on(
///     events_from_reader(reader, Config::default())
///         .map(|e| e.expect("no read error"))
///         .collect(),
/// );
/// assert!(events.iter().any(|e| matches!(e, Event::ActionComplete(a) if a.name == "wave")));
/// ```
pub fn events_from_reader<R: AsyncRead>(reader: R, config: Config) -> Events<ReaderChunks<R>> {
    ReaderChunks::new(reader).parse_events(config)
}

/// Parses the server-sent-event stream read from `reader` as it arrives.
///
/// ```
/// use actionstream::stream::sse_from_reader;
/// use actionstream::sse::SseItem;
/// use actionstream::Config;
/// use futures::StreamExt;
///
/// let reader: &[u8] = b"data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
/// let items = futures::executor::block_on(sse_from_reader(reader, Config::default()).collect::<Vec<_>>());
/// assert!(matches!(&items[..], [Ok(SseItem::Error(m))] if m.contains("Overloaded")));
/// ```
pub fn sse_from_reader<R: AsyncRead>(reader: R, config: Config) -> SseEvents<ReaderChunks<R>> {
    ReaderChunks::new(reader).parse_sse(config)
}

#[cfg(all(test, feature = "testkit"))]
mod tests {
    use super::*;
    use futures::StreamExt;

    #[test]
    fn a_chunk_of_many_items_does_not_keep_its_room_while_the_stream_waits() {
        let text = "<action_call name=\"a\">{}</action_call>\n".repeat(40);
        let want = crate::oracle::check(&Config::default(), &text);
        let (tx, rx) = futures::channel::mpsc::unbounded::<Result<String, io::Error>>();
        let mut events = rx.parse_events(Config::default());
        let mut cx = Context::from_waker(futures::task::noop_waker_ref());
        let mut got = Vec::new();
        tx.unbounded_send(Ok(text.clone())).expect("sent");
        // The one chunk's items, then the stream waits for the next chunk.
        while let Poll::Ready(item) = events.poll_next_unpin(&mut cx) {
            got.push(item.expect("an item").expect("no transport error"));
        }
        assert!(got.len() > 2 * KEEP_ITEMS);
        assert_eq!(events.ready.capacity(), 0);
        // The stream goes on as before.
        tx.unbounded_send(Ok("Done.\n".into())).expect("sent");
        while let Poll::Ready(item) = events.poll_next_unpin(&mut cx) {
            got.push(item.expect("an item").expect("no transport error"));
        }
        drop(tx);
        let rest = futures::executor::block_on(events.collect::<Vec<_>>());
        got.extend(rest.into_iter().map(|e| e.expect("no transport error")));
        let want_all = crate::oracle::check(&Config::default(), &format!("{text}Done.\n"));
        assert_eq!(crate::oracle::merge(got), want_all);
        assert!(want.len() > 2 * KEEP_ITEMS);
    }
}
