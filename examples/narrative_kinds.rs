//! Where a 4-byte push's time goes on the narrative corpus, by kind of
//! push: the 100 KB narrative-heavy corpus of `bench_report`, made simpler
//! step by step, each variant timed whole and in 4-byte `&str` pieces
//! through `Parser::push_with` (the fastest of 30 runs, taken in turn):
//!
//! ```text
//! cargo run --release --example narrative_kinds
//! ```
//!
//! - `prose`: every line end, `<` and backtick made a space (the hot push
//!   alone), beside the loop that only hands out the pieces;
//! - `lines`: the line ends back (blank lines, list items, headings);
//! - `no-fences`: the inline code back, fences made plain text;
//! - `text-fences`: the fences back, the action blocks as ```` ```text ````
//!   (narrative fences);
//! - `full`: the corpus itself, its ten action blocks read.
//!
//! The difference between two rows, less the same difference whole, is what
//! pushing in pieces costs that kind. One argument (a row's name) parses
//! that variant once in pieces instead, for an instruction counter:
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*parse_pieces_borrowed*' \
//!     target/release/examples/narrative_kinds lines
//! ```

#[path = "../benches/support/mod.rs"]
mod support;

use std::time::Instant;

/// The fastest of 30 runs of `f`, in seconds.
fn fastest(f: &mut dyn FnMut() -> usize) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..30 {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// `text` with each of `bytes` made a space.
fn blanked(text: &str, bytes: &[char]) -> String {
    text.chars()
        .map(|c| if bytes.contains(&c) { ' ' } else { c })
        .collect()
}

fn main() {
    let full = support::narrative_corpus(100_000);
    let variants = [
        ("prose", blanked(&full, &['\n', '`', '<'])),
        ("lines", blanked(&full, &['`', '<'])),
        ("no-fences", full.replace("```", "'''")),
        ("text-fences", full.replace("```json", "```text")),
        ("full", full.clone()),
    ];
    if let Some(which) = std::env::args().nth(1) {
        let Some((_, text)) = variants.iter().find(|(name, _)| *name == which) else {
            panic!("no variant {which}");
        };
        let pieces = support::str_pieces(text, 4);
        println!("{}", support::parse_pieces_borrowed(&pieces));
        return;
    }
    println!("| variant | pieces | with a line end | with a backtick | whole | 4-byte pieces | a piece | the loop alone, a piece | 4-byte / whole |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, text) in &variants {
        let pieces = support::str_pieces(text, 4);
        let whole = fastest(&mut || support::parse_pieces_borrowed(&[text.as_str()]));
        let four = fastest(&mut || support::parse_pieces_borrowed(&pieces));
        let hand_out = fastest(&mut || pieces.iter().map(|p| std::hint::black_box(*p).len()).sum());
        let with = |c: char| pieces.iter().filter(|p| p.contains(c)).count();
        let per_piece = |t: f64| t * 1e9 / pieces.len() as f64;
        println!(
            "| {name} | {} | {} | {} | {:.1} µs | {:.1} µs | {:.2} ns | {:.2} ns | {:.0}% |",
            pieces.len(),
            with('\n'),
            with('`'),
            whole * 1e6,
            four * 1e6,
            per_piece(four),
            per_piece(hand_out),
            whole / four * 100.0
        );
    }
}
