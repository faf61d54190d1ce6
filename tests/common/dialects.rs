//! Writing calls as each built-in dialect writes them, for the dialect
//! tests, the hostile inputs and the property tests.

use actionstream::dialect::Dialect;
use actionstream::Config;
use serde_json::{Map, Value};

/// A call to write: its name and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Map<String, Value>,
}

/// A call of `name` with `args` (a JSON object).
pub fn call(name: &str, args: Value) -> Call {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    Call {
        name: name.to_owned(),
        args,
    }
}

/// The configuration reading one built-in dialect.
pub fn config(dialect: &str) -> Config {
    Config::default().dialect(Dialect::builtin(dialect).expect("a built-in dialect"))
}

/// The dialects whose parameter values are raw text.
pub const RAW: [&str; 17] = [
    "qwen3_coder",
    "seed_oss",
    "glm",
    "minimax_m2",
    "deepseek_v32",
    "minicpm5",
    "minimax_m3",
    "gemma4",
    "function_gemma",
    "deepseek_v41",
    "step3",
    "gigachat35",
    "dots",
    "k2_horizon",
    "iquest_q1",
    "hunyuan",
    "muse_glimmer",
];

/// A value as MiniMax M3 writes it: tags after the namespace token.
fn mm3(v: &Value) -> String {
    const NS: &str = "]<]minimax[>[";
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{NS}<{k}>{}{NS}</{k}>", mm3(v)))
            .collect(),
        Value::Array(xs) => xs
            .iter()
            .map(|v| format!("{NS}<item>{}{NS}</item>", mm3(v)))
            .collect(),
        v => raw(v),
    }
}

/// A value as Gemma writes it, strings between `quote`.
fn gemma(v: &Value, quote: &str) -> String {
    match v {
        Value::String(s) => format!("{quote}{s}{quote}"),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{k}:{}", gemma(v, quote)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Value::Array(xs) => format!(
            "[{}]",
            xs.iter()
                .map(|v| gemma(v, quote))
                .collect::<Vec<_>>()
                .join(",")
        ),
        v => v.to_string(),
    }
}

/// The `C0:name:{args}` summary lines of `calls`, ids from `first`.
pub fn complete_lines(calls: &[Call], first: usize) -> Vec<String> {
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "C{}:{}:{}",
                first + i,
                c.name,
                Value::Object(c.args.clone())
            )
        })
        .collect()
}

fn json(args: &Map<String, Value>) -> String {
    serde_json::to_string(args).unwrap()
}

/// A raw value's text: strings as they are, anything else as JSON.
fn raw(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// A Python literal for `v`.
pub fn python(v: &Value) -> String {
    match v {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let mut out = String::from("'");
            for ch in s.chars() {
                match ch {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("\\'"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Value::Array(xs) => format!("[{}]", xs.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", python(&Value::String(k.clone())), python(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn py_call(c: &Call) -> String {
    format!(
        "{}({})",
        c.name,
        c.args
            .iter()
            .map(|(k, v)| format!("{k}={}", python(v)))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// One call as a parameter form writes it.
fn params(dialect: &str, c: &Call) -> String {
    let mut out = String::new();
    match dialect {
        "qwen3_coder" | "seed_oss" => {
            out.push_str(&format!("<function={}>\n", c.name));
            for (k, v) in &c.args {
                out.push_str(&format!("<parameter={k}>\n{}\n</parameter>\n", raw(v)));
            }
            out.push_str("</function>\n");
        }
        "glm" | "iquest_q1" => {
            out.push_str(&c.name);
            out.push('\n');
            for (k, v) in &c.args {
                out.push_str(&format!(
                    "<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>\n",
                    raw(v)
                ));
            }
        }
        "minimax_m2" | "dots" | "step3" => {
            let p = if dialect == "step3" { "steptml:" } else { "" };
            out.push_str(&format!("<{p}invoke name=\"{}\">\n", c.name));
            for (k, v) in &c.args {
                out.push_str(&format!(
                    "<{p}parameter name=\"{k}\">{}</{p}parameter>\n",
                    raw(v)
                ));
            }
            out.push_str(&format!("</{p}invoke>\n"));
        }
        "k2_horizon" => {
            out.push_str(&c.name);
            out.push('\n');
            for (k, v) in &c.args {
                out.push_str(&format!(
                    "<ifm|arg_key>{k}</ifm|arg_key>\n<ifm|arg_value>{}</ifm|arg_value>\n",
                    raw(v)
                ));
            }
        }
        "deepseek_v32" | "deepseek_v41" | "gigachat35" => {
            let tag = match dialect {
                "deepseek_v41" => "｜DSML｜ ",
                "gigachat35" => "｜GCML｜",
                _ => "｜DSML｜",
            };
            out.push_str(&format!("<{tag}invoke name=\"{}\">\n", c.name));
            for (k, v) in &c.args {
                let (string, text) = match v {
                    Value::String(s) => ("true", s.clone()),
                    v => ("false", v.to_string()),
                };
                out.push_str(&format!(
                    "<{tag}parameter name=\"{k}\" string=\"{string}\">{text}</{tag}parameter>\n"
                ));
            }
            out.push_str(&format!("</{tag}invoke>\n"));
        }
        "hunyuan" => {
            // Hy3 with the suffix of its open-source tokenizer.
            out.push_str(&format!("<tool_call:os>{}<tool_sep:os>\n", c.name));
            for (k, v) in &c.args {
                out.push_str(&format!(
                    "<arg_key:os>{k}</arg_key:os>\n<arg_value:os>{}</arg_value:os>\n",
                    raw(v)
                ));
            }
            out.push_str("</tool_call:os>\n");
        }
        "muse_glimmer" => {
            out.push_str(&format!("<atem:invoke name=\"{}\">\n", c.name));
            for (k, v) in &c.args {
                out.push_str(&format!(
                    "<atem:parameter name=\"{k}\">{}</atem:parameter>\n",
                    raw(v)
                ));
            }
            out.push_str("</atem:invoke>\n");
        }
        _ => unreachable!("{dialect} has no parameter form"),
    }
    out
}

/// `calls` as `dialect` writes them, after narrative (so not relying on
/// being the first thing in the response): one section holding them all
/// where the format allows it, else one section per call.
pub fn calls_text(dialect: &str, calls: &[Call]) -> String {
    let objects = |name_key: &str, args_key: &str| -> Vec<String> {
        calls
            .iter()
            .map(|c| {
                format!(
                    "{{\"{name_key}\": {}, \"{args_key}\": {}}}",
                    serde_json::to_string(&c.name).unwrap(),
                    json(&c.args)
                )
            })
            .collect()
    };
    match dialect {
        "hermes" => objects("name", "arguments")
            .iter()
            .map(|o| format!("<tool_call>\n{o}\n</tool_call>"))
            .collect::<Vec<_>>()
            .join("\n"),
        "qwen3_coder" => format!(
            "<tool_call>\n{}</tool_call>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "seed_oss" => format!(
            "<seed:tool_call>\n{}</seed:tool_call>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "glm" => calls
            .iter()
            .map(|c| format!("<tool_call>{}</tool_call>", params(dialect, c)))
            .collect::<Vec<_>>()
            .join("\n"),
        "minimax_m2" => format!(
            "<minimax:tool_call>\n{}</minimax:tool_call>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "deepseek_v32" => format!(
            "<｜DSML｜function_calls>\n{}</｜DSML｜function_calls>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "mistral" => calls
            .iter()
            .map(|c| format!("[TOOL_CALLS]{}[ARGS]{}", c.name, json(&c.args)))
            .collect(),
        "llama3" => format!("<|python_tag|>{}", objects("name", "parameters").join("; ")),
        "pythonic" => format!(
            "<|tool_call_start|>[{}]<|tool_call_end|>",
            calls.iter().map(py_call).collect::<Vec<_>>().join(", ")
        ),
        "deepseek_v3" => format!(
            "<｜tool▁calls▁begin｜>{}<｜tool▁calls▁end｜>",
            calls
                .iter()
                .map(|c| format!(
                    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{}\n```json\n{}\n```<｜tool▁call▁end｜>",
                    c.name,
                    json(&c.args)
                ))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        "deepseek_v31" => format!(
            "<｜tool▁calls▁begin｜>{}<｜tool▁calls▁end｜>",
            calls
                .iter()
                .map(|c| format!(
                    "<｜tool▁call▁begin｜>{}<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
                    c.name,
                    json(&c.args)
                ))
                .collect::<String>()
        ),
        "kimi_k2" => format!(
            "<|tool_calls_section_begin|>{}<|tool_calls_section_end|>",
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| format!(
                    "<|tool_call_begin|>functions.{}:{i}<|tool_call_argument_begin|>{}<|tool_call_end|>",
                    c.name,
                    json(&c.args)
                ))
                .collect::<String>()
        ),
        "gpt_oss" => calls
            .iter()
            .map(|c| {
                format!(
                    "<|start|>assistant<|channel|>commentary to=functions.{} <|constrain|>json<|message|>{}<|call|>",
                    c.name,
                    json(&c.args)
                )
            })
            .collect(),
        "cohere" => format!(
            "<|START_ACTION|>[\n{}\n]<|END_ACTION|>",
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| format!(
                    "    {{\"tool_call_id\": \"{i}\", \"tool_name\": {}, \"parameters\": {}}}",
                    serde_json::to_string(&c.name).unwrap(),
                    json(&c.args)
                ))
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        "granite" => format!("<|tool_call|>[{}]", objects("name", "arguments").join(", ")),
        "jamba" => format!(
            "<tool_calls>[\n{}\n]</tool_calls>",
            objects("name", "arguments").join(",\n")
        ),
        "phi4_mini" => format!(
            "<|tool_call|>[{}]<|/tool_call|>",
            objects("name", "arguments").join(", ")
        ),
        "kimi_k3" => format!(
            "<|open|>tools<|sep|>{}<|close|>tools<|sep|>",
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let args: String = c
                        .args
                        .iter()
                        .map(|(k, v)| {
                            let ty = match v {
                                Value::String(_) => "string",
                                Value::Number(_) => "number",
                                Value::Bool(_) => "boolean",
                                Value::Array(_) => "array",
                                Value::Object(_) => "object",
                                Value::Null => "null",
                            };
                            format!(
                                "<|open|>argument key=\"{}\" type=\"{ty}\"<|sep|>{}<|close|>argument<|sep|>",
                                escape_attribute(k),
                                raw(v)
                            )
                        })
                        .collect();
                    format!(
                        "<|open|>call tool=\"{}\" index=\"{i}\"<|sep|>{args}<|close|>call<|sep|>",
                        escape_attribute(&c.name)
                    )
                })
                .collect::<String>()
        ),
        "minimax_m3" => format!(
            "]<]minimax[>[<tool_call>\n{}]<]minimax[>[</tool_call>",
            calls
                .iter()
                .map(|c| format!(
                    "]<]minimax[>[<invoke name=\"{}\">{}]<]minimax[>[</invoke>\n",
                    c.name,
                    mm3(&Value::Object(c.args.clone()))
                ))
                .collect::<String>()
        ),
        "gemma4" => calls
            .iter()
            .map(|c| {
                format!(
                    "<|tool_call>call:{}{}<tool_call|>",
                    c.name,
                    gemma(&Value::Object(c.args.clone()), "<|\"|>")
                )
            })
            .collect(),
        "function_gemma" => calls
            .iter()
            .map(|c| {
                format!(
                    "<start_function_call>call:{}{}<end_function_call>",
                    c.name,
                    gemma(&Value::Object(c.args.clone()), "<escape>")
                )
            })
            .collect(),
        "apertus" => format!(
            "<|tools_prefix|>[{}]<|tools_suffix|>",
            calls
                .iter()
                .map(|c| format!(
                    "{{{}: {}}}",
                    serde_json::to_string(&c.name).unwrap(),
                    json(&c.args)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "xlam" => format!(
            "<tool_call>[{}]</tool_call>",
            objects("name", "arguments").join(", ")
        ),
        "minicpm5" => calls
            .iter()
            .map(|c| {
                let args: String = c
                    .args
                    .iter()
                    .map(|(k, v)| format!("<param name=\"{k}\">{}</param>", raw(v)))
                    .collect();
                format!("<function name=\"{}\">{args}</function>", c.name)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        "deepseek_v41" => format!(
            "\n\n<｜DSML｜ calls>\n{}</｜DSML｜ calls>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "gigachat35" => format!(
            "<｜GCML｜tool_calls>\n{}</｜GCML｜tool_calls>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "step3" => format!(
            "<｜tool_calls_begin｜>{}<｜tool_calls_end｜>",
            calls
                .iter()
                .map(|c| format!("<｜tool_call_begin｜>{}<｜tool_call_end｜>", params(dialect, c)))
                .collect::<Vec<_>>()
                .join("<｜tool_sep｜>")
        ),
        "dots" => format!(
            "<dots_function_call>\n{}</dots_function_call>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "k2_horizon" => format!(
            "<ifm|tool_calls>\n{}</ifm|tool_calls>",
            calls
                .iter()
                .map(|c| format!("<ifm|tool_call>{}</ifm|tool_call>\n", params(dialect, c)))
                .collect::<String>()
        ),
        "iquest_q1" => calls
            .iter()
            .map(|c| format!("<iquest_tool_call>{}</iquest_tool_call>", params(dialect, c)))
            .collect::<Vec<_>>()
            .join("\n"),
        "hunyuan_a13b" => format!(
            "<tool_calls>[{}]</tool_calls>",
            objects("name", "arguments").join(", ")
        ),
        "ernie45" | "longcat" => {
            let tag = if dialect == "longcat" { "longcat_tool_call" } else { "tool_call" };
            objects("name", "arguments")
                .iter()
                .map(|o| format!("<{tag}>\n{o}\n</{tag}>"))
                .collect::<Vec<_>>()
                .join("\n")
        }
        "internlm" => objects("name", "parameters")
            .iter()
            .map(|o| format!("<|action_start|><|plugin|>\n{o}<|action_end|>"))
            .collect::<Vec<_>>()
            .join("\n"),
        "gigachat3" => objects("name", "arguments")
            .iter()
            .map(|o| format!("<|function_call|>{o}"))
            .collect::<Vec<_>>()
            .join("\n"),
        "granite_20b_fc" => objects("name", "arguments")
            .iter()
            .map(|o| format!("<function_call> {o}"))
            .collect::<Vec<_>>()
            .join("\n"),
        "hunyuan" => format!(
            "<tool_calls:os>\n{}</tool_calls:os>",
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "muse_glimmer" => format!(
            "<|start|>assistant to={}<|message|><atem:function_calls>\n{}</atem:function_calls><|eom|>",
            calls.first().map_or("f", |c| c.name.as_str()),
            calls.iter().map(|c| params(dialect, c)).collect::<String>()
        ),
        "inkling" => calls
            .iter()
            .map(|c| {
                format!(
                    "<|message_model|>{}<|content_invoke_tool_json|>{{\"name\":{},\"args\":{}}}<|end_message|>",
                    c.name,
                    serde_json::to_string(&c.name).unwrap(),
                    json(&c.args)
                )
            })
            .collect(),
        "functionary_v32" => calls
            .iter()
            .map(|c| format!(">>>{}\n{}", c.name, json(&c.args)))
            .collect::<Vec<_>>()
            .join("\n"),
        other => panic!("no writer for {other}"),
    }
}

/// An attribute value with XML's entities escaped.
fn escape_attribute(v: &str) -> String {
    v.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The markers around reasoning in `dialect`, if it has reasoning.
pub fn think(dialect: &str) -> Option<(&'static str, &'static str)> {
    Some(match dialect {
        "llama3" | "jamba" | "phi4_mini" | "internlm" | "gigachat3" | "longcat"
        | "granite_20b_fc" | "functionary_v32" => return None,
        "k2_horizon" => ("<ifm|think>", "</ifm|think>"),
        "seed_oss" => ("<seed:think>", "</seed:think>"),
        "mistral" => ("[THINK]", "[/THINK]"),
        "cohere" => ("<|START_THINKING|>", "<|END_THINKING|>"),
        "gpt_oss" => ("<|channel|>analysis<|message|>", "<|end|>"),
        "kimi_k3" => ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
        "minimax_m3" => ("<mm:think>", "</mm:think>"),
        "gemma4" => ("<|channel>thought\n", "<channel|>"),
        "apertus" => ("<|inner_prefix|>", "<|inner_suffix|>"),
        "function_gemma" => return None,
        "hunyuan" => ("<think:os>", "</think:os>"),
        "muse_glimmer" => ("<|start|>assistant to=self<|message|>", "<|eom|>"),
        "inkling" => ("<|message_model|><|content_thinking|>", "<|end_message|>"),
        _ => ("<think>", "</think>"),
    })
}
