//! Per-dialect cases, written after what the peers' own suites cover
//! (SGLang's `lightseekorg/smg` `crates/tool_parser/tests`, vLLM's
//! `tests/tool_parsers`): narrative around calls, several calls in one
//! section, reasoning, invalid calls, sections never closed, reasoning
//! open, calls in reasoning or not. Every case goes through the
//! every-chunking oracle (markers cut at every byte) and is asserted as
//! `common::summary` lines. Options: `open` (`reasoning_open`), `cir`
//! (`calls_in_reasoning`), `deltas` (`argument_deltas`), `strict`.

mod common;

use actionstream::{Config, Event};

fn config(dialect: &str, options: &str) -> Config {
    let mut config = common::dialects::config(dialect);
    for option in options.split_whitespace() {
        config = match option {
            "open" => config.reasoning_open(true),
            "cir" => config.calls_in_reasoning(true),
            "deltas" => config.argument_deltas(true),
            "strict" => config.strict(true),
            other => panic!("unknown option {other}"),
        };
    }
    config
}

/// Checks `input` at every chunking and its summary; an invalid call keeps
/// its text: its raw is the input its span covers, never empty.
#[track_caller]
fn check(dialect: &str, options: &str, what: &str, input: &str, want: &[&str]) {
    let events = common::parse_with(&config(dialect, options), input);
    for e in &events {
        if let Event::ActionInvalid(a) = e {
            let span = a.span.expect("a dialect block has a span");
            assert!(!a.raw.is_empty(), "{dialect}: {what}: an empty raw");
            assert_eq!(
                &input[span.range()],
                &*a.raw,
                "{dialect}: {what}: raw and span"
            );
            assert!(!a.errors.is_empty(), "{dialect}: {what}: no error");
        }
    }
    assert_eq!(common::summary(&events), want, "{dialect}: {what}");
}

#[test]
fn hermes() {
    check(
        "hermes",
        "",
        "narrative before and after",
        "Let me look.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}\n</tool_call>\nDone.",
        &[
            "N:Let me look.\n",
            "S0:search",
            "C0:search:{\"q\":\"rust\"}",
            "N:\nDone.",
        ],
    );
    check(
        "hermes",
        "",
        "two calls in one section (an array)",
        "<tool_call>\n[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"x\": 1}}]\n</tool_call>",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "C1:b:{\"x\":1}",
        ],
    );
    check(
        "hermes",
        "",
        "two calls in one section (JSON Lines)",
        "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "C1:b:{\"x\":1}",
        ],
    );
    check(
        "hermes",
        "",
        "two sections",
        "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
        &[
            "S0:a",
            "C0:a:{}",
            "N:\n",
            "S1:b",
            "C1:b:{}",
        ],
    );
    check(
        "hermes",
        "",
        "reasoning before the call",
        "<think>I should search.</think>\n<tool_call>{\"name\": \"s\", \"arguments\": {\"q\": 1}}</tool_call>",
        &[
            "R:I should search.",
            "N:\n",
            "S0:s",
            "C0:s:{\"q\":1}",
        ],
    );
    check(
        "hermes",
        "",
        "broken JSON",
        "x <tool_call>{\"name\": \"s\", \"arguments\": {\"q\": }}</tool_call> y",
        &[
            "N:x ",
            "S0:s",
            "I0:s:the JSON cannot be read: expected a JSON value, found `}` (line 1, column 45 of the block)",
            "N: y",
        ],
    );
    check(
        "hermes",
        "",
        "no name",
        "<tool_call>{\"arguments\": {\"a\": 1}}</tool_call>",
        &[
            "S0:-",
            "I0:-:the call object has no name: expected a string under `name`",
        ],
    );
    check(
        "hermes",
        "",
        "arguments not an object",
        "<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>",
        &[
            "S0:f",
            "I0:f:at arguments: arguments must be a JSON object, found an array",
        ],
    );
    check(
        "hermes",
        "",
        "arguments given as a string",
        "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>",
        &["S0:f", "C0:f:{\"a\":1}"],
    );
    check(
        "hermes",
        "",
        "Python dict repaired",
        "<tool_call>{'name': 'f', 'arguments': {'x': True, 'y': None}}</tool_call>",
        &["S0:f", "C0:f:{\"x\":true,\"y\":null}"],
    );
    check(
        "hermes",
        "",
        "text after the call in the section",
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}} trailing</tool_call> after",
        &[
            "S0:f",
            "C0:f:{\"a\":1}",
            "S1:-",
            "I1:-:unexpected text after the calls: `trailing`",
            "N: after",
        ],
    );
    check(
        "hermes",
        "",
        "arguments key twice",
        "<tool_call>{\"name\": \"f\", \"arguments\": {}, \"arguments\": {\"a\": 1}}</tool_call>",
        &[
            "S0:f",
            "I0:f:at arguments: the call object has `arguments` more than once",
        ],
    );
    check(
        "hermes",
        "",
        "closer inside a string",
        "<tool_call>{\"name\": \"echo\", \"arguments\": {\"t\": \"say </tool_call> please\"}}</tool_call>",
        &[
            "S0:echo",
            "C0:echo:{\"t\":\"say </tool_call> please\"}",
        ],
    );
    check(
        "hermes",
        "",
        "closer inside a string, JSON broken later: ends at that first closer",
        "<tool_call>{\"name\": \"echo\", \"arguments\": {\"t\": \"say </tool_call> please}}</tool_call> more <tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>",
        &[
            "S0:echo",
            "I0:echo:the JSON cannot be read: expected `,` or `}` after an object member, found `n` (line 1, column 105 of the block)",
            "N: please}}</tool_call> more ",
            "S1:g",
            "C1:g:{}",
        ],
    );
    check(
        "hermes",
        "",
        "section never closed, call complete",
        "<tool_call>{\"name\": \"s\", \"arguments\": {\"q\": 1}}",
        &["S0:s", "C0:s:{\"q\":1}"],
    );
    check(
        "hermes",
        "strict",
        "section never closed, strict",
        "<tool_call>{\"name\": \"s\", \"arguments\": {\"q\": 1}}",
        &[
            "S0:s",
            "I0:s:the call section was not closed before the end of the response",
        ],
    );
    check(
        "hermes",
        "",
        "section never closed, call cut off",
        "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"b\", \"arguments\": {\"q\"",
        &[
            "S0:a",
            "C0:a:{}",
            "S1:b",
            "I1:b:the call was cut off before its arguments ended",
        ],
    );
    check(
        "hermes",
        "",
        "cut off after passing a closer inside a string",
        "<tool_call>{\"name\": \"a\", \"arguments\": {\"t\": \"</tool_call> and on",
        &[
            "S0:a",
            "I0:a:the call's arguments were still open at the first `</tool_call>` and never ended",
            "N: and on",
        ],
    );
    check(
        "hermes",
        "open",
        "reasoning open",
        "still thinking</think>\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>",
        &["R:still thinking", "N:\n", "S0:a", "C0:a:{}"],
    );
    check(
        "hermes",
        "open",
        "reasoning open: a call opener ends the reasoning, the closer after it is a marker",
        "still thinking <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think>answer",
        &["R:still thinking ", "S0:a", "C0:a:{}", "N:answer"],
    );
    check(
        "hermes",
        "open cir",
        "reasoning open, calls in reasoning",
        "still thinking <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think>answer",
        &["R:still thinking ", "S0:a", "C0:a:{}", "N:answer"],
    );
    check(
        "hermes",
        "",
        "a call opener ends the reasoning; a closer after other text is text",
        "<think>maybe <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> hmm</think>ok",
        &["R:maybe ", "S0:a", "C0:a:{}", "N: hmm</think>ok"],
    );
    check(
        "hermes",
        "cir",
        "calls in reasoning",
        "<think>maybe <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> hmm</think>ok",
        &["R:maybe ", "S0:a", "C0:a:{}", "R: hmm", "N:ok"],
    );
    check(
        "hermes",
        "",
        "not a call: prose after the opener",
        "Use <tool_call> tags.",
        &["N:Use <tool_call> tags."],
    );
    check(
        "hermes",
        "",
        "a stray closing reasoning marker is narrative",
        "</think>x",
        &["N:</think>x"],
    );
    check(
        "hermes",
        "",
        "reasoning never closed",
        "<think>unclosed reasoning",
        &["R:unclosed reasoning"],
    );
    check(
        "hermes",
        "deltas",
        "argument deltas",
        "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [1, 2], \"b\": \"x\"}}</tool_call>",
        &[
            "S0:f",
            "A0:{\"a\":[1,2],\"b\":\"x\"}",
            "C0:f:{\"a\":[1,2],\"b\":\"x\"}",
        ],
    );
}

#[test]
fn qwen3_coder() {
    check(
        "qwen3_coder",
        "",
        "narrative before and after",
        "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\nThere.",
        &[
            "N:Checking.\n",
            "S0:get_weather",
            "C0:get_weather:{\"city\":\"Paris\"}",
            "N:\nThere.",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "two calls in one section",
        "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n<function=b>\n<parameter=y>\ntwo\n</parameter>\n</function>\n</tool_call>",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "C1:b:{\"y\":\"two\"}",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "raw values: line endings dropped once, the rest byte for byte",
        "<tool_call>\n<function=a>\n<parameter=t>  spaces  </parameter>\n<parameter=e>&lt;b&gt;</parameter>\n<parameter=m>\n\nline 1\nline 2\n\n</parameter>\n</function>\n</tool_call>",
        &[
            "S0:a",
            "C0:a:{\"t\":\"  spaces  \",\"e\":\"&lt;b&gt;\",\"m\":\"\\nline 1\\nline 2\\n\"}",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "values read as JSON without a schema",
        "<tool_call>\n<function=p>\n<parameter=count>\n42\n</parameter>\n<parameter=ok>\ntrue\n</parameter>\n<parameter=data>\nnull\n</parameter>\n<parameter=list>\n[\"a\", 1]\n</parameter>\n<parameter=text>\nstring value\n</parameter>\n</function>\n</tool_call>",
        &[
            "S0:p",
            "C0:p:{\"count\":42,\"ok\":true,\"data\":null,\"list\":[\"a\",1],\"text\":\"string value\"}",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "a value that is not JSON stays a string",
        "<tool_call>\n<function=a>\n<parameter=n>\n{\"a\": [1, 2}\n</parameter>\n</function>\n</tool_call>",
        &[
            "S0:a",
            "C0:a:{\"n\":\"{\\\"a\\\": [1, 2}\"}",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "a <tool_call> starting with { is read as hermes",
        "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1}}</tool_call>",
        &["S0:a", "C0:a:{\"x\":1}"],
    );
    check(
        "qwen3_coder",
        "",
        "reasoning before the call",
        "<think>plan</think>\n<tool_call>\n<function=a>\n</function>\n</tool_call>",
        &["R:plan", "N:\n", "S0:a", "C0:a:{}"],
    );
    check(
        "qwen3_coder",
        "",
        "no </function>: the closer ends the call",
        "<tool_call>\n<function=a>\n<parameter=city>Paris</parameter>\n</tool_call>",
        &["S0:a", "C0:a:{\"city\":\"Paris\"}"],
    );
    check(
        "qwen3_coder",
        "",
        "empty name",
        "<tool_call>\n<function=>\n<parameter=city>Miami</parameter>\n</function>\n</tool_call>",
        &["S0:", "I0::the call's name is empty"],
    );
    check(
        "qwen3_coder",
        "",
        "unreadable call: stray text between parameters",
        "<tool_call>\n<function=a>\nstray text\n<parameter=city>Miami</parameter>\n</function>\n</tool_call>",
        &[
            "S0:a",
            "I0:a:unexpected text between the call's parameters: `stray text`",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "a nested <tool_call> is stray text",
        "<tool_call>\n<function=outer>\n<tool_call>\n<function=inner>\n</function>\n</tool_call>\n</function>\n</tool_call>",
        &[
            "S0:outer",
            "I0:outer:unexpected text between the call's parameters: `<tool_call>\n<function=inner>`",
            "N:\n</function>\n</tool_call>",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "<function> without a name: no call, narrative",
        "<tool_call>\n<function>\n<parameter=city>Miami</parameter>\n</function>\n</tool_call>",
        &[
            "N:<tool_call>\n<function>\n<parameter=city>Miami</parameter>\n</function>\n</tool_call>",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "section never closed, call complete",
        "<tool_call>\n<function=a>\n<parameter=city>\nParis\n</parameter>\n</function>\n",
        &["S0:a", "C0:a:{\"city\":\"Paris\"}"],
    );
    check(
        "qwen3_coder",
        "",
        "section never closed, call cut off in a value",
        "<tool_call>\n<function=a>\n<parameter=city>\nPar",
        &[
            "S0:a",
            "I0:a:the call was cut off before its arguments ended",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "section never closed, call cut off between parameters",
        "<tool_call>\n<function=a>\n<parameter=city>\nParis\n</parameter>\n",
        &[
            "S0:a",
            "I0:a:the call was cut off before its arguments ended",
        ],
    );
    check(
        "qwen3_coder",
        "",
        "a value cut off after the closer: the section ends at it",
        "<tool_call>\n<function=a>\n<parameter=x>\nabc</tool_call>\nnarrative <tool_call>\n<function=b>\n</function>\n</tool_call>",
        &[
            "S0:a",
            "I0:a:the call's arguments were still open at the first `</tool_call>` and never ended",
            "N:\nnarrative ",
            "S1:b",
            "C1:b:{}",
        ],
    );
    check(
        "qwen3_coder",
        "open",
        "reasoning open",
        "hmm <tool_call> no</think><tool_call>\n<function=a>\n</function>\n</tool_call>",
        &["R:hmm <tool_call> no", "S0:a", "C0:a:{}"],
    );
    check(
        "qwen3_coder",
        "open cir",
        "reasoning open, calls in reasoning",
        "hmm <tool_call>\n<function=a>\n</function>\n</tool_call></think>done",
        &["R:hmm ", "S0:a", "C0:a:{}", "N:done"],
    );
    check(
        "qwen3_coder",
        "",
        "a call opener ends the reasoning (Qwen3.5 does not close it first)",
        "<think><tool_call>\n<function=a>\n</function>\n</tool_call></think>",
        &["S0:a", "C0:a:{}"],
    );
    check(
        "qwen3_coder",
        "deltas",
        "argument deltas",
        "<tool_call>\n<function=w>\n<parameter=path>\na.txt\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>",
        &[
            "S0:w",
            "A0:{\"path\":\"a.txt\",\"n\":3}",
            "C0:w:{\"path\":\"a.txt\",\"n\":3}",
        ],
    );
}

#[test]
fn seed_oss() {
    check(
        "seed_oss",
        "",
        "reasoning, narrative, call",
        "<seed:think>hmm</seed:think>Sure.<seed:tool_call>\n<function=f>\n<parameter=a>x</parameter>\n</function>\n</seed:tool_call> ok",
        &[
            "R:hmm",
            "N:Sure.",
            "S0:f",
            "C0:f:{\"a\":\"x\"}",
            "N: ok",
        ],
    );
    check(
        "seed_oss",
        "",
        "two calls in one section",
        "<seed:tool_call>\n<function=f>\n<parameter=a>x</parameter>\n</function>\n<function=g>\n</function>\n</seed:tool_call>",
        &[
            "S0:f",
            "S1:g",
            "C0:f:{\"a\":\"x\"}",
            "C1:g:{}",
        ],
    );
    check(
        "seed_oss",
        "",
        "section never closed, call cut off",
        "<seed:tool_call>\n<function=f>\n<parameter=a>x",
        &[
            "S0:f",
            "I0:f:the call was cut off before its arguments ended",
        ],
    );
    check(
        "seed_oss",
        "",
        "unreadable call",
        "<seed:tool_call>\n<function=f>\n{\"a\": 1}\n</function>\n</seed:tool_call>",
        &[
            "S0:f",
            "I0:f:unexpected text between the call's parameters: `{\"a\": 1}`",
        ],
    );
    check(
        "seed_oss",
        "open",
        "reasoning open: markers inside stay reasoning",
        "thinking <seed:tool_call> more</seed:think>ok",
        &["R:thinking <seed:tool_call> more", "N:ok"],
    );
    check(
        "seed_oss",
        "open cir",
        "reasoning open, calls in reasoning",
        "t<seed:tool_call>\n<function=f>\n</function>\n</seed:tool_call></seed:think>ok",
        &["R:t", "S0:f", "C0:f:{}", "N:ok"],
    );
    check(
        "seed_oss",
        "cir",
        "calls in reasoning",
        "<seed:think>a<seed:tool_call><function=f></function></seed:tool_call>b</seed:think>",
        &["R:a", "S0:f", "C0:f:{}", "R:b"],
    );
}

#[test]
fn glm() {
    check(
        "glm",
        "",
        "narrative before and after, a call with no arguments",
        "Checking.<tool_call>get_current_date</tool_call> Done.",
        &[
            "N:Checking.",
            "S0:get_current_date",
            "C0:get_current_date:{}",
            "N: Done.",
        ],
    );
    check(
        "glm",
        "",
        "arguments on one line",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        &["S0:get_weather", "C0:get_weather:{\"city\":\"Beijing\"}"],
    );
    check(
        "glm",
        "",
        "arguments on lines",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        &[
            "S0:get_weather",
            "C0:get_weather:{\"city\":\"Beijing\",\"days\":3}",
        ],
    );
    check(
        "glm",
        "",
        "two sections",
        "<tool_call>a</tool_call><tool_call>b<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>",
        &[
            "S0:a",
            "C0:a:{}",
            "S1:b",
            "C1:b:{\"x\":1}",
        ],
    );
    check(
        "glm",
        "",
        "reasoning before the call",
        "<think>which city?</think><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        &[
            "R:which city?",
            "S0:get_weather",
            "C0:get_weather:{\"city\":\"Paris\"}",
        ],
    );
    check(
        "glm",
        "",
        "a key with no value",
        "<tool_call>get_weather<arg_key>city</arg_key></tool_call>",
        &[
            "S0:get_weather",
            "I0:get_weather:at city: the parameter `city` has no value",
        ],
    );
    check(
        "glm",
        "",
        "a value without its opener",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\nBeijing</tool_call>",
        &[
            "S0:get_weather",
            "I0:get_weather:unexpected text between the call's parameters: `Beijing`",
        ],
    );
    check(
        "glm",
        "",
        "section never closed, call cut off",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beij",
        &[
            "S0:get_weather",
            "I0:get_weather:the call was cut off before its arguments ended",
        ],
    );
    check(
        "glm",
        "",
        "an empty section is narrative",
        "<tool_call></tool_call>",
        &["N:<tool_call></tool_call>"],
    );
    check(
        "glm",
        "open",
        "reasoning open",
        "still</think><tool_call>a</tool_call>",
        &["R:still", "S0:a", "C0:a:{}"],
    );
    check(
        "glm",
        "",
        "a call opener ends the reasoning",
        "<think><tool_call>a</tool_call></think>",
        &["S0:a", "C0:a:{}"],
    );
    check(
        "glm",
        "cir",
        "calls in reasoning",
        "<think>x<tool_call>a</tool_call>y</think>",
        &["R:x", "S0:a", "C0:a:{}", "R:y"],
    );
}

#[test]
fn minimax_m2() {
    check(
        "minimax_m2",
        "",
        "narrative, two calls in one section",
        "Hi<minimax:tool_call>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n<invoke name=\"b\">\n</invoke>\n</minimax:tool_call>bye",
        &[
            "N:Hi",
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "C1:b:{}",
            "N:bye",
        ],
    );
    check(
        "minimax_m2",
        "",
        "values byte for byte (no entity decoding)",
        "<minimax:tool_call>\n<invoke name=\"a\">\n<parameter name=\"x\">&amp; <b>bold</b></parameter>\n</invoke>\n</minimax:tool_call>",
        &[
            "S0:a",
            "C0:a:{\"x\":\"&amp; <b>bold</b>\"}",
        ],
    );
    check(
        "minimax_m2",
        "",
        "reasoning before the call",
        "<think>r</think><minimax:tool_call><invoke name=\"a\"></invoke></minimax:tool_call>",
        &["R:r", "S0:a", "C0:a:{}"],
    );
    check(
        "minimax_m2",
        "",
        "section never closed: first call complete, second cut off",
        "<minimax:tool_call>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n<invoke name=\"b\">\n<parameter name=\"y\">tw",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "I1:b:the call was cut off before its arguments ended",
        ],
    );
    check(
        "minimax_m2",
        "",
        "unreadable call: text in the invoke",
        "<minimax:tool_call>\n<invoke name=\"a\">\n{\"x\": 1}\n</invoke>\n</minimax:tool_call>",
        &[
            "S0:a",
            "I0:a:unexpected text between the call's parameters: `{\"x\": 1}`",
        ],
    );
    check(
        "minimax_m2",
        "",
        "empty name",
        "<minimax:tool_call><invoke name=\"\"></invoke></minimax:tool_call>",
        &["S0:", "I0::the call's name is empty"],
    );
    check(
        "minimax_m2",
        "open",
        "reasoning open",
        "r</think><minimax:tool_call><invoke name=\"a\"></invoke></minimax:tool_call>",
        &["R:r", "S0:a", "C0:a:{}"],
    );
    check(
        "minimax_m2",
        "",
        "markers inside reasoning stay reasoning",
        "<think><minimax:tool_call><invoke name=\"a\"></invoke></minimax:tool_call></think>",
        &["R:<minimax:tool_call><invoke name=\"a\"></invoke></minimax:tool_call>"],
    );
    check(
        "minimax_m2",
        "cir",
        "calls in reasoning",
        "<think><minimax:tool_call><invoke name=\"a\"></invoke></minimax:tool_call></think>",
        &["S0:a", "C0:a:{}"],
    );
}

#[test]
fn mistral() {
    check(
        "mistral",
        "",
        "narrative before, v11 call",
        "Sure.[TOOL_CALLS]add[ARGS]{\"a\": 1}",
        &["N:Sure.", "S0:add", "C0:add:{\"a\":1}"],
    );
    check(
        "mistral",
        "",
        "narrative after the call",
        "[TOOL_CALLS]add[ARGS]{\"a\": 1} and more text",
        &["S0:add", "C0:add:{\"a\":1}", "N: and more text"],
    );
    check(
        "mistral",
        "",
        "two v11 calls",
        "[TOOL_CALLS]add[ARGS]{\"a\": 1}[TOOL_CALLS]mul[ARGS]{\"b\": 2}",
        &["S0:add", "C0:add:{\"a\":1}", "S1:mul", "C1:mul:{\"b\":2}"],
    );
    check(
        "mistral",
        "",
        "pre-v11 list of two calls",
        "[TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {\"t\": \"x]y\"}}, {\"name\": \"b\", \"arguments\": {}}] after",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{\"t\":\"x]y\"}",
            "C1:b:{}",
            "N: after",
        ],
    );
    check(
        "mistral",
        "",
        "a call id",
        "[TOOL_CALLS]add[CALL_ID]abc123[ARGS]{\"a\": 1}",
        &["S0:add", "C0:add:{\"a\":1}"],
    );
    check(
        "mistral",
        "",
        "reasoning before the call",
        "[THINK]add them[/THINK][TOOL_CALLS]add[ARGS]{\"a\": 1}",
        &["R:add them", "S0:add", "C0:add:{\"a\":1}"],
    );
    check(
        "mistral",
        "",
        "Magistral 1.0 reasoning",
        "<think>add them</think>[TOOL_CALLS]add[ARGS]{\"a\": 1}",
        &["R:add them", "S0:add", "C0:add:{\"a\":1}"],
    );
    check(
        "mistral",
        "",
        "broken JSON",
        "[TOOL_CALLS]add[ARGS]{\"a\": }",
        &[
            "S0:add",
            "I0:add:the JSON cannot be read: expected a JSON value, found `}` (line 1, column 28 of the block)",
            "N:}",
        ],
    );
    // Found by the fuzz smoke: fed whole, the number breaks in the push
    // that began it and was never streamed; fed a byte at a time, its bytes
    // so far went out first. What was read before a break is streamed
    // either way.
    check(
        "mistral",
        "deltas",
        "a number broken mid-piece, deltas on",
        "[TOOL_CALLS]add{\"a\": 3.<|START_TEXT|>",
        &[
            "S0:add",
            "A0:{\"a\":3.",
            "I0:add:the JSON cannot be read: a malformed number, found `<` (line 1, column 24 of the block)",
            "N:<|START_TEXT|>",
        ],
    );
    check(
        "mistral",
        "deltas strict",
        "a string broken mid-piece, deltas on",
        "[TOOL_CALLS]add{\"a\": \"xy\u{1}z\"}",
        &[
            "S0:add",
            "A0:{\"a\":\"xy",
            "I0:add:the JSON cannot be read: a raw control character (U+0001) inside a string; write it escaped, as \\u0001 (line 1, column 25 of the block)",
            "N:\u{1}z\"}",
        ],
    );
    check(
        "mistral",
        "",
        "cut off",
        "[TOOL_CALLS]add[ARGS]{\"a\": ",
        &[
            "S0:add",
            "I0:add:the call was cut off before its arguments ended",
        ],
    );
    check(
        "mistral",
        "",
        "a marker with no call is narrative",
        "[TOOL_CALLS]",
        &["N:[TOOL_CALLS]"],
    );
    check(
        "mistral",
        "open",
        "reasoning open",
        "hmm[/THINK][TOOL_CALLS]x[ARGS]{}",
        &["R:hmm", "S0:x", "C0:x:{}"],
    );
    check(
        "mistral",
        "",
        "markers inside reasoning stay reasoning",
        "[THINK]hmm [TOOL_CALLS]x[ARGS]{}[/THINK]ok",
        &["R:hmm [TOOL_CALLS]x[ARGS]{}", "N:ok"],
    );
    check(
        "mistral",
        "cir",
        "calls in reasoning",
        "[THINK]hmm [TOOL_CALLS]x[ARGS]{}[/THINK]ok",
        &["R:hmm ", "S0:x", "C0:x:{}", "N:ok"],
    );
}

#[test]
fn llama3() {
    check(
        "llama3",
        "",
        "a JSON call as the whole response",
        "{\"name\": \"a\", \"parameters\": {\"x\": 1}}",
        &["S0:a", "C0:a:{\"x\":1}"],
    );
    check(
        "llama3",
        "",
        "two calls joined by ;",
        "{\"name\": \"a\", \"parameters\": {\"x\": 1}}; {\"name\": \"b\", \"arguments\": {}}",
        &["S0:a", "S1:b", "C0:a:{\"x\":1}", "C1:b:{}"],
    );
    check(
        "llama3",
        "",
        "after <|python_tag|>, with narrative before and the end-of-message marker",
        "Text first <|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1}}; {\"name\": \"b\", \"parameters\": {}}<|eom_id|>",
        &[
            "N:Text first ",
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "C1:b:{}",
        ],
    );
    check(
        "llama3",
        "",
        "a built-in tool call",
        "<|python_tag|>brave_search.call(query=\"x\")<|eom_id|>",
        &["S0:brave_search", "C0:brave_search:{\"query\":\"x\"}"],
    );
    check(
        "llama3",
        "",
        "broken JSON",
        "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": }}",
        &[
            "S0:a",
            "I0:a:the JSON cannot be read: expected a JSON value, found `}` (line 1, column 49 of the block)",
            "N:}}",
        ],
    );
    check(
        "llama3",
        "",
        "cut off",
        "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1",
        &[
            "S0:a",
            "I0:a:the call was cut off before its arguments ended",
        ],
    );
    check(
        "llama3",
        "",
        "JSON that is no call is narrative",
        "{\"not\": \"a call\"}",
        &["N:{\"not\": \"a call\"}"],
    );
    check(
        "llama3",
        "",
        "a call object after prose is narrative",
        "Result: {\"name\": \"a\", \"parameters\": {}}",
        &["N:Result: {\"name\": \"a\", \"parameters\": {}}"],
    );
}

#[test]
fn pythonic() {
    check(
        "pythonic",
        "",
        "a list of two calls as the response",
        "[get_weather(city=\"Paris\"), get_time()]",
        &[
            "S0:get_weather",
            "S1:get_time",
            "C0:get_weather:{\"city\":\"Paris\"}",
            "C1:get_time:{}",
        ],
    );
    check(
        "pythonic",
        "",
        "inside <|python_start|>, narrative around",
        "Let me.<|python_start|>[f(a=1)]<|python_end|>ok",
        &["N:Let me.", "S0:f", "C0:f:{\"a\":1}", "N:ok"],
    );
    check(
        "pythonic",
        "",
        "one call per line in <function_calls>",
        "<function_calls>\nf(a=1)\ng(b=\"x\")\n</function_calls>",
        &["S0:f", "S1:g", "C0:f:{\"a\":1}", "C1:g:{\"b\":\"x\"}"],
    );
    check(
        "pythonic",
        "",
        "Python literals",
        "[f(a=True, b=None, c=[1, {\"k\": 'v'}], d=1.5e3, e=-2, g='it\\'s')]",
        &[
            "S0:f",
            "C0:f:{\"a\":true,\"b\":null,\"c\":[1,{\"k\":\"v\"}],\"d\":1500.0,\"e\":-2,\"g\":\"it's\"}",
        ],
    );
    check(
        "pythonic",
        "",
        "Olmo 3 JSON literals",
        "[f(a=true, b=null)]",
        &["S0:f", "C0:f:{\"a\":true,\"b\":null}"],
    );
    check(
        "pythonic",
        "",
        "a nested call is refused",
        "[f(a=g(1))]",
        &[
            "S0:f",
            "I0:f:the Python call cannot be read: a call `g(…)` in argument `a` of call `f` is not read: calls inside arguments are refused (write the value as a literal) (line 1, column 7 of the block)",
            "N:(1))]",
        ],
    );
    check(
        "pythonic",
        "",
        "cut off: the complete call stays complete",
        "[f(a=1), g(b=",
        &[
            "S0:f",
            "S1:g",
            "C0:f:{\"a\":1}",
            "I1:g:the call was cut off before its arguments ended",
        ],
    );
    check(
        "pythonic",
        "",
        "reasoning before the call (Olmo 3 Think)",
        "<think>hm</think><|tool_call_start|>[f(a=1)]<|tool_call_end|>",
        &["R:hm", "S0:f", "C0:f:{\"a\":1}"],
    );
    check(
        "pythonic",
        "",
        "a list after reasoning is not the first thing: narrative",
        "<think>hm</think>[f(a=1)]",
        &["R:hm", "N:[f(a=1)]"],
    );
    check(
        "pythonic",
        "",
        "a list of numbers is narrative",
        "[1, 2, 3]",
        &["N:[1, 2, 3]"],
    );
    check(
        "pythonic",
        "",
        "section never closed",
        "<|tool_call_start|>[f(a=1)]",
        &["S0:f", "C0:f:{\"a\":1}"],
    );
    check(
        "pythonic",
        "",
        "a string cut off after the closer: ends at the closer",
        "<|python_start|>[f(a=\"x<|python_end|>more text",
        &[
            "S0:f",
            "I0:f:the call's arguments were still open at the first `<|python_end|>` and never ended",
            "N:more text",
        ],
    );
    check(
        "pythonic",
        "open",
        "reasoning open",
        "r</think><|tool_call_start|>[f()]<|tool_call_end|>",
        &["R:r", "S0:f", "C0:f:{}"],
    );
    check(
        "pythonic",
        "",
        "markers inside reasoning stay reasoning",
        "<think><|tool_call_start|>[f()]<|tool_call_end|></think>",
        &["R:<|tool_call_start|>[f()]<|tool_call_end|>"],
    );
    check(
        "pythonic",
        "cir",
        "calls in reasoning",
        "<think><|tool_call_start|>[f()]<|tool_call_end|></think>",
        &["S0:f", "C0:f:{}"],
    );
}

#[test]
fn pythonic_text_after_the_calls() {
    check(
        "pythonic",
        "",
        "text after the list, before the closer",
        "<|python_start|>[f(a=1)] junk<|python_end|>after",
        &[
            "S0:f",
            "C0:f:{\"a\":1}",
            "S1:-",
            "I1:-:unexpected text after the calls: `junk`",
            "N:after",
        ],
    );
    check(
        "pythonic",
        "",
        "a line that is no call",
        "<function_calls>\nf(a=1)\nnot a call!\n</function_calls>",
        &[
            "S0:f",
            "C0:f:{\"a\":1}",
            "S1:-",
            "I1:-:the Python call cannot be read: expected `(` after call name `not`, found `a` (line 3, column 5 of the block)",
        ],
    );
}

#[test]
fn deepseek_v3() {
    check(
        "deepseek_v3",
        "",
        "narrative, two calls in one section",
        "Hi<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>bye",
        &[
            "N:Hi",
            "S0:f",
            "S1:g",
            "C0:f:{\"a\":1}",
            "C1:g:{}",
            "N:bye",
        ],
    );
    check(
        "deepseek_v3",
        "",
        "reasoning before the call",
        "<think>r</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "R:r",
            "S0:f",
            "C0:f:{}",
        ],
    );
    check(
        "deepseek_v3",
        "",
        "broken JSON",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": }\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "S0:f",
            "I0:f:the JSON cannot be read: expected a JSON value, found `}` (line 3, column 7 of the block)",
        ],
    );
    check(
        "deepseek_v3",
        "",
        "section never closed: first complete, second cut off",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{\"b\": ",
        &[
            "S0:f",
            "S1:g",
            "C0:f:{\"a\":1}",
            "I1:g:the call was cut off before its arguments ended",
        ],
    );
    check(
        "deepseek_v3",
        "open",
        "reasoning open",
        "thinking</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "R:thinking",
            "S0:f",
            "C0:f:{}",
        ],
    );
    check(
        "deepseek_v3",
        "",
        "markers inside reasoning stay reasoning",
        "<think><｜tool▁calls▁begin｜>x</think>",
        &["R:<｜tool▁calls▁begin｜>x"],
    );
    check(
        "deepseek_v3",
        "cir",
        "calls in reasoning",
        "<think>a<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>b</think>",
        &[
            "R:a",
            "S0:f",
            "C0:f:{}",
            "R:b",
        ],
    );
}

#[test]
fn deepseek_v31() {
    check(
        "deepseek_v31",
        "",
        "narrative, two calls",
        "Hi<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{\"x\": 1}<｜tool▁call▁end｜><｜tool▁call▁begin｜>b<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>bye",
        &[
            "N:Hi",
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "C1:b:{}",
            "N:bye",
        ],
    );
    check(
        "deepseek_v31",
        "",
        "reasoning before the call",
        "<think>r</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "R:r",
            "S0:a",
            "C0:a:{}",
        ],
    );
    check(
        "deepseek_v31",
        "",
        "a broken call, the next one read",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\" \"x\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>b<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "S0:search",
            "S1:b",
            "I0:search:the JSON cannot be read: expected `:` after the key, found `\"` (line 1, column 67 of the block)",
            "C1:b:{}",
        ],
    );
    check(
        "deepseek_v31",
        "",
        "text after the arguments",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{} junk<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "S0:a",
            "I0:a:unexpected text after the call's arguments: `junk`",
        ],
    );
    check(
        "deepseek_v31",
        "",
        "a string cut off after the call's end: the call ends there",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{\"q\": \"x<｜tool▁call▁end｜><｜tool▁call▁begin｜>b<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "S0:a",
            "S1:b",
            "I0:a:the call's arguments were still open at the first `<｜tool▁call▁end｜>` and never ended",
            "C1:b:{}",
        ],
    );
    check(
        "deepseek_v31",
        "",
        "section never closed, cut off",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"ru",
        &[
            "S0:search",
            "I0:search:the call was cut off before its arguments ended",
        ],
    );
    check(
        "deepseek_v31",
        "open",
        "reasoning open",
        "r</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        &[
            "R:r",
            "S0:a",
            "C0:a:{}",
        ],
    );
    check(
        "deepseek_v31",
        "cir",
        "calls in reasoning",
        "<think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜></think>",
        &[
            "S0:a",
            "C0:a:{}",
        ],
    );
}

#[test]
fn deepseek_v32() {
    check(
        "deepseek_v32",
        "",
        "narrative, two calls, string and JSON values",
        "Let me.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"a\">\n<｜DSML｜parameter name=\"q\" string=\"true\">42</｜DSML｜parameter>\n<｜DSML｜parameter name=\"n\" string=\"false\">42</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"b\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\nok",
        &[
            "N:Let me.\n\n",
            "S0:a",
            "S1:b",
            "C0:a:{\"q\":\"42\",\"n\":42}",
            "C1:b:{}",
            "N:\nok",
        ],
    );
    check(
        "deepseek_v32",
        "",
        "the tool_calls section name",
        "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"n\" string=\"true\">5</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        &[
            "S0:f",
            "C0:f:{\"n\":\"5\"}",
        ],
    );
    check(
        "deepseek_v32",
        "",
        "reasoning before the call",
        "<think>r</think><｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜function_calls>",
        &[
            "R:r",
            "S0:f",
            "C0:f:{}",
        ],
    );
    check(
        "deepseek_v32",
        "",
        "JSON written in the invoke is unreadable",
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{\"location\": \"Beijing\"}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        &[
            "S0:get_weather",
            "I0:get_weather:unexpected text between the call's parameters: `{\"location\": \"Beijing\"}`",
        ],
    );
    check(
        "deepseek_v32",
        "",
        "an empty name, then a good call",
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"\">junk</｜DSML｜invoke>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">foo</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        &[
            "S0:",
            "S1:search",
            "I0::the call's name is empty",
            "C1:search:{\"query\":\"foo\"}",
        ],
    );
    check(
        "deepseek_v32",
        "",
        "section never closed, cut off in a value",
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"n\" string=\"true\">Tok",
        &[
            "S0:f",
            "I0:f:the call was cut off before its arguments ended",
        ],
    );
    check(
        "deepseek_v32",
        "open",
        "reasoning open",
        "r</think><｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜function_calls>",
        &[
            "R:r",
            "S0:f",
            "C0:f:{}",
        ],
    );
    check(
        "deepseek_v32",
        "cir",
        "calls in reasoning",
        "<think><｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜function_calls></think>",
        &[
            "S0:f",
            "C0:f:{}",
        ],
    );
}

#[test]
fn kimi_k2() {
    check(
        "kimi_k2",
        "",
        "narrative, two calls",
        "ok<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": 1}<|tool_call_end|><|tool_call_begin|>functions.b:1 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>done",
        &[
            "N:ok",
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "C1:b:{}",
            "N:done",
        ],
    );
    check(
        "kimi_k2",
        "",
        "reasoning before the call; a trailing comma repaired",
        "<think>r</think><|tool_calls_section_begin|><|tool_call_begin|>a:0<|tool_call_argument_begin|>{\"x\": 1,}<|tool_call_end|><|tool_calls_section_end|>",
        &[
            "R:r",
            "S0:a",
            "C0:a:{\"x\":1}",
        ],
    );
    check(
        "kimi_k2",
        "",
        "broken JSON",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": tru}<|tool_call_end|><|tool_calls_section_end|>",
        &[
            "S0:a",
            "I0:a:the JSON cannot be read: expected the literal `true`, found `}` (line 1, column 98 of the block)",
        ],
    );
    check(
        "kimi_k2",
        "",
        "section never closed: first complete, second cut off",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": 1}<|tool_call_end|><|tool_call_begin|>functions.b:1<|tool_call_argument_begin|>{\"y\"",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{\"x\":1}",
            "I1:b:the call was cut off before its arguments ended",
        ],
    );
    check(
        "kimi_k2",
        "open",
        "reasoning open",
        "r</think><|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        &[
            "R:r",
            "S0:a",
            "C0:a:{}",
        ],
    );
    check(
        "kimi_k2",
        "cir",
        "calls in reasoning",
        "<think><|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|></think>",
        &[
            "S0:a",
            "C0:a:{}",
        ],
    );
}

#[test]
fn gpt_oss() {
    check(
        "gpt_oss",
        "",
        "analysis, then a call",
        "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|call|>",
        &[
            "R:think",
            "S0:f",
            "C0:f:{\"a\":1}",
        ],
    );
    check(
        "gpt_oss",
        "",
        "two calls, recipient and content type forms",
        "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{\"a\": 1}<|call|><|start|>assistant to=functions.g<|channel|>commentary json<|message|>{}<|call|>",
        &[
            "S0:f",
            "C0:f:{\"a\":1}",
            "S1:g",
            "C1:g:{}",
        ],
    );
    check(
        "gpt_oss",
        "",
        "a preamble is narrative, final is narrative",
        "<|start|>assistant<|channel|>commentary<|message|>Plan: check.<|end|><|start|>assistant<|channel|>final<|message|>The answer<|return|>",
        &[
            "N:Plan: check.The answer",
        ],
    );
    check(
        "gpt_oss",
        "",
        "broken JSON",
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": }<|call|>",
        &[
            "S0:f",
            "I0:f:the JSON cannot be read: expected a JSON value, found `}` (line 1, column 90 of the block)",
        ],
    );
    check(
        "gpt_oss",
        "",
        "cut off",
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": ",
        &[
            "S0:f",
            "I0:f:the call was cut off before its arguments ended",
        ],
    );
    check(
        "gpt_oss",
        "",
        "call message never ended, JSON complete",
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}",
        &[
            "S0:f",
            "C0:f:{\"a\":1}",
        ],
    );
    check(
        "gpt_oss",
        "",
        "a header that never ends is in no event",
        "Hi<|start|>assistant<|channel|>analysis",
        &["N:Hi"],
    );
    check(
        "gpt_oss",
        "open",
        "reasoning open",
        "thinking still<|end|><|start|>assistant<|channel|>final<|message|>ok<|return|>",
        &["R:thinking still", "N:ok"],
    );
    check(
        "gpt_oss",
        "",
        "a header inside analysis ends it",
        "<|channel|>analysis<|message|>maybe <|channel|>commentary to=functions.x<|message|>{}<|call|>",
        &[
            "R:maybe ",
            "S0:x",
            "C0:x:{}",
        ],
    );
}

#[test]
fn gpt_oss_header_inside_a_call() {
    // Found by fuzzing: a header inside a call's JSON string is the call's
    // text; the JSON then breaks, and the call ends at its first `<|call|>`.
    check(
        "gpt_oss",
        "deltas",
        "a header inside a broken call",
        "<|start|>assistant<|channel|>commentary to=functions.f<|message|>{\"a\": \"<|start|>assistant to=<|call|> b\" x}<|call|>after",
        &[
            "S0:f",
            "A0:{\"a\":\"<|start|>assistant to=<|call|> b\"",
            "I0:f:the JSON cannot be read: expected `,` or `}` after an object member, found `x` (line 1, column 107 of the block)",
            "N: b\" x}after",
        ],
    );
}

#[test]
fn harmony_text_in_other_dialects_is_text() {
    // Found by fuzzing: without gpt_oss, a harmony header is plain text.
    check(
        "hermes",
        "open",
        "a harmony header in reasoning",
        "a <|start|>assistant<|channel|>final<|message|>b</think>c<|start|>",
        &[
            "R:a <|start|>assistant<|channel|>final<|message|>b",
            "N:c<|start|>",
        ],
    );
}

#[test]
fn cohere() {
    check(
        "cohere",
        "",
        "reasoning, then two calls",
        "<|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"parameters\": {\"x\": 1}}]<|END_ACTION|>",
        &[
            "R:plan",
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "C1:b:{\"x\":1}",
        ],
    );
    check(
        "cohere",
        "",
        "response markers are in no event",
        "<|START_RESPONSE|>Hello<|END_RESPONSE|>",
        &["N:Hello"],
    );
    check(
        "cohere",
        "",
        "narrative before and after",
        "<|START_TEXT|>Let me.<|END_TEXT|><|START_ACTION|>{\"tool_name\": \"a\", \"parameters\": {}}<|END_ACTION|> done",
        &[
            "N:Let me.",
            "S0:a",
            "C0:a:{}",
            "N: done",
        ],
    );
    check(
        "cohere",
        "",
        "the closer inside a string",
        "<|START_ACTION|>{\"tool_name\": \"echo\", \"parameters\": {\"text\": \"say <|END_ACTION|> please\"}}<|END_ACTION|>",
        &[
            "S0:echo",
            "C0:echo:{\"text\":\"say <|END_ACTION|> please\"}",
        ],
    );
    check(
        "cohere",
        "",
        "a string never closed: the section ends at its first closer",
        "<|START_ACTION|>{\"tool_name\": \"echo\", \"parameters\": {\"text\": \"say <|END_ACTION|> please}<|END_ACTION|>",
        &[
            "S0:echo",
            "I0:echo:the call's arguments were still open at the first `<|END_ACTION|>` and never ended",
            "N: please}<|END_ACTION|>",
        ],
    );
    check(
        "cohere",
        "",
        "broken JSON",
        "<|START_ACTION|>{\"tool_name\": invalid}<|END_ACTION|>",
        &[
            "S0:-",
            "I0:-:the JSON cannot be read: expected a JSON value, found `i` (line 1, column 31 of the block)",
        ],
    );
    check(
        "cohere",
        "",
        "section never closed: first complete, second cut off",
        "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"para",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "I1:b:the call was cut off before its arguments ended",
        ],
    );
    check(
        "cohere",
        "open",
        "reasoning open",
        "plan<|END_THINKING|><|START_ACTION|>[{\"tool_name\": \"a\", \"parameters\": {}}]<|END_ACTION|>",
        &[
            "R:plan",
            "S0:a",
            "C0:a:{}",
        ],
    );
    check(
        "cohere",
        "",
        "markers inside reasoning stay reasoning",
        "<|START_THINKING|><|START_ACTION|>[]<|END_ACTION|><|END_THINKING|>",
        &["R:<|START_ACTION|>[]<|END_ACTION|>"],
    );
    check(
        "cohere",
        "cir",
        "calls in reasoning",
        "<|START_THINKING|><|START_ACTION|>[{\"tool_name\": \"a\", \"parameters\": {}}]<|END_ACTION|><|END_THINKING|>",
        &[
            "S0:a",
            "C0:a:{}",
        ],
    );
}

#[test]
fn granite() {
    check(
        "granite",
        "",
        "narrative before and after",
        "x<|tool_call|>[{\"name\": \"a\", \"arguments\": {}}] after",
        &["N:x", "S0:a", "C0:a:{}", "N: after"],
    );
    check(
        "granite",
        "",
        "3.1 form, two calls",
        "<tool_call> [{\"name\": \"a\", \"arguments\": {}}, {\"arguments\": {\"q\": 1}, \"name\": \"b\"}]",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "C1:b:{\"q\":1}",
        ],
    );
    check(
        "granite",
        "",
        "reasoning and response markers (3.3)",
        "<think>t</think><response>ok</response>",
        &["R:t", "N:ok"],
    );
    check(
        "granite",
        "",
        "broken JSON",
        "<|tool_call|>[{\"name\": \"a\", \"arguments\": {]",
        &[
            "S0:a",
            "I0:a:the JSON cannot be read: expected a key in double quotes or `}`, found `]` (line 1, column 43 of the block)",
            "N:]",
        ],
    );
    check(
        "granite",
        "",
        "cut off: first complete, second cut off",
        "<tool_call>[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"q\": ",
        &[
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "I1:b:the call was cut off before its arguments ended",
        ],
    );
    check(
        "granite",
        "open",
        "reasoning open",
        "t</think><|tool_call|>[{\"name\": \"a\", \"arguments\": {}}]",
        &["R:t", "S0:a", "C0:a:{}"],
    );
    check(
        "granite",
        "cir",
        "calls in reasoning",
        "<think><|tool_call|>[{\"name\": \"a\", \"arguments\": {}}]</think>",
        &["S0:a", "C0:a:{}"],
    );
}

#[test]
fn jamba() {
    check(
        "jamba",
        "",
        "narrative, two calls",
        " <tool_calls>[\n {\"name\": \"a\", \"arguments\": {}},\n {\"name\": \"b\", \"arguments\": {\"x\": 1}}\n]</tool_calls> after",
        &[
            "N: ",
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "C1:b:{\"x\":1}",
            "N: after",
        ],
    );
    check(
        "jamba",
        "",
        "broken JSON",
        "<tool_calls>[{\"name\": \"a\", \"arguments\": {\"x\": 01}}]</tool_calls>",
        &[
            "S0:a",
            "I0:a:the JSON cannot be read: expected `,` or `}` after an object member, found `1` (line 1, column 48 of the block)",
        ],
    );
    check(
        "jamba",
        "",
        "section never closed, JSON complete",
        "<tool_calls>[{\"name\": \"a\", \"arguments\": {}}]",
        &["S0:a", "C0:a:{}"],
    );
    check(
        "jamba",
        "",
        "section never closed, cut off",
        "<tool_calls>[{\"name\": \"a\", \"arguments\": {}}",
        &["S0:a", "C0:a:{}"],
    );
}

#[test]
fn phi4_mini() {
    check(
        "phi4_mini",
        "",
        "Phi-4-mini tokens, narrative around",
        "x<|tool_call|>[{\"name\": \"a\", \"arguments\": {}}]<|/tool_call|>y",
        &["N:x", "S0:a", "C0:a:{}", "N:y"],
    );
    check(
        "phi4_mini",
        "",
        "functools, two calls",
        "Let me check.\nfunctools[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {}}]\nmore",
        &[
            "N:Let me check.\n",
            "S0:a",
            "S1:b",
            "C0:a:{}",
            "C1:b:{}",
            "N:\nmore",
        ],
    );
    check(
        "phi4_mini",
        "",
        "broken JSON",
        "functools[{\"name\": \"a\", \"arguments\": {\"x\" 1}}]",
        &[
            "S0:a",
            "I0:a:the JSON cannot be read: expected `:` after the key, found `1` (line 1, column 43 of the block)",
            "N:1}}]",
        ],
    );
    check(
        "phi4_mini",
        "",
        "cut off",
        "functools[{\"name\": \"a\", \"arguments\": {",
        &[
            "S0:a",
            "I0:a:the call was cut off before its arguments ended",
        ],
    );
    check(
        "phi4_mini",
        "",
        "the word in prose is narrative",
        "I use functools to reduce.",
        &["N:I use functools to reduce."],
    );
}

/// A tool list types raw values by each property's type (section 7).
fn with_tools(dialect: &str) -> Config {
    let tools = vec![
        (
            "pick".to_owned(),
            serde_json::json!({"type": "object", "properties": {
                "items": {"type": "array"},
                "city": {"type": "string"},
                "precision": {"type": "integer"},
                "rate": {"type": "number"},
                "enabled": {"type": "boolean"},
                "meta": {"type": "object"}
            }}),
        ),
        (
            "search".to_owned(),
            serde_json::json!({"type": "object", "required": ["query"],
                "properties": {"query": {"type": "string"}}}),
        ),
    ];
    common::dialects::config(dialect).tools(tools)
}

#[test]
fn raw_values_typed_by_the_tools() {
    for (dialect, input, want) in [
        (
            "qwen3_coder",
            "<tool_call>\n<function=pick>\n<parameter=items>\n[\"a\", \"b\", 1, true]\n</parameter>\n<parameter=city>\n5\n</parameter>\n<parameter=precision>\n2\n</parameter>\n<parameter=rate>\n1.5\n</parameter>\n<parameter=enabled>\nTrue\n</parameter>\n<parameter=meta>\n{'k': None}\n</parameter>\n</function>\n</tool_call>",
            vec![
                "S0:pick",
                r#"C0:pick:{"items":["a","b",1,true],"city":"5","precision":2,"rate":1.5,"enabled":true,"meta":{"k":null}}"#,
            ],
        ),
        (
            "minimax_m2",
            "<minimax:tool_call>\n<invoke name=\"pick\">\n<parameter name=\"city\">42</parameter>\n<parameter name=\"precision\">7</parameter>\n</invoke>\n</minimax:tool_call>",
            vec!["S0:pick", r#"C0:pick:{"city":"42","precision":7}"#],
        ),
        (
            "glm",
            "<tool_call>pick<arg_key>precision</arg_key><arg_value>two</arg_value></tool_call>",
            vec![
                "S0:pick",
                "I0:pick:at precision: expected an integer, found a string (\"two\")",
            ],
        ),
        (
            // `string="true"` is the string as written, whatever the schema.
            "deepseek_v32",
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"pick\">\n<｜DSML｜parameter name=\"city\" string=\"true\">5</｜DSML｜parameter>\n<｜DSML｜parameter name=\"precision\" string=\"false\">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            vec!["S0:pick", r#"C0:pick:{"city":"5","precision":3}"#],
        ),
        (
            "hermes",
            "<tool_call>{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}</tool_call>",
            vec!["S0:search", "I0:search:at query: required field missing"],
        ),
    ] {
        let events = common::parse_with(&with_tools(dialect), input);
        assert_eq!(common::summary(&events), want, "{dialect}");
        let deltas = common::parse_with(&with_tools(dialect).argument_deltas(true), input);
        assert_eq!(
            common::completed(&deltas),
            common::completed(&events),
            "{dialect}: the same calls with argument deltas"
        );
    }
}

#[test]
fn call_ids_are_kept() {
    for (dialect, input, want) in [
        (
            "kimi_k2",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>search:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
            vec!["functions.get_weather:0", "search:1"],
        ),
        (
            "mistral",
            "[TOOL_CALLS]add[CALL_ID]a1b2c3d4e[ARGS]{\"a\": 1}",
            vec!["a1b2c3d4e"],
        ),
        (
            "cohere",
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": 1, \"tool_name\": \"b\", \"parameters\": {}}]<|END_ACTION|>",
            vec!["0", "1"],
        ),
    ] {
        let events = common::parse_with(&config(dialect, "deltas"), input);
        let ids: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => a
                    .attributes
                    .iter()
                    .find(|(k, _)| k == "call_id")
                    .map(|(_, v)| v.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, want, "{dialect}");
    }
}

/// Long strings in a JSON form's value, read through the lane that takes a
/// push wholly inside a plain string (`json_string_lane`): what stops it
/// (a `<` the watch for a first closer must read, the section's closer
/// inside the string, escapes, a character of several bytes, the block
/// limit) gives what the general path gives, at every chunking; with
/// argument deltas on, each piece of the string goes out in its push.
#[test]
fn long_strings_in_a_json_call() {
    let long = "word ".repeat(30);
    let body = format!("{long}a < b </tool_ \\\"q\\\" \\\\ é {long}");
    check(
        "hermes",
        "",
        "a long string with a `<`, escapes and a multibyte character",
        &format!("<tool_call>\n{{\"name\": \"w\", \"arguments\": {{\"body\": \"{body}\"}}}}\n</tool_call>"),
        &[
            "S0:w",
            &format!("C0:w:{{\"body\":\"{body}\"}}"),
        ],
    );
    check(
        "hermes",
        "deltas",
        "the same, deltas on",
        &format!("<tool_call>\n{{\"name\": \"w\", \"arguments\": {{\"body\": \"{body}\"}}}}\n</tool_call>"),
        &[
            "S0:w",
            &format!("A0:{{\"body\":\"{body}\"}}"),
            &format!("C0:w:{{\"body\":\"{body}\"}}"),
        ],
    );
    // Every dialect whose arguments are JSON: closers of its own and of
    // others inside the string.
    let value = format!("{long}a < b </tool_call> <|tool_call_end|> <｜tool▁call▁end｜> [/TOOL_CALLS] \"q\" \\ é {long}");
    let calls = [common::dialects::call(
        "w",
        serde_json::json!({"body": value}),
    )];
    let args = serde_json::to_string(&calls[0].args).expect("JSON");
    let json_args = actionstream::dialect::BUILTIN
        .iter()
        .filter(|d| !common::dialects::RAW.contains(d) && **d != "pythonic");
    for &dialect in json_args {
        let text = common::dialects::calls_text(dialect, &calls);
        let done = common::dialects::complete_lines(&calls, 0);
        check(
            dialect,
            "",
            "a long JSON string",
            &text,
            &["S0:w", &done[0]],
        );
        check(
            dialect,
            "deltas",
            "a long JSON string, deltas on",
            &text,
            &["S0:w", &format!("A0:{args}"), &done[0]],
        );
    }
    // Python strings (`pythonic`): the same value, and a triple-quoted
    // string with line breaks and quotes of the other kind in it.
    for text in [
        common::dialects::calls_text("pythonic", &calls),
        format!("<|tool_call_start|>[w(body=\"\"\"{long}\nline ' \" \"\" more <|tool_call_end|> ]) {long}\"\"\")]<|tool_call_end|>"),
    ] {
        let events = common::parse_with(&config("pythonic", ""), &text);
        assert!(
            matches!(&events[..], [Event::ActionStarted { .. }, Event::ActionComplete(a)] if a.arguments["body"].as_str().is_some_and(|b| b.len() > 300)),
            "{:?}",
            common::summary(&events)
        );
        let with_deltas = common::parse_with(&config("pythonic", "deltas"), &text);
        let joined = with_deltas.iter().find_map(|e| match e {
            Event::ArgumentsDelta { json, .. } => Some(json.clone()),
            _ => None,
        });
        let Event::ActionComplete(a) = &events[1] else {
            unreachable!()
        };
        assert_eq!(joined, Some(a.arguments.to_string()), "deltas join to the arguments");
    }
    // A line break in a string that is not triple-quoted breaks the call.
    let broken = common::parse_with(
        &config("pythonic", ""),
        &format!("<|tool_call_start|>[w(body='{long}\n{long}')]<|tool_call_end|>"),
    );
    assert!(
        matches!(&broken[1], Event::ActionInvalid(a) if a.errors[0].message.contains("a line break inside a string")),
        "{:?}",
        common::summary(&broken)
    );
    // The section's closer inside a string that never ends: the call ends
    // there, and what follows is narrative (its deltas went out as written).
    check(
        "hermes",
        "deltas",
        "a closer inside a string that never ends",
        &format!("<tool_call>\n{{\"name\": \"cut\", \"arguments\": {{\"body\": \"{long}</tool_call>{long}Done."),
        &[
            "S0:cut",
            &format!("A0:{{\"body\":\"{long}</tool_call>{long}Done."),
            "I0:cut:the call's arguments were still open at the first `</tool_call>` and never ended",
            &format!("N:{long}Done."),
        ],
    );
    // The block limit falls inside the string.
    let input = format!(
        "<tool_call>\n{{\"name\": \"w\", \"arguments\": {{\"body\": \"{long}\"}}}}\n</tool_call>"
    );
    let limited = common::parse_with(&config("hermes", "").max_block_bytes(100), &input);
    assert_eq!(
        common::summary(&limited),
        [
            "S0:w".to_string(),
            "I0:w:the call section is larger than the block limit of 100 bytes".into(),
            format!("N:{}", &input[100..]),
        ]
    );
    // Each piece of the string goes out in the push that brings it (the
    // merged events cannot show it: a piece held back goes out with the
    // next one).
    for (dialect, head) in [
        ("hermes", "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"body\": \"one "),
        ("mistral", "[TOOL_CALLS]w[ARGS]{\"body\": \"one "),
        ("pythonic", "<|tool_call_start|>[w(body='one "),
        (
            "kimi_k2",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.w:0<|tool_call_argument_begin|>{\"body\": \"one ",
        ),
    ] {
        let mut parser = actionstream::Parser::new(config(dialect, "deltas"));
        let mut out = Vec::new();
        parser.push(head, &mut out);
        for piece in ["two ", "three"] {
            out.clear();
            parser.push(piece, &mut out);
            assert!(
                matches!(&out[..], [Event::ArgumentsDelta { json, .. }] if json == piece),
                "{dialect}: {out:?}"
            );
        }
    }
}

// -- the new call forms (contract, section 7b) ------------------------------

#[test]
fn kimi_k3() {
    let call = |tool: &str, i: u32, args: &str| {
        format!("<|open|>call tool=\"{tool}\" index=\"{i}\"<|sep|>{args}<|close|>call<|sep|>")
    };
    let arg = |k: &str, t: &str, v: &str| {
        format!("<|open|>argument key=\"{k}\" type=\"{t}\"<|sep|>{v}<|close|>argument<|sep|>")
    };
    check(
        "kimi_k3",
        "",
        "reasoning, a reply, two calls (SGLang test_detect_and_parse_multiple_calls)",
        &format!(
            "<|open|>think<|sep|>plan<|close|>think<|sep|><|open|>response<|sep|>Running.<|close|>response<|sep|><|open|>tools<|sep|>{}{}<|close|>tools<|sep|><|close|>message<|sep|>",
            call("python", 1, &arg("code", "string", "a")),
            call("python", 2, &arg("code", "string", "b"))
        ),
        &[
            "R:plan",
            "N:Running.",
            "S0:python",
            "S1:python",
            "C0:python:{\"code\":\"a\"}",
            "C1:python:{\"code\":\"b\"}",
        ],
    );
    check(
        "kimi_k3",
        "open",
        "the server wrote the reasoning opener (vLLM prefix consumed)",
        "step<|close|>think<|sep|><|open|>response<|sep|>answer",
        &["R:step", "N:answer"],
    );
    check(
        "kimi_k3",
        "",
        "a call cut off (SGLang test_stream_end_reports_truncated_tools_section)",
        "<|open|>tools<|sep|><|open|>call tool=\"python\" index=\"1\"<|sep|>",
        &[
            "S0:python",
            "I0:python:the call was cut off before its arguments ended",
        ],
    );
    check(
        "kimi_k3",
        "deltas",
        "a string value streams as written, a typed one whole",
        &format!(
            "<|open|>tools<|sep|>{}<|close|>tools<|sep|>",
            call(
                "f",
                0,
                &(arg("s", "string", "x \"y\"") + &arg("n", "integer", "5"))
            )
        ),
        &[
            "S0:f",
            "A0:{\"s\":\"x \\\"y\\\"\",\"n\":5}",
            "C0:f:{\"s\":\"x \\\"y\\\"\",\"n\":5}",
        ],
    );
}

#[test]
fn minimax_m3() {
    let ns = "]<]minimax[>[";
    check(
        "minimax_m3",
        "",
        "a stray closer before any text is a marker; a later one is text",
        "</mm:think>Sure </mm:think>.",
        &["N:Sure </mm:think>."],
    );
    check(
        "minimax_m3",
        "",
        "reasoning then a call",
        &format!("<mm:think>hm</mm:think>{ns}<tool_call>{ns}<invoke name=\"f\">{ns}<a>1{ns}</a>{ns}</invoke>{ns}</tool_call>"),
        &["R:hm", "S0:f", "C0:f:{\"a\":1}"],
    );
    check(
        "minimax_m3",
        "",
        "a mismatched closing tag (SGLang test_mismatched_closing_tag)",
        &format!("{ns}<tool_call>{ns}<invoke name=\"get_weather\">{ns}<city>Beijing{ns}</wrong>{ns}</invoke>{ns}</tool_call>"),
        &[
            "S0:get_weather",
            "I0:get_weather:at city: expected `</city>`, found `</wrong>`",
        ],
    );
    check(
        "minimax_m3",
        "",
        "cut off (SGLang test_truncated_no_closing_tags)",
        &format!("{ns}<tool_call>{ns}<invoke name=\"get_weather\">{ns}<city>Beijing"),
        &[
            "S0:get_weather",
            "I0:get_weather:the call was cut off before its arguments ended",
        ],
    );
}

#[test]
fn gemma4() {
    check(
        "gemma4",
        "",
        "reasoning, narrative, two calls back to back",
        "<|channel>thought\nplan<channel|>Checking.<|tool_call>call:a{x:1}<tool_call|><|tool_call>call:b{}<tool_call|>",
        &["R:plan", "N:Checking.", "S0:a", "C0:a:{\"x\":1}", "S1:b", "C1:b:{}"],
    );
    check(
        "gemma4",
        "",
        "braces and the closer inside a string (vLLM streaming bug 2)",
        "<|tool_call>call:f{s:<|\"|>a } <tool_call|> [<|\"|>}<tool_call|>",
        &["S0:f", "C0:f:{\"s\":\"a } <tool_call|> [\"}"],
    );
    check(
        "gemma4",
        "",
        "cut off (vLLM test_incomplete_tool_call)",
        "<|tool_call>call:get_weather{location:<|\"|>London",
        &[
            "S0:get_weather",
            "I0:get_weather:the call was cut off before its arguments ended",
        ],
    );
}

#[test]
fn function_gemma() {
    check(
        "function_gemma",
        "",
        "a string that is wholly JSON is JSON (vLLM test_numeric_argument)",
        "<start_function_call>call:f{count:<escape>42<escape>,ok:<escape>true<escape>,m:<escape>Hello World<escape>}<end_function_call>",
        &["S0:f", "C0:f:{\"count\":42,\"ok\":true,\"m\":\"Hello World\"}"],
    );
}

#[test]
fn apertus() {
    check(
        "apertus",
        "",
        "reasoning then calls; the suffix may be missing (vLLM test_missing_tool_suffix)",
        "<|inner_prefix|>think<|inner_suffix|><|tools_prefix|>[{\"f\": {\"a\": 1}}, {\"g\": {}}]",
        // Each call starts as its key is read; the ends come together
        // when the section does (contract, section 4).
        &["R:think", "S0:f", "S1:g", "C0:f:{\"a\":1}", "C1:g:{}"],
    );
    check(
        "apertus",
        "",
        "an object with two keys is no call (it started with its first key)",
        "<|tools_prefix|>[{\"f\": {}, \"g\": {}}]<|tools_suffix|>",
        &[
            "S0:f",
            "I0:f:a call must be an object with one key, its name; found 2 keys",
        ],
    );
    check(
        "apertus",
        "deltas",
        "a call inside the inner section is a call, and the reasoning goes on (the Apertus format's \
         tool_calls and tool_outputs blocks, rendered by its chat template)",
        "<|inner_prefix|>I need to calculate this.<|tools_prefix|>[{\"calculator\": {\"expr\": \"2+2\"}}]<|tools_suffix|>[4]<|inner_suffix|>The answer is 4.",
        &[
            "R:I need to calculate this.",
            "S0:calculator",
            "A0:{\"expr\":\"2+2\"}",
            "C0:calculator:{\"expr\":\"2+2\"}",
            "R:[4]",
            "N:The answer is 4.",
        ],
    );
}

#[test]
fn xlam() {
    check(
        "xlam",
        "",
        "a JSON array first, after reasoning (vLLM single_tool_with_think_tag)",
        "<think>ok</think>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
        &["R:ok", "S0:f", "C0:f:{\"a\":1}"],
    );
    check(
        "xlam",
        "",
        "an array after narrative is narrative",
        "Here: [{\"name\": \"f\", \"arguments\": {}}]",
        &["N:Here: [{\"name\": \"f\", \"arguments\": {}}]"],
    );
    check(
        "xlam",
        "",
        "a fenced array (vLLM single_tool_with_json_code_block)",
        "Sure.\n```json\n[{\"name\": \"f\", \"arguments\": {}}]\n```",
        &["N:Sure.\n", "S0:f", "C0:f:{}"],
    );
}

#[test]
fn minicpm5() {
    check(
        "minicpm5",
        "",
        "a value's end marker inside CDATA still ends the value: the rest is the call's error",
        "Head\n<function name=\"f\"><param name=\"a\"><![CDATA[x</param>\n]]></param></function>\nTail",
        &["N:Head\n", "S0:f", "I0:f:unexpected text between the call's parameters: `]]></param>`", "N:\nTail"],
    );
    check(
        "minicpm5",
        "",
        "a CDATA value (vLLM test_cdata_multiline)",
        "<function name=\"f\"><param name=\"a\"><![CDATA[北\n京]]></param><param name=\"n\">2</param></function>",
        &["S0:f", "C0:f:{\"a\":\"北\\n京\",\"n\":2}"],
    );
    check(
        "minicpm5",
        "deltas",
        "tag names run into their attribute (vLLM test_collapsed_function_and_param_tags)",
        "<functionname=\"get_weather\"><paramname=\"city\">上海</param><paramname=\"date\">2024-06-27</param></function>\n",
        &["S0:get_weather", "A0:{\"city\":\"上海\",\"date\":\"2024-06-27\"}", "C0:get_weather:{\"city\":\"上海\",\"date\":\"2024-06-27\"}", "N:\n"],
    );
    check(
        "minicpm5",
        "",
        "the spellings mixed (vLLM test_collapsed_param_tags_with_tokenizer_space_function)",
        "<function name=\"get_current_weather\"><paramname=\"city\">Dallas</param><param name=\"state\">TX</param><paramname=\"unit\">fahrenheit</param></function>",
        &["S0:get_current_weather", "C0:get_current_weather:{\"city\":\"Dallas\",\"state\":\"TX\",\"unit\":\"fahrenheit\"}"],
    );
}

/// The dialects of section 7b the existing descriptor fields read, on
/// cases from the peers' suites (vLLM's `tests/tool_parsers`, SGLang's
/// `test/registered/unit/function_call`).
#[test]
fn section_7b_descriptor_dialects() {
    check(
        "deepseek_v41",
        "",
        "the unspaced V4 spelling is not a V4.1 call (SGLang test_unspaced_v4_tags_are_not_tool_calls)",
        "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜tool_calls>",
        &["N:<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜tool_calls>"],
    );
    check(
        "deepseek_v41",
        "",
        "a call before the reasoning's closer ends it",
        "<think>Plan.\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"f\">\n<｜DSML｜ parameter name=\"x\" string=\"false\">1</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>\n</think>",
        &["R:Plan.\n\n", "S0:f", "C0:f:{\"x\":1}", "N:\n"],
    );
    check(
        "deepseek_v41",
        "",
        "a broken string=\"false\" value stays the string as written (vLLM test_python_argument_conversion)",
        "<｜DSML｜ calls><｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"bad\" string=\"false\">[broken</｜DSML｜ parameter><｜DSML｜ parameter name=\"text\" string=\"true\">  a<b</｜DSML｜ parameter></｜DSML｜ invoke></｜DSML｜ calls>",
        &["S0:f", "C0:f:{\"bad\":\"[broken\",\"text\":\"  a<b\"}"],
    );
    check(
        "hunyuan_a13b",
        "",
        "reasoning, then the answer's wrapper as markers",
        "<think>\nweather\n</think>\n<answer>\nSure. <tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>\n</answer>",
        &["R:\nweather\n", "N:\n\nSure. ", "S0:f", "C0:f:{}", "N:\n"],
    );
    check(
        "step3",
        "",
        "an invoke cut off at the end is invalid (vLLM malformed_input_outputs)",
        "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"func\">",
        &[
            "S0:func",
            "I0:func:the call was cut off before its arguments ended",
        ],
    );
    check(
        "step3",
        "open",
        "Step-3 starts inside reasoning",
        "think</think>ok<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">b</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        &["R:think", "N:ok", "S0:f", "C0:f:{\"a\":\"b\"}"],
    );
    check(
        "ernie45",
        "open",
        "ERNIE 4.5 Thinking: reasoning open, the answer in <response>",
        "plan\n</think>\n\n<response>\nIt is sunny.\n</response>",
        &["R:plan\n", "N:\n\n\nIt is sunny.\n"],
    );
    check(
        "internlm",
        "",
        "a space between the markers, and \"arguments\"",
        "Checking. <|action_start|> <|plugin|>{\"name\": \"f\", \"arguments\": {\"a\": 1}}<|action_end|>",
        &["N:Checking.  ", "S0:f", "C0:f:{\"a\":1}"],
    );
    check(
        "internlm",
        "",
        "not JSON after <|plugin|> is text (vLLM malformed_input_outputs)",
        "<|action_start|><|plugin|>not json<|action_end|>",
        &["N:<|plugin|>not json<|action_end|>"],
    );
    check(
        "gigachat3",
        "",
        "a response that starts with the header, and a trailing </s>",
        "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}</s>",
        &["S0:f", "C0:f:{}"],
    );
    check(
        "gigachat35",
        "open",
        "GigaChat 3.5 starts inside reasoning",
        "hmm</think>Ok.<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"n\" string=\"false\">7</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
        &["R:hmm", "N:Ok.", "S0:f", "C0:f:{\"n\":7}"],
    );
    check(
        "gigachat35",
        "",
        "an empty section is text (vLLM malformed_input_outputs)",
        "<｜GCML｜tool_calls></｜GCML｜tool_calls>",
        &["N:<｜GCML｜tool_calls></｜GCML｜tool_calls>"],
    );
    check(
        "longcat",
        "",
        "an unclosed section at the end is invalid (vLLM malformed_input_outputs)",
        "<longcat_tool_call>{\"name\": \"func\", \"arguments\": {",
        &[
            "S0:func",
            "I0:func:the call was cut off before its arguments ended",
        ],
    );
    check(
        "dots",
        "",
        "a garbage section is text, the next one is read (vLLM test_streaming_malformed_block_does_not_block_later_valid_call)",
        "<dots_function_call>garbage</dots_function_call><dots_function_call><invoke name=\"search\"><parameter name=\"query\">chairs</parameter></invoke></dots_function_call>",
        &[
            "N:<dots_function_call>garbage</dots_function_call>",
            "S0:search",
            "C0:search:{\"query\":\"chairs\"}",
        ],
    );
    check(
        "k2_horizon",
        "",
        "a call inside <ifm|think> stays reasoning (SGLang make_reasoning_with_tool_marker)",
        "<ifm|think>Consider <ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>b</ifm|arg_value></ifm|tool_call> only.</ifm|think>\nDone.",
        &[
            "R:Consider <ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>b</ifm|arg_value></ifm|tool_call> only.",
            "N:\nDone.",
        ],
    );
    check(
        "k2_horizon",
        "",
        "typed values: string as written, integer as JSON",
        "<ifm|tool_call>f<ifm|arg_key>s</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>007</ifm|arg_value><ifm|arg_key>n</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>7</ifm|arg_value></ifm|tool_call>",
        &["S0:f", "C0:f:{\"s\":\"007\",\"n\":7}"],
    );
    check(
        "iquest_q1",
        "",
        "a key with no value is invalid (SGLang test_empty_arguments_and_malformed_call)",
        "<iquest_tool_call>run<arg_key>count</arg_key><arg_value>1</iquest_tool_call>",
        &["S0:run", "I0:run:the call's arguments were still open at the first `</iquest_tool_call>` and never ended"],
    );
    check(
        "granite_20b_fc",
        "",
        "a list after the marker is read as calls, as in every JSON form (vLLM's parser reads one object and lists this input among its malformed ones)",
        "<function_call> {\"name\": \"f\", \"arguments\": {}}\n<function_call> [{\"name\": \"g\", \"arguments\": {}}]",
        &["S0:f", "C0:f:{}", "N:\n", "S1:g", "C1:g:{}"],
    );
}

/// Granite 3.2's plain-text reasoning and Kimi-VL's `◁think▷` (vLLM's
/// `granite` reasoning test, SGLang's `kimi` reasoning parser).
#[test]
fn reasoning_written_as_the_models_write_it() {
    check(
        "granite",
        "",
        "Granite 3.2: plain-text markers (vLLM test_granite_reasoning_parser SIMPLE_REASONING)",
        "Here is my thought process:This is a reasoning sectionHere is my response:This is the rest",
        &["R:This is a reasoning section", "N:This is the rest"],
    );
    check(
        "granite",
        "",
        "Granite 3.2: Here's",
        "Here's my thought process: foo Here's my response: bar",
        &["R: foo ", "N: bar"],
    );
    check(
        "kimi_k2",
        "",
        "Kimi-VL ◁think▷",
        "◁think▷Look at the image.◁/think▷A cat.",
        &["R:Look at the image.", "N:A cat."],
    );
    check(
        "kimi_k2",
        "",
        "Kimi K2 opens its call section without closing its reasoning",
        "<think>Read it.<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|></think>",
        &["R:Read it.", "S0:read", "C0:read:{}"],
    );
    check(
        "minimax_m2",
        "",
        "a dialect without the rule keeps a call opener in reasoning",
        "<think>x<minimax:tool_call><invoke name=\"f\"></invoke></minimax:tool_call></think>y",
        &[
            "R:x<minimax:tool_call><invoke name=\"f\"></invoke></minimax:tool_call>",
            "N:y",
        ],
    );
    check(
        "hermes",
        "",
        "two calls before the closer: the closer after them is a marker",
        "<think>a<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>\n</think>done",
        &["R:a", "S0:f", "C0:f:{}", "N:\n", "S1:g", "C1:g:{}", "N:\ndone"],
    );
    check(
        "hermes",
        "",
        "an opener that is no call stays reasoning",
        "<think>I could use <tool_call> tags</think>ok",
        &["R:I could use <tool_call> tags", "N:ok"],
    );
}

/// Tencent Hy3 and HY v4 (vLLM `hy_v3` / `hy_v4`, SGLang `hunyuan`): GLM-like
/// arguments in `<tool_calls>`, each token with any `:S` suffix.
#[test]
fn hunyuan() {
    check(
        "hunyuan",
        "",
        "Hy3: narrative before, a call with no arguments",
        "Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        &[
            "N:Checking.",
            "S0:get_current_date",
            "C0:get_current_date:{}",
        ],
    );
    check(
        "hunyuan",
        "",
        "HY v4: no <tool_sep>, every token suffixed",
        "sure!<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Beijing</arg_value:opensource></tool_call:opensource><tool_call:opensource>get_current_date</tool_call:opensource></tool_calls:opensource>",
        &[
            "N:sure!",
            "S0:get_weather",
            "S1:get_current_date",
            "C0:get_weather:{\"city\":\"Beijing\"}",
            "C1:get_current_date:{}",
        ],
    );
    check(
        "hunyuan",
        "",
        "reasoning with a suffix",
        "<think:6124c78e>which city?</think:6124c78e>Paris.",
        &["R:which city?", "N:Paris."],
    );
    check(
        "hunyuan",
        "open",
        "HY v4 starts inside its reasoning (the prompt wrote the opener)",
        "pondering</think:6124c78e>answer",
        &["R:pondering", "N:answer"],
    );
    check(
        "hunyuan",
        "",
        "a call opener ends the reasoning; the suffixed closer after it is a marker",
        "<think:s>call it<tool_calls:s><tool_call:s>f</tool_call:s></tool_calls:s>\n</think:s>Done.",
        &["R:call it", "S0:f", "C0:f:{}", "N:\nDone."],
    );
    check(
        "hunyuan",
        "",
        "a suffix with white space in it is no marker",
        "a <tool_calls:x y> b",
        &["N:a <tool_calls:x y> b"],
    );
    check(
        "hunyuan",
        "",
        "a key with no value",
        "<tool_calls:s><tool_call:s>f<arg_key:s>city</arg_key:s></tool_call:s></tool_calls:s>",
        &["S0:f", "I0:f:at city: the parameter `city` has no value"],
    );
    check(
        "hunyuan",
        "",
        "a section never closed, its call cut off",
        "<tool_calls:s><tool_call:s>f<arg_key:s>city</arg_key:s><arg_value:s>Par",
        &[
            "S0:f",
            "I0:f:the call was cut off before its arguments ended",
        ],
    );
}

/// Meta Muse Glimmer (vLLM and llama.cpp `muse_glimmer`, SGLang `muse`):
/// turns addressed to `self`, `user` or a tool, in a recipient envelope.
#[test]
fn muse_glimmer() {
    let call = "<atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>";
    check(
        "muse_glimmer",
        "",
        "reasoning, a call, the answer (the first header with no opener)",
        &format!(" to=self<|message|>Need weather.<|eom|><|start|>assistant to=get_weather<|message|>{call}<|eom|><|start|>assistant to=user<|message|>It is sunny.<|eot|>"),
        &[
            "N: ",
            "R:Need weather.",
            "S0:get_weather",
            "C0:get_weather:{\"city\":\"Paris\"}",
            "N:It is sunny.",
        ],
    );
    check(
        "muse_glimmer",
        "",
        "prose that begins like a header is narrative",
        "to=x is the syntax.",
        &["N:to=x is the syntax."],
    );
    check(
        "muse_glimmer",
        "",
        "an ATEM block in the answer is text",
        &format!("<|start|>assistant to=user<|message|>Write {call}"),
        &[&format!("N:Write {call}")],
    );
    check(
        "muse_glimmer",
        "",
        "a tool message that is not ATEM is narrative",
        "<|start|>assistant to=get_weather<|message|>Paris<|eom|>",
        &["N:Paris"],
    );
    check(
        "muse_glimmer",
        "",
        "the tool channel cut off mid-invoke",
        " to=self<|message|>Need weather.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Par",
        &[
            "N: ",
            "R:Need weather.",
            "S0:get_weather",
            "I0:get_weather:the call was cut off before its arguments ended",
        ],
    );
    check(
        "muse_glimmer",
        "cir",
        "calls in reasoning open no ATEM block outside a tool message",
        &format!(" to=self<|message|>Maybe {call}<|eom|>"),
        &["N: ", &format!("R:Maybe {call}")],
    );
}

/// gpt-oss built-in tools (harmony format.md, "Built-in tools"): a message to
/// `browser.search`, `python`, … is an action named by its recipient.
#[test]
fn gpt_oss_built_in_tools() {
    check(
        "gpt_oss",
        "",
        "browser.search on the analysis channel, content type ` code`",
        "<|channel|>analysis<|message|>We need to browse. Let's search.<|end|><|start|>assistant<|channel|>analysis to=browser.search code<|message|>{\"query\": \"Ho Chi Minh City weather today\", \"topn\": 10, \"source\": \"news\"}<|call|>",
        &[
            "R:We need to browse. Let's search.",
            "S0:browser.search",
            "C0:browser.search:{\"query\":\"Ho Chi Minh City weather today\",\"topn\":10,\"source\":\"news\"}",
        ],
    );
    check(
        "gpt_oss",
        "deltas",
        "python with raw code",
        "<|start|>assistant<|channel|>analysis to=python code<|message|>import sympy as sp\nprint(sp.isprime(97))<|call|>",
        &[
            "S0:python",
            "A0:{\"code\":\"import sympy as sp\\nprint(sp.isprime(97))\"}",
            "C0:python:{\"code\":\"import sympy as sp\\nprint(sp.isprime(97))\"}",
        ],
    );
    check(
        "gpt_oss",
        "",
        "python with the recipient before the channel, cut off at the end",
        "<|start|>assistant to=python<|channel|>analysis<|message|>print(1)",
        &["S0:python", "C0:python:{\"code\":\"print(1)\"}"],
    );
    check(
        "gpt_oss",
        "strict",
        "python cut off, strict: the message never ended",
        "<|channel|>commentary to=python code<|message|>print(1)",
        &[
            "S0:python",
            "I0:python:the call section was not closed before the end of the response",
        ],
    );
}

/// Thinking Machines Inkling (vLLM and SGLang `inkling`): typed messages,
/// the header name a marker.
#[test]
fn inkling() {
    check(
        "inkling",
        "",
        "reasoning, text, a call; the first message with no <|message_model|>",
        "<|content_thinking|>plan<|end_message|><|message_model|><|content_text|>Let me check.<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>{\"name\":\"get_weather\",\"args\":{\"city\":\"SF\"}}<|end_message|><|content_model_end_sampling|>",
        &[
            "R:plan",
            "N:Let me check.",
            "S0:get_weather",
            "C0:get_weather:{\"city\":\"SF\"}",
        ],
    );
    check(
        "inkling",
        "",
        "the header name first, with no <|message_model|>",
        "get_weather<|content_invoke_tool_json|>{\"name\":\"get_weather\",\"args\":{}}<|end_message|>",
        &["S0:get_weather", "C0:get_weather:{}"],
    );
    check(
        "inkling",
        "",
        "a plain answer with no markers",
        "Sure, it is sunny.",
        &["N:Sure, it is sunny."],
    );
    check(
        "inkling",
        "",
        "args that are not an object",
        "<|content_invoke_tool_json|>{\"name\":\"f\",\"args\":[1]}<|end_message|>",
        &[
            "S0:f",
            "I0:f:at args: arguments must be a JSON object, found an array",
        ],
    );
    check(
        "inkling",
        "",
        "a call cut off",
        "<|content_invoke_tool_json|>{\"name\":\"d\",\"args\":{\"k\":\"v\"",
        &[
            "S0:d",
            "I0:d:the call was cut off before its arguments ended",
        ],
    );
}

/// MeetKai Functionary v3.2 (llama.cpp `functionary_v3_2`): recipient lines.
#[test]
fn functionary_v32() {
    check(
        "functionary_v32",
        "",
        "text, then two calls (the prompt wrote the first `>>>`)",
        "all\nLet me check.\n>>>get_weather\n{\"location\": \"Paris\"}\n>>>get_time\n{\"tz\": \"CET\"}",
        &[
            "N:Let me check.\n",
            "S0:get_weather",
            "C0:get_weather:{\"location\":\"Paris\"}",
            "N:\n",
            "S1:get_time",
            "C1:get_time:{\"tz\":\"CET\"}",
        ],
    );
    check(
        "functionary_v32",
        "",
        "a call first, white space after it",
        "special_function\n{\"arg1\": 1}\n ",
        &[
            "S0:special_function",
            "C0:special_function:{\"arg1\":1}",
            "N:\n ",
        ],
    );
    check(
        "functionary_v32",
        "",
        "a call whose JSON is cut off",
        ">>>f\n{\"a\": [1, 2",
        &[
            "S0:f",
            "I0:f:the call was cut off before its arguments ended",
        ],
    );
    check(
        "functionary_v32",
        "",
        "a response with no recipient line is narrative",
        "Hello there, how are you?",
        &["N:Hello there, how are you?"],
    );
}

/// Llama 3.1's `code_interpreter` (Meta's prompt format: with `Environment:
/// ipython` the model writes code after `<|python_tag|>` and ends with
/// `<|eom_id|>`): code that is no call is an action `code_interpreter`.
#[test]
fn llama3_code_interpreter() {
    check(
        "llama3",
        "deltas",
        "code, ending at <|eom_id|>",
        "<|python_tag|>import math\nprint(math.sqrt(2))<|eom_id|>",
        &[
            "S0:code_interpreter",
            "A0:{\"code\":\"import math\\nprint(math.sqrt(2))\"}",
            "C0:code_interpreter:{\"code\":\"import math\\nprint(math.sqrt(2))\"}",
        ],
    );
    check(
        "llama3",
        "",
        "a call that is not `T.call(…)` is code, to the end of the response",
        "<|python_tag|>print(2 + 2)",
        &[
            "S0:code_interpreter",
            "C0:code_interpreter:{\"code\":\"print(2 + 2)\"}",
        ],
    );
    check(
        "llama3",
        "",
        "a built-in tool call stays a call",
        "<|python_tag|>brave_search.call(query=\"weather in SF\")<|eom_id|>",
        &[
            "S0:brave_search",
            "C0:brave_search:{\"query\":\"weather in SF\"}",
        ],
    );
    check(
        "llama3",
        "",
        "code that begins with a comment, ending at <|eot_id|>",
        "Let me compute it.\n<|python_tag|># sum\nprint(sum(range(10)))<|eot_id|>",
        &[
            "N:Let me compute it.\n",
            "S0:code_interpreter",
            "C0:code_interpreter:{\"code\":\"# sum\\nprint(sum(range(10)))\"}",
        ],
    );
}
