//! The built-in dialects of the contract's sections 7 and 7b, markers
//! exact. Where a model's real output differs from the contract's table,
//! the difference is noted beside the dialect (and in `tests/data/dialects`).

use super::{
    Attributes, Calls, Content, ContentKind, Dialect, Enclosure, Envelope, KeyEnd, Section,
    ValueKind,
};

/// The names of the built-in dialects, in the contract's order.
pub const BUILTIN: [&str; 40] = [
    "hermes",
    "qwen3_coder",
    "seed_oss",
    "glm",
    "minimax_m2",
    "mistral",
    "llama3",
    "pythonic",
    "deepseek_v3",
    "deepseek_v31",
    "deepseek_v32",
    "kimi_k2",
    "gpt_oss",
    "cohere",
    "granite",
    "jamba",
    "phi4_mini",
    // Section 7b, in its table's order.
    "deepseek_v41",
    "kimi_k3",
    "minimax_m3",
    "gemma4",
    "function_gemma",
    "muse_glimmer",
    "inkling",
    "hunyuan",
    "hunyuan_a13b",
    "step3",
    "ernie45",
    "minicpm5",
    "apertus",
    "xlam",
    "internlm",
    "gigachat3",
    "gigachat35",
    "longcat",
    "dots",
    "k2_horizon",
    "iquest_q1",
    "granite_20b_fc",
    "functionary_v32",
];

fn s(x: &str) -> String {
    x.to_owned()
}

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| s(x)).collect()
}

fn think() -> Vec<Enclosure> {
    vec![enclose("<think>", "</think>")]
}

fn enclose(open: &str, close: &str) -> Enclosure {
    Enclosure {
        open: s(open),
        close: s(close),
        calls: false,
    }
}

fn section(open: &str, close: Option<&str>, calls: Vec<Calls>) -> Section {
    Section {
        open: s(open),
        close: close.map(s),
        calls,
        trailer: Vec::new(),
    }
}

/// `{"name": N, "arguments": {…}}` (or `"parameters"`).
fn json_calls() -> Calls {
    Calls::Json {
        name_keys: strings(&["name"]),
        argument_keys: strings(&["arguments", "parameters"]),
        id_key: None,
        joiner: None,
        name_is_key: false,
        array_first: false,
    }
}

/// `<function=N><parameter=K>V</parameter>…</function>`.
fn qwen_params() -> Calls {
    Calls::Params {
        call: s("<function="),
        name_end: strings(&[">"]),
        key: s("<parameter="),
        key_spellings: Vec::new(),
        key_end: vec![key_end(">", ValueKind::Typed)],
        value: None,
        value_end: s("</parameter>"),
        end: Some(s("</function>")),
        trim_line_endings: true,
        value_type: None,
        attributes: None,
        cdata: false,
    }
}

fn key_end(marker: &str, value: ValueKind) -> KeyEnd {
    KeyEnd {
        marker: s(marker),
        value,
    }
}

fn dialect(name: &str) -> Dialect {
    Dialect {
        name: s(name),
        reasoning: Vec::new(),
        ignore: Vec::new(),
        sections: Vec::new(),
        first: Vec::new(),
        harmony: false,
        leading: Vec::new(),
        token_suffix: None,
        envelope: None,
        calls_end_reasoning: false,
    }
}

/// DSML parameters as DeepSeek V3.2 writes them, with `tag` between `<`
/// (or `</`) and each tag's name (`｜DSML｜`, `｜DSML｜ `, `｜GCML｜`).
fn dsml_params(tag: &str) -> Calls {
    Calls::Params {
        call: format!("<{tag}invoke name=\""),
        name_end: strings(&["\">"]),
        key: format!("<{tag}parameter name=\""),
        key_spellings: Vec::new(),
        key_end: vec![
            key_end("\" string=\"true\">", ValueKind::String),
            key_end("\" string=\"false\">", ValueKind::Json),
            key_end("\">", ValueKind::Typed),
        ],
        value: None,
        value_end: format!("</{tag}parameter>"),
        end: Some(format!("</{tag}invoke>")),
        trim_line_endings: false,
        value_type: None,
        attributes: None,
        cdata: false,
    }
}

/// GLM's parameters: `N<arg_key>K</arg_key><arg_value>V</arg_value>…`
/// (the name follows the section opener).
fn glm_params() -> Calls {
    Calls::Params {
        call: String::new(),
        name_end: Vec::new(),
        key: s("<arg_key>"),
        key_spellings: Vec::new(),
        key_end: vec![key_end("</arg_key>", ValueKind::Typed)],
        value: Some(s("<arg_value>")),
        value_end: s("</arg_value>"),
        end: None,
        trim_line_endings: false,
        value_type: None,
        attributes: None,
        cdata: false,
    }
}

/// `<invoke name="N"><parameter name="K">V</parameter>…</invoke>` with
/// `prefix` before each tag's name (MiniMax-M2, dots: none; Step-3:
/// `steptml:`).
fn invoke_params(prefix: &str) -> Calls {
    Calls::Params {
        call: format!("<{prefix}invoke name=\""),
        name_end: strings(&["\">"]),
        key: format!("<{prefix}parameter name=\""),
        key_spellings: Vec::new(),
        key_end: vec![key_end("\">", ValueKind::Typed)],
        value: None,
        value_end: format!("</{prefix}parameter>"),
        end: Some(format!("</{prefix}invoke>")),
        trim_line_endings: false,
        value_type: None,
        attributes: None,
        cdata: false,
    }
}

/// The built-in dialect `name`.
pub(super) fn builtin(name: &str) -> Option<Dialect> {
    let mut d = dialect(name);
    match name {
        "hermes" => {
            d.reasoning = think();
            d.calls_end_reasoning = true;
            d.sections = vec![section(
                "<tool_call>",
                Some("</tool_call>"),
                vec![json_calls()],
            )];
        }
        "qwen3_coder" => {
            d.reasoning = think();
            d.calls_end_reasoning = true;
            d.sections = vec![section(
                "<tool_call>",
                Some("</tool_call>"),
                vec![json_calls(), qwen_params()],
            )];
        }
        "seed_oss" => {
            d.reasoning = vec![enclose("<seed:think>", "</seed:think>")];
            d.sections = vec![section(
                "<seed:tool_call>",
                Some("</seed:tool_call>"),
                vec![qwen_params()],
            )];
        }
        "glm" => {
            d.reasoning = think();
            d.calls_end_reasoning = true;
            d.sections = vec![section(
                "<tool_call>",
                Some("</tool_call>"),
                vec![glm_params()],
            )];
        }
        "minimax_m2" => {
            d.reasoning = think();
            d.sections = vec![section(
                "<minimax:tool_call>",
                Some("</minimax:tool_call>"),
                vec![invoke_params("")],
            )];
        }
        "mistral" => {
            // Magistral 1.0 wrote `<think>`; later models `[THINK]`.
            d.reasoning = vec![
                enclose("[THINK]", "[/THINK]"),
                enclose("<think>", "</think>"),
            ];
            // Up to v10 a JSON list; from v11 `N[ARGS]{…}` per marker. vLLM
            // restores `[TOOL_CALLS]` but drops `[ARGS]` (a control token)
            // when it detokenizes, so the name may be followed by `{` at once.
            d.sections = vec![section(
                "[TOOL_CALLS]",
                None,
                vec![
                    json_calls(),
                    Calls::Named {
                        call: String::new(),
                        name_prefix: None,
                        id: Some(s("[CALL_ID]")),
                        args: s("[ARGS]"),
                        args_optional: true,
                        args_end: None,
                        end: None,
                        indexed_name: false,
                    },
                ],
            )];
        }
        "llama3" => {
            let json = Calls::Json {
                name_keys: strings(&["name"]),
                argument_keys: strings(&["parameters", "arguments"]),
                id_key: None,
                joiner: Some(s(";")),
                name_is_key: false,
                array_first: false,
            };
            // After `<|python_tag|>`: JSON calls, a built-in tool call
            // `T.call(…)`, or any other code, which Llama 3.1 runs with its
            // `code_interpreter` tool.
            let mut tag = section(
                "<|python_tag|>",
                None,
                vec![
                    json.clone(),
                    Calls::Python { list: false },
                    Calls::Code {
                        name: s("code_interpreter"),
                        key: s("code"),
                    },
                ],
            );
            tag.trailer = strings(&["<|eom_id|>", "<|eot_id|>"]);
            d.sections = vec![tag];
            d.first = vec![json];
            d.ignore = strings(&["<|eot_id|>", "<|eom_id|>"]);
        }
        "pythonic" => {
            // Olmo 3 Think writes `<think>`.
            d.reasoning = think();
            let list = Calls::Python { list: true };
            let lines = Calls::Python { list: false };
            d.sections = vec![
                section(
                    "<|python_start|>",
                    Some("<|python_end|>"),
                    vec![list.clone()],
                ),
                section(
                    "<|tool_call_start|>",
                    Some("<|tool_call_end|>"),
                    vec![list.clone()],
                ),
                section(
                    "<function_calls>",
                    Some("</function_calls>"),
                    vec![list.clone(), lines],
                ),
            ];
            d.first = vec![list];
        }
        "deepseek_v3" => {
            d.reasoning = think();
            d.sections = vec![section(
                "<｜tool▁calls▁begin｜>",
                Some("<｜tool▁calls▁end｜>"),
                vec![Calls::Named {
                    call: s("<｜tool▁call▁begin｜>"),
                    name_prefix: Some(s("function<｜tool▁sep｜>")),
                    id: None,
                    args: s("```json"),
                    args_optional: false,
                    args_end: Some(s("```")),
                    end: Some(s("<｜tool▁call▁end｜>")),
                    indexed_name: false,
                }],
            )];
        }
        "deepseek_v31" => {
            d.reasoning = think();
            d.sections = vec![section(
                "<｜tool▁calls▁begin｜>",
                Some("<｜tool▁calls▁end｜>"),
                vec![Calls::Named {
                    call: s("<｜tool▁call▁begin｜>"),
                    name_prefix: None,
                    id: None,
                    args: s("<｜tool▁sep｜>"),
                    args_optional: false,
                    args_end: None,
                    end: Some(s("<｜tool▁call▁end｜>")),
                    indexed_name: false,
                }],
            )];
        }
        "deepseek_v32" => {
            d.reasoning = think();
            d.calls_end_reasoning = true;
            let params = dsml_params("｜DSML｜");
            d.sections = vec![
                section(
                    "<｜DSML｜function_calls>",
                    Some("</｜DSML｜function_calls>"),
                    vec![params.clone()],
                ),
                section(
                    "<｜DSML｜tool_calls>",
                    Some("</｜DSML｜tool_calls>"),
                    vec![params],
                ),
            ];
        }
        "kimi_k2" => {
            // Kimi k1.5 and Kimi-VL thinking write `◁think▷`.
            d.reasoning = vec![
                enclose("<think>", "</think>"),
                enclose("◁think▷", "◁/think▷"),
            ];
            d.calls_end_reasoning = true;
            d.sections = vec![section(
                "<|tool_calls_section_begin|>",
                Some("<|tool_calls_section_end|>"),
                vec![Calls::Named {
                    call: s("<|tool_call_begin|>"),
                    name_prefix: None,
                    id: None,
                    args: s("<|tool_call_argument_begin|>"),
                    args_optional: false,
                    args_end: None,
                    end: Some(s("<|tool_call_end|>")),
                    indexed_name: true,
                }],
            )];
        }
        "gpt_oss" => d.harmony = true,
        "cohere" => {
            d.reasoning = vec![enclose("<|START_THINKING|>", "<|END_THINKING|>")];
            d.ignore = strings(&[
                "<|START_RESPONSE|>",
                "<|END_RESPONSE|>",
                "<|START_TEXT|>",
                "<|END_TEXT|>",
            ]);
            d.sections = vec![section(
                "<|START_ACTION|>",
                Some("<|END_ACTION|>"),
                vec![Calls::Json {
                    name_keys: strings(&["tool_name"]),
                    argument_keys: strings(&["parameters"]),
                    id_key: Some(s("tool_call_id")),
                    joiner: None,
                    name_is_key: false,
                    array_first: false,
                }],
            )];
        }
        "granite" => {
            // Granite 3.2 writes its reasoning between plain-text markers.
            d.reasoning = vec![
                enclose("<think>", "</think>"),
                enclose("Here is my thought process:", "Here is my response:"),
                enclose("Here's my thought process:", "Here's my response:"),
            ];
            d.ignore = strings(&["<response>", "</response>"]);
            d.sections = vec![
                section("<|tool_call|>", None, vec![json_calls()]),
                section("<tool_call>", None, vec![json_calls()]),
            ];
        }
        "jamba" => {
            d.sections = vec![section(
                "<tool_calls>",
                Some("</tool_calls>"),
                vec![json_calls()],
            )];
        }
        "phi4_mini" => {
            d.sections = vec![
                section("<|tool_call|>", Some("<|/tool_call|>"), vec![json_calls()]),
                section("functools", None, vec![json_calls()]),
            ];
        }
        "deepseek_v41" => {
            // A space after `｜DSML｜`: the unspaced V4 spelling is not a
            // V4.1 call.
            d.reasoning = think();
            d.calls_end_reasoning = true;
            d.sections = vec![section(
                "<｜DSML｜ calls>",
                Some("</｜DSML｜ calls>"),
                vec![dsml_params("｜DSML｜ ")],
            )];
        }
        "hunyuan_a13b" => {
            d.reasoning = think();
            d.ignore = strings(&["<answer>", "</answer>"]);
            d.sections = vec![section(
                "<tool_calls>",
                Some("</tool_calls>"),
                vec![json_calls()],
            )];
        }
        "step3" => {
            // vLLM's test writes no `function<｜tool_sep｜>` before the
            // invoke, and `<｜tool_sep｜>` between calls: text between a
            // call's end and the next call marker is part of the block.
            d.reasoning = think();
            d.sections = vec![section(
                "<｜tool_calls_begin｜>",
                Some("<｜tool_calls_end｜>"),
                vec![invoke_params("steptml:")],
            )];
        }
        "ernie45" => {
            d.reasoning = think();
            d.ignore = strings(&["<response>", "</response>"]);
            d.sections = vec![section(
                "<tool_call>",
                Some("</tool_call>"),
                vec![json_calls()],
            )];
        }
        "internlm" => {
            // `<|action_start|>` (with or without a space before
            // `<|plugin|>`) stands outside the block; `<|plugin|>` opens it.
            d.ignore = strings(&["<|action_start|>"]);
            d.sections = vec![section(
                "<|plugin|>",
                Some("<|action_end|>"),
                vec![json_calls()],
            )];
        }
        "gigachat3" => {
            // `<|message_sep|>` before the header may be missing (a response
            // that starts with the call); `</s>` ends the turn.
            d.ignore = strings(&["<|message_sep|>", "</s>"]);
            let mut header = section("function call<|role_sep|>", None, vec![json_calls()]);
            header.trailer = strings(&["</s>"]);
            let mut token = section("<|function_call|>", None, vec![json_calls()]);
            token.trailer = strings(&["</s>"]);
            d.sections = vec![header, token];
        }
        "gigachat35" => {
            d.reasoning = think();
            d.sections = vec![section(
                "<｜GCML｜tool_calls>",
                Some("</｜GCML｜tool_calls>"),
                vec![dsml_params("｜GCML｜")],
            )];
        }
        "longcat" => {
            d.sections = vec![section(
                "<longcat_tool_call>",
                Some("</longcat_tool_call>"),
                vec![json_calls()],
            )];
        }
        "dots" => {
            d.reasoning = think();
            d.sections = vec![section(
                "<dots_function_call>",
                Some("</dots_function_call>"),
                vec![json_calls(), invoke_params("")],
            )];
        }
        "k2_horizon" => {
            d.reasoning = vec![
                enclose("<ifm|think>", "</ifm|think>"),
                enclose("<ifm|think_fast>", "</ifm|think_fast>"),
                enclose("<ifm|think_faster>", "</ifm|think_faster>"),
            ];
            // Each `<ifm|tool_call>` is a block of its own, written with or
            // without the `<ifm|tool_calls>` wrapper (which stands outside
            // the blocks), with a GLM-like body or a JSON one.
            d.ignore = strings(&["<ifm|tool_calls>", "</ifm|tool_calls>"]);
            d.sections = vec![section(
                "<ifm|tool_call>",
                Some("</ifm|tool_call>"),
                vec![
                    json_calls(),
                    Calls::Params {
                        call: String::new(),
                        name_end: Vec::new(),
                        key: s("<ifm|arg_key>"),
                        key_spellings: Vec::new(),
                        key_end: vec![key_end("</ifm|arg_key>", ValueKind::Typed)],
                        value: Some(s("<ifm|arg_value>")),
                        value_end: s("</ifm|arg_value>"),
                        end: None,
                        trim_line_endings: false,
                        value_type: Some(enclose("<ifm|arg_type>", "</ifm|arg_type>")),
                        attributes: None,
                        cdata: false,
                    },
                ],
            )];
        }
        "iquest_q1" => {
            d.reasoning = think();
            d.sections = vec![section(
                "<iquest_tool_call>",
                Some("</iquest_tool_call>"),
                vec![glm_params()],
            )];
        }
        "granite_20b_fc" => {
            d.sections = vec![section("<function_call>", None, vec![json_calls()])];
        }
        _ => return new_forms(name, d),
    }
    Some(d)
}

/// The dialects of section 7b that need the new call forms: tag
/// attributes, tags as parameter names, Gemma values, a name as a JSON
/// key, a leading JSON array, CDATA values.
fn new_forms(name: &str, mut d: Dialect) -> Option<Dialect> {
    match name {
        "kimi_k3" => {
            // XTML. The server may write the reasoning opener in the
            // prompt; `<|close|>message<|sep|>` ends a turn.
            d.reasoning = vec![enclose("<|open|>think<|sep|>", "<|close|>think<|sep|>")];
            d.ignore = strings(&[
                "<|open|>response<|sep|>",
                "<|close|>response<|sep|>",
                "<|close|>message<|sep|>",
            ]);
            d.sections = vec![section(
                "<|open|>tools<|sep|>",
                Some("<|close|>tools<|sep|>"),
                vec![Calls::Params {
                    call: s("<|open|>call"),
                    name_end: strings(&["<|sep|>"]),
                    key: s("<|open|>argument"),
                    key_spellings: Vec::new(),
                    key_end: vec![key_end("<|sep|>", ValueKind::Typed)],
                    value: None,
                    value_end: s("<|close|>argument<|sep|>"),
                    end: Some(s("<|close|>call<|sep|>")),
                    trim_line_endings: false,
                    value_type: None,
                    attributes: Some(Attributes {
                        name: s("tool"),
                        id: Some(s("index")),
                        key: s("key"),
                        type_attribute: Some(s("type")),
                        string_types: strings(&["string"]),
                    }),
                    cdata: false,
                }],
            )];
        }
        "minimax_m3" => {
            const NS: &str = "]<]minimax[>[";
            d.reasoning = vec![enclose("<mm:think>", "</mm:think>")];
            // A turn with no reasoning may open with a stray closer.
            d.leading = strings(&["</mm:think>"]);
            d.sections = vec![section(
                &format!("{NS}<tool_call>"),
                Some(&format!("{NS}</tool_call>")),
                vec![Calls::Tags {
                    call: format!("{NS}<invoke name=\""),
                    name_end: strings(&["\">"]),
                    prefix: s(NS),
                    item: s("item"),
                    end: format!("{NS}</invoke>"),
                }],
            )];
        }
        "gemma4" => {
            d.reasoning = vec![enclose("<|channel>thought\n", "<channel|>")];
            d.sections = vec![section(
                "<|tool_call>",
                Some("<tool_call|>"),
                vec![Calls::Gemma {
                    call: s("call:"),
                    string: s("<|\"|>"),
                }],
            )];
        }
        "function_gemma" => {
            d.sections = vec![section(
                "<start_function_call>",
                Some("<end_function_call>"),
                vec![Calls::Gemma {
                    call: s("call:"),
                    string: s("<escape>"),
                }],
            )];
        }
        "apertus" => {
            // The inner section holds the tool calls (and their outputs)
            // as well as the thoughts.
            d.reasoning = vec![Enclosure {
                calls: true,
                ..enclose("<|inner_prefix|>", "<|inner_suffix|>")
            }];
            d.sections = vec![section(
                "<|tools_prefix|>",
                Some("<|tools_suffix|>"),
                vec![Calls::Json {
                    name_keys: Vec::new(),
                    argument_keys: Vec::new(),
                    id_key: None,
                    joiner: None,
                    name_is_key: true,
                    array_first: false,
                }],
            )];
        }
        "xlam" => {
            d.reasoning = think();
            let json = Calls::Json {
                name_keys: strings(&["name"]),
                argument_keys: strings(&["arguments", "parameters"]),
                id_key: None,
                joiner: None,
                name_is_key: false,
                array_first: true,
            };
            d.first = vec![json.clone()];
            d.sections = vec![
                section("```json", Some("```"), vec![json.clone()]),
                section("<tool_call>", Some("</tool_call>"), vec![json.clone()]),
                section("[TOOL_CALLS]", None, vec![json]),
            ];
        }
        "minicpm5" => {
            d.reasoning = think();
            // No wrapper: each call's tag is its section.
            // The peers also read the tags' names run into their
            // attribute (`<functionname="N">`, `<paramname="K">`).
            let calls = vec![Calls::Params {
                call: String::new(),
                name_end: strings(&["\">"]),
                key: s("<param name=\""),
                key_spellings: strings(&["<paramname=\""]),
                key_end: vec![key_end("\">", ValueKind::Typed)],
                value: None,
                value_end: s("</param>"),
                end: None,
                trim_line_endings: false,
                value_type: None,
                attributes: None,
                cdata: true,
            }];
            d.sections = vec![
                section("<function name=\"", Some("</function>"), calls.clone()),
                section("<functionname=\"", Some("</function>"), calls),
            ];
        }
        _ => return later_form(d),
    }
    Some(d)
}

/// The dialects of section 7b whose call forms are descriptor fields of
/// their own: a token suffix, a recipient envelope, a header name that
/// is a marker, recipient lines.
fn later_form(mut d: Dialect) -> Option<Dialect> {
    match d.name.as_str() {
        "hunyuan" => {
            // Hy3 and HY v4: every token may carry the tokenizer's suffix
            // (`<tool_calls:opensource>`); HY v4 leaves out `<tool_sep>`.
            d.token_suffix = Some(s(":"));
            d.reasoning = think();
            // SGLang's HunyuanDetector: a call opener ends the reasoning.
            d.calls_end_reasoning = true;
            d.sections = vec![section(
                "<tool_calls>",
                Some("</tool_calls>"),
                vec![Calls::Params {
                    call: s("<tool_call>"),
                    name_end: strings(&["<tool_sep>"]),
                    key: s("<arg_key>"),
                    key_spellings: Vec::new(),
                    key_end: vec![key_end("</arg_key>", ValueKind::Typed)],
                    value: Some(s("<arg_value>")),
                    value_end: s("</arg_value>"),
                    end: Some(s("</tool_call>")),
                    trim_line_endings: false,
                    value_type: None,
                    attributes: None,
                    cdata: false,
                }],
            )];
        }
        "muse_glimmer" => {
            // Harmony-like turns, `to=self` reasoning, `to=user` the answer,
            // any other recipient an ATEM call section; the prompt writes
            // the first turn's `<|start|>assistant`.
            d.envelope = Some(Envelope {
                header: strings(&["<|start|>"]),
                inner: Vec::new(),
                message: s("<|message|>"),
                contents: Vec::new(),
                word_is_recipient: false,
                end: strings(&["<|eom|>", "<|eot|>"]),
                reasoning_channels: Vec::new(),
                reasoning_recipients: strings(&["self"]),
                narrative_recipients: strings(&["user"]),
                name_prefix: None,
                code: Vec::new(),
                body: Some(section(
                    "<atem:function_calls>",
                    Some("</atem:function_calls>"),
                    vec![Calls::Params {
                        call: s("<atem:invoke name=\""),
                        name_end: strings(&["\">"]),
                        key: s("<atem:parameter name=\""),
                        key_spellings: Vec::new(),
                        key_end: vec![key_end("\">", ValueKind::Typed)],
                        value: None,
                        value_end: s("</atem:parameter>"),
                        end: Some(s("</atem:invoke>")),
                        trim_line_endings: false,
                        value_type: None,
                        attributes: None,
                        cdata: false,
                    }],
                )),
                bare_first: true,
            });
        }
        "inkling" => {
            // Typed messages: a header (the tool's name, or nothing) after
            // `<|message_model|>`, then a content marker that says what
            // the message is; the prompt writes the first message's
            // `<|message_model|>`.
            let content = |marker: &str, kind| Content {
                marker: s(marker),
                kind,
            };
            d.envelope = Some(Envelope {
                header: strings(&["<|message_model|>"]),
                inner: Vec::new(),
                message: String::new(),
                word_is_recipient: false,
                contents: vec![
                    content("<|content_invoke_tool_json|>", ContentKind::Call),
                    content("<|content_thinking|>", ContentKind::Reasoning),
                    content("<|content_text|>", ContentKind::Narrative),
                    content("<|content_invoke_tool_text|>", ContentKind::Narrative),
                    content("<|content_tool_error|>", ContentKind::Narrative),
                ],
                end: strings(&["<|end_message|>", "<|content_model_end_sampling|>"]),
                reasoning_channels: Vec::new(),
                reasoning_recipients: Vec::new(),
                narrative_recipients: Vec::new(),
                name_prefix: None,
                code: Vec::new(),
                body: Some(section(
                    "",
                    Some("<|end_message|>"),
                    vec![Calls::Json {
                        name_keys: strings(&["name"]),
                        argument_keys: strings(&["args"]),
                        id_key: None,
                        joiner: None,
                        name_is_key: false,
                        array_first: false,
                    }],
                )),
                bare_first: true,
            });
        }
        "functionary_v32" => {
            // Recipient lines: `>>>all` + line ending, then narrative;
            // `>>>N` + line ending, then the JSON arguments of `N`. The
            // prompt ends with `>>>`, so the first line has no opener.
            d.envelope = Some(Envelope {
                header: strings(&[">>>"]),
                inner: Vec::new(),
                message: s("\n"),
                contents: Vec::new(),
                word_is_recipient: true,
                end: Vec::new(),
                reasoning_channels: Vec::new(),
                reasoning_recipients: Vec::new(),
                narrative_recipients: strings(&["all"]),
                name_prefix: None,
                code: Vec::new(),
                body: None,
                bare_first: true,
            });
        }
        _ => return None,
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_defined_and_named() {
        for name in BUILTIN {
            let d = builtin(name).unwrap_or_else(|| panic!("{name} is not defined"));
            assert_eq!(d.name, name);
            assert!(
                d.recipient_envelope().is_some() || !d.sections.is_empty(),
                "{name} has no way to write a call"
            );
        }
    }

    #[test]
    fn descriptors_round_trip_through_serde() {
        for name in BUILTIN {
            let d = builtin(name).unwrap();
            let json = serde_json::to_value(&d).unwrap();
            let back: Dialect = serde_json::from_value(json).unwrap();
            assert_eq!(back, d);
        }
    }
}
