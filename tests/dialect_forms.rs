//! The call forms of the contract's section 7b as descriptor fields (tag
//! attributes, CDATA values, tags as parameter names, Gemma values, a name
//! as a JSON key, a leading JSON array, a token suffix, a recipient
//! envelope, a header name that is a marker, recipient lines, raw code):
//! each usable from a configuration file's `define_dialects` (a custom
//! dialect with that form, run through the parser at every chunking), and
//! each form's bad input (a malformed value names its argument, nesting
//! past the depth limit is invalid, an unclosed section ends at the block
//! limit).

mod common;

use actionstream::dialect::Dialect;
use actionstream::{Config, ConfigFile};
use serde_json::{json, Value};

/// The configuration a file defining `dialect` (a `define_dialects` entry
/// named `mine`) gives.
fn from_file(dialect: Value) -> Config {
    let file: ConfigFile = serde_json::from_value(json!({
        "dialects": ["mine"],
        "define_dialects": [dialect],
    }))
    .expect("a configuration file");
    file.apply(Config::default()).expect("it applies")
}

/// The configuration a `--config` file with this JSON text gives.
fn from_text(json: &str) -> Config {
    let file: ConfigFile = serde_json::from_str(json).expect("a configuration file");
    file.apply(Config::default())
        .expect("the configuration applies")
}

fn check(config: &Config, text: &str, want: &[&str]) {
    for deltas in [false, true] {
        let events = common::parse_with(&config.clone().argument_deltas(deltas), text);
        // The argument pieces are checked by the oracle; the rest here.
        let got: Vec<String> = common::summary(&events)
            .into_iter()
            .filter(|l| !l.starts_with('A'))
            .collect();
        assert_eq!(got, want, "{text}");
    }
}

#[test]
fn tag_attributes_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "sections": [{"open": "<calls>", "close": "</calls>", "calls": [{
            "format": "params", "call": "<call", "name_end": [">"],
            "key": "<arg", "key_end": [{"marker": ">"}], "value_end": "</arg>", "end": "</call>",
            "attributes": {"name": "fn", "id": "n", "key": "k", "type": "t"}
        }]}]
    }));
    check(
        &config,
        r#"Go <calls><call fn="a&lt;b" n="7"><arg k="x" t="string">1 &amp; 2</arg><arg k="y" t="integer">3</arg></call></calls>"#,
        &["N:Go ", "S0:a<b", r#"C0:a<b:{"x":"1 &amp; 2","y":3}"#],
    );
    let events = common::parse_with(&config, r#"<calls><call fn="f" n="7"></call></calls>"#);
    let Some(actionstream::Event::ActionComplete(a)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(a.attributes, [("call_id".to_owned(), "7".to_owned())]);
}

#[test]
fn cdata_values_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "sections": [{"open": "<fn=", "close": "</fn>", "calls": [{
            "format": "params", "name_end": [">"], "key": "<p=", "key_end": [{"marker": ">"}],
            "value_end": "</p>", "cdata": true
        }]}]
    }));
    check(
        &config,
        "<fn=f><p=a><![CDATA[x < y\n]]></p><p=b>2</p></fn>",
        &["S0:f", r#"C0:f:{"a":"x < y\n","b":2}"#],
    );
}

#[test]
fn tags_as_parameter_names_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "sections": [{"open": "@<calls>", "close": "@</calls>", "calls": [{
            "format": "tags", "call": "@<call name=", "name_end": [">"], "prefix": "@", "end": "@</call>"
        }]}]
    }));
    check(
        &config,
        "@<calls>@<call name=f>@<a>1@</a>@<o>@<k>x@</k>@</o>@<l>@<item>p@</item>@<item>q@</item>@</l>@</call>@</calls>",
        &["S0:f", r#"C0:f:{"a":1,"o":{"k":"x"},"l":["p","q"]}"#],
    );
}

#[test]
fn gemma_values_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "sections": [{"open": "<call>", "close": "</call>", "calls": [{
            "format": "gemma", "call": "call:", "string": "'"
        }]}]
    }));
    check(
        &config,
        "<call>call:f{a:'x, y',n:{b:[1,true]}}</call>",
        &["S0:f", r#"C0:f:{"a":"x, y","n":{"b":[1,true]}}"#],
    );
}

#[test]
fn a_name_as_a_json_key_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "sections": [{"open": "<calls>", "close": "</calls>", "calls": [{
            "format": "json", "name_is_key": true
        }]}]
    }));
    check(
        &config,
        r#"<calls>[{"f": {"a": 1}}, {"g": {}}]</calls>"#,
        // Each call starts when its name, the key, is read; the ends come
        // together with the section's.
        &["S0:f", "S1:g", r#"C0:f:{"a":1}"#, "C1:g:{}"],
    );
}

#[test]
fn a_leading_json_array_and_a_leading_marker_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "reasoning": [{"open": "<t>", "close": "</t>"}],
        "leading": ["</t>"],
        "first": [{"format": "json", "name_keys": ["name"], "argument_keys": ["arguments"], "array_first": true}]
    }));
    check(
        &config,
        r#"<t>hm</t> [{"name": "f", "arguments": {"a": 1}}]"#,
        &["R:hm", "N: ", "S0:f", r#"C0:f:{"a":1}"#],
    );
    check(&config, "</t>Hi </t>", &["N:Hi </t>"]);
    // Not after narrative.
    check(
        &config,
        r#"So [{"name": "f", "arguments": {}}]"#,
        &[r#"N:So [{"name": "f", "arguments": {}}]"#],
    );
}

fn builtin(name: &str) -> Config {
    Config::default().dialect(Dialect::builtin(name).expect("a built-in dialect"))
}

#[test]
fn malformed_values_are_invalid_naming_their_argument() {
    // Argument deltas on too: the streamed forms find the error as they go.
    for deltas in [false, true] {
        malformed_values(deltas);
    }
}

fn malformed_values(deltas: bool) {
    let gemma = builtin("gemma4").argument_deltas(deltas);
    let events = common::parse_with(
        &gemma,
        r#"<|tool_call>call:f{a:1,b:{c:<|"|>x<|"|> d}}<tool_call|>"#,
    );
    let invalid = common::invalid(&events);
    assert_eq!(invalid.len(), 1, "{events:?}");
    assert!(invalid[0].contains("b"), "{invalid:?}");
    let mm = builtin("minimax_m3").argument_deltas(deltas);
    let ns = "]<]minimax[>[";
    let text = format!(
        "{ns}<tool_call>{ns}<invoke name=\"f\">{ns}<a>{ns}<b>1{ns}</c>{ns}</a>{ns}</invoke>{ns}</tool_call>"
    );
    let events = common::parse_with(&mm, &text);
    let invalid = common::invalid(&events);
    assert_eq!(invalid.len(), 1, "{events:?}");
    assert!(invalid[0].contains("a.b"), "{invalid:?}");
}

#[test]
fn nesting_past_the_depth_limit_is_invalid_never_a_stack_overflow() {
    for deltas in [false, true] {
        too_deep(deltas);
    }
}

fn too_deep(deltas: bool) {
    let deep = 5_000;
    let gemma = builtin("gemma4").max_depth(64).argument_deltas(deltas);
    let text = format!(
        "<|tool_call>call:f{{a:{}1{}}}<tool_call|> after",
        "[".repeat(deep),
        "]".repeat(deep)
    );
    let events = actionstream::parse_str_with(gemma, &text);
    assert_eq!(common::invalid(&events).len(), 1, "gemma");
    assert!(common::invalid(&events)[0].contains("deeper"));
    let ns = "]<]minimax[>[";
    let mm = builtin("minimax_m3").max_depth(64).argument_deltas(deltas);
    let text = format!(
        "{ns}<tool_call>{ns}<invoke name=\"f\">{}1{}{ns}</invoke>{ns}</tool_call> after",
        format!("{ns}<a>").repeat(deep),
        format!("{ns}</a>").repeat(deep)
    );
    let events = actionstream::parse_str_with(mm, &text);
    assert_eq!(common::invalid(&events).len(), 1, "minimax_m3");
    assert!(common::invalid(&events)[0].contains("deeper"));
}

#[test]
fn an_unclosed_section_ends_at_the_block_limit() {
    let ns = "]<]minimax[>[";
    let body = "x".repeat(10_000);
    for (dialect, text, deltas) in [
        ("gemma4", format!("<|tool_call>call:f{{a:<|\"|>{body}")),
        ("function_gemma", format!("<start_function_call>call:f{{a:{body}")),
        (
            "minimax_m3",
            format!("{ns}<tool_call>{ns}<invoke name=\"f\">{ns}<a>{body}"),
        ),
        ("kimi_k3", format!("<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"0\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>{body}")),
        ("apertus", format!("<|tools_prefix|>[{{\"f\": {{\"a\": \"{body}")),
        ("minicpm5", format!("<function name=\"f\"><param name=\"a\">{body}")),
        (
            "inkling",
            format!("<|message_model|>f<|content_invoke_tool_json|>{{\"name\": \"f\", \"args\": {{\"a\": \"{body}"),
        ),
    ]
    .into_iter()
    .flat_map(|(d, t)| [(d, t.clone(), false), (d, t, true)])
    {
        let config = builtin(dialect)
            .max_block_bytes(1024)
            .argument_deltas(deltas);
        let mut parser = actionstream::Parser::new(config);
        let mut events = Vec::new();
        let mut most = 0;
        for chunk in text.as_bytes().chunks(7) {
            parser.push_bytes(chunk, &mut events);
            most = most.max(parser.buffered());
        }
        parser.finish(&mut events);
        assert!(most <= 1024 + 64, "{dialect}: held {most} bytes");
        let invalid = common::invalid(&events);
        assert_eq!(invalid.len(), 1, "{dialect}: {invalid:?}");
        assert!(invalid[0].contains("limit"), "{dialect}: {invalid:?}");
    }
}

#[test]
fn a_token_suffix_from_a_configuration_file() {
    let config = from_text(
        r#"{"dialects": ["hy"], "define_dialects": [{"name": "hy", "token_suffix": ":",
            "reasoning": [{"open": "<think>", "close": "</think>"}],
            "sections": [{"open": "<tool_calls>", "close": "</tool_calls>", "calls": [{
              "format": "params", "call": "<tool_call>", "name_end": ["<tool_sep>"],
              "key": "<arg_key>", "key_end": [{"marker": "</arg_key>"}],
              "value": "<arg_value>", "value_end": "</arg_value>", "end": "</tool_call>"}]}]}]}"#,
    );
    check(
        &config,
        "<think:6124c78e>plan</think:6124c78e>Sure.<tool_calls:6124c78e><tool_call:6124c78e>get_weather<arg_key:6124c78e>city</arg_key:6124c78e><arg_value:6124c78e>Paris</arg_value:6124c78e></tool_call:6124c78e><tool_call>now<tool_sep></tool_call></tool_calls:6124c78e> <tool_calls:a b>",
        &[
            "R:plan",
            "N:Sure.",
            "S0:get_weather",
            "S1:now",
            "C0:get_weather:{\"city\":\"Paris\"}",
            "C1:now:{}",
            "N: <tool_calls:a b>",
        ],
    );
}

#[test]
fn a_recipient_envelope_from_a_configuration_file() {
    let config = from_text(
        r#"{"dialects": ["turns"], "define_dialects": [{"name": "turns", "envelope": {
            "header": ["<|start|>"], "message": "<|message|>", "end": ["<|eom|>", "<|eot|>"],
            "reasoning_recipients": ["self"], "narrative_recipients": ["user"],
            "code": ["python"], "bare_first": true,
            "body": {"open": "<calls>", "close": "</calls>", "calls": [{"format": "params",
              "call": "<invoke name=\"", "name_end": ["\">"], "key": "<parameter name=\"",
              "key_end": [{"marker": "\">"}], "value_end": "</parameter>", "end": "</invoke>"}]}}}]}"#,
    );
    check(
        &config,
        "to=self<|message|>plan<|eom|><|start|>assistant to=search<|message|><calls><invoke name=\"search\"><parameter name=\"q\">rust</parameter></invoke></calls><|eom|><|start|>assistant to=user<|message|>Found it.<|eot|>",
        &[
            "R:plan",
            "S0:search",
            "C0:search:{\"q\":\"rust\"}",
            "N:Found it.",
        ],
    );
    // Without a body, a call's content is its JSON arguments; code
    // recipients take raw code.
    let config = from_text(
        r#"{"dialects": ["h"], "define_dialects": [{"name": "h", "envelope": {
            "header": ["<|start|>"], "message": "<|message|>", "end": ["<|call|>", "<|end|>"],
            "name_prefix": "functions.", "code": ["python"]}}]}"#,
    );
    check(
        &config,
        "<|start|>assistant to=functions.f<|message|>{\"a\": 1}<|call|><|start|>assistant to=python<|message|>print(2)<|call|>",
        &[
            "S0:f",
            "C0:f:{\"a\":1}",
            "S1:python",
            "C1:python:{\"code\":\"print(2)\"}",
        ],
    );
}

#[test]
fn a_header_name_that_is_a_marker_from_a_configuration_file() {
    let config = from_text(
        r#"{"dialects": ["typed"], "define_dialects": [{"name": "typed", "envelope": {
            "header": ["<|msg|>"], "end": ["<|end|>"], "bare_first": true,
            "contents": [{"marker": "<|call|>", "kind": "call"}, {"marker": "<|think|>", "kind": "reasoning"},
                         {"marker": "<|text|>", "kind": "narrative"}],
            "body": {"open": "", "close": "<|end|>", "calls": [{"format": "json",
              "name_keys": ["name"], "argument_keys": ["arguments"]}]}}}]}"#,
    );
    check(
        &config,
        "<|think|>hm<|end|><|msg|>search<|call|>{\"name\": \"search\", \"arguments\": {\"q\": \"x\"}}<|end|><|msg|><|text|>Done.<|end|>",
        &[
            "R:hm",
            "S0:search",
            "C0:search:{\"q\":\"x\"}",
            "N:Done.",
        ],
    );
}

#[test]
fn recipient_lines_from_a_configuration_file() {
    let config = from_text(
        r#"{"dialects": ["lines"], "define_dialects": [{"name": "lines", "envelope": {
            "header": [">>>"], "message": "\n", "end": [], "word_is_recipient": true,
            "narrative_recipients": ["all"], "bare_first": true}}]}"#,
    );
    check(
        &config,
        "all\nOn it.\n>>>search\n{\"q\": \"rust\"}",
        &["N:On it.\n", "S0:search", "C0:search:{\"q\":\"rust\"}"],
    );
}

#[test]
fn a_raw_code_form_from_a_configuration_file() {
    let config = from_text(
        r#"{"dialects": ["ipy"], "define_dialects": [{"name": "ipy",
            "sections": [{"open": "<|python_tag|>", "trailer": ["<|eom_id|>"], "calls": [
              {"format": "json", "name_keys": ["name"], "argument_keys": ["parameters"]},
              {"format": "code", "name": "code_interpreter"}]}]}]}"#,
    );
    check(
        &config,
        "<|python_tag|>x = 6 * 7\nprint(x)<|eom_id|>",
        &[
            "S0:code_interpreter",
            "C0:code_interpreter:{\"code\":\"x = 6 * 7\\nprint(x)\"}",
        ],
    );
}

#[test]
fn other_key_spellings_and_calls_inside_reasoning_from_a_configuration_file() {
    let config = from_file(json!({
        "name": "mine",
        "reasoning": [{"open": "<inner>", "close": "</inner>", "calls": true}],
        "sections": [
            {"open": "<fn=", "close": "</fn>", "calls": [{
                "format": "params", "name_end": [">"], "key": "<p=", "key_spellings": ["<param="],
                "key_end": [{"marker": ">"}], "value_end": "</p>"
            }]},
            {"open": "<function=", "close": "</fn>", "calls": [{
                "format": "params", "name_end": [">"], "key": "<p=", "key_spellings": ["<param="],
                "key_end": [{"marker": ">"}], "value_end": "</p>"
            }]}
        ]
    }));
    check(
        &config,
        "<inner>Plan.<fn=f><p=a>x</p><param=b>2</p></fn>More.</inner><function=g></fn>Done.",
        &[
            "R:Plan.",
            "S0:f",
            r#"C0:f:{"a":"x","b":2}"#,
            "R:More.",
            "S1:g",
            "C1:g:{}",
            "N:Done.",
        ],
    );
}
