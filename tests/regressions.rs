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

/// proptest `prose_is_live`: spaces at a line start are held until the
/// line goes on, however many there are; a fence opener allows at most
/// three (outside lists), so a fourth space makes them certain narrative
/// (contract 4.4: held text is at most the longest opener prefix and the
/// current line's fence prefix).
#[test]
fn indentation_is_held_unbounded() {
    for input in ["    ", "a\n    ", "a\n          "] {
        assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
        let mut parser = actionstream::Parser::default();
        let mut events = Vec::new();
        parser.push(input, &mut events);
        let out = actionstream::narrative(&events);
        assert!(
            input.len() - out.len() <= 3,
            "after pushing {input:?}, {:?} is still held",
            &input[out.len()..]
        );
        assert!(parser.buffered() <= 3);
    }
}
