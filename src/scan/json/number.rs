//! JSON's number grammar, as small pure steps: the state of a number being
//! read byte by byte ([`Num`]), and a whole number's text made a value as
//! serde_json makes it ([`number`]). The scanner (`mod.rs`, `runs.rs`)
//! keeps the state between pieces.

use serde_json::Value;

/// Where a number being read is: after its sign, its first digit, its
/// integer digits, the dot, fraction digits, the exponent's `e`, its sign,
/// or its digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpInt,
}

impl Num {
    pub fn terminal(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpInt)
    }

    /// The state after byte `b`, if `b` goes on the number.
    #[inline]
    pub fn next(self, b: u8) -> Option<Num> {
        match (self, b) {
            (Num::Minus, b'0') => Some(Num::Zero),
            (Num::Minus, b'1'..=b'9') => Some(Num::Int),
            (Num::Int, b'0'..=b'9') => Some(Num::Int),
            (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
            (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::Exp),
            (Num::Exp, b'+' | b'-') => Some(Num::ExpSign),
            (Num::Exp | Num::ExpSign | Num::ExpInt, b'0'..=b'9') => Some(Num::ExpInt),
            _ => None,
        }
    }
}

/// A whole number's text as serde_json reads it. Hand-written for the
/// common case, an integer of up to 18 digits (which `u64` and `i64` hold
/// whole), read as serde_json reads it (`-0` is a float there, so it is
/// left to serde_json); anything else goes to serde_json's own parser.
pub(super) fn number(text: &str) -> Result<Value, &'static str> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()) {
        let n = digits
            .bytes()
            .fold(0u64, |n, b| n * 10 + u64::from(b - b'0'));
        if !neg {
            return Ok(Value::Number(n.into()));
        }
        if n != 0 {
            // At most 18 digits: below `i64::MAX`.
            return Ok(Value::Number((-(n as i64)).into()));
        }
    }
    text.parse::<serde_json::Number>()
        .map(Value::Number)
        .map_err(|_| "a number out of range")
}
