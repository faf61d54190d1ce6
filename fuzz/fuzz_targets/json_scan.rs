//! The incremental JSON scanner against serde_json.
//!
//! For any text T, the response "```action\n" + T + "\n```\n" is parsed with
//! the defaults and in strict mode, whole and in chunks:
//!
//! * **serde_json ⇒ us.** If serde_json reads T as one object named by a
//!   string `action` (else `type`, else `name` alone: no `arguments`,
//!   `parameters` or `input` beside it, and not a wrapper) and has no
//!   repeated top-level naming key, both modes complete exactly one action
//!   in the first block, with that name and the object minus the naming key
//!   as arguments, no repairs.
//! * **us ⇒ serde_json.** If a fence block completes an action and no repair
//!   is listed on it, the block's content (between its opener and closer
//!   lines) is a sequence of JSON values serde_json accepts. In strict mode
//!   no action ever lists a repair, so there every complete action's block
//!   is accepted. (Python literals are a repair, listed like the others, so
//!   a block read only thanks to them is never held to serde_json.)
//!
//! The converse of the second point does not hold in general (a block that
//! serde_json accepts may yield invalid actions: a non-object, a nameless
//! object), which is why the first point is stated for named objects only.
#![no_main]

use std::fmt;

use actionstream::{Config, Event, Syntax};
use libfuzzer_sys::fuzz_target;
use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

mod common;

/// The top-level keys of a JSON object, in order, repeats included.
fn top_keys(text: &str) -> Option<Vec<String>> {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some((k, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                keys.push(k);
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let keys = (&mut de).deserialize_map(Keys).ok()?;
    de.end().ok()?;
    Some(keys)
}

/// What serde_json says the parser must complete for T, if anything.
fn expected(text: &str) -> Option<(String, Value)> {
    let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let keys = top_keys(text)?;
    for key in ["action", "type"] {
        if let Some(Value::String(name)) = obj.get(key) {
            if keys.iter().filter(|k| *k == key).count() > 1 {
                return None;
            }
            let name = name.clone();
            obj.shift_remove(key);
            return Some((name, Value::Object(obj)));
        }
        if keys.iter().filter(|k| *k == key).count() > 1 {
            // A repeated key whose last value is not a string: which value
            // names is not the contract's business.
            return None;
        }
    }
    // `name` alone, lowest in the ranking: only where no key gives `name`
    // its arguments and the object is not taken for a wrapper.
    let shaped = ["arguments", "parameters", "input"];
    if keys.first().map(String::as_str) == Some("actions")
        || keys.iter().any(|k| shaped.contains(&k.as_str()))
        || keys.iter().filter(|k| *k == "name").count() != 1
    {
        return None;
    }
    if let Some(Value::String(name)) = obj.get("name") {
        let name = name.clone();
        obj.shift_remove("name");
        return Some((name, Value::Object(obj)));
    }
    None
}

/// A closed fence block's content: its raw minus the opener line and the
/// closer line.
fn fence_content(raw: &str) -> &str {
    let body = match raw.find('\n') {
        Some(i) => &raw[i + 1..],
        None => return "",
    };
    let trimmed = body.strip_suffix('\n').unwrap_or(body);
    match trimmed.rfind('\n') {
        Some(i) => &body[..=i],
        None => "",
    }
}

fn accepted_by_serde(content: &str) -> Result<(), serde_json::Error> {
    for v in serde_json::Deserializer::from_str(content).into_iter::<Value>() {
        v?;
    }
    Ok(())
}

fn check(config: &Config, text: &str, points: &[u16]) {
    let input = format!("```action\n{text}\n```\n");
    let events = common::check_chunkings(config, input.as_bytes(), points);

    if let Some((name, args)) = expected(text) {
        let done: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::ActionComplete(a) if a.span.map(|s| s.start) == Some(0) => Some(a),
                _ => None,
            })
            .collect();
        let invalid = events
            .iter()
            .any(|e| matches!(e, Event::ActionInvalid(a) if a.span.map(|s| s.start) == Some(0)));
        assert!(
            done.len() == 1 && !invalid,
            "serde_json reads {text:?} as one named object, we made {events:?}"
        );
        assert_eq!(done[0].name, name, "name of {text:?}");
        assert_eq!(done[0].arguments, args, "arguments of {text:?}");
        assert!(
            done[0].repairs.is_empty(),
            "repairs on valid JSON {text:?}: {:?}",
            done[0].repairs
        );
        assert_eq!(done[0].raw.as_ref(), input, "the block is the whole input");
    }

    for e in &events {
        let Event::ActionComplete(a) = e else {
            continue;
        };
        if config.get_strict() {
            assert!(a.repairs.is_empty(), "strict mode listed repairs: {a:?}");
        }
        if a.syntax != Syntax::Fence || !a.repairs.is_empty() {
            continue;
        }
        let content = fence_content(&a.raw);
        if let Err(err) = accepted_by_serde(content) {
            panic!(
                "completed {:?} without repairs, but serde_json rejects its block content {content:?}: {err}",
                a.name
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 || data.is_empty() {
        return;
    }
    let Ok(text) = std::str::from_utf8(&data[1..]) else {
        return;
    };
    let points = [data[0] as u16 * 7, data[0] as u16 * 31 + 5];
    check(&Config::default(), text, &points);
    check(&Config::default().strict(true), text, &points);
});
