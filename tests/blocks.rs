//! Fences, tags and where blocks end (contract sections 1 and 2), each case
//! at every chunking.

mod common;
use actionstream::{narrative, Config};
use common::*;

#[test]
fn json_action_block() {
    let e = parse("I'll branch:\n\n```json\n{\n  \"action\": \"create_branch\",\n  \"branch_name\": \"feature/jwt-auth\",\n  \"from\": \"main\"\n}\n```\n\nThis allows parallel work.\n");
    assert_eq!(
        summary(&e),
        [
            "N:I'll branch:\n\n",
            "S0:create_branch",
            r#"C0:create_branch:{"branch_name":"feature/jwt-auth","from":"main"}"#,
            "N:\nThis allows parallel work.\n",
        ]
    );
}

#[test]
fn generic_block_without_action_is_narrative() {
    let input = "Config:\n\n```json\n{\n  \"project\": {\"repo\": \"owner/repo\"}\n}\n```\n\nJust reference.\n";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn backticks_inside_json_strings() {
    let input = "Create:\n\n```json\n{\n  \"action\": \"create_issues\",\n  \"issues\": [{\"title\": \"JWT\", \"body\": \"## Example\\n```typescript\\nconst t = 1;\\n```\", \"labels\": [\"backend\"]}]\n}\n```\n";
    let e = parse(input);
    assert_eq!(completed(&e).len(), 1);
    assert!(completed(&e)[0].contains(r#"```typescript\nconst t = 1;\n```"#));
}

#[test]
fn literal_newline_and_fence_line_inside_string() {
    let input = "```json\n{\"action\": \"note\", \"body\": \"before\n```\nafter\"}\n```\ntail\n";
    let e = parse(input);
    assert_eq!(
        summary(&e)[..2],
        [
            "S0:note".to_string(),
            r#"C0:note:{"body":"before\n```\nafter"}"#.to_string()
        ]
    );
    assert_eq!(summary(&e)[2], "N:tail\n");
}

#[test]
fn broken_block_ends_at_first_closer() {
    // The string never closes: the block ends at its first closer and the
    // next block is read as usual.
    let input = "```json\n{\"action\": \"a\", \"x\": \"open\n```\nmiddle\n```json\n{\"action\": \"b\"}\n```\n";
    let e = parse(input);
    let s = summary(&e);
    assert_eq!(s[0], "S0:a");
    assert!(s[1].starts_with("I0:a:"), "{s:?}");
    assert_eq!(s[2], "N:middle\n");
    assert_eq!(s[3], "S1:b");
    assert_eq!(s[4], "C1:b:{}");
}

#[test]
fn syntax_error_ends_at_first_closer() {
    let input = "```json\n{\"action\": \"update_plan\", \"plan\": x}\n```\nafter\n";
    let e = parse(input);
    let s = summary(&e);
    assert_eq!(s[0], "S0:update_plan");
    assert!(s[1].contains("expected a JSON value, found `x`"), "{s:?}");
    assert_eq!(s[2], "N:after\n");
}

#[test]
fn multiple_blocks_and_arrays() {
    let input = "Plan:\n```json\n[\n {\"action\": \"create_branch\", \"branch_name\": \"f\"},\n {\"action\": \"update_plan\", \"plan\": \"P1\"}\n]\n```\nthen\n```json\n{\"action\": \"x\"}\n```";
    let e = parse(input);
    assert_eq!(
        completed(&e),
        [
            r#"create_branch:{"branch_name":"f"}"#,
            r#"update_plan:{"plan":"P1"}"#,
            "x:{}"
        ]
    );
}

#[test]
fn actions_fence_wrapper_with_types() {
    let input = "Reply.\n\n```actions\n{\n  \"actions\": [\n    {\"type\": \"create_task\", \"content\": \"Review\", \"status\": \"pending\"},\n    {\"type\": \"create_memory\", \"content\": \"dark mode\"}\n  ]\n}\n```\n\nMore text.\n";
    let e = parse(input);
    assert_eq!(
        completed(&e),
        [
            r#"create_task:{"content":"Review","status":"pending"}"#,
            r#"create_memory:{"content":"dark mode"}"#
        ]
    );
}

#[test]
fn all_actions_blocks_are_read_not_only_the_first() {
    let input = "```actions\n{\"actions\": [{\"type\": \"create_task\", \"content\": \"task 1\"}]}\n```\n\n```actions\n{\"actions\": [{\"type\": \"create_task\", \"content\": \"task 2\"}]}\n```\n";
    assert_eq!(completed(&parse(input)).len(), 2);
}

#[test]
fn unclosed_action_block_with_complete_json_completes() {
    let input = "```actions\n{\"actions\": [{\"type\": \"create_task\", \"content\": \"test\"}]}\n";
    let e = parse(input);
    assert_eq!(completed(&e), [r#"create_task:{"content":"test"}"#]);
    match e.last() {
        Some(actionstream::Event::ActionComplete(a)) => {
            assert_eq!(
                a.repairs.last().map(|r| r.kind.name()),
                Some("missing closer")
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unclosed_cut_off_block_is_invalid() {
    let e = parse("text\n```json\n{\"action\": \"create_task\", \"content\": \"te");
    let s = summary(&e);
    assert_eq!(s[0], "N:text\n");
    assert_eq!(s[1], "S0:create_task");
    assert!(
        s[2].starts_with("I0:create_task:the response ended"),
        "{s:?}"
    );
}

#[test]
fn wrong_block_name_action_is_an_action_tag() {
    // `action` is an action tag too: the seed's "wrong block name" is read.
    let e =
        parse("```action\n{\"actions\": [{\"type\": \"create_task\", \"content\": \"x\"}]}\n```\n");
    assert_eq!(completed(&e), [r#"create_task:{"content":"x"}"#]);
}

#[test]
fn custom_fence_tag() {
    let config = actionstream::Config::default().fence_tag("facilitator-action");
    let input = "I've made a decision:\n\n```facilitator-action\n{\n  \"type\": \"decision\",\n  \"content\": \"Use TypeScript\",\n  \"participants\": [\"Alice\", \"Bob\"]\n}\n```\n";
    let e = parse_with(&config, input);
    assert_eq!(
        completed(&e),
        [r#"decision:{"content":"Use TypeScript","participants":["Alice","Bob"]}"#]
    );
}

#[test]
fn nested_fences_are_content() {
    let input = "````markdown\n```json\n{\"action\": \"no\"}\n```\n<action_call name=\"x\">{}</action_call>\n````\nafter\n```python\n<tool_call>{\"name\":\"a\",\"arguments\":{}}</tool_call>\n```\n";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn xml_block_holds_tags_as_content() {
    let input = "```xml\n<action_call name=\"search\">{\"q\": 1}</action_call>\n```\n";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn unclosed_narrative_fence_runs_to_end() {
    let input = "```python\nprint(1)\n<action_call name=\"x\">{}</action_call>\n";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn tilde_fences_and_longer_closers() {
    let input = "~~~~json\n{\"action\": \"a\"}\n~~~~~\nafter\n";
    let e = parse(input);
    assert_eq!(completed(&e), ["a:{}"]);
    assert_eq!(summary(&e).last().map(String::as_str), Some("N:after\n"));
    // A shorter run inside is content: here it breaks the JSON.
    let e = parse("~~~~json\n{\"action\": \"a\"}\n~~~\n~~~~\n");
    assert_eq!(invalid(&e).len(), 1);
}

#[test]
fn fence_in_numbered_list_item() {
    let input = "Steps:\n\n10. Create the branch:\n    ```json\n    {\"action\": \"create_branch\"}\n    ```\n11. Done.\n";
    let e = parse(input);
    assert_eq!(completed(&e), ["create_branch:{}"]);
}

#[test]
fn list_items_decided_inside_one_push() {
    // Blank lines, list items and indented lines: each line start is
    // decided within the piece that holds it on the borrowing path, and by
    // the buffered machine otherwise; the oracle runs both at every cut.
    let input = "Plan:\n\n- first step\n\n  ```json\n  {\"action\": \"a\"}\n  ```\n- second\n    ```json\n    {\"action\": \"b\"}\n    ```\nplain\n    ```json\n    {\"action\": \"c\"}\n    ```\n";
    let e = parse(input);
    assert_eq!(completed(&e), ["a:{}", "b:{}"]);
    assert!(summary(&e)
        .last()
        .is_some_and(|s| s.contains("plain\n    ```json")));
}

#[test]
fn indented_code_is_not_a_fence() {
    let input = "Text\n\n    ```json\n    {\"action\": \"x\"}\n    ```\n";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn crlf_line_endings() {
    let input = "Hi\r\n```json\r\n{\"action\": \"a\", \"b\": 1}\r\n```\r\nafter\r\n";
    let e = parse(input);
    assert_eq!(completed(&e), [r#"a:{"b":1}"#]);
}

#[test]
fn tag_with_name_attribute() {
    let input = "Searching <action_call name=\"search\" id='7'>{\"query\": \"AI news\", \"limit\": 10}</action_call> now.";
    let e = parse(input);
    assert_eq!(summary(&e)[1], "S0:search");
    assert_eq!(completed(&e), [r#"search:{"query":"AI news","limit":10}"#]);
    match &e[2] {
        actionstream::Event::ActionComplete(a) => {
            assert_eq!(a.attributes, [("id".to_string(), "7".to_string())])
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tag_with_openai_style_content() {
    let e = parse("<action_call>\n{\"name\":\"solana.token.analyzeToken\",\"arguments\":{\"mint\":\"abc\"}}\n</action_call>");
    assert_eq!(
        completed(&e),
        [r#"solana.token.analyzeToken:{"mint":"abc"}"#]
    );
}

#[test]
fn tag_with_anthropic_style_content() {
    let e =
        parse("<action_call>{\"tool_name\": \"search\", \"input\": {\"q\": \"x\"}}</action_call>");
    assert_eq!(completed(&e), [r#"search:{"q":"x"}"#]);
    let e = parse(
        "<action_call>{\"function\": \"search\", \"arguments\": {\"q\": \"x\"}}</action_call>",
    );
    assert_eq!(completed(&e), [r#"search:{"q":"x"}"#]);
}

#[test]
fn hermes_tool_call() {
    let e = parse("Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>");
    assert_eq!(completed(&e), [r#"get_weather:{"city":"Paris"}"#]);
}

#[test]
fn arguments_given_as_a_string() {
    let e = parse("<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>");
    assert_eq!(completed(&e), [r#"f:{"a":1}"#]);
}

#[test]
fn xml_children_as_arguments() {
    let e = parse("<action_call name=\"search\">\n  <query> AI news </query>\n  <limit>10</limit>\n</action_call>");
    assert_eq!(completed(&e), [r#"search:{"query":"AI news","limit":10}"#]);
    let e = parse("<tool_call><name>search</name><arguments>{\"q\": 1}</arguments></tool_call>");
    assert_eq!(completed(&e), [r#"search:{"q":1}"#]);
}

#[test]
fn closing_tag_inside_json_string() {
    let e = parse(
        "<action_call name=\"say\">{\"text\": \"</action_call> is the closer\"}</action_call>!",
    );
    assert_eq!(
        completed(&e),
        [r#"say:{"text":"</action_call> is the closer"}"#]
    );
    assert_eq!(summary(&e).last().map(String::as_str), Some("N:!"));
}

#[test]
fn tags_in_prose_and_inline_code_are_narrative() {
    for input in [
        "Use the <action_call> tag to call.",
        "Write `<action_call name=\"x\">{}</action_call>` to call.",
        "Write ``a ` <action_call>{}</action_call>`` ok",
        "<action_call>   ",
        "<action_call name=x>{}</action_call>",
        "<action_callx>{}</action_callx>",
    ] {
        assert_eq!(summary(&parse(input)), [format!("N:{input}")], "{input}");
    }
}

#[test]
fn tag_after_closed_inline_code_is_a_call() {
    let e = parse("See `code` then <action_call name=\"x\">{}</action_call>");
    assert_eq!(completed(&e), ["x:{}"]);
}

#[test]
fn empty_tag_call() {
    let e = parse("<action_call name=\"ping\"></action_call>");
    assert_eq!(completed(&e), ["ping:{}"]);
}

#[test]
fn empty_action_block_is_one_invalid_action() {
    let e = parse("```action\n```\n");
    assert_eq!(invalid(&e).len(), 1);
    assert!(invalid(&e)[0].starts_with("-:the block holds no action object"));
}

#[test]
fn non_object_values_are_invalid_actions() {
    let e = parse("```actions\n[{\"type\": \"a\"}, 42]\n```\n");
    assert_eq!(completed(&e), ["a:{}"]);
    assert_eq!(
        invalid(&e),
        ["-:expected an action object, found an integer"]
    );
}

#[test]
fn json_lines_block() {
    let e = parse("```actions\n{\"type\": \"a\"}\n{\"type\": \"b\", \"n\": 1}\n```\n");
    assert_eq!(completed(&e), ["a:{}", r#"b:{"n":1}"#]);
}

#[test]
fn generic_block_decided_then_unnamed_object_invalid() {
    let e = parse("```json\n[{\"action\": \"a\"}, {\"other\": 1}]\n```\n");
    assert_eq!(completed(&e), ["a:{}"]);
    assert_eq!(invalid(&e).len(), 1);
}

#[test]
fn discriminator_outranks_type_and_name() {
    let e = parse("```actions\n{\"type\": \"t\", \"action\": \"a\"}\n```\n");
    assert_eq!(completed(&e), [r#"a:{"type":"t"}"#]);
}

#[test]
fn a_discriminator_key_read_more_than_once() {
    // The first string under the first discriminator names the action; the
    // key is in no action's arguments, whatever it held before or after.
    let cases = [
        (
            "{\"action\": 5, \"action\": \"x\", \"b\": 1}",
            r#"x:{"b":1}"#,
        ),
        (
            "{\"action\": \"a\", \"action\": \"b\", \"c\": 1}",
            r#"a:{"c":1}"#,
        ),
        (
            "{\"action\": \"a\", \"action\": 7, \"c\": [1]}",
            r#"a:{"c":[1]}"#,
        ),
        (
            "{\"type\": \"t\", \"action\": \"a\", \"action\": {}}",
            r#"a:{"type":"t"}"#,
        ),
        (
            "{\"action\": \"a\", \"m\": {\"action\": 1}}",
            r#"a:{"m":{"action":1}}"#,
        ),
        (
            "{\"action\": {\"action\": 2}, \"action\": \"a\"}",
            r#"a:{}"#,
        ),
    ];
    for (json, want) in cases {
        for (open, close) in [
            ("```json\n", "\n```\n"),
            ("<action_call>", "</action_call>"),
        ] {
            let e = parse(&format!("{open}{json}{close}"));
            assert_eq!(completed(&e), [want], "{open}{json}");
        }
    }
}

#[test]
fn extra_discriminator() {
    let config = actionstream::Config::default().discriminator("kind");
    let e = parse_with(&config, "```json\n{\"kind\": \"k\", \"v\": 1}\n```\n");
    assert_eq!(completed(&e), [r#"k:{"v":1}"#]);
    // Named by the first: the other stays in the arguments.
    let e = parse_with(
        &config,
        "```json\n{\"kind\": \"k\", \"action\": \"a\", \"kind\": 2}\n```\n",
    );
    assert_eq!(completed(&e), [r#"a:{"kind":2}"#]);
}

#[test]
fn invalid_utf8_becomes_replacement() {
    let bytes = b"Hi \xff there\n```json\n{\"action\": \"a\", \"s\": \"\xc3\"}\n```\n";
    let e = actionstream::oracle::check_bytes(&actionstream::Config::default(), bytes);
    assert_eq!(completed(&e), ["a:{\"s\":\"\u{FFFD}\"}"]);
}

#[test]
fn generic_block_cut_off_after_a_closer_is_narrative_to_that_closer() {
    let input = "```json\n{\"a\": \"x\n```\nafter <action_call name=\"y\">{}</action_call>";
    let e = parse(input);
    assert_eq!(
        summary(&e),
        ["N:```json\n{\"a\": \"x\n```\nafter ", "S0:y", "C0:y:{}"]
    );
}

#[test]
fn what_a_string_holds_is_not_parsed_when_the_block_completes() {
    let input = "```json\n{\"action\": \"a\", \"s\": \"x\n```\n<action_call name='b'>{}</action_call>\n\"}\n```\nend";
    let e = parse(input);
    assert_eq!(completed(&e).len(), 1);
    assert!(completed(&e)[0].starts_with("a:"));
    assert_eq!(summary(&e).last().map(String::as_str), Some("N:end"));
}

#[test]
fn broken_after_closer_hands_over_to_the_text_after_it() {
    // The block's string closes inside the next block, and the JSON breaks
    // there: the first block ends at its first closer, the second is read.
    let input = "```json\n{\"action\": \"a\", \"s\": \"x\n```\n```json\n{\"action\": \"b\"}\n```\n";
    let e = parse(input);
    let s = summary(&e);
    assert_eq!(s[0], "S0:a");
    assert!(s[1].starts_with("I0:a:the JSON cannot be read"), "{s:?}");
    assert_eq!(&s[2..], ["S1:b", "C1:b:{}"]);
}

#[test]
fn speculation_nests_and_unwinds() {
    let mut input = String::new();
    for i in 0..6 {
        input.push_str(&format!(
            "```json\n{{\"action\": \"a{i}\", \"s\": \"open\n```\nprose {i}\n"
        ));
    }
    let e = parse(&input);
    // Every block is cut off: each ends at its first closer, invalid.
    assert_eq!(invalid(&e).len(), 6, "{:?}", summary(&e));
}

#[test]
fn closing_tag_in_string_then_broken() {
    let input = "<action_call name=\"x\">{\"s\": \"a</action_call> then {oops</action_call> tail";
    let e = parse(input);
    let s = summary(&e);
    assert_eq!(s[0], "S0:x");
    assert!(s[1].starts_with("I0:x:"), "{s:?}");
    assert_eq!(s[2], "N: then {oops</action_call> tail");
}

#[test]
fn json_outside_a_block_is_narrative() {
    // Seed 001: actions outside a block are not parsed.
    let input = "{\"type\": \"create_task\", \"content\": \"test\"}\n{\"actions\": []}";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn key_value_content_is_not_guessed() {
    // Seed 003's key=value fallback: the contract guesses nothing else, so a
    // tag whose content is not JSON or XML is prose.
    let input = "<action_call name=\"search\">query=test limit=5</action_call>";
    assert_eq!(summary(&parse(input)), [format!("N:{input}")]);
}

#[test]
fn upper_case_fence_tags_and_extra_info() {
    let e = parse(
        "```JSON title=\"plan\"\n{\"action\": \"a\"}\n```\n```Actions\n{\"type\": \"b\"}\n```\n",
    );
    assert_eq!(completed(&e), ["a:{}", "b:{}"]);
}

/// Errors carry their kind, and a JSON syntax error its line and column in
/// the block as fields, not only inside the message.
#[test]
fn errors_carry_a_kind_and_a_position() {
    use actionstream::ErrorKind;
    type Case = (&'static str, ErrorKind, Option<(usize, usize)>);
    let cases: [Case; 5] = [
        (
            "```action\n{\"action\": \"a\",\n  \"b\": ]}\n```\n",
            ErrorKind::Syntax,
            Some((3, 8)),
        ),
        (
            "```action\n{\"action\": \"a\", \"b\": [1,\n",
            ErrorKind::CutOff,
            None,
        ),
        ("```action\n[]\n```\n", ErrorKind::NoAction, None),
        ("```action\n{\"x\": 1}\n```\n", ErrorKind::NoName, None),
        ("```action\n[1]\n```\n", ErrorKind::Shape, None),
    ];
    for (input, kind, position) in cases {
        let events = actionstream::oracle::check(&actionstream::Config::default(), input);
        let invalid = events
            .iter()
            .find_map(|e| match e {
                actionstream::Event::ActionInvalid(a) => Some(a),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no invalid action for {input:?}"));
        let error = &invalid.errors[0];
        assert_eq!(error.kind, kind, "{input:?}: {error}");
        assert_eq!(error.line.zip(error.column), position, "{input:?}: {error}");
        if let Some((line, column)) = position {
            assert!(
                error
                    .message
                    .contains(&format!("line {line}, column {column}")),
                "{error}"
            );
        }
    }
}

#[test]
fn values_are_read_as_serde_json_reads_them() {
    // Numbers of every form (integers the scanner reads itself, `-0`,
    // fractions, exponents, integers too long for it), strings plain and
    // escaped, and literals: the arguments equal serde_json's reading of
    // the same text, in a fence, a tag and a tag named by its attribute,
    // at every chunking (so each token is cut at each of its bytes).
    let args = r#"{"z": 0, "nz": -0, "i": 12, "n": -12, "f": 1.5, "e": -1.5e3, "E": 1E+2, "x": 2e-2, "long": 123456789012345678, "longer": 1234567890123456789, "neg": -123456789012345678, "min": -9223372036854775808, "max": 18446744073709551615, "huge": 123456789012345678901234567890, "s": "plain", "esc": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "u": "é😀", "t": true, "fa": false, "nu": null, "a": [1, -2, 3.25, "x", [], {}], "o": {"k": [0]}}"#;
    let want: serde_json::Value = serde_json::from_str(args).unwrap();
    let body = &args[1..];
    for input in [
        format!("```json\n{{\"action\": \"v\", {body}\n```\n"),
        format!("<action_call>{{\"action\": \"v\", {body}</action_call>\n"),
        format!("<action_call name=\"v\">{args}</action_call>\n"),
    ] {
        let got = complete(&input);
        assert_eq!(got.len(), 1, "{input}");
        assert_eq!(got[0].arguments, want, "{input}");
    }
    // A top-level number ends at the white space after it.
    let e = parse("```json\n[{\"action\": \"v\", \"k\": -7}, 5 ]\n```\n");
    assert_eq!(completed(&e), [r#"v:{"k":-7}"#]);
}

#[test]
fn the_naming_key_is_taken_out_however_often_it_stands() {
    // The key that names the action is not among its arguments, whether it
    // came once, twice, or first with a value that names nothing.
    let cases = [
        (r#"{"action": "a", "q": 1}"#, r#"a:{"q":1}"#),
        (r#"{"action": "a", "q": 1, "action": "b"}"#, r#"a:{"q":1}"#),
        (r#"{"action": 5, "action": "x", "k": 1}"#, r#"x:{"k":1}"#),
        (
            r#"{"q": [1, {"action": "inner"}], "action": "a"}"#,
            r#"a:{"q":[1,{"action":"inner"}]}"#,
        ),
    ];
    for (json, want) in cases {
        let e = parse(&format!("```json\n{json}\n```\n"));
        assert_eq!(completed(&e), [want], "{json}");
    }
}

#[test]
fn block_lines_read_in_one_piece_as_line_by_line() {
    // A push inside a block that holds line ends goes to the scanner in
    // one piece when no line in it can close the block; one with a closer,
    // or a line start still undecided at its end, goes line by line. The
    // oracle runs both at every cut, with action deltas off and on.
    let input = concat!(
        "Pretty:\n```json\n{\n  \"action\": \"a\",\n  \"n\": [\n    1,\n    2\n  ],\n",
        "  \"s\": \"x <y> ``\"\n}\n   ```  \nafter\n",
        // Near-closers as content: too short, text after the run, indented
        // too deep. The JSON breaks at the first; the block still ends at
        // its real closer.
        "~~~json\n{\"action\": \"b\",\n~~\n ~~~x\n    ~~~\n}\n~~~\n",
        // A generic fence decided not to hold actions mid-block.
        "```\n{\n  \"kind\": \"note\",\n  \"text\": \"plain\"\n}\n```\n",
        // A tag block over several lines, `<` inside a string.
        "<action_call>{\n  \"action\": \"c\",\n  \"html\": \"<b>bold</b>\"\n}</action_call>\n",
        // A closer at the end of input, with no line end.
        "```json\n{\"action\": \"d\",\n \"k\": 1}\n```"
    );
    let e = parse(input);
    assert_eq!(
        completed(&e),
        [
            r#"a:{"n":[1,2],"s":"x <y> ``"}"#,
            r#"c:{"html":"<b>bold</b>"}"#,
            r#"d:{"k":1}"#
        ]
    );
    assert_eq!(invalid(&e).len(), 1, "{:?}", summary(&e));
    assert!(narrative(&e).contains("```\n{\n  \"kind\": \"note\""));
    let deltas = parse_with(&Config::default().action_deltas(true), input);
    assert_eq!(completed(&deltas), completed(&e));
}

#[test]
fn a_held_line_start_is_read_as_text_when_it_opens_no_fence() {
    // Cut after the line's first bytes, the borrowing path holds them
    // while they may open a fence; decided not to, they are narrative, and
    // what follows the indentation is read as text: here two backticks
    // that open inline code, so the tag inside is narrative too. The list
    // item and the indented line are lent as they are decided.
    let input = "Intro\n``x <action_call>{\"action\": \"a\"}</action_call> ``\n- item\n   two\n1. <action_call>{\"action\": \"b\"}</action_call>\n";
    let e = parse(input);
    assert_eq!(completed(&e), ["b:{}"]);
    assert!(narrative(&e).starts_with(
        "Intro\n``x <action_call>{\"action\": \"a\"}</action_call> ``\n- item\n   two\n1. "
    ));
}

/// A blank line inside a list item keeps the item open: a fence indented
/// to the item's content after it is an opener, as CommonMark reads it
/// (four spaces under `1. ` is the item's content plus one; without the
/// item it would be indented code). And a line under no item indented as
/// deep is not an opener. Through the oracle, so the blank line is cut at
/// every byte, held or read straight from the push.
#[test]
fn a_blank_line_keeps_the_list_item_a_fence_stands_in() {
    let in_item = "Plan:\n\n1. Search first.\n\n    ```json\n    {\"action\": \"search\", \"q\": \"rust\"}\n    ```\n\nDone.\n";
    let got = complete(in_item);
    assert_eq!(got.len(), 1, "{:?}", parse(in_item));
    assert_eq!(got[0].name, "search");
    let no_item = "Plan:\n\nSearch first.\n\n    ```json\n    {\"action\": \"search\", \"q\": \"rust\"}\n    ```\n\nDone.\n";
    assert!(complete(no_item).is_empty(), "{:?}", parse(no_item));
}

/// A long string value goes through the lane that keeps its bytes with no
/// reading beyond them (`Machine::string_lane`) wherever a push falls
/// wholly inside it; everywhere else the block is read byte by byte. These
/// cases sit on the lane's edges, each through the oracle (so every cut of
/// each string is a push the lane takes or declines): a `<` and a closer's
/// look-alike inside a tag block's string, escapes and a multibyte
/// character, a raw line end (repaired) and a line that looks like a
/// closer inside a fence's string, a block still undecided (its action key
/// last), the size limit crossed mid-string, and action deltas on (each
/// piece the lane takes goes out as the action's delta, in its push).
#[test]
fn a_long_string_value_reads_the_same_through_the_string_lane() {
    let long = "word ".repeat(40);
    let input = format!(
        concat!(
            "<action_call>{{\"action\": \"write\", \"body\": \"{long}a < b </action_ \\\"q\\\" \\\\ é {long}\"}}</action_call>\n",
            "```json\n{{\"action\": \"note\", \"text\": \"{long}\n```\n{long}\"}}\n```\n",
            "```json\n{{\"text\": \"{long}\", \"action\": \"last\"}}\n```\n",
            // The tag's closer inside a string that never ends: the block
            // ends at that closer, and what follows is narrative.
            "<action_call>{{\"action\": \"cut\", \"body\": \"{long}</action_call>{long}Done.\n"
        ),
        long = long
    );
    let e = parse(&input);
    let done = completed(&e);
    assert_eq!(done.len(), 3, "{:?}", summary(&e));
    assert!(
        done[0].starts_with("write:{\"body\":\"word word"),
        "{}",
        done[0]
    );
    assert!(
        done[0].contains(r#"a < b </action_ \"q\" \\ é word"#),
        "{}",
        done[0]
    );
    assert!(done[1].contains(r#"word \n```\nword"#), "{}", done[1]);
    assert!(done[2].starts_with("last:{\"text\":\"word"), "{}", done[2]);
    assert!(invalid(&e)[0].starts_with("cut:"), "{:?}", summary(&e));
    assert!(narrative(&e).ends_with("word Done.\n"), "{:?}", summary(&e));

    // The limit falls inside the first string: that block is cut off there.
    let limited = parse_with(&Config::default().max_block_bytes(150), &input);
    assert!(
        invalid(&limited)[0].starts_with("write:"),
        "{:?}",
        summary(&limited)
    );

    // With deltas on, the string's bytes are all streamed, in order.
    let deltas = parse_with(&Config::default().action_deltas(true), &input);
    assert_eq!(completed(&deltas), done);
    let streamed: String = deltas
        .iter()
        .filter_map(|e| match e {
            actionstream::Event::ActionDelta { id, text } if id.0 == 0 => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        streamed.contains(r#"a < b </action_ \"q\" \\ é"#),
        "{streamed}"
    );

    // And each piece of the string is streamed in the push that brings it.
    let mut parser = actionstream::Parser::new(Config::default().action_deltas(true));
    let mut out = Vec::new();
    parser.push(
        "<action_call>{\"action\": \"w\", \"body\": \"one ",
        &mut out,
    );
    for piece in ["two ", "three"] {
        out.clear();
        parser.push(piece, &mut out);
        assert!(
            matches!(&out[..], [actionstream::Event::ActionDelta { text, .. }] if text == piece),
            "{out:?}"
        );
    }
}

/// A plain line ends the list item above it, however the pushes cut it:
/// a fence indented four spaces after it is indented code, not an opener
/// (under the item it would be one). Shifted by one to three bytes so
/// that a token-sized piece holds the line end and the plain line's first
/// byte, which the short-push path reads without the machine.
#[test]
fn a_plain_line_ends_the_list_item_in_any_piece() {
    for shift in ["", "a", "ab", "abc"] {
        let input =
            format!("{shift}\n1. item\nPlain.\n    ```json\n    {{\"action\": \"x\"}}\n    ```\n");
        assert!(complete(&input).is_empty(), "{:?}", parse(&input));
    }
    let in_item = "1. item\n\n    ```json\n    {\"action\": \"x\"}\n    ```\n";
    assert_eq!(complete(in_item).len(), 1);
}

/// A fence opener indented less than a list item's content ends the item,
/// as a plain line does (CommonMark: a fence is no lazy continuation), so
/// a fence indented four spaces after it is indented code, not an opener.
/// Found by the `bytes` fuzz target: the item was kept across the fenced
/// block, and a blank line of a tab after it was then read one way whole
/// and another in pieces. Each case goes through every chunking.
#[test]
fn a_fence_below_the_item_ends_the_list_item() {
    let json = "{\"action\": \"x\"}";
    for (input, actions) in [
        // The fuzz case: an action fence, a narrative fence, a plain line.
        (
            format!("- \n```Json\n{{\n```\n\t\n    ```json\n{json}\n    ```\n"),
            0,
        ),
        (
            format!("- a\n```text\nx\n```\n\n    ```json\n{json}\n    ```\n"),
            0,
        ),
        (
            format!("- a\n```text\nx\n```\n    ```json\n{json}\n    ```\n"),
            0,
        ),
        (format!("- a\nPlain\n\t\n    ```json\n{json}\n    ```\n"), 0),
        // Within the item, the item goes on: a blank line of a tab, a fence
        // indented to its content.
        (format!("- a\n\t\n    ```json\n{json}\n    ```\n"), 1),
        (
            format!("- a\n  ```text\n  x\n  ```\n\n   ```json\n{json}\n   ```\n"),
            1,
        ),
    ] {
        assert_eq!(
            complete(&input).len(),
            actions,
            "{input:?}: {:?}",
            parse(&input)
        );
    }
}
