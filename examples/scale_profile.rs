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
//!
//! More modes measure the room the 50% target leaves, with no cache
//! simulator. `touch:K` is `bare` with each stream writing to K cache lines
//! of a state of its own at every wake-up, the lines side by side (what a
//! line a push touches costs when 10,000 streams take turns, at best);
//! `chain:K` is the same with the K lines in K boxes, each pointing to the
//! next and each made at a different wake-up, so that other streams' boxes
//! lie between them (as a parser's boxed block, scanner and stacks do);
//! `boxes:K` has the K boxes apart as well, but found from one list (each
//! load independent of the others). A
//! third argument `prose` makes the responses' blocks narrative (a
//! ```` ```text ```` fence, a `<b>` tag), the least state a push can touch:
//!
//! ```text
//! target/release/examples/scale_profile touch:16
//! target/release/examples/scale_profile chain:4
//! target/release/examples/scale_profile concurrent 10000 prose
//! ```

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
    let mut texts = support::scale_texts();
    if std::env::args().nth(3).as_deref() == Some("prose") {
        texts = texts
            .iter()
            .map(|t| {
                let prose = t
                    .replace("```json", "```text")
                    .replace("<action_call>", "<b>")
                    .replace("</action_call>", "</b>");
                &*Box::leak(prose.into_boxed_str())
            })
            .collect();
    }
    // `touch:K`, `chain:K`: the lines of its own state each stream writes
    // a wake-up, side by side or chained.
    let lines = |prefix: &str| -> Option<usize> { mode.strip_prefix(prefix)?.parse().ok() };
    let (touch, chain, boxes) = (lines("touch:"), lines("chain:"), lines("boxes:"));
    let template = std::rc::Rc::new(Parser::default());
    let t = std::time::Instant::now();
    let n = if mode == "sequential" {
        support::sequential(&texts, streams, &template)
    } else {
        let bare = mode == "bare" || touch.is_some() || chain.is_some() || boxes.is_some();
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
                        // Eight words a line: one word of each line written.
                        let mut state = vec![0u64; 8 * touch.unwrap_or(0)];
                        let mut links = Link::default();
                        let mut apart: Vec<Box<Link>> = Vec::new();
                        let mut made = 0;
                        while let Some(c) = chunks.next().await {
                            let len = c.expect("no transport error").len();
                            for word in state.iter_mut().step_by(8) {
                                *word = word.wrapping_add(len as u64);
                            }
                            if made < chain.unwrap_or(0) {
                                links.append();
                                made += 1;
                            }
                            if apart.len() < boxes.unwrap_or(0) {
                                apart.push(Box::default());
                            }
                            links.touch(len as u64);
                            for link in &mut apart {
                                link.word = link.word.wrapping_add(len as u64);
                            }
                            n += len;
                        }
                        let sum: u64 = std::hint::black_box(&state).iter().sum();
                        let apart: u64 = apart.iter().map(|l| l.word).sum();
                        return n + (sum + apart + links.touch(0)) as usize;
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

/// One line of a chain of boxes (`chain:K`).
#[derive(Default)]
#[repr(align(64))]
struct Link {
    word: u64,
    next: Option<Box<Link>>,
}

impl Link {
    /// A box at the chain's end.
    fn append(&mut self) {
        match &mut self.next {
            Some(next) => next.append(),
            None => self.next = Some(Box::default()),
        }
    }

    /// Writes a word in every box, each found through the one before;
    /// returns their sum.
    fn touch(&mut self, by: u64) -> u64 {
        let mut sum = 0;
        let mut at = self.next.as_deref_mut();
        while let Some(link) = at {
            link.word = link.word.wrapping_add(by);
            sum += link.word;
            at = link.next.as_deref_mut();
        }
        sum
    }
}
