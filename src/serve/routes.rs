//! Routes: which upstreams answer a request's `model` (contract, section
//! 11). A route is a model id or glob (`*`, `?`, case-insensitive), one or
//! more upstream base URLs shared round robin (skipping one that refused a
//! connection in the last 10 s), its own upstream key, dialects, upstream
//! model name and tools. Routes are tried in order; `--upstream` alone is
//! one route for every model, and with a file it is the last, catch-all
//! route.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::HeaderValue;
use serde::Deserialize;
use serde_json::Value;

use super::{Key, ServeError};
use crate::dialect::tools::tool_schemas;

/// How long an upstream that refused a connection is passed over.
const REFUSED_FOR: Duration = Duration::from_secs(10);

/// One route as the configuration file writes it (`"routes": [...]`).
///
/// ```
/// let spec: actionstream::serve::RouteSpec = serde_json::from_str(r#"{
///     "model": "qwen3-coder*",
///     "upstream": ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"],
///     "key_env": "VLLM_KEY",
///     "dialects": ["qwen3_coder"],
///     "upstream_model": "Qwen/Qwen3-Coder-30B-A3B-Instruct"
/// }"#).unwrap();
/// assert_eq!(spec.upstream.len(), 2);
/// ```
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// A model id or a glob (`*` any run of characters, `?` one),
    /// compared without regard to case.
    pub model: String,
    /// One upstream base URL (`/v1` included) or several.
    #[serde(deserialize_with = "one_or_many")]
    pub upstream: Vec<String>,
    /// The environment variable holding this route's upstream key.
    #[serde(default)]
    pub key_env: Option<String>,
    /// The dialects this route's answers are read with.
    #[serde(default)]
    pub dialects: Vec<String>,
    /// The model name sent upstream instead of the request's.
    #[serde(default)]
    pub upstream_model: Option<String>,
    /// A tool list (Chat Completions `tools`) that types the route's calls
    /// when a request sends none.
    #[serde(default)]
    pub tools: Option<Value>,
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// The gateway's part of a configuration file: `routes` and
/// `client_keys_env` (the parser's keys beside them are read by
/// [`ConfigFile`](crate::ConfigFile)).
///
/// ```
/// let file: actionstream::serve::ServeFile = serde_json::from_str(
///     r#"{"routes": [{"model": "*", "upstream": "http://127.0.0.1:8000/v1"}],
///         "client_keys_env": "GATEWAY_KEYS", "fence_tags": ["plan"]}"#,
/// ).unwrap();
/// assert_eq!(file.routes[0].model, "*");
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ServeFile {
    /// The routes, tried in order.
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    /// The environment variable holding the client keys (comma-separated).
    #[serde(default)]
    pub client_keys_env: Option<String>,
}

impl ServeFile {
    /// Reads the gateway's keys of a configuration file.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, or whose `routes` or `client_keys_env`
    /// are not as above (the error names the file and the field).
    ///
    /// ```
    /// let path = std::env::temp_dir().join("actionstream-doc-servefile.json");
    /// std::fs::write(&path, r#"{"routes": [{"model": "m", "upstream": "http://127.0.0.1:1/v1"}]}"#).unwrap();
    /// let file = actionstream::serve::ServeFile::load(&path).unwrap();
    /// assert_eq!(file.routes.len(), 1);
    /// ```
    pub fn load(path: &std::path::Path) -> Result<Self, ServeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ServeError(format!("cannot read {}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            ServeError(format!(
                "{}: the routes cannot be read: {e}",
                path.display()
            ))
        })
    }
}

/// One upstream of a route.
pub(crate) struct Target {
    pub(crate) chat_url: reqwest::Url,
    pub(crate) models_url: reqwest::Url,
    refused_at: Mutex<Option<Instant>>,
}

impl Target {
    fn new(base: &str) -> Result<Target, ServeError> {
        let trimmed = base.trim_end_matches('/');
        let parse = |path: &str| {
            reqwest::Url::parse(&format!("{trimmed}/{path}"))
                .map_err(|e| ServeError(format!("the upstream URL `{base}`: {e}")))
        };
        let chat_url = parse("chat/completions")?;
        if !matches!(chat_url.scheme(), "http" | "https") {
            return Err(ServeError(format!(
                "the upstream URL `{base}` must be http or https"
            )));
        }
        Ok(Target {
            chat_url,
            models_url: parse("models")?,
            refused_at: Mutex::new(None),
        })
    }

    /// Notes that this upstream refused a connection now.
    pub(crate) fn refused(&self) {
        if let Ok(mut at) = self.refused_at.lock() {
            *at = Some(Instant::now());
        }
    }

    fn recently_refused(&self, now: Instant) -> bool {
        self.refused_at
            .lock()
            .ok()
            .and_then(|at| *at)
            .is_some_and(|at| now.duration_since(at) < REFUSED_FOR)
    }
}

/// A route, built: its upstreams, key, dialects, model and tools.
pub(crate) struct Route {
    /// The model pattern: the route's name in logs and metrics.
    pub(crate) name: String,
    pub(crate) targets: Vec<Target>,
    next: AtomicUsize,
    pub(crate) key: Option<Key>,
    pub(crate) dialects: Vec<String>,
    pub(crate) upstream_model: Option<String>,
    pub(crate) tools: Option<(String, Vec<(String, Value)>)>,
}

impl Route {
    /// Builds a route; `key` is the route's key, read from its variable.
    pub(crate) fn build(spec: &RouteSpec, key: Option<Key>) -> Result<Route, ServeError> {
        let at = |e: ServeError| ServeError(format!("route `{}`: {}", spec.model, e.0));
        if spec.model.is_empty() {
            return Err(ServeError("a route's `model` is empty".into()));
        }
        if spec.upstream.is_empty() {
            return Err(at(ServeError("`upstream` lists no URL".into())));
        }
        let targets = spec
            .upstream
            .iter()
            .map(|u| Target::new(u))
            .collect::<Result<Vec<_>, _>>()
            .map_err(at)?;
        let tools = match &spec.tools {
            None | Some(Value::Null) => None,
            Some(list @ Value::Array(_)) => Some((
                list.to_string(),
                tool_schemas(list)
                    .map_err(|e| at(ServeError(format!("`tools` cannot be read: {e}"))))?,
            )),
            Some(_) => return Err(at(ServeError("`tools` must be an array".into()))),
        };
        Ok(Route {
            name: spec.model.clone(),
            targets,
            next: AtomicUsize::new(0),
            key,
            dialects: spec.dialects.clone(),
            upstream_model: spec.upstream_model.clone(),
            tools,
        })
    }

    /// Whether this route answers `model` (an absent model is the empty
    /// id, which only `*` matches).
    pub(crate) fn matches(&self, model: Option<&str>) -> bool {
        glob(&self.name, model.unwrap_or(""))
    }

    /// The upstreams to try, in order: round robin from the next one,
    /// those that refused a connection in the last 10 s last.
    pub(crate) fn order(&self) -> Vec<&Target> {
        let n = self.targets.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        let now = Instant::now();
        let (mut fresh, refused): (Vec<&Target>, Vec<&Target>) = (0..n)
            .map(|i| &self.targets[(start + i) % n])
            .partition(|t| !t.recently_refused(now));
        fresh.extend(refused);
        fresh
    }

    /// The `Authorization` header to send upstream: the route's key, else
    /// the client's own.
    pub(crate) fn authorization(&self, client: Option<&HeaderValue>) -> Option<HeaderValue> {
        match &self.key {
            Some(Key(value)) => Some(value.clone()),
            None => client.map(|v| {
                let mut v = v.clone();
                v.set_sensitive(true);
                v
            }),
        }
    }
}

/// A model id against a glob: `*` any run of characters, `?` one, case
/// ignored. Iterative with one backtrack point, so linear in practice.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().flat_map(char::to_lowercase).collect();
    let t: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_ids_without_regard_to_case() {
        assert!(glob("qwen3-coder*", "Qwen3-Coder-30B"));
        assert!(glob("*", ""));
        assert!(glob("gpt-?o", "gpt-4o"));
        assert!(!glob("gpt-?o", "gpt-4.1"));
        assert!(glob("*coder*", "qwen3-coder-plus"));
        assert!(!glob("llama*", "qwen"));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
    }

    #[test]
    fn round_robin_passes_over_an_upstream_that_refused() {
        let spec = RouteSpec {
            model: "*".into(),
            upstream: vec![
                "http://127.0.0.1:1/v1".into(),
                "http://127.0.0.1:2/v1".into(),
            ],
            ..RouteSpec::default()
        };
        let route = Route::build(&spec, None).unwrap();
        let first = |r: &Route| r.order()[0].chat_url.port();
        assert_eq!(first(&route), Some(1));
        assert_eq!(first(&route), Some(2));
        route.targets[0].refused();
        assert_eq!(first(&route), Some(2));
        assert_eq!(first(&route), Some(2));
        assert_eq!(
            route.order().len(),
            2,
            "a refused upstream is still tried last"
        );
    }

    #[test]
    fn bad_routes_are_refused_with_their_name() {
        let spec = RouteSpec {
            model: "m*".into(),
            upstream: vec!["ftp://x/v1".into()],
            ..RouteSpec::default()
        };
        let err = Route::build(&spec, None).err().unwrap();
        assert!(
            err.0.contains("route `m*`") && err.0.contains("http or https"),
            "{err}"
        );
        let bad: Result<RouteSpec, _> =
            serde_json::from_str(r#"{"model": "m", "upstream": "http://x/v1", "keyenv": "K"}"#);
        assert!(bad.is_err());
    }
}
