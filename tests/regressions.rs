//! Inputs the fuzzers found, each at every chunking (`common::parse`).
//!
//! A test marked `#[ignore = "core bug: …"]` records a bug in the parser's
//! core that is not fixed yet: run it with `cargo test -- --ignored`.

mod common;
use common::*;

/// fuzz `chunks`: an empty generic block closed by a fence at the very end
/// of input (no line ending after it) vanished: no narrative, no action.
#[test]
fn empty_generic_block_closed_at_end_of_input() {
    assert_eq!(summary(&parse("```json\n```")), ["N:```json\n```"]);
    assert_eq!(summary(&parse("```json\n\n```")), ["N:```json\n\n```"]);
}

/// The same with a line ending after the closer always worked.
#[test]
fn empty_generic_block_closed_with_newline() {
    assert_eq!(summary(&parse("```json\n```\n")), ["N:```json\n```\n"]);
}
