//! One whole parse of the 100 KB action-heavy corpus (or serde_json alone
//! on its blocks), for an instruction counter or a sampling profiler:
//!
//! ```text
//! cargo build --release --example whole_parse
//! valgrind --tool=callgrind --toggle-collect='*parse_chunked*' \
//!     target/release/examples/whole_parse ours
//! valgrind --tool=callgrind --toggle-collect='*serde_floor*' \
//!     target/release/examples/whole_parse serde
//! perf record target/release/examples/whole_parse ours 2000
//! ```
//!
//! Modes: `ours` (the default) pushes the corpus whole; `ours4` in 4-byte
//! chunks; `ours_with` pushes it whole through the borrowing path
//! (`Parser::push_bytes_with`, each event dropped once lent), `ours_with4`
//! in 4-byte pieces; `tiny` pushes 1,000 blocks of `{"action": "x"}`,
//! each after a line of prose, whole through the borrowing path (a
//! block's own cost); `narrative` pushes the narrative corpus whole, `narrative4` in
//! 4-byte `&str` pieces through `Parser::push_with`, `narrative_bytes4` in 4-byte byte chunks through `Parser::push_bytes_with`; `serde` runs
//! `serde_json::from_str` on the same blocks, as `bench_report` does (each
//! value dropped at once); `serde_kept` keeps every value until all are
//! parsed, as a whole push keeps its events. A second argument repeats
//! the run that many times.

#[path = "../benches/support/mod.rs"]
mod support;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ours".into());
    let times: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let actions = support::action_corpus(100_000);
    let narrative = support::narrative_corpus(100_000);
    let blocks = support::blocks(&actions);
    let pieces = support::str_pieces(&narrative, 4);
    let tiny = "Some text.\n```json\n{\"action\": \"x\"}\n```\n".repeat(1000);
    let mut n = 0;
    for _ in 0..times {
        n += match mode.as_str() {
            "ours" => support::parse_chunked(actions.as_bytes(), 0),
            "ours4" => support::parse_chunked(actions.as_bytes(), 4),
            "ours_with" => support::parse_chunked_borrowed(actions.as_bytes(), 0),
            "tiny" => support::parse_pieces_borrowed(&[tiny.as_str()]),
            "ours_with4" => support::parse_chunked_borrowed(actions.as_bytes(), 4),
            "narrative" => support::parse_chunked(narrative.as_bytes(), 0),
            "narrative4" => support::parse_pieces_borrowed(&pieces),
            "narrative_bytes4" => support::parse_chunked_borrowed(narrative.as_bytes(), 4),
            "serde" => support::serde_floor(&blocks),
            "serde_kept" => support::serde_kept(&blocks),
            other => panic!("no mode {other}"),
        };
    }
    println!("{n}");
}
