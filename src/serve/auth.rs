//! Client keys (`--client-keys-env`): a request must carry one of them, as
//! `Authorization: Bearer KEY` or `x-api-key: KEY`. The keys are never
//! shown (`Debug` says how many there are) and never logged.

use std::fmt;

use axum::http::{header, HeaderMap};

/// The keys clients may present; empty: the gateway is open.
#[derive(Clone, Default)]
pub(crate) struct ClientKeys(Vec<Vec<u8>>);

impl fmt::Debug for ClientKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ClientKeys([{} redacted])", self.0.len())
    }
}

impl ClientKeys {
    /// The keys of a comma-separated list (blanks around each dropped,
    /// empty ones ignored).
    pub(crate) fn parse(list: &str) -> ClientKeys {
        ClientKeys(
            list.split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(|k| k.as_bytes().to_vec())
                .collect(),
        )
    }

    /// Whether the gateway is open (no keys).
    pub(crate) fn is_open(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether these headers carry one of the keys.
    pub(crate) fn allows(&self, headers: &HeaderMap) -> bool {
        if self.0.is_empty() {
            return true;
        }
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "));
        let api_key = headers.get("x-api-key").map(|v| v.as_bytes());
        [bearer, api_key]
            .into_iter()
            .flatten()
            .any(|given| self.0.iter().any(|k| same(k, given)))
    }
}

/// Compares without stopping at the first difference, so the time taken
/// does not tell how much of a key was right (hand-written: eight lines do
/// not need a crate).
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_taken_as_bearer_or_x_api_key() {
        let keys = ClientKeys::parse(" k1, k2 ,,");
        let mut h = HeaderMap::new();
        assert!(!keys.allows(&h));
        h.insert("authorization", "Bearer k2".parse().unwrap());
        assert!(keys.allows(&h));
        let mut h = HeaderMap::new();
        h.insert("x-api-key", "k1".parse().unwrap());
        assert!(keys.allows(&h));
        h.insert("x-api-key", "k1x".parse().unwrap());
        assert!(!keys.allows(&h));
        assert!(!format!("{keys:?}").contains("k1"));
        assert!(ClientKeys::parse("").is_open());
    }
}
