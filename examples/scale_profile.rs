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
//! simulator: `bare` with each stream writing to K cache lines of a state
//! of its own at every wake-up (what a line a push touches costs when
//! 10,000 streams take turns), the lines laid out three ways (`Layout`):
//! side by side (`touch:K`), in K boxes apart found from one list
//! (`boxes:K`), or in K boxes each found through the one before
//! (`chain:K`, as a parser's boxed block, scanner and stacks are). Each
//! box is made at a different wake-up, so other streams' boxes lie
//! between them. A third argument `prose` makes the responses' blocks
//! narrative (a ```` ```text ```` fence, a `<b>` tag), the least state a
//! push can touch:
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
    let lines = Layout::parse(&mode);
    let template = std::rc::Rc::new(Parser::default());
    let t = std::time::Instant::now();
    let n = if mode == "sequential" {
        support::sequential(&texts, streams, &template)
    } else {
        let bare = mode == "bare" || lines.is_some();
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
                        let mut state = lines.map(Lines::new);
                        while let Some(c) = chunks.next().await {
                            let len = c.expect("no transport error").len();
                            if let Some(state) = &mut state {
                                state.touch(len as u64);
                            }
                            n += len;
                        }
                        return n + std::hint::black_box(state).map_or(0, |s| s.sum()) as usize;
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

/// How the lines a stream writes each wake-up lie (`touch:K`, `boxes:K`,
/// `chain:K`), and how many.
#[derive(Clone, Copy)]
enum Layout {
    Side(usize),
    Apart(usize),
    Chain(usize),
}

impl Layout {
    fn parse(mode: &str) -> Option<Layout> {
        let (kind, k) = mode.split_once(':')?;
        let k = k.parse().ok()?;
        match kind {
            "touch" => Some(Layout::Side(k)),
            "boxes" => Some(Layout::Apart(k)),
            "chain" => Some(Layout::Chain(k)),
            _ => None,
        }
    }
}

/// One cache line of a stream's state.
#[derive(Default)]
#[repr(align(64))]
struct Line {
    word: u64,
    /// The next line, in a chain.
    next: Option<Box<Line>>,
}

/// A stream's lines: all of them side by side from the start, or boxes
/// made one a wake-up up to K.
enum Lines {
    Side(Vec<Line>),
    // Boxed on purpose: each line apart from the others.
    #[allow(clippy::vec_box)]
    Apart(Vec<Box<Line>>, usize),
    /// The first box (its own word unused), and K.
    Chain(Line, usize),
}

impl Lines {
    fn new(layout: Layout) -> Lines {
        match layout {
            Layout::Side(k) => Lines::Side((0..k).map(|_| Line::default()).collect()),
            Layout::Apart(k) => Lines::Apart(Vec::new(), k),
            Layout::Chain(k) => Lines::Chain(Line::default(), k),
        }
    }

    /// One wake-up: a box more if not all are made, then a word written
    /// in every line.
    fn touch(&mut self, by: u64) {
        let bump = |line: &mut Line| line.word = line.word.wrapping_add(by);
        match self {
            Lines::Side(lines) => lines.iter_mut().for_each(bump),
            Lines::Apart(boxes, k) => {
                if boxes.len() < *k {
                    boxes.push(Box::default());
                }
                boxes.iter_mut().for_each(|line| bump(line));
            }
            Lines::Chain(first, k) => {
                let (mut end, mut made) = (&mut first.next, 0);
                while let Some(line) = end {
                    bump(line);
                    end = &mut line.next;
                    made += 1;
                }
                if made < *k {
                    *end = Some(Box::default());
                }
            }
        }
    }

    /// The words written, summed (so that no write is left out).
    fn sum(&self) -> u64 {
        match self {
            Lines::Side(lines) => lines.iter().map(|l| l.word).sum(),
            Lines::Apart(boxes, _) => boxes.iter().map(|l| l.word).sum(),
            Lines::Chain(first, ..) => {
                let (mut sum, mut at) = (0, first.next.as_deref());
                while let Some(line) = at {
                    sum += line.word;
                    at = line.next.as_deref();
                }
                sum
            }
        }
    }
}
