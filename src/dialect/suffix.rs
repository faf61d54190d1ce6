//! Token suffixes: markers that a tokenizer writes with a per-checkpoint
//! suffix before their closing `>` (Tencent Hy3 and HY v4:
//! `<tool_calls:opensource>`, `<think:6124c78e>`), read whatever the
//! suffix is (a descriptor's `token_suffix`, contract section 7b).
//!
//! A dialect with a `token_suffix` lead is compiled from a copy whose
//! markers ending in `>` carry a suffix slot ([`SUFFIX_SLOT`]); the marker
//! search finds each such marker with and without a suffix. [`marker_len`]
//! is the same rule for one marker at one place, for checks.

use super::{Calls, Dialect, KeyEnd, Section};
use crate::scan::markers::SUFFIX_SLOT;

/// `marker` with a suffix slot before its closing `>` (unchanged if it
/// does not end with `>`).
fn slotted(marker: &str, lead: &str) -> String {
    match marker.strip_suffix('>') {
        Some(head) if !head.is_empty() && !lead.is_empty() => {
            format!("{head}{SUFFIX_SLOT}{lead}>")
        }
        _ => marker.to_owned(),
    }
}

/// The dialect as compiled: where it has a `token_suffix`, each of its
/// markers ending in `>` may carry one.
pub(crate) fn with_slots(d: &Dialect) -> Dialect {
    let Some(lead) = d.token_suffix.as_deref() else {
        return d.clone();
    };
    let m = |x: &String| slotted(x, lead);
    let mut out = d.clone();
    for e in &mut out.reasoning {
        e.open = m(&e.open);
        e.close = m(&e.close);
    }
    out.ignore = d.ignore.iter().map(m).collect();
    out.sections = d
        .sections
        .iter()
        .map(|s| Section {
            open: m(&s.open),
            close: s.close.as_ref().map(m),
            calls: s.calls.iter().map(|c| calls(c, lead)).collect(),
            trailer: s.trailer.iter().map(m).collect(),
        })
        .collect();
    out.first = d.first.iter().map(|c| calls(c, lead)).collect();
    out
}

fn calls(c: &Calls, lead: &str) -> Calls {
    let m = |x: &String| slotted(x, lead);
    let mut c = c.clone();
    match &mut c {
        Calls::Named {
            call,
            name_prefix,
            id,
            args,
            args_end,
            end,
            ..
        } => {
            *call = m(call);
            *name_prefix = name_prefix.as_ref().map(m);
            *id = id.as_ref().map(m);
            *args = m(args);
            *args_end = args_end.as_ref().map(m);
            *end = end.as_ref().map(m);
        }
        Calls::Params {
            call,
            name_end,
            key,
            key_spellings,
            key_end,
            value,
            value_end,
            end,
            ..
        } => {
            *call = m(call);
            *name_end = name_end.iter().map(m).collect();
            *key = m(key);
            *key_spellings = key_spellings.iter().map(m).collect();
            *key_end = key_end
                .iter()
                .map(|k| KeyEnd {
                    marker: m(&k.marker),
                    value: k.value,
                })
                .collect();
            *value = value.as_ref().map(m);
            *value_end = m(value_end);
            *end = end.as_ref().map(m);
        }
        // Tags and Gemma bodies are read by their own scanners, whose
        // tags take no suffix: left as written.
        Calls::Json { .. }
        | Calls::Python { .. }
        | Calls::Code { .. }
        | Calls::Tags { .. }
        | Calls::Gemma { .. } => {}
    }
    c
}

/// How long `marker` is where `text` begins with it, written as is or,
/// with a `lead`, with a token suffix before its closing `>`; `None` where
/// `text` does not begin with it.
#[cfg(any(test, feature = "testkit"))]
pub(crate) fn marker_len(marker: &str, lead: Option<&str>, text: &str) -> Option<usize> {
    if text.starts_with(marker) {
        return Some(marker.len());
    }
    let lead = lead.filter(|l| !l.is_empty())?;
    let head = marker.strip_suffix('>').filter(|h| !h.is_empty())?;
    let rest = text.strip_prefix(head)?.strip_prefix(lead)?;
    let n = rest
        .bytes()
        .take(crate::scan::markers::SUFFIX_MAX + 1)
        .position(|b| b == b'>' || b == b'<' || b.is_ascii_whitespace())?;
    (n > 0 && rest.as_bytes().get(n) == Some(&b'>')).then(|| head.len() + lead.len() + n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::markers::SUFFIX_MAX;

    #[test]
    fn a_marker_is_read_with_any_suffix() {
        for (text, len) in [
            ("<think>x", Some(7)),
            ("<think:ab>x", Some(10)),
            ("<think:>x", None),
            ("<think:a b>", None),
            ("<think:a<b>", None),
            ("<thinkx>", None),
        ] {
            assert_eq!(marker_len("<think>", Some(":"), text), len, "{text}");
        }
        assert_eq!(marker_len("<think>", None, "<think:ab>"), None);
        let long = format!("<think:{}>", "a".repeat(SUFFIX_MAX + 1));
        assert_eq!(marker_len("<think>", Some(":"), &long), None);
        let longest = format!("<think:{}>", "a".repeat(SUFFIX_MAX));
        assert_eq!(
            marker_len("<think>", Some(":"), &longest),
            Some(longest.len())
        );
    }
}
