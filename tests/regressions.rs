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

/// proptest `prose_is_live`: spaces at a line start were held until the
/// line went on, however many there were; a fence opener allows at most
/// three (outside lists), so a fourth space makes them certain narrative
/// (contract 4.4: held text is at most the longest opener prefix and the
/// current line's fence prefix). (Core bug, fixed in bdf4d24.)
#[test]
fn indentation_beyond_a_fence_is_not_held() {
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

/// The JSON string of `many_fence_lines`: `n` lines that would close the
/// fence, were they not inside a string (literal newlines, repaired).
fn many_fence_lines(n: usize) -> String {
    format!(
        "```json\n{{\"action\": \"a\", \"s\": \"{}\"}}\n```\nafter\n",
        "\n```\n".repeat(n)
    )
}

/// bench_report linearity: closing-fence lines inside a JSON string. The
/// block completes at the closer after the string (contract 2).
#[test]
fn fence_lines_inside_a_string() {
    let e = parse(&many_fence_lines(12));
    assert_eq!(
        summary(&e),
        [
            "S0:a".to_string(),
            format!("C0:a:{{\"s\":{}}}", serde_json::json!("\n```\n".repeat(12))),
            "N:after\n".to_string(),
        ]
    );
}

/// bench_report linearity: the same with many such lines costs time
/// quadratic in their number (each doubling of n takes about 4x as long,
/// with every chunking; 400 KB take 0.6 s in release), against contract
/// 4.6 (cost is linear). Tag closers inside strings stay linear.
#[test]
fn fence_lines_inside_a_string_cost_linear_time() {
    let n = if cfg!(debug_assertions) {
        2_000
    } else {
        16_000
    };
    let best = |n: usize| {
        let input = many_fence_lines(n);
        (0..3)
            .map(|_| {
                let t = std::time::Instant::now();
                let events = actionstream::parse_str(&input);
                assert_eq!(completed(&events).len(), 1);
                t.elapsed()
            })
            .min()
            .unwrap()
    };
    let (t1, t2) = (best(n), best(4 * n));
    let ratio = t2.as_secs_f64() / t1.as_secs_f64();
    // Linear work gives about 4; quadratic about 16.
    assert!(
        ratio < 8.0,
        "4x the input took {ratio:.1}x the time ({t1:?} -> {t2:?})"
    );
}

/// hostile `a_million_unclosed_xml_tags`: in a tag block, when the block
/// limit falls just after a `<` (a possible start of the closing tag), the
/// limit is never applied: the whole rest of the input is held and ends up
/// in one invalid action's raw (contract 4.5). With the default 1 MiB limit
/// `"<tool_call>".repeat(100_000)` holds all 1.1 MB.
#[test]
fn limit_after_a_lt() {
    // The 17th byte, the last one within the limit, is a `<`.
    let config = actionstream::Config::default().max_block_bytes(17);
    let rest = format!("<{}", "y".repeat(40));
    let e = parse_with(&config, &format!("<action_call>[1,{rest}"));
    let s = summary(&e);
    assert_eq!(s.len(), 3, "{s:?}");
    assert!(
        s[1].starts_with("I0:-:the block is larger than the 17-byte limit"),
        "{s:?}"
    );
    assert_eq!(s[2], format!("N:{rest}"));
    let e = parse_with(&config, &"<tool_call>".repeat(4));
    assert!(
        summary(&e)[1].starts_with("I0:-:the block is larger"),
        "{:?}",
        summary(&e)
    );
}

/// fuzz `fences` (against pulldown-cmark): after an empty generic block,
/// the next ```json block with an action is read as narrative; CommonMark
/// sees two fenced blocks, the second holding `{"action": "a"}`.
#[test]
fn action_block_after_an_empty_generic_block() {
    for first in ["```json\n```\n", "~~~json\n~~~\n"] {
        let input = format!("{first}```json\n{{\"action\": \"a\"}}\n```\n");
        assert_eq!(
            summary(&parse(&input)),
            [
                format!("N:{first}"),
                "S0:a".to_string(),
                "C0:a:{}".to_string()
            ]
        );
    }
}

/// fuzz `json_scan`: blocks whose JSON Lines stay in step with the block
/// before them keep a chain of shadows alive; the shadow of a shadow must
/// read in step with its block line by line, or the chain's depth (and the
/// cap on it) depended on the chunking.
#[test]
fn speculation_chain_in_step_with_json_lines() {
    let e = parse("```action\n/*'=\u{0}u:pu]\u{0}\n\u{19}\"\n`\u{2}\u{0}\u{0}\u{2}\u{2}```b`\n`````\t\n```action\n\u{0}\u{0}}\u{0}\u{0}\u{0}l`\t\n```action\n\u{0}\u{0}}\u{0}\u{0}\u{0}l//h\"'0 \"\n\"\u{2}\u{2}```X`\n`````\t\n```action\n\u{0}\u{0}}pe'0 \"\n\"\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}0 \"\n\"\u{2}\u{2}```X`\n`````\t\n```action\n\u{0}\u{0}}pe'0 \"\n\"\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}*\n ```\t\n\t\n}{\n\n //h\"\n[\n {\"action\": \"creat\u{0}te_pag\u{c}\u{0}\u{0}\u{0}lan\", \":\u{7f}\u{0}laj\": \"P1\"}7\t0nctio\n```\n");
    assert!(!invalid(&e).is_empty());
}

/// The same shape, deep enough to reach the cap on nested shadows: the
/// outcome is the same at every chunking.
#[test]
fn speculation_cap_is_chunking_independent() {
    let mut input = String::from("```action\n\"a\n```\n");
    for _ in 0..7 {
        input.push_str("```action \"\n\"a\n```\n");
    }
    input.push_str("tail\n");
    let e = parse(&input);
    // Each block's string stays open: the first three end cut off at their
    // first closers; past the cap, the rest end at their own closers.
    assert_eq!(invalid(&e).len(), 8, "{:?}", summary(&e));
    let cut_off = invalid(&e)
        .iter()
        .filter(|m| m.contains("ended before"))
        .count();
    assert_eq!(cut_off, 3);
    assert_eq!(summary(&e).last().map(String::as_str), Some("N:tail\n"));
}
