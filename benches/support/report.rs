//! What the one-run reports (`examples/bench_report.rs` and the peer
//! bench, `bench/peers`) share, each including this file by path: how they
//! time, and the long argument they feed the dialects.

use std::time::{Duration, Instant};

use actionstream::call_writer::{call, calls_text};
use actionstream::dialect::Dialect;
use actionstream::{Config, Parser};

/// The median of `runs` timings of `f`, each repeated until it takes at
/// least 30 ms (per-call time).
pub fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> Duration {
    let mut reps = 1u32;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(f());
        }
        if t.elapsed() >= Duration::from_millis(30) {
            break;
        }
        reps *= 2;
    }
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(f());
            }
            t.elapsed() / reps
        })
        .collect();
    samples.sort();
    samples[runs / 2]
}

/// The fastest of `runs` timings of each of `fs`, taken in turn (one run
/// of each, then the next round), so that a busy spell on a shared machine
/// falls on all of them alike; per-call time, each run repeated until it
/// takes at least 30 ms, as in [`time`].
pub fn fastest_of_each(runs: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; fs.len()];
    for _ in 0..runs {
        for (f, best) in fs.iter_mut().zip(&mut best) {
            *best = (*best).min(time(1, &mut **f));
        }
    }
    best
}

pub fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e6
}

/// A file body of about `size` bytes: lines of code-like text with no
/// quotes or backslashes, so each format can write it without escapes
/// beyond its line endings.
pub fn file_body(size: usize) -> String {
    let mut body = String::with_capacity(size + 64);
    let mut i = 0;
    while body.len() < size {
        body.push_str(&format!(
            "    let value_{i} = compute(input[{i}], scale * {i}) + offset; // step {i}\n"
        ));
        i += 1;
    }
    body.truncate(size);
    body
}

/// A parser of the built-in dialect `name`, argument deltas on or off.
pub fn dialect_parser(name: &str, argument_deltas: bool) -> Parser {
    let dialect = Dialect::builtin(name).expect("a built-in dialect");
    Parser::new(
        Config::default()
            .dialect(dialect)
            .argument_deltas(argument_deltas),
    )
}

/// The dialect a long-call row of [`long_call`] is read with: a built-in
/// tool's row (`code_interpreter`, `gpt_oss_python`) names its form, not
/// its dialect.
pub fn row_dialect(row: &str) -> &str {
    match row {
        "code_interpreter" => "llama3",
        "gpt_oss_python" => "gpt_oss",
        dialect => dialect,
    }
}

/// One call to `write_file` whose `content` is `body`, as the dialect
/// writes it (the layouts of `examples/responses/dialects/`; Mistral's in
/// the pre-v11 form, the only one the peer reads). The dialects with no
/// layout here are written by `actionstream::call_writer`, the writer the
/// dialect tests use, after a line of narrative. Two rows are a built-in
/// tool's raw code instead (read with [`row_dialect`]): `code_interpreter`,
/// Llama 3.1's code after `<|python_tag|>`, and `gpt_oss_python`, a
/// harmony message to the built-in `python`; their one argument is `code`.
pub fn long_call(dialect: &str, body: &str) -> String {
    let args = serde_json::to_string(&serde_json::json!({"path": "src/big.rs", "content": body}))
        .expect("JSON arguments");
    let args = args.replacen(
        "{\"path\":\"src/big.rs\",\"content\":",
        "{\"path\": \"src/big.rs\", \"content\": ",
        1,
    );
    let intro = "I'll write the file.\n";
    match dialect {
        "hermes" => format!(
            "{intro}<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {args}}}\n</tool_call>"
        ),
        "qwen3_coder" => format!(
            "{intro}<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/big.rs\n</parameter>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>"
        ),
        "glm" => format!(
            "{intro}<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>src/big.rs</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{body}</arg_value>\n</tool_call>"
        ),
        "minimax_m2" => format!(
            "{intro}<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">src/big.rs</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n</minimax:tool_call>"
        ),
        "mistral" => format!(
            "{intro}[TOOL_CALLS] [{{\"name\": \"write_file\", \"arguments\": {args}}}]"
        ),
        "llama3" => format!(
            "{intro}<|python_tag|>{{\"name\": \"write_file\", \"parameters\": {args}}}<|eom_id|>"
        ),
        "pythonic" => format!(
            "[write_file(path='src/big.rs', content='{}')]",
            body.replace('\n', "\\n")
        ),
        "deepseek_v3" => format!(
            "{intro}<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        "deepseek_v31" => format!(
            "{intro}<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        "deepseek_v32" => format!(
            "{intro}<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">src/big.rs</｜DSML｜parameter>\n<｜DSML｜parameter name=\"content\" string=\"true\">{body}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
        ),
        "kimi_k2" => format!(
            "{intro}<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        "cohere" => format!(
            "<|START_THINKING|>Write the file.<|END_THINKING|><|START_ACTION|>[\n    {{\"tool_call_id\": \"0\", \"tool_name\": \"write_file\", \"parameters\": {args}}}\n]<|END_ACTION|>"
        ),
        "deepseek_v41" => format!(
            "{intro}\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"write_file\">\n<｜DSML｜ parameter name=\"path\" string=\"true\">src/big.rs</｜DSML｜ parameter>\n<｜DSML｜ parameter name=\"content\" string=\"true\">{body}</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>"
        ),
        "gigachat35" => format!(
            "{intro}<｜GCML｜tool_calls><｜GCML｜invoke name=\"write_file\"><｜GCML｜parameter name=\"path\" string=\"true\">src/big.rs</｜GCML｜parameter><｜GCML｜parameter name=\"content\" string=\"true\">{body}</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>"
        ),
        "step3" => format!(
            "{intro}<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"write_file\"><steptml:parameter name=\"path\">src/big.rs</steptml:parameter><steptml:parameter name=\"content\">{body}</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
        ),
        "dots" => format!(
            "{intro}<dots_function_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">src/big.rs</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n</dots_function_call>"
        ),
        "k2_horizon" => format!(
            "{intro}<ifm|tool_calls>\n<ifm|tool_call>write_file\n<ifm|arg_key>path</ifm|arg_key>\n<ifm|arg_value>src/big.rs</ifm|arg_value>\n<ifm|arg_key>content</ifm|arg_key>\n<ifm|arg_type>string</ifm|arg_type>\n<ifm|arg_value>{body}</ifm|arg_value>\n</ifm|tool_call>\n</ifm|tool_calls>"
        ),
        "iquest_q1" => format!(
            "{intro}<iquest_tool_call>write_file\n<arg_key>path</arg_key><arg_value>src/big.rs</arg_value>\n<arg_key>content</arg_key><arg_value>{body}</arg_value>\n</iquest_tool_call>"
        ),
        "hunyuan_a13b" => format!(
            "{intro}<tool_calls>[{{\"name\": \"write_file\", \"arguments\": {args}}}]</tool_calls>"
        ),
        "ernie45" => format!(
            "Plan the file.\n</think>\n\n<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {args}}}\n</tool_call>"
        ),
        "internlm" => format!(
            "{intro}<|action_start|><|plugin|>\n{{\"name\": \"write_file\", \"parameters\": {args}}}<|action_end|>"
        ),
        "gigachat3" => format!(
            "{intro}<|message_sep|>\n\nfunction call<|role_sep|>\n{{\"name\": \"write_file\", \"arguments\": {args}}}</s>"
        ),
        "longcat" => format!(
            "{intro}<longcat_tool_call>{{\"name\": \"write_file\", \"arguments\": {args}}}</longcat_tool_call>"
        ),
        "granite_20b_fc" => format!(
            "{intro}<function_call> {{\"name\": \"write_file\", \"arguments\": {args}}}"
        ),
        "hunyuan" => format!(
            "{intro}<tool_calls:opensource><tool_call:opensource>write_file<arg_key:opensource>path</arg_key:opensource><arg_value:opensource>src/big.rs</arg_value:opensource><arg_key:opensource>content</arg_key:opensource><arg_value:opensource>{body}</arg_value:opensource></tool_call:opensource></tool_calls:opensource>"
        ),
        "muse_glimmer" => format!(
            " to=self<|message|>Write the file.<|eom|><|start|>assistant to=write_file<|message|><atem:function_calls>\n<atem:invoke name=\"write_file\">\n<atem:parameter name=\"path\">src/big.rs</atem:parameter>\n<atem:parameter name=\"content\">{body}</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>"
        ),
        "functionary_v32" => format!("all\n{intro}>>>write_file\n{args}"),
        // xLAM's own form: the array first in the response.
        "xlam" => format!("[{{\"name\": \"write_file\", \"arguments\": {args}}}]"),
        "code_interpreter" => format!("{intro}<|python_tag|>{body}<|eom_id|>"),
        "gpt_oss_python" => format!(
            "<|channel|>analysis<|message|>Run it.<|end|><|start|>assistant<|channel|>commentary to=python code<|message|>{body}<|call|>"
        ),
        other => format!(
            "{intro}{}",
            calls_text(
                other,
                &[call(
                    "write_file",
                    serde_json::json!({"path": "src/big.rs", "content": body})
                )]
            )
        ),
    }
}
