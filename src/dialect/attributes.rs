//! Attributes of a tag, `name="value"` pairs (Kimi K3's
//! `tool="N" index="I"`), with XML's entities unescaped.
//!
//! Hand-written: the pairs are a few bytes between two markers the engine
//! has already found, and an XML crate would want a whole element.

/// The `name="value"` (or `name='value'`) pairs of `text`, in order, values
/// unescaped. Text that is no pair is passed over.
pub(crate) fn parse(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq]
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or_default()
            .trim();
        let after = rest[eq + 1..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            // An unquoted value runs to white space.
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            out.push((name.to_owned(), unescape(&after[..end])));
            rest = &after[end..];
            continue;
        };
        let body = &after[1..];
        let end = body.find(quote).unwrap_or(body.len());
        out.push((name.to_owned(), unescape(&body[..end])));
        rest = body.get(end + 1..).unwrap_or_default();
    }
    out
}

/// The value of attribute `name` in `pairs`.
pub(crate) fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// `&quot;`, `&apos;`, `&lt;`, `&gt;`, `&amp;` and numeric references
/// replaced by their characters; any other `&` stays.
pub(crate) fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let entity = tail.find(';').filter(|&e| e <= 10).map(|e| &tail[1..e]);
        let ch = entity.and_then(|e| match e {
            "quot" => Some('"'),
            "apos" => Some('\''),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            _ => {
                let n = e.strip_prefix('#')?;
                let code = match n.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => n.parse().ok()?,
                };
                char::from_u32(code)
            }
        });
        match (ch, entity) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &tail[e.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_read_and_unescaped() {
        let p = parse(r#" tool="a&amp;b" index="1" note='x &quot;y&quot;' bare=z"#);
        assert_eq!(get(&p, "tool"), Some("a&b"));
        assert_eq!(get(&p, "index"), Some("1"));
        assert_eq!(get(&p, "note"), Some("x \"y\""));
        assert_eq!(get(&p, "bare"), Some("z"));
        assert_eq!(unescape("&lt;&#65;&#x42;&gt; & &nope;"), "<AB> & &nope;");
    }

    #[test]
    fn an_unclosed_value_runs_to_the_end() {
        assert_eq!(
            parse(r#"tool="abc"#),
            [("tool".to_owned(), "abc".to_owned())]
        );
        assert!(parse("no pairs here").is_empty());
    }
}
