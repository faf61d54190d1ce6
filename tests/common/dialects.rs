//! The dialects for the dialect tests, the hostile inputs and the property
//! tests: their configurations, their value kinds, their reasoning markers;
//! the calls as each writes them (`actionstream::call_writer`, shared with
//! the benches).

// Each test binary uses a part of the writer.
#[allow(unused_imports)]
pub use actionstream::call_writer::{call, calls_text, Call};
use actionstream::dialect::Dialect;
use actionstream::Config;
use serde_json::Value;

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
