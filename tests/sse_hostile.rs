//! Hostile SSE streams: a `data:` line of 64 MiB, a million empty events,
//! invalid JSON payloads for every provider. Memory stays bounded, problems
//! are error items, nothing panics.

mod common;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use actionstream::sse::{SseItem, SseParser};
use actionstream::Config;
use common::sse::*;

/// Counts the bytes allocated now, and the peak.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1 << 20;

/// The tests of this file run one at a time, each whole: the counter is
/// global, so another test's allocations (its input made before it
/// measures, or a test that measures nothing) would count in a peak.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `push` and returns the peak of bytes allocated above the start.
fn peak_during(push: impl FnOnce()) -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    push();
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

#[test]
fn a_64_mib_data_line_is_dropped_with_memory_bounded() {
    let _one = one_at_a_time();
    for provider in [
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}",
        "{\"type\":\"response.completed\",\"response\":{}}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}",
    ] {
        let mut items = Vec::new();
        let chunk = vec![b'x'; MIB];
        let peak = peak_during(|| {
            let mut parser = SseParser::new(Config::default());
            parser.push(b"data: {\"choices\":\"", &mut items);
            for _ in 0..64 {
                parser.push(&chunk, &mut items);
            }
            parser.push(format!("\"\n\ndata: {provider}\n\n").as_bytes(), &mut items);
            parser.finish(&mut items);
        });
        // The frame decoder holds at most its event limit (16 MiB), never
        // the whole line.
        assert!(peak < 40 * MIB, "peak {} MiB", peak / MIB);
        let s = summary(&merge(items));
        assert!(s[0].starts_with("E:a server-sent event larger than"), "{s:?}");
        assert!(s.len() <= 2, "{s:?}");
    }
}

#[test]
fn a_million_empty_events_hold_nothing() {
    let _one = one_at_a_time();
    let mut parser = SseParser::new(Config::default());
    let mut items = Vec::new();
    let empties = "\n\ndata:\n\nevent: ping\n\n: comment\n\n".repeat(250_000);
    let peak = peak_during(|| {
        for chunk in empties.as_bytes().chunks(4096) {
            parser.push(chunk, &mut items);
        }
    });
    assert!(peak < MIB, "peak {peak} bytes");
    assert!(items.is_empty(), "{items:?}");
    parser.push(
        b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}]},\"finishReason\":\"STOP\"}]}\n\n",
        &mut items,
    );
    parser.finish(&mut items);
    assert_eq!(summary(&merge(items)), ["N:hi"]);
}

#[test]
fn invalid_json_payloads_are_errors_for_every_provider() {
    let _one = one_at_a_time();
    let firsts = [
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}",
        "{\"type\":\"response.created\",\"response\":{}}",
        "{\"type\":\"message_start\",\"message\":{}}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}",
    ];
    let bad = [
        "{oops",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":",
        "\u{0}\u{1}garbage",
        "[1,2,3]",
        "\"a string\"",
        "{\"candidates\":\"not a list\",\"choices\":7,\"type\":[]}",
        "{\"type\":\"response.output_item.added\",\"output_index\":\"x\",\"item\":5}",
        "{\"type\":\"content_block_delta\",\"index\":-1,\"delta\":null}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$[99999999999]\",\"stringValue\":\"x\"}],\"willContinue\":true}}]}}]}",
        "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}},{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.a[5]\",\"numberValue\":1},{\"jsonPath\":\"nope\",\"boolValue\":true},{\"jsonPath\":\"$.b\"}]}}]}]}",
    ];
    for first in firsts {
        let mut sse = format!("data: {first}\n\n");
        for b in bad {
            sse += &format!("data: {b}\n\n");
        }
        let items = check(sse.as_bytes());
        assert!(errors(&items).len() >= 3, "{first}: {:?}", summary(&items));
        // Every error message is short (payloads are quoted in part).
        for e in errors(&items) {
            assert!(e.len() < 400, "{e}");
        }
    }
}

#[test]
fn many_invalid_payloads_keep_memory_bounded() {
    let _one = one_at_a_time();
    let mut parser = SseParser::new(Config::default());
    let mut items: Vec<SseItem> = Vec::new();
    parser.push(b"data: {\"choices\":[]}\n\n", &mut items);
    let bad = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\n\n".repeat(1000);
    let peak = peak_during(|| {
        for _ in 0..100 {
            parser.push(bad.as_bytes(), &mut items);
            assert_eq!(items.len(), 1000);
            items.clear();
        }
    });
    assert!(peak < 4 * MIB, "peak {peak} bytes");
}
