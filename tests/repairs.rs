//! JSON repairs (contract section 3), each fed at every chunking: the repair
//! is named on the action with its line and column in the block's raw text,
//! and strict mode turns each into an invalid action.

mod common;
use actionstream::{Config, Event, InvalidAction};
use common::*;

/// The invalid actions of `input` at every chunking, in strict mode.
fn strict_invalid(input: &str) -> Vec<InvalidAction> {
    let events = parse_with(&Config::default().strict(true), input);
    assert!(
        !events.iter().any(|e| matches!(e, Event::ActionComplete(_))),
        "strict mode completed an action: {events:?}"
    );
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::ActionInvalid(a) => Some(*a),
            _ => None,
        })
        .collect()
}

#[test]
fn control_character_in_string() {
    let input = "Note:\n```json\n{\"action\": \"note\", \"body\": \"line1\nline2\"}\n```\nafter\n";
    let a = complete(input);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].arguments["body"], "line1\nline2");
    assert_eq!(repairs(&a[0]), ["control character in string 2:34"]);

    let i = strict_invalid(input);
    assert_eq!(i.len(), 1);
    assert_eq!(i[0].name.as_deref(), Some("note"));
    assert!(
        i[0].errors[0].message.contains("raw control character"),
        "{:?}",
        i[0].errors
    );
    assert!(
        i[0].errors[0].message.contains("line 2, column 34"),
        "{:?}",
        i[0].errors
    );
}

#[test]
fn literal_newline_then_fence_line_inside_string() {
    // The ``` line sits inside a JSON string: it does not close the block.
    let input = "```json\n{\"action\": \"note\", \"body\": \"before\n```\nafter\"}\n```\ntail\n";
    let events = parse(input);
    let a = complete(input);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].arguments["body"], "before\n```\nafter");
    assert_eq!(
        repairs(&a[0]),
        [
            "control character in string 2:35",
            "control character in string 3:4"
        ]
    );
    assert_eq!(actionstream::narrative(&events), "tail\n");

    // Strict: the JSON can never be read, so the block ends at its first
    // closer (the ``` line) and is invalid.
    let i = strict_invalid(input);
    assert_eq!(i[0].name.as_deref(), Some("note"));
    assert_eq!(
        &*i[0].raw,
        "```json\n{\"action\": \"note\", \"body\": \"before\n```\n"
    );
}

/// One block with one repair: its arguments, the repair's name and place,
/// and in strict mode an invalid action whose error names what it found.
fn assert_one_repair(input: &str, arguments: serde_json::Value, repair: &str, strict_says: &str) {
    let a = complete(input);
    assert_eq!(a[0].arguments, arguments);
    assert_eq!(repairs(&a[0]), [repair]);
    let i = strict_invalid(input);
    assert!(
        i[0].errors[0].message.contains(strict_says),
        "{:?}",
        i[0].errors
    );
}

#[test]
fn trailing_comma_in_object() {
    assert_one_repair(
        "```json\n{\"action\": \"note\", \"a\": 1,}\n```\n",
        serde_json::json!({"a": 1}),
        "trailing comma 2:26",
        "trailing comma",
    );
}

#[test]
fn trailing_comma_in_array() {
    assert_one_repair(
        "```json\n{\"action\": \"note\", \"a\": [1, 2,]}\n```\n",
        serde_json::json!({"a": [1, 2]}),
        "trailing comma 2:30",
        "trailing comma",
    );
}

#[test]
fn trailing_comma_after_last_action_of_array() {
    let input = "```json\n[{\"action\": \"a\"},\n {\"action\": \"b\"},\n]\n```\n";
    let a = complete(input);
    assert_eq!(a.len(), 2);
    // Every repair of the block is listed on each of its actions.
    assert_eq!(repairs(&a[0]), ["trailing comma 3:17"]);
    assert_eq!(repairs(&a[1]), ["trailing comma 3:17"]);
    // Strict: every action of the block is invalid, also those read whole.
    let i = strict_invalid(input);
    assert_eq!(i.len(), 2, "{i:?}");
}

#[test]
fn line_and_block_comments() {
    for input in [
        "```json\n{\"action\": \"note\", // why\n \"a\": 1}\n```\n",
        "```json\n{\"action\": \"note\", /* c */ \"a\": 1}\n```\n",
    ] {
        assert_one_repair(
            input,
            serde_json::json!({"a": 1}),
            "comment 2:20",
            "comment",
        );
    }
}

#[test]
fn missing_closer_at_end_of_input() {
    let input = "Plan:\n```json\n{\"action\": \"note\", \"a\": 1}\n";
    let a = complete(input);
    assert_eq!(a[0].arguments, serde_json::json!({"a": 1}));
    assert_eq!(repairs(&a[0]), ["missing closer 3:1"]);
    let i = strict_invalid(input);
    assert_eq!(i[0].name.as_deref(), Some("note"));
    assert!(
        i[0].errors[0].message.contains("no closing fence"),
        "{:?}",
        i[0].errors
    );

    // A tag without its closing tag, too.
    let tag = "<action_call name=\"search\">{\"q\": \"x\"}";
    let a = complete(tag);
    assert_eq!(a[0].name, "search");
    assert_eq!(repairs(&a[0]), ["missing closer 1:38"]);
    assert_eq!(strict_invalid(tag).len(), 1);
}

#[test]
fn cut_off_json_is_never_complete() {
    let input = "```json\n{\"action\": \"note\", \"a\": [1, 2\n";
    let events = parse(input);
    assert!(!events.iter().any(|e| matches!(e, Event::ActionComplete(_))));
    assert_eq!(invalid(&events).len(), 1);
}

#[test]
fn arguments_given_as_a_string() {
    let input =
        "<tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"q\\\": \\\"x\\\"}\"}</tool_call>";
    let a = complete(input);
    assert_eq!(a[0].name, "search");
    assert_eq!(a[0].arguments, serde_json::json!({"q": "x"}));
    assert_eq!(a[0].repairs.len(), 1);
    assert_eq!(a[0].repairs[0].kind.name(), "arguments given as a string");
    assert_eq!(a[0].repairs[0].line, 1);

    let i = strict_invalid(input);
    assert_eq!(i[0].name.as_deref(), Some("search"));
    assert_eq!(i[0].errors[0].path, "arguments");

    // In a fence, with `parameters`.
    let fence = "```tool_call\n{\"name\": \"search\",\n \"parameters\": \"{\\\"q\\\": 1}\"}\n```\n";
    let a = complete(fence);
    assert_eq!(a[0].arguments, serde_json::json!({"q": 1}));
    assert_eq!(a[0].repairs[0].kind.name(), "arguments given as a string");
    assert_eq!(strict_invalid(fence).len(), 1);
}

#[test]
fn arguments_given_as_a_string_position() {
    // The string value of "arguments" starts at line 1, column 44.
    let input =
        "<tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"q\\\": \\\"x\\\"}\"}</tool_call>";
    let a = complete(input);
    assert_eq!(repairs(&a[0]), ["arguments given as a string 1:44"]);
}

#[test]
fn several_repairs_in_one_block() {
    let input = "```json\n{\"action\": \"note\", // c\n \"body\": \"a\nb\",\n}\n";
    let a = complete(input);
    assert_eq!(
        repairs(&a[0]),
        [
            "comment 2:20",
            "control character in string 3:12",
            "trailing comma 4:3",
            "missing closer 6:1"
        ]
    );
    let i = strict_invalid(input);
    assert_eq!(i.len(), 1);
}

#[test]
fn python_literal() {
    assert_one_repair(
        "```json\n{\"action\": \"note\", \"a\": True}\n```\n",
        serde_json::json!({"a": true}),
        "python literal 2:25",
        "a Python literal",
    );
    assert_one_repair(
        "<tool_call>{\"name\": \"note\", \"arguments\": {'a': 1}}</tool_call>",
        serde_json::json!({"a": 1}),
        "python literal 1:43",
        "a key in single quotes (a Python literal)",
    );
}
