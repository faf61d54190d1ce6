//! A small driver for instruction-count profiles of the dialect engine
//! (`valgrind --tool=callgrind`): wall times on a shared machine are too
//! noisy to choose between two versions of a hot loop, counts are not.
//!
//! ```text
//! cargo build --release --example dialect_profile
//! valgrind --tool=callgrind target/release/examples/dialect_profile glm long 1 4
//! ```
//!
//! Arguments: the dialect; `long` (one `write_file` call with a 64 KB
//! `content`, as the peer bench writes it) or `example` (the dialect's
//! example response repeated to about 256 KB); argument deltas `0` or `1`;
//! the chunk size in bytes (`0`: whole); the borrowing path `with` or not;
//! a number of runs to time (the fastest is printed; none by default).

use actionstream::{Event, Parser};

// Only the long argument and the parser are used here.
#[allow(dead_code)]
#[path = "../benches/support/report.rs"]
mod report;
use report::{dialect_parser, file_body, long_call};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let dialect = arg(0, "glm");
    let text = match arg(1, "long").as_str() {
        "long" => long_call(&dialect, &file_body(64 * 1024)),
        _ => {
            let path = format!(
                "{}/examples/responses/dialects/{dialect}.txt",
                env!("CARGO_MANIFEST_DIR")
            );
            let one = std::fs::read_to_string(path).expect("the example response");
            let reps = (256 * 1024usize).div_ceil(one.len() + 1);
            vec![one.as_str(); reps].join("\n")
        }
    };
    let deltas = arg(2, "1") == "1";
    let chunk: usize = arg(3, "4").parse().expect("a chunk size");
    let with = arg(4, "") == "with";
    let template: Parser = dialect_parser(&dialect, deltas);
    let chunks: Vec<&[u8]> = if chunk == 0 {
        vec![text.as_bytes()]
    } else {
        text.as_bytes().chunks(chunk).collect()
    };
    let runs: usize = arg(5, "0").parse().expect("a number of runs");
    if runs > 0 {
        let mut best = std::time::Duration::MAX;
        for _ in 0..runs {
            let t = std::time::Instant::now();
            std::hint::black_box(parse(&template, &chunks, with));
            best = best.min(t.elapsed());
        }
        println!(
            "{dialect}: fastest of {runs}: {:.3} ms, {:.1} ns a push",
            best.as_secs_f64() * 1e3,
            best.as_secs_f64() * 1e9 / chunks.len() as f64
        );
    }
    let (complete, pieces) = parse(&template, &chunks, with);
    println!(
        "{dialect}: {} bytes, {complete} calls, {pieces} events",
        text.len()
    );
}

/// Parses `chunks` with a sibling of `template`: the calls completed and
/// the events seen.
fn parse(template: &Parser, chunks: &[&[u8]], with: bool) -> (usize, usize) {
    let mut parser = template.sibling();
    let mut events: Vec<Event> = Vec::new();
    let (mut complete, mut pieces) = (0usize, 0usize);
    for &c in chunks {
        if with {
            parser.push_bytes_with(c, |e| {
                pieces += 1;
                if let actionstream::EventRef::Action(Event::ActionComplete(_)) = e {
                    complete += 1;
                }
            });
        } else {
            parser.push_bytes(c, &mut events);
            for e in events.drain(..) {
                pieces += 1;
                if let Event::ActionComplete(_) = e {
                    complete += 1;
                }
            }
        }
    }
    parser.finish(&mut events);
    complete += events
        .iter()
        .filter(|e| matches!(e, Event::ActionComplete(_)))
        .count();
    (complete, pieces)
}
