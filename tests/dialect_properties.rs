//! Property tests for the model dialects: random interleavings of
//! narrative, reasoning and call sections, with random names and values,
//! written as each built-in dialect writes them, through the every-chunking
//! oracle (with and without argument deltas, whose pieces the oracle checks
//! against each call's arguments). The complete calls are exactly those
//! written, none is invalid, and the narrative and reasoning are the text
//! written (less white space between sections).

use actionstream::dialect::BUILTIN;
use actionstream::{oracle, Event};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

mod common;

use common::dialects::{call, calls_text, config, think, Call, RAW};

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A JSON value of limited size; `raw`: one a raw-text parameter gives
/// back (a string that does not read as JSON and holds no marker, or a
/// JSON value).
fn json_value(raw: bool) -> BoxedStrategy<Value> {
    let string = if raw {
        "[A-Za-z][A-Za-z0-9 ,.:'\"\n]{0,16}"
            .prop_filter("not a JSON literal", |s| {
                !matches!(s.as_str(), "true" | "false" | "null")
            })
            .prop_map(Value::String)
            .boxed()
    } else {
        prop_oneof![
            4 => "[A-Za-z0-9 ,.:'\"\n\\\\/{}\\[\\]]{0,16}".prop_map(Value::String),
            1 => Just(json!("say </tool_call> and <|call|> and [TOOL_CALLS] or ]")),
            1 => Just(json!("ünïcödé ✓ 🦀")),
        ]
        .boxed()
    };
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        // Three decimals: serde_json (without `float_roundtrip`) reads
        // these exactly; a 17-digit float may come back one bit off.
        any::<i32>().prop_map(|n| json!(f64::from(n) / 1000.0)),
        string,
    ];
    leaf.prop_recursive(2, 12, 3, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,5}", inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

/// A call: a name and up to four arguments.
fn a_call(raw: bool) -> impl Strategy<Value = Call> {
    let value = if raw {
        // Top-level raw values: strings as written, or JSON.
        prop_oneof![3 => json_value(true), 1 => json_value(false).prop_filter(
            "not a string",
            |v| !v.is_string()
        )]
        .boxed()
    } else {
        json_value(false)
    };
    (
        "[a-z][a-z_]{0,7}",
        prop::collection::vec(("[a-z][a-z_]{0,5}", value), 0..4),
    )
        .prop_map(|(name, kv)| {
            call(
                &name,
                Value::Object(kv.into_iter().collect::<Map<String, Value>>()),
            )
        })
}

/// One piece of a response.
#[derive(Debug, Clone)]
enum Piece {
    Narrative(String),
    Reasoning(String),
    Calls(Vec<Call>),
}

/// Whether `v` reads back the same in a form whose nested values have no
/// types of their own (MiniMax M3's tags, Gemma values): no empty
/// container (`<k></k>` is an empty string), no `item` key (an array's
/// member), no nested string that reads as JSON.
fn untyped_nesting_keeps(v: &Value, top: bool) -> bool {
    match v {
        Value::Array(xs) => !xs.is_empty() && xs.iter().all(|x| untyped_nesting_keeps(x, false)),
        Value::Object(m) => {
            (top || !m.is_empty())
                && m.iter()
                    .all(|(k, x)| k != "item" && untyped_nesting_keeps(x, false))
        }
        Value::String(s) => top || serde_json::from_str::<Value>(s).is_err(),
        _ => true,
    }
}

fn pieces(dialect: &'static str) -> impl Strategy<Value = Vec<Piece>> {
    let raw = RAW.contains(&dialect);
    let nesting = matches!(dialect, "minimax_m3" | "gemma4" | "function_gemma");
    let call = a_call(raw).prop_filter("reads back in the form", move |c| {
        !nesting
            || c.args
                .values()
                .all(|v| untyped_nesting_keeps(v, false) || v.is_string())
    });
    let piece = prop_oneof![
        3 => "[A-Za-z ,.!?\n]{1,30}".prop_map(Piece::Narrative),
        2 => "[A-Za-z ,.!?\n]{0,30}".prop_map(Piece::Reasoning),
        3 => prop::collection::vec(call, 1..3).prop_map(Piece::Calls),
    ];
    prop::collection::vec(piece, 1..6)
}

/// A dialect and a response in it.
fn response() -> impl Strategy<Value = (&'static str, Vec<Piece>, bool)> {
    (0..BUILTIN.len(), any::<bool>())
        .prop_flat_map(|(i, deltas)| (Just(BUILTIN[i]), pieces(BUILTIN[i]), Just(deltas)))
}

/// The response's text, and what it should give: calls, narrative and
/// reasoning.
fn write(dialect: &str, pieces: &[Piece]) -> (String, Vec<Call>, String, String) {
    // Functionary's prompt ends with `>>>`: the response's first line is
    // a recipient.
    let mut text = String::from(if dialect == "functionary_v32" {
        "all\n"
    } else {
        ""
    });
    let (mut calls, mut narrative, mut reasoning) = (Vec::new(), String::new(), String::new());
    for p in pieces {
        match p {
            Piece::Narrative(t) => {
                text.push_str(t);
                narrative.push_str(t);
            }
            Piece::Reasoning(t) => match think(dialect) {
                Some((open, close)) => {
                    text.push_str(open);
                    text.push_str(t);
                    text.push_str(close);
                    reasoning.push_str(t);
                }
                None => {
                    text.push_str(t);
                    narrative.push_str(t);
                }
            },
            Piece::Calls(cs) => {
                text.push_str(&calls_text(dialect, cs));
                calls.extend(cs.iter().cloned());
            }
        }
    }
    (text, calls, narrative, reasoning)
}

fn visible(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn generated_dialect_responses_give_the_calls_written((dialect, pieces, deltas) in response()) {
        let (text, calls, narrative, reasoning) = write(dialect, &pieces);
        let cfg = config(dialect).argument_deltas(deltas);
        let events = oracle::check(&cfg, &text);
        let got: Vec<(String, Value)> = events
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => Some((a.name.clone(), a.arguments.clone())),
                _ => None,
            })
            .collect();
        let want: Vec<(String, Value)> = calls
            .iter()
            .map(|c| (c.name.clone(), Value::Object(c.args.clone())))
            .collect();
        prop_assert!(common::invalid(&events).is_empty(), "{dialect}: {:?}\n{text:?}", common::invalid(&events));
        prop_assert_eq!(got, want, "{}: {:?}", dialect, text);
        let told = |f: fn(&Event) -> Option<&str>| events.iter().filter_map(f).collect::<String>();
        let got_narrative = told(|e| match e { Event::Narrative(t) => Some(t), _ => None });
        let got_reasoning = told(|e| match e { Event::Reasoning(t) => Some(t), _ => None });
        prop_assert_eq!(visible(&got_narrative), visible(&narrative), "{}: {:?}", dialect, text);
        prop_assert_eq!(visible(&got_reasoning), visible(&reasoning), "{}: {:?}", dialect, text);
    }

    #[test]
    fn generated_calls_cut_off_anywhere_are_never_complete_unless_whole(
        (dialect, pieces, _) in response(),
        cut in 0.0f64..1.0,
    ) {
        // A response cut at any point: every call it gives complete was
        // written whole before the cut (a truncated call is never complete).
        let (text, calls, _, _) = write(dialect, &pieces);
        let mut at = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let events = oracle::check(&config(dialect).argument_deltas(true), &text[..at]);
        let got: Vec<(String, Value)> = events
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => Some((a.name.clone(), a.arguments.clone())),
                _ => None,
            })
            .collect();
        let want: Vec<(String, Value)> = calls
            .iter()
            .map(|c| (c.name.clone(), Value::Object(c.args.clone())))
            .collect();
        prop_assert!(got.len() <= want.len());
        prop_assert_eq!(&got[..], &want[..got.len()], "{}: {:?}", dialect, &text[..at]);
    }

    #[test]
    fn a_call_opener_ends_reasoning_where_the_dialect_says_so(
        (dialect, calls) in ending_calls(),
        thought in "[A-Za-z ,.!?]{0,30}",
        space in "[ \n]{0,3}",
        after in "[A-Za-z ,.!?]{0,20}",
    ) {
        // `<think>` + reasoning + calls, the closer after them (a marker),
        // then the answer: Qwen3.5 and Kimi K2 write calls before `</think>`.
        let (open, close) = think(dialect).expect("the dialect has reasoning");
        let text = format!("{open}{thought}{}{space}{close}{after}", calls_text(dialect, &calls));
        let events = oracle::check(&config(dialect).argument_deltas(true), &text);
        let got: Vec<(String, Value)> = events
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) => Some((a.name.clone(), a.arguments.clone())),
                _ => None,
            })
            .collect();
        let want: Vec<(String, Value)> = calls
            .iter()
            .map(|c| (c.name.clone(), Value::Object(c.args.clone())))
            .collect();
        prop_assert!(common::invalid(&events).is_empty(), "{dialect}: {:?}", common::invalid(&events));
        prop_assert_eq!(got, want, "{}: {:?}", dialect, text);
        let told = |f: fn(&Event) -> Option<&str>| events.iter().filter_map(f).collect::<String>();
        let got_narrative = told(|e| match e { Event::Narrative(t) => Some(t), _ => None });
        let got_reasoning = told(|e| match e { Event::Reasoning(t) => Some(t), _ => None });
        prop_assert_eq!(visible(&got_narrative), visible(&after), "{}: {:?}", dialect, text);
        prop_assert_eq!(visible(&got_reasoning), visible(&thought), "{}: {:?}", dialect, text);
    }
}

/// The built-in dialects whose call opener ends reasoning
/// (`calls_end_reasoning`).
fn ending() -> Vec<&'static str> {
    BUILTIN
        .iter()
        .copied()
        .filter(|d| {
            actionstream::dialect::Dialect::builtin(d).is_some_and(|x| x.calls_end_reasoning)
        })
        .collect()
}

/// One of them, and calls to write in it.
fn ending_calls() -> impl Strategy<Value = (&'static str, Vec<Call>)> {
    prop::sample::select(ending()).prop_flat_map(|d| {
        (
            Just(d),
            prop::collection::vec(a_call(RAW.contains(&d)), 1..3),
        )
    })
}

#[test]
fn the_dialects_of_section_7b_end_reasoning_at_a_call() {
    let flagged = ending();
    for d in [
        "hermes",
        "qwen3_coder",
        "glm",
        "kimi_k2",
        "deepseek_v32",
        "deepseek_v41",
    ] {
        assert!(flagged.contains(&d), "{d}");
    }
}
