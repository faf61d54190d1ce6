//! Liveness and bad input (contract section 4, invariants 4 and 5).

mod common;
use actionstream::{Config, Event, Parser};
use common::*;

fn push_all(p: &mut Parser, parts: &[&str]) -> Vec<Event> {
    let mut events = Vec::new();
    for part in parts {
        p.push(part, &mut events);
    }
    events
}

#[test]
fn action_complete_comes_with_the_closing_fence_line() {
    let mut p = Parser::default();
    let events = push_all(
        &mut p,
        &["Hi\n```json\n{\"action\": \"a\", \"n\": 1}\n", "```\n"],
    );
    assert!(
        matches!(events.last(), Some(Event::ActionComplete(a)) if a.name == "a"),
        "{events:?}"
    );
    // Without the line ending the closer is not delivered yet...
    let mut p = Parser::default();
    let events = push_all(&mut p, &["```json\n{\"action\": \"a\"}\n```"]);
    assert!(!events.iter().any(|e| matches!(e, Event::ActionComplete(_))));
    // ...and at the end of input it is.
    let mut events = events;
    p.finish(&mut events);
    assert!(matches!(events.last(), Some(Event::ActionComplete(_))));
}

#[test]
fn action_complete_comes_with_the_closing_tag() {
    let mut p = Parser::default();
    let events = push_all(
        &mut p,
        &[
            "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_cal",
            "l>",
        ],
    );
    assert!(
        matches!(events.last(), Some(Event::ActionComplete(a)) if a.name == "f"),
        "{events:?}"
    );
}

#[test]
fn action_started_before_the_block_closes() {
    let mut p = Parser::default();
    let events = push_all(
        &mut p,
        &["```json\n{\"action\": \"search\"", ", \"q\": \"long"],
    );
    assert!(
        matches!(events.last(), Some(Event::ActionStarted { name: Some(n), .. }) if n == "search"),
        "{events:?}"
    );
    let mut p = Parser::default();
    let events = push_all(&mut p, &["<action_call name=\"search\">{\"q\""]);
    assert!(
        matches!(events.last(), Some(Event::ActionStarted { .. })),
        "{events:?}"
    );
}

#[test]
fn narrative_is_out_except_a_possible_opener() {
    let cases: &[(&str, &str)] = &[
        ("Hello wor", "Hello wor"),
        ("Hello <act", "Hello "),
        ("Hello <b>bold</b> <", "Hello <b>bold</b> "),
        ("line\n``", "line\n"),
        ("line\n   ~~~ jso", "line\n"),
        ("line\nnext", "line\nnext"),
        ("x `<action_call>` y", "x `<action_call>` y"),
        ("```python\nprint(1)\n", "```python\nprint(1)\n"),
        ("```python\nprint(1)\n``", "```python\nprint(1)\n"),
    ];
    for (input, out) in cases {
        let mut p = Parser::default();
        let events = push_all(&mut p, &[input]);
        assert_eq!(actionstream::narrative(&events), *out, "{input:?}");
    }
}

#[test]
fn generic_block_is_held_only_until_decided() {
    let mut p = Parser::default();
    let events = push_all(&mut p, &["```json\n{\"config\": 1, \"x\": ["]);
    assert_eq!(actionstream::narrative(&events), "");
    let events = push_all(&mut p, &["2]}\nmore json text\n"]);
    assert_eq!(
        actionstream::narrative(&events),
        "```json\n{\"config\": 1, \"x\": [2]}\nmore json text\n"
    );
}

#[test]
fn unclosed_blocks_and_broken_json_are_invalid_events() {
    for input in [
        "```json\n{\"action\": \"a\", \"x\": [1, 2",
        "```action\n{\"x\": }\n```\n",
        "<action_call name=\"a\">{\"x\": tru</action_call>",
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}",
        "```actions\n{\"actions\": [{\"type\": \"a\"} {\"type\": \"b\"}]}\n```\n",
    ] {
        let e = parse(input);
        assert!(!invalid(&e).is_empty(), "{input:?}: {:?}", summary(&e));
        assert!(completed(&e).is_empty(), "{input:?}");
    }
}

#[test]
fn deep_nesting_is_invalid_not_a_crash() {
    let input = format!(
        "```json\n{{\"action\": \"deep\", \"x\": {}\n```\nafter\n",
        "[".repeat(100_000)
    );
    let mut p = Parser::default();
    let mut events = Vec::new();
    p.push(&input, &mut events);
    p.finish(&mut events);
    let errs = invalid(&events);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("nested deeper than 128 levels"),
        "{errs:?}"
    );
    assert!(actionstream::narrative(&events).ends_with("after\n"));
    // A smaller case at every chunking.
    let small = format!(
        "```json\n{{\"action\": \"deep\", \"x\": {}1{}}}\n```\n",
        "[".repeat(130),
        "]".repeat(130)
    );
    assert!(invalid(&parse(&small))[0].contains("nested deeper"));
}

#[test]
fn block_over_the_size_limit() {
    let config = Config::default().max_block_bytes(64);
    let body = "x".repeat(100);
    let input = format!("a\n```json\n{{\"action\": \"big\", \"s\": \"{body}\"}}\n```\nafter\n");
    let e = parse_with(&config, &input);
    let s = summary(&e);
    assert_eq!(s[0], "N:a\n");
    assert_eq!(s[1], "S0:big");
    assert!(
        s[2].starts_with("I0:big:the block is larger than the 64-byte limit"),
        "{s:?}"
    );
    match &e[2] {
        Event::ActionInvalid(a) => {
            assert_eq!(a.raw.len(), 64);
            assert_eq!(a.span.map(|s| (s.start, s.end)), Some((2, 66)));
        }
        other => panic!("{other:?}"),
    }
    // The rest of the block up to its closer, and what follows, is narrative.
    assert!(s[3].ends_with("\"}\n```\nafter\n"), "{s:?}");
}

#[test]
fn tag_block_over_the_size_limit() {
    let config = Config::default().max_block_bytes(48);
    let input = format!("<action_call name=\"a\">{{\"s\": \"{}\"}}</action_call> tail <action_call name=\"b\">{{}}</action_call>", "y".repeat(50));
    let e = parse_with(&config, &input);
    assert_eq!(completed(&e), ["b:{}"]);
    assert_eq!(invalid(&e).len(), 1);
}

#[test]
fn strict_mode_missing_closer_is_invalid() {
    let config = Config::default().strict(true);
    let e = parse_with(&config, "```json\n{\"action\": \"a\"}\n");
    assert!(
        invalid(&e)[0].contains("no closing fence"),
        "{:?}",
        invalid(&e)
    );
}

#[test]
fn action_deltas_concatenate_to_each_actions_raw_json() {
    let config = Config::default().action_deltas(true);
    let input = "Go.\n```actions\n[{\"type\": \"a\", \"q\": \"x\"},\n {\"n\": 1, \"type\": \"b\"}]\n```\n<action_call name=\"s\">{\"k\": [1, 2]}</action_call>";
    let e = parse_with(&config, input);
    assert_eq!(
        summary(&e),
        [
            "N:Go.\n",
            "S0:a",
            r#"D0:{"type": "a", "q": "x"}"#,
            "S1:b",
            r#"D1:{"n": 1, "type": "b"}"#,
            r#"C0:a:{"q":"x"}"#,
            r#"C1:b:{"n":1}"#,
            "S2:s",
            r#"D2:{"k": [1, 2]}"#,
            r#"C2:s:{"k":[1,2]}"#,
        ]
    );
    // They come as the text arrives, before the block closes.
    let mut p = Parser::new(config);
    let events = push_all(
        &mut p,
        &["```json\n{\"action\": \"w\", \"body\": \"hel", "lo"],
    );
    let deltas: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::ActionDelta { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.concat(), "{\"action\": \"w\", \"body\": \"hello");
}
