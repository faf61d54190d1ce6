//! Python literals written as JSON: numbers in Python's forms (`1_000`,
//! `0x1f`, `.5`, `1.`) made JSON numbers, and the short excerpts error
//! messages quote. (Strings are escaped by `scan::escape`.)

/// The first 60 characters of `s`, for messages.
pub(super) fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

pub(super) fn lone_surrogate(code: u32, place: &str) -> String {
    format!("a lone surrogate \\u{code:04x} in a string {place}, which JSON cannot carry")
}

/// A Python number literal as JSON number text: `1.` → `1.0`, `.5` →
/// `0.5`, `1_000` → `1000`, `0x1f` → `31`. Refuses complex numbers, leading
/// zeros and what Python does not read as a number.
pub(super) fn py_number(text: &str) -> Result<String, String> {
    let bad = || format!("`{}` is not a number Python reads", short(text));
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let sign = if neg { "-" } else { "" };
    if body.is_empty() {
        return Err(format!("expected a digit after `{text}`"));
    }
    let lower = body.to_ascii_lowercase();
    if lower.ends_with('j') && !lower.starts_with("0x") {
        return Err(format!(
            "a complex number `{}`, which JSON cannot carry,",
            short(text)
        ));
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            let digits = digits.strip_prefix('_').unwrap_or(digits);
            let digits = plain_digits(digits, radix).ok_or_else(bad)?;
            let v = u128::from_str_radix(&digits, radix).map_err(|_| bad())?;
            return Ok(if v == 0 {
                "0".into()
            } else {
                format!("{sign}{v}")
            });
        }
    }
    let (mant, exp) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let (int, frac) = match mant.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mant, None),
    };
    let int = if int.is_empty() {
        String::new()
    } else {
        plain_digits(int, 10).ok_or_else(bad)?
    };
    let frac = match frac {
        Some("") => Some(String::new()),
        Some(f) => Some(plain_digits(f, 10).ok_or_else(bad)?),
        None => None,
    };
    if int.is_empty() && frac.as_deref().map_or(true, str::is_empty) {
        return Err(bad());
    }
    let exp = match exp {
        Some(e) => {
            let (esign, digits) = match e.as_bytes().first() {
                Some(b'-') => ("-", &e[1..]),
                Some(b'+') => ("", &e[1..]),
                _ => ("", e),
            };
            Some((esign, plain_digits(digits, 10).ok_or_else(bad)?))
        }
        None => None,
    };
    if frac.is_none() && exp.is_none() {
        // An integer: Python refuses leading zeros, except in zero.
        if int.bytes().all(|b| b == b'0') {
            return Ok("0".into());
        }
        if int.starts_with('0') {
            return Err(format!(
                "a number with a leading zero (`{}`), which Python does not read (`0o…` is octal)",
                short(text)
            ));
        }
        return Ok(format!("{sign}{int}"));
    }
    let int = int.trim_start_matches('0');
    let mut json = format!("{sign}{}", if int.is_empty() { "0" } else { int });
    json.push('.');
    match frac.as_deref() {
        Some(f) if !f.is_empty() => json.push_str(f),
        _ => json.push('0'),
    }
    if let Some((esign, digits)) = exp {
        json.push('e');
        json.push_str(esign);
        json.push_str(&digits);
    }
    Ok(json)
}

/// The digits of `s` in `radix` without Python's `_` separators (each
/// between two digits), if that is what `s` is.
pub(super) fn plain_digits(s: &str, radix: u32) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut prev_digit = false;
    for c in s.chars() {
        if c == '_' {
            if !prev_digit {
                return None;
            }
            prev_digit = false;
        } else if c.is_digit(radix) {
            out.push(c);
            prev_digit = true;
        } else {
            return None;
        }
    }
    (prev_digit).then_some(out)
}
