//! The async adapters: the same events as the sync parser, transport errors
//! passed through, fused, backpressure, and `AsyncRead` input.
#![cfg(feature = "stream")]

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use actionstream::chunking::random_chunks;
use actionstream::oracle;
use actionstream::sse::{SseItem, SseParser};
use actionstream::stream::{events_from_reader, sse_from_reader, Error, ParseExt};
use actionstream::{Config, Event, Parser};
use bytes::Bytes;
use futures::stream::{self, FusedStream};
use futures::{Stream, StreamExt};
use tokio::io::AsyncWriteExt;

const RESPONSE: &str =
    "I'll look that up — ☃.\n```json\n{\"action\": \"search\", \"query\": \"rust\"}\n```\n\
    Then <action_call name=\"open\">{\"url\": \"https://example.com\"}</action_call> and done.";

fn sync_events(text: &[u8]) -> Vec<Event> {
    oracle::run_chunks(&Config::default(), [text])
}

fn sync_sse(bytes: &[u8]) -> Vec<SseItem> {
    let mut parser = SseParser::new(Config::default());
    let mut items = Vec::new();
    parser.push(bytes, &mut items);
    parser.finish(&mut items);
    merge_sse(items)
}

fn merge_sse(items: Vec<SseItem>) -> Vec<SseItem> {
    let mut out: Vec<SseItem> = Vec::new();
    for item in items {
        if let (SseItem::Event(Event::Narrative(t)), Some(SseItem::Event(Event::Narrative(prev)))) =
            (&item, out.last_mut())
        {
            prev.push_str(t);
            continue;
        }
        out.push(item);
    }
    out
}

fn sse_file(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

async fn collect_ok<S, T, E>(s: S) -> Vec<T>
where
    S: Stream<Item = Result<T, Error<E>>>,
    E: std::fmt::Debug,
{
    s.map(|r| r.expect("no transport error")).collect().await
}

#[tokio::test]
async fn a_string_stream_gives_the_sync_events() {
    // Cut on char boundaries: String chunks must be valid UTF-8.
    let chunks: Vec<String> = RESPONSE
        .chars()
        .collect::<Vec<_>>()
        .chunks(5)
        .map(|c| c.iter().collect())
        .collect();
    let s = stream::iter(chunks).map(Ok::<_, io::Error>);
    let got = oracle::merge(collect_ok(s.parse_events(Config::default())).await);
    assert_eq!(got, sync_events(RESPONSE.as_bytes()));
    assert_eq!(
        got.iter()
            .filter(|e| matches!(e, Event::ActionComplete(_)))
            .count(),
        2
    );
}

#[tokio::test]
async fn a_bytes_stream_cut_inside_characters_gives_the_sync_events() {
    for size in [1, 2, 3, 7, 64, 4096] {
        let chunks: Vec<Bytes> = RESPONSE
            .as_bytes()
            .chunks(size)
            .map(Bytes::copy_from_slice)
            .collect();
        let s = stream::iter(chunks).map(Ok::<_, io::Error>);
        let got = oracle::merge(collect_ok(s.parse_events(Config::default())).await);
        assert_eq!(got, sync_events(RESPONSE.as_bytes()), "chunks of {size}");
    }
}

#[tokio::test]
async fn a_vec_stream_of_sse_gives_the_sync_items() {
    for name in [
        "openai_fenced_action.sse",
        "openai_tool_calls.sse",
        "openai_error.sse",
        "anthropic_tool_use.sse",
        "anthropic_error.sse",
    ] {
        let bytes = sse_file(name);
        let chunks: Vec<Vec<u8>> = bytes.chunks(13).map(<[u8]>::to_vec).collect();
        let s = stream::iter(chunks).map(Ok::<_, io::Error>);
        let got = merge_sse(collect_ok(s.parse_sse(Config::default())).await);
        assert_eq!(got, sync_sse(&bytes), "{name}");
        assert!(!got.is_empty());
    }
}

#[tokio::test]
async fn a_transport_error_is_passed_through_then_the_stream_is_fused() {
    let polled_after = Arc::new(AtomicUsize::new(0));
    let counter = polled_after.clone();
    let chunks = vec![
        Ok(Bytes::from_static(b"Hello ")),
        Ok(Bytes::from_static(b"<action_call name=\"x\">{\"a\"")),
        Err(io::Error::new(
            io::ErrorKind::ConnectionReset,
            "reset by peer",
        )),
        Ok(Bytes::from_static(b"never read")),
    ];
    let inner = stream::iter(chunks).inspect(move |c| {
        if matches!(c, Ok(b) if b == &b"never read"[..]) {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    let mut events = inner.parse_events(Config::default());
    let mut got = Vec::new();
    let error = loop {
        match events.next().await {
            Some(Ok(e)) => got.push(e),
            Some(Err(e)) => break e,
            None => panic!("the stream ended without the error"),
        }
    };
    let Error::Transport(inner) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(inner.kind(), io::ErrorKind::ConnectionReset);
    assert_eq!(error.to_string(), "the input stream failed: reset by peer");
    assert!(std::error::Error::source(&error).is_some());
    // What came before the error was yielded: the narrative and the start.
    assert_eq!(actionstream::narrative(&got), "Hello ");
    assert!(matches!(got.last(), Some(Event::ActionStarted { name: Some(n), .. }) if n == "x"));
    // Fused: None forever, and the inner stream is not polled again.
    assert!(events.next().await.is_none());
    assert!(events.next().await.is_none());
    assert!(events.is_terminated());
    assert_eq!(polled_after.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_stream_is_fused_after_its_end() {
    let s = stream::iter(["a", "b"]).map(Ok::<_, io::Error>);
    let mut events = s.parse_events(Config::default());
    assert!(!events.is_terminated());
    let got: Vec<Event> = events.by_ref().map(|e| e.expect("ok")).collect().await;
    assert_eq!(actionstream::narrative(&got), "ab");
    assert!(events.is_terminated());
    assert!(events.next().await.is_none());
}

/// A stream that counts how many chunks were pulled from it.
struct Counting<I> {
    inner: I,
    pulled: Arc<AtomicUsize>,
}

impl<I: Iterator<Item = &'static str> + Unpin> Stream for Counting<I> {
    type Item = Result<&'static str, io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = self.inner.next();
        if next.is_some() {
            self.pulled.fetch_add(1, Ordering::SeqCst);
        }
        Poll::Ready(next.map(Ok))
    }
}

#[tokio::test]
async fn backpressure_one_chunk_is_pulled_at_a_time() {
    let pulled = Arc::new(AtomicUsize::new(0));
    let chunks = [
        "<action_call name=\"a\">{}</action_call><action_call name=\"b\">{}</action_call>",
        "more text",
        "and more",
    ];
    let mut events = Counting {
        inner: chunks.into_iter(),
        pulled: pulled.clone(),
    }
    .parse_events(Config::default());
    // The first chunk holds four events; they are all yielded before the
    // second chunk is pulled.
    for _ in 0..4 {
        assert!(matches!(events.next().await, Some(Ok(_))));
        assert_eq!(pulled.load(Ordering::SeqCst), 1);
    }
    assert!(matches!(events.next().await, Some(Ok(Event::Narrative(_)))));
    assert_eq!(pulled.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn dropping_a_next_future_loses_nothing() {
    // A channel-fed stream: `select!` with a timer cancels `next()` while it
    // waits, then the next call still sees every event.
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<String, io::Error>>(1);
    let rx = tokio_stream::wrappers::ReceiverStream::new(rx);
    let mut events = rx.parse_events(Config::default());
    let producer = tokio::spawn(async move {
        for part in ["Hi <action_", "call name=\"go\">{}</action", "_call> bye"] {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            if tx.send(Ok(part.to_string())).await.is_err() {
                return;
            }
        }
    });
    let mut got = Vec::new();
    loop {
        tokio::select! {
            item = events.next() => match item {
                Some(item) => got.push(item.expect("no transport error")),
                None => break,
            },
            _ = tokio::time::sleep(std::time::Duration::from_millis(1)) => {}
        }
    }
    producer.await.expect("the producer ran");
    assert_eq!(
        oracle::merge(got),
        sync_events(b"Hi <action_call name=\"go\">{}</action_call> bye")
    );
}

#[tokio::test]
async fn async_read_adapter_reads_text_and_sse() {
    // A duplex pipe written in small pieces while the parser reads.
    let (mut writer, reader) = tokio::io::duplex(16);
    let text = RESPONSE.as_bytes().to_vec();
    let write = tokio::spawn(async move {
        for piece in text.chunks(3) {
            writer.write_all(piece).await.expect("write");
        }
    });
    let got = oracle::merge(collect_ok(events_from_reader(reader, Config::default())).await);
    write.await.expect("the writer ran");
    assert_eq!(got, sync_events(RESPONSE.as_bytes()));

    let bytes = sse_file("anthropic_tool_use.sse");
    let got = merge_sse(collect_ok(sse_from_reader(&bytes[..], Config::default())).await);
    assert_eq!(got, sync_sse(&bytes));
}

#[tokio::test]
async fn async_read_errors_are_passed_through() {
    struct Failing(bool);
    impl tokio::io::AsyncRead for Failing {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            if self.0 {
                return Poll::Ready(Err(io::Error::other("disk on fire")));
            }
            self.0 = true;
            buf.put_slice(b"partial text");
            Poll::Ready(Ok(()))
        }
    }
    let got: Vec<_> = events_from_reader(Failing(false), Config::default())
        .collect()
        .await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(matches!(&got[0], Ok(Event::Narrative(t)) if t == "partial text"));
    assert!(matches!(&got[1], Err(Error::Transport(e)) if e.to_string() == "disk on fire"));
}

#[test]
fn the_adapter_is_send_when_its_inner_stream_is() {
    fn is_send<T: Send>(_: &T) {}
    let s = stream::iter([Ok::<_, io::Error>(Bytes::new())]).parse_sse(Config::default());
    is_send(&s);
    let p = stream::iter([Ok::<_, io::Error>(Bytes::new())]).parse_events(Config::default());
    is_send(&p);
    let _ = Parser::default();
}

/// The chunkings the oracle tries: whole, one byte at a time, every two-way
/// split and seeded random pieces.
fn chunkings(bytes: &[u8]) -> Vec<Vec<&[u8]>> {
    let mut all = vec![vec![bytes], bytes.chunks(1).collect()];
    all.extend((1..bytes.len()).map(|at| {
        let (a, b) = bytes.split_at(at);
        vec![a, b]
    }));
    all.extend((0..8u64).map(|seed| random_chunks(bytes, seed, 1 + (seed as usize * 9) % 64)));
    all
}

const PLAN: &str = "First ☃ the plan:\n```plan\n{\"action\": \"branch\", \"name\": \"x\"}\n```\n";

#[tokio::test]
async fn parse_events_with_a_sibling_gives_the_sync_events_at_every_chunking() {
    let config = Config::default().fence_tag("plan");
    let text = format!("{PLAN}{RESPONSE}");
    let want = oracle::check(&config, &text);
    assert_eq!(
        want.iter()
            .filter(|e| matches!(e, Event::ActionComplete(_)))
            .count(),
        3
    );
    let template = Parser::new(config);
    for chunks in chunkings(text.as_bytes()) {
        let s = stream::iter(chunks).map(Ok::<_, io::Error>);
        let got = oracle::merge(collect_ok(s.parse_events_with(template.sibling())).await);
        assert_eq!(got, want);
    }
}

#[tokio::test]
async fn parse_sse_with_a_sibling_gives_the_sync_items_at_every_chunking() {
    let bytes = sse_file("openai_fenced_action.sse");
    let want = sync_sse(&bytes);
    let template = Parser::new(Config::default());
    for chunks in chunkings(&bytes) {
        let s = stream::iter(chunks).map(Ok::<_, io::Error>);
        let parser = SseParser::with_parser(template.sibling());
        let got = merge_sse(collect_ok(s.parse_sse_with(parser)).await);
        assert_eq!(got, want);
    }
}

#[test]
fn many_streams_at_once_on_one_thread_share_one_configuration() {
    // 300 responses at once on one thread, each in its own random pieces
    // with a task wake-up before each: every stream gets the events of its
    // own text, and all of them read one configuration.
    let config = Config::default().fence_tag("plan");
    let texts = [
        format!("{PLAN}{RESPONSE}"),
        RESPONSE.to_string(),
        format!("{RESPONSE} {PLAN}"),
    ];
    let want: Vec<Vec<Event>> = texts.iter().map(|t| oracle::check(&config, t)).collect();
    let template = Parser::new(config);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let mut tasks = Vec::new();
        for i in 0..300u64 {
            let text = texts[i as usize % texts.len()].clone().into_bytes();
            let chunks: Vec<Vec<u8>> = random_chunks(&text, i, 1 + i as usize % 24)
                .into_iter()
                .map(<[u8]>::to_vec)
                .collect();
            let chunks = stream::iter(chunks).then(|c| async move {
                tokio::task::yield_now().await;
                Ok::<_, io::Error>(c)
            });
            let events = Box::pin(chunks).parse_events_with(template.sibling());
            assert!(std::ptr::eq(events.decoder().config(), template.config()));
            tasks.push(tokio::task::spawn_local(collect_ok(events)));
        }
        for (i, task) in tasks.into_iter().enumerate() {
            let got = oracle::merge(task.await.expect("the task ran"));
            assert_eq!(got, want[i % texts.len()], "stream {i}");
        }
    });
}
