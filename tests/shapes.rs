//! Shapes found in real model outputs (contract section 3): a name alone,
//! `null` and other non-object arguments, a tag's content by its `name`
//! attribute, and Python dicts. Each case at every chunking, default and
//! strict.

mod common;
use actionstream::{Config, Event};
use common::*;

fn strict() -> Config {
    Config::default().strict(true)
}

/// The summary of `input` at every chunking, with the defaults and in
/// strict mode; both must agree (no repair is involved).
fn both(input: &str) -> Vec<String> {
    let default = summary(&parse(input));
    let strict = summary(&parse_with(&strict(), input));
    assert_eq!(default, strict, "strict mode differs on {input:?}");
    default
}

/// The one invalid action of `input` in `config`, as `name:path:message`,
/// after checking nothing completed.
fn one_invalid(config: &Config, input: &str) -> String {
    let events = parse_with(config, input);
    assert!(
        !events.iter().any(|e| matches!(e, Event::ActionComplete(_))),
        "completed an action: {events:?}"
    );
    let found: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::ActionInvalid(a) => Some(format!(
                "{}:{}:{}",
                a.name.as_deref().unwrap_or("-"),
                a.errors[0].path,
                a.errors[0].message
            )),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "{events:?}");
    found.into_iter().next().unwrap()
}

// 1. `name` alone.

#[test]
fn name_alone_in_a_call_tag() {
    assert_eq!(
        both("<tool_call>{\"name\": \"now\"}</tool_call>"),
        ["S0:now", "C0:now:{}"]
    );
    assert_eq!(
        both("Time?\n<tool_call>{\"name\": \"now\", \"tz\": \"UTC\"}</tool_call>\nok"),
        ["N:Time?\n", "S0:now", r#"C0:now:{"tz":"UTC"}"#, "N:\nok"]
    );
    // XML children without a `name` attribute are named by the same rules.
    assert_eq!(
        both("<tool_call><name>now</name><tz>UTC</tz></tool_call>"),
        ["S0:now", r#"C0:now:{"tz":"UTC"}"#]
    );
}

#[test]
fn name_alone_in_action_fences() {
    assert_eq!(
        both("```action\n{\"name\": \"now\", \"tz\": \"UTC\"}\n```\n"),
        ["S0:now", r#"C0:now:{"tz":"UTC"}"#]
    );
    assert_eq!(
        both("```tool_call\n{\"name\": \"now\"}\n{\"name\": \"later\", \"in\": 5}\n```\n"),
        ["S0:now", "S1:later", "C0:now:{}", r#"C1:later:{"in":5}"#]
    );
    assert_eq!(
        both("```actions\n{\"actions\": [{\"name\": \"a\"}, {\"name\": \"b\", \"x\": 1}]}\n```\n"),
        ["S0:a", "S1:b", "C0:a:{}", r#"C1:b:{"x":1}"#]
    );
}

#[test]
fn name_alone_is_last_in_the_ranking() {
    // `type` outranks it, and `name` stays in the arguments.
    assert_eq!(
        both("```action\n{\"name\": \"n\", \"type\": \"t\"}\n```\n"),
        ["S0:t", r#"C0:t:{"name":"n"}"#]
    );
    // `function` with its input is outranked by `name` with that input.
    assert_eq!(
        both(
            "<tool_call>{\"function\": \"f\", \"input\": {\"x\": 1}, \"name\": \"n\"}</tool_call>"
        ),
        ["S0:n", r#"C0:n:{"x":1}"#]
    );
    assert_eq!(
        both("<tool_call>{\"function\": \"f\", \"input\": {\"x\": 1}}</tool_call>"),
        ["S0:f", r#"C0:f:{"x":1}"#]
    );
    // A `function` without input is just an argument.
    assert_eq!(
        both("<tool_call>{\"function\": \"f\", \"name\": \"n\"}</tool_call>"),
        ["S0:n", r#"C0:n:{"function":"f"}"#]
    );
}

#[test]
fn name_alone_does_not_name_in_generic_blocks() {
    // Without a discriminator, a json block is narrative.
    let input = "```json\n{\"name\": \"now\"}\n```\n";
    assert_eq!(both(input), [format!("N:{input}")]);
    // In a json action block, such an object has no name.
    let input = "```json\n[{\"action\": \"a\"}, {\"name\": \"now\"}]\n```\n";
    let s = both(input);
    assert_eq!(s[..3], ["S0:a", "S1:-", "C0:a:{}"]);
    assert_eq!(
        s[3],
        "I1:-:the object has no name: expected a string under \"action\" (or \"name\" with \"arguments\"), found \"name\" without \"arguments\""
    );
}

#[test]
fn only_a_string_names() {
    for config in [Config::default(), strict()] {
        assert_eq!(
            one_invalid(&config, "<tool_call>{\"name\": 5}</tool_call>"),
            "-::the object has no name: expected a string under \"action\", \"type\" or \"name\", found \"name\" holding an integer"
        );
        assert_eq!(
            one_invalid(&config, "```action\n{\"title\": \"x\"}\n```\n"),
            "-::the object has no name: expected a string under \"action\", \"type\" or \"name\", found no such key"
        );
    }
}

// 2. `arguments` is always an object.

#[test]
fn null_arguments_are_empty() {
    assert_eq!(
        both("<tool_call>{\"name\": \"f\", \"arguments\": null}</tool_call>"),
        ["S0:f", "C0:f:{}"]
    );
    assert_eq!(
        both("```action\n{\"name\": \"f\", \"parameters\": null}\n```\n"),
        ["S0:f", "C0:f:{}"]
    );
    assert_eq!(
        both("```json\n{\"action\": \"g\"}\n{\"tool_name\": \"f\", \"input\": null}\n```\n"),
        ["S0:g", "S1:f", "C0:g:{}", "C1:f:{}"]
    );
}

#[test]
fn arguments_that_are_not_an_object_are_invalid() {
    let cases = [
        ("5", "found an integer: 5"),
        ("1.5", "found a number: 1.5"),
        ("[1, 2]", "found an array: [1,2]"),
        ("true", "found a boolean: true"),
        ("\"now\"", "found a string that holds no object: \"now\""),
        ("\"[1]\"", "found a string that holds no object: \"[1]\""),
        (
            "\"{oops\"",
            "found a string that holds no object: \"{oops\"",
        ),
    ];
    for (args, found) in cases {
        let want = format!("f:arguments:arguments must be a JSON object, {found}");
        for input in [
            format!("<tool_call>{{\"name\": \"f\", \"arguments\": {args}}}</tool_call>"),
            format!("```action\n{{\"name\": \"f\", \"arguments\": {args}}}\n```\n"),
            format!("```tool_call\n{{\"tool_name\": \"f\", \"input\": {args}}}\n```\n"),
        ] {
            let want = if input.contains("tool_name") {
                want.replace(":arguments:", ":input:")
            } else {
                want.clone()
            };
            assert_eq!(one_invalid(&Config::default(), &input), want, "{input}");
            if !args.starts_with("\"{") {
                assert_eq!(one_invalid(&strict(), &input), want, "{input}");
            }
        }
    }
}

#[test]
fn long_arguments_are_cut_in_the_message() {
    let long = format!("[{}]", vec!["1"; 40].join(","));
    let got = one_invalid(
        &Config::default(),
        &format!("<tool_call>{{\"name\": \"f\", \"arguments\": {long}}}</tool_call>"),
    );
    assert_eq!(
        got,
        format!(
            "f:arguments:arguments must be a JSON object, found an array: {}…",
            &long[..40]
        )
    );
}

// 3. A tag named by its `name` attribute.

#[test]
fn name_attribute_content_must_be_one_object() {
    let cases = [
        ("[1,2]", "found an array: [1,2]"),
        // One object in an array is not unwrapped.
        ("[{\"q\": \"x\"}]", "found an array: [{\"q\": \"x\"}]"),
        (
            "{\"a\": 1} {\"b\": 2}",
            "found 2 JSON values one after another",
        ),
        ("{\"a\": 1}\n5", "found 2 JSON values one after another"),
        ("[] 5", "found 2 JSON values one after another"),
    ];
    for (content, found) in cases {
        let input = format!("<action_call name=\"f\">{content}</action_call>");
        let message = if found.starts_with("found 2") {
            format!("f::arguments must be a JSON object, {found}")
        } else {
            format!("f::arguments must be a JSON object (or XML child elements), {found}")
        };
        for config in [Config::default(), strict()] {
            assert_eq!(one_invalid(&config, &input), message, "{input}");
        }
        assert_eq!(both(&input)[0], "S0:f");
    }
}

#[test]
fn name_attribute_content_that_is_no_call() {
    // A number or a string right after the opener: the tag is prose
    // (section 1), not an action.
    for content in ["5", "\"x\""] {
        let input = format!("<action_call name=\"f\">{content}</action_call>");
        assert_eq!(both(&input), [format!("N:{input}")]);
    }
}

#[test]
fn name_attribute_content_that_is_arguments() {
    assert_eq!(
        both("<action_call name=\"f\"></action_call>"),
        ["S0:f", "C0:f:{}"]
    );
    assert_eq!(
        both("<action_call name=\"f\"> {\"q\": [1]} </action_call>"),
        ["S0:f", r#"C0:f:{"q":[1]}"#]
    );
    assert_eq!(
        both("<action_call name=\"f\"><q>x</q></action_call>"),
        ["S0:f", r#"C0:f:{"q":"x"}"#]
    );
    // An object whose first key is `actions` is still the arguments.
    assert_eq!(
        both("<action_call name=\"f\">{\"actions\": [1, {\"a\": 2}]}</action_call>"),
        ["S0:f", r#"C0:f:{"actions":[1,{"a":2}]}"#]
    );
}

// 4. Python literals.

#[test]
fn hermes_python_dict() {
    let input = "<tool_call>\n{'arguments': {'symbol': 'TSLA'}, 'name': 'get_stock_fundamentals'}\n</tool_call>\n";
    let a = complete(input);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].name, "get_stock_fundamentals");
    assert_eq!(a[0].arguments, serde_json::json!({"symbol": "TSLA"}));
    assert_eq!(
        repairs(&a[0]),
        [
            "python literal 2:2",
            "python literal 2:16",
            "python literal 2:26",
            "python literal 2:35",
            "python literal 2:43"
        ]
    );
    // Strict: the first single quote breaks the JSON; no name was read.
    let got = one_invalid(&strict(), input);
    assert!(
        got.starts_with("-::the JSON cannot be read: a key in single quotes (a Python literal), which JSON does not allow, found `'` (line 2, column 2 of the block)"),
        "{got}"
    );
}

#[test]
fn python_literals_in_fences_and_tags() {
    let inputs = [
        "```action\n{'action': 'set', 'on': True, 'off': False, 'none': None, 'n': [True, None]}\n```\n",
        "```json\n{'action': 'set', 'on': True, 'off': False, 'none': None, 'n': [True, None]}\n```\n",
        "<action_call name=\"set\">{'on': True, 'off': False, 'none': None, 'n': [True, None]}</action_call>",
        "<tool_call>{\"name\": \"set\", \"arguments\": {\"on\": True, \"off\": False, \"none\": None, \"n\": [True, None]}}</tool_call>",
    ];
    for input in inputs {
        let a = complete(input);
        assert_eq!(a.len(), 1, "{input}");
        assert_eq!(a[0].name, "set");
        assert_eq!(
            a[0].arguments,
            serde_json::json!({"on": true, "off": false, "none": null, "n": [true, null]})
        );
        assert!(
            a[0].repairs
                .iter()
                .all(|r| r.kind.name() == "python literal"),
            "{:?}",
            a[0].repairs
        );
        let events = parse_with(&strict(), input);
        assert!(
            !events.iter().any(|e| matches!(e, Event::ActionComplete(_))),
            "strict completed {input}"
        );
    }
}

#[test]
fn python_literal_repair_positions() {
    let input = "```action\n{'action': 'a', 'x': True,\n 'b': \"None\"}\n```\n";
    let a = complete(input);
    assert_eq!(a[0].name, "a");
    assert_eq!(a[0].arguments, serde_json::json!({"x": true, "b": "None"}));
    assert_eq!(
        repairs(&a[0]),
        [
            "python literal 2:2",
            "python literal 2:12",
            "python literal 2:17",
            "python literal 2:22",
            "python literal 3:2"
        ]
    );
    // Strict: the quote is where it breaks.
    let got = one_invalid(&strict(), input);
    assert!(got.contains("single quotes"), "{got}");
    assert!(got.contains("line 2, column 2"), "{got}");
    // A bare word in strict mode says what JSON writes instead.
    let got = one_invalid(
        &strict(),
        "```action\n{\"action\": \"a\", \"x\": None}\n```\n",
    );
    assert_eq!(
        got,
        "a::the JSON cannot be read: a Python literal (`True`, `False`, `None`), which JSON writes `true`, `false`, `null`, found `N` (line 2, column 22 of the block)"
    );
}

#[test]
fn python_string_escapes() {
    let cases = [
        (r#"'it\'s'"#, "it's"),
        (r#"'say "hi"'"#, "say \"hi\""),
        (r#"'say \"hi\"'"#, "say \"hi\""),
        (r#"'a\\b'"#, "a\\b"),
        (r#"'tab\tnl\nret\r'"#, "tab\tnl\nret\r"),
        (r#"'\a\v\b\f'"#, "\u{7}\u{b}\u{8}\u{c}"),
        (r#"'\x41\u00e9\U0001F600'"#, "Aé😀"),
        (r#"'\101\0\12x\1234'"#, "A\u{0}\nxS4"),
        // Not escapes in Python: the backslash stays.
        (r#"'\d\/\é'"#, "\\d\\/\\é"),
        // A line continuation.
        ("'one \\\ntwo'", "one two"),
        ("'one \\\r\ntwo'", "one two"),
        // A literal newline is the usual control character repair.
        ("'a\nb'", "a\nb"),
        ("'True'", "True"),
        ("''", ""),
    ];
    for (py, want) in cases {
        for input in [
            format!("```action\n{{'action': 'say', 'text': {py}}}\n```\n"),
            format!("<tool_call>{{'name': 'say', 'arguments': {{'text': {py}}}}}</tool_call>"),
        ] {
            let a = complete(&input);
            assert_eq!(a.len(), 1, "{input}");
            assert_eq!(a[0].name, "say", "{input}");
            assert_eq!(
                a[0].arguments,
                serde_json::json!({ "text": want }),
                "{input}"
            );
        }
    }
    // Single-quoted keys that need escapes.
    let a = complete("```action\n{'action': 'k', 'a\\'b': 1, 'c\"d': 2}\n```\n");
    assert_eq!(a[0].arguments, serde_json::json!({"a'b": 1, "c\"d": 2}));
}

#[test]
fn broken_python_literals() {
    let cases = [
        ("Tru}", "expected the Python literal `True`, found `}`"),
        ("Nonsense", "expected the Python literal `None`, found `s`"),
        ("Falsey", "expected `,` or `}` after an object member, found `y`"),
        ("'\\x4'", "expected two hex digits after \\x, found `'`"),
        ("'\\u12'", "expected four hex digits after \\u, found `'`"),
        ("'\\U00110000'", "a \\U escape beyond U+10FFFF, found `0`"),
        ("'\\N{DASH}'", "a \\N{…} escape in a single-quoted string, which is not read: write the character itself, found `N`"),
        ("'\\ud800'", "an invalid \\u escape in a string (a lone surrogate)"),
        ("'open}", "the JSON is cut off"),
    ];
    for (value, message) in cases {
        let input = format!("```action\n{{\"action\": \"a\", \"v\": {value}\n```\n");
        let got = one_invalid(&Config::default(), &input);
        assert!(got.starts_with("a::"), "{got}");
        if message == "the JSON is cut off" {
            continue;
        }
        assert!(got.contains(message), "{input}: {got}");
    }
}

#[test]
fn python_dict_in_a_generic_block_decides_it() {
    let input = "Plan:\n```json\n{'action': 'go', 'fast': True}\n```\n";
    assert_eq!(
        summary(&parse(input)),
        ["N:Plan:\n", "S0:go", r#"C0:go:{"fast":true}"#]
    );
    // Strict: a generic block that breaks before it is decided is prose.
    assert_eq!(
        summary(&parse_with(&strict(), input)),
        [format!("N:{input}")]
    );
}
