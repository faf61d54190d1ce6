//! The call forms of the contract's section 7b that are descriptor fields
//! (a token suffix, a recipient envelope, a header name that is a marker,
//! recipient lines, …), each defined in a configuration file's
//! `define_dialects` and read at every chunking.

mod common;

use actionstream::{Config, ConfigFile};

/// The configuration a `--config` file with this JSON text gives.
fn from_file(json: &str) -> Config {
    let file: ConfigFile = serde_json::from_str(json).expect("a configuration file");
    file.apply(Config::default())
        .expect("the configuration applies")
}

#[track_caller]
fn check(config: &Config, input: &str, want: &[&str]) {
    for deltas in [false, true] {
        // With deltas the oracle checks that each call's pieces make its
        // arguments; the summary leaves them out.
        let events = common::parse_with(&config.clone().argument_deltas(deltas), input);
        let lines: Vec<String> = common::summary(&events)
            .into_iter()
            .filter(|l| !l.starts_with('A'))
            .collect();
        assert_eq!(lines, want, "deltas {deltas}");
    }
}

#[test]
fn a_token_suffix_from_a_configuration_file() {
    let config = from_file(
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
    let config = from_file(
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
    let config = from_file(
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
    let config = from_file(
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
    let config = from_file(
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
    let config = from_file(
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
