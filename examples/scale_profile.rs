//! One row of `bench_report`'s scale section, run once, for a cache
//! simulator: 10,000 responses (as `bench_report` makes them) each fed in
//! 16-byte chunks, a task wake-up before each, all at once on one
//! current-thread runtime (`concurrent`), or one after another with a plain
//! `Parser` (`sequential`), or the same tasks and wake-ups with no parsing
//! (`bare`):
//!
//! ```text
//! cargo build --release --example scale_profile --features stream
//! valgrind --tool=cachegrind --cache-sim=yes --LL=8388608,16,64 \
//!     target/release/examples/scale_profile concurrent
//! ```
//!
//! The misses a function takes in `concurrent` and not in `sequential` are
//! what keeping 10,000 streams in flight costs it.

#[path = "../benches/support/mod.rs"]
mod support;

use actionstream::stream::ParseExt;
use actionstream::Parser;
use futures::StreamExt;

fn main() {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "concurrent".into());
    let streams: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let texts = support::scale_texts();
    let template = std::rc::Rc::new(Parser::default());
    let t = std::time::Instant::now();
    let n = if mode == "sequential" {
        support::sequential(&texts, streams, &template)
    } else {
        let bare = mode == "bare";
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async {
            let mut tasks = Vec::with_capacity(streams);
            for i in 0..streams {
                let bytes = texts[i % texts.len()].as_bytes();
                let template = template.clone();
                tasks.push(tokio::task::spawn_local(async move {
                    let mut chunks = Box::pin(support::yielding_chunks(bytes));
                    let mut n = 0usize;
                    if bare {
                        while let Some(c) = chunks.next().await {
                            n += c.expect("no transport error").len();
                        }
                        return n;
                    }
                    let mut events = chunks.parse_events_with(template.sibling());
                    while let Some(e) = events.next().await {
                        e.expect("no transport error");
                        n += 1;
                    }
                    n
                }));
            }
            let mut n = 0;
            for t in tasks {
                n += t.await.expect("the task ran");
            }
            n
        })
    };
    println!("{mode}: {n} in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
}
