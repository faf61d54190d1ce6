//! Property tests: generated responses through the every-chunking oracle
//! (`actionstream::oracle::check`: whole = one byte at a time = every
//! two-way split = random splits; lossless; ids), plus liveness and JSON
//! round trips. Case counts are modest so the suite stays quick.

use actionstream::{oracle, Config, Event, Parser};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

mod common;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A JSON value of limited size.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z `\n\"\\\\<>/{}]{0,12}".prop_map(Value::String),
        Just(json!("line\n```\nnot a closer")),
        Just(json!("</action_call> and ```json")),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,6}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Arguments: an object without the naming keys.
fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec(("[a-z_]{1,6}", json_value()), 0..4).prop_map(|kv| {
        kv.into_iter()
            .filter(|(k, _)| !matches!(k.as_str(), "action" | "type" | "actions"))
            .collect()
    })
}

fn action_json() -> impl Strategy<Value = String> {
    ("[a-z_]{1,8}", arguments(), any::<bool>()).prop_map(|(name, args, pretty)| {
        let mut obj = Map::new();
        obj.insert("action".into(), Value::String(name));
        obj.extend(args);
        if pretty {
            serde_json::to_string_pretty(&obj).unwrap()
        } else {
            serde_json::to_string(&obj).unwrap()
        }
    })
}

/// One piece of a response.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[A-Za-z ,.!?:]{0,30}",
        3 => Just("\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just("\n\n".to_string()),
        1 => prop_oneof![Just("`"), Just("``"), Just("```"), Just("````"), Just("~~~")].prop_map(str::to_string),
        3 => action_json().prop_map(|j| format!("\n```json\n{j}\n```\n")),
        1 => action_json().prop_map(|j| format!("\r\n```json\r\n{j}\r\n```\r\n")),
        2 => prop::collection::vec(action_json(), 1..3)
            .prop_map(|js| format!("\n```actions\n{{\"actions\": [{}]}}\n```\n", js.join(","))),
        1 => action_json().prop_map(|j| format!("\n```python\nx = 1\n```json\n{j}\n```\n")),
        1 => action_json().prop_map(|j| format!("\n````markdown\n```json\n{j}\n```\n````\n")),
        2 => action_json().prop_map(|j| format!("<action_call>{j}</action_call>")),
        1 => ("[a-z]{1,6}", arguments())
            .prop_map(|(n, a)| format!("<tool_call name=\"{n}\">{}</tool_call>", Value::Object(a))),
        1 => Just("<action_call><query> rust </query><limit>5</limit></action_call>".to_string()),
        1 => Just("use `<action_call>` like this".to_string()),
        1 => Just("I mention <action_call> in prose.".to_string()),
        1 => Just("\n```json\n{\"action\": \"note\", \"body\": \"a\n```\nb\"}\n```\n".to_string()),
        1 => prop_oneof![
            Just("\n```json\n{\"action\": \"broken\", \"x\": \n```\n"),
            Just("\n```json\n{\"action\": \"cut\", \"s\": \"open\n```\n"),
            Just("\n```json\n{\"action\": \"t\", \"a\": [1, 2,],}\n```\n"),
            Just("\n```json\n{\"project\": {\"repo\": \"o/r\"}}\n```\n"),
            Just("\n```json\n{\"action\": \"c\" // comment\n}\n```\n"),
            Just("<action_call>{\"action\": \"x\", </action_call>"),
            Just("\n```json\n{\"action\": \"unclosed\"}"),
        ]
        .prop_map(str::to_string),
    ]
}

fn response() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..10).prop_map(|p| p.concat())
}

fn count(events: &[Event], f: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| f(e)).count()
}

proptest! {
    #![proptest_config(config())]

    /// Invariants 1-3 on generated responses, default configuration.
    #[test]
    fn generated_responses_keep_the_invariants(text in response()) {
        oracle::check(&Config::default(), &text);
    }

    /// The same in strict mode and with a tiny block limit.
    #[test]
    fn generated_responses_strict_and_small_limit(text in response()) {
        oracle::check(&Config::default().strict(true), &text);
        oracle::check(&Config::default().max_block_bytes(48), &text);
    }

    /// Arbitrary strings, any characters.
    #[test]
    fn arbitrary_strings_keep_the_invariants(text in any::<String>()) {
        oracle::check(&Config::default(), &text);
    }

    /// Arbitrary bytes, invalid UTF-8 included, cut anywhere.
    #[test]
    fn arbitrary_bytes_keep_the_invariants(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        oracle::check_bytes(&Config::default(), &bytes);
    }

    /// Strings made of the characters that matter to the parser.
    #[test]
    fn syntax_soup_keeps_the_invariants(text in "[`~<>/{}\\[\\]\":,\\\\ \n\r a-z_]{0,120}") {
        oracle::check(&Config::default(), &text);
        oracle::check(&Config::default().strict(true), &text);
    }

    /// An action object serialised by serde_json completes in a json fence,
    /// an action fence and a call tag, with the same arguments and no
    /// repairs.
    #[test]
    fn serde_json_actions_round_trip(name in "[a-z_]{1,8}", args in arguments(), pretty in any::<bool>()) {
        let mut obj = Map::new();
        obj.insert("action".into(), Value::String(name.clone()));
        obj.extend(args.clone());
        let text = if pretty {
            serde_json::to_string_pretty(&obj).unwrap()
        } else {
            serde_json::to_string(&obj).unwrap()
        };
        // serde_json's own reading of the text (its float parsing need not
        // round-trip the generated f64 exactly), minus the naming key.
        let mut want: Map<String, Value> = serde_json::from_str(&text).unwrap();
        want.shift_remove("action");
        let want = Value::Object(want);
        for input in [
            format!("Go.\n```json\n{text}\n```\nDone."),
            format!("Go.\n```action\n{text}\n```\nDone."),
            format!("Go. <action_call>{text}</action_call> Done."),
        ] {
            let events = common::parse(&input);
            let done: Vec<_> = events.iter().filter_map(|e| match e {
                Event::ActionComplete(a) => Some(a),
                _ => None,
            }).collect();
            prop_assert_eq!(done.len(), 1, "{:?}", events);
            prop_assert_eq!(&done[0].name, &name);
            prop_assert_eq!(&done[0].arguments, &want);
            prop_assert!(done[0].repairs.is_empty());
            prop_assert_eq!(count(&events, |e| matches!(e, Event::ActionInvalid(_))), 0);
            prop_assert!(actionstream::narrative(&events).ends_with("Done."));
        }
    }

    /// Narrative is live: prose with no syntax in it (no list markers
    /// either) is all out after each push, but for a run of at most three
    /// spaces at a line start (a possible fence indentation), and the parser
    /// holds nothing else.
    #[test]
    fn prose_is_live(text in "[a-z ,.\n]{0,200}", seed in any::<u64>()) {
        let mut parser = Parser::default();
        let mut events = Vec::new();
        let mut pushed = String::new();
        for chunk in actionstream::chunking::random_chunks(text.as_bytes(), seed, 9) {
            let chunk = std::str::from_utf8(chunk).unwrap();
            parser.push(chunk, &mut events);
            pushed.push_str(chunk);
            let out = actionstream::narrative(&events);
            prop_assert!(pushed.starts_with(&out));
            let held = &pushed[out.len()..];
            prop_assert!(held.len() <= 3 && held.bytes().all(|b| b == b' '), "held {:?}", held);
            let line_start = pushed[..out.len()].ends_with('\n') || out.is_empty();
            prop_assert!(held.is_empty() || line_start, "held {:?} mid-line", held);
            prop_assert_eq!(parser.buffered(), held.len());
        }
        parser.finish(&mut events);
        prop_assert_eq!(actionstream::narrative(&events), text);
    }
}
