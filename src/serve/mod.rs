//! An OpenAI-compatible gateway in front of any OpenAI-compatible server
//! (contract, section 8; feature `serve`).
//!
//! `POST /v1/chat/completions` forwards the request, unchanged, to
//! `{upstream}/chat/completions` and answers in Chat Completions form,
//! with the tool calls the model wrote in its text parsed out:
//!
//! - **streaming** (`"stream": true`): one [`SseParser`](crate::sse::SseParser)
//!   per choice reads the upstream's chunks (`delta.content` through the
//!   dialects; `delta.reasoning_content` / `delta.reasoning` passed on as
//!   reasoning; native `delta.tool_calls` passed on as calls), and one
//!   [`Encoder`](crate::protocol::Encoder) of
//!   [`Format::OpenAiChat`](crate::protocol::Format::OpenAiChat) per choice
//!   writes the answer. The answer begins when the upstream's does, and each
//!   call goes out as its markers arrive, its arguments streaming;
//! - **non-streaming**: each choice's `message.content` is parsed whole;
//!   the message gets the narrative as `content`, the reasoning as
//!   `reasoning_content`, the calls as `tool_calls` and `finish_reason`
//!   `tool_calls` when there is one.
//!
//! The dialects come from [`ServeConfig::dialect`], else from the request's
//! `model` by its family ([`dialects_for_model`]), else `actions`; the
//! request's `tools` type and validate the arguments ([`Config::tools`]).
//!
//! Errors: a body that is no JSON object (or whose `stream`, `n` or `tools`
//! cannot be read) is answered 400 with an OpenAI-style error body; an
//! upstream that cannot be reached 502, same shape; an upstream error
//! status is passed on with its body. A client that goes away cancels its
//! upstream request (the upstream response is dropped, which closes its
//! connection). The upstream key is sent as `Authorization: Bearer` and is
//! never logged (the gateway logs with `tracing`).
//!
//! `GET /` serves the live page: a prompt box, the narrative rendered as
//! Markdown as it streams, reasoning in a collapsible panel, one card per
//! call. The page asks for the gateway's extension frames with the request
//! header `x-actionstream-events: 1`: then, after the chunks of each action
//! that ends, an `event: actionstream` frame says how it ended
//! (`{"choice", "index", "name", "state": "complete", "arguments"}` or
//! `{"choice", "index", "name", "state": "invalid", "errors", "raw"}`;
//! `index` is the call's `tool_calls` index, or null for an action that
//! never went out as a call). Clients that do not ask never see them.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use actionstream::serve::{self, ServeConfig};
//!
//! let config = ServeConfig::new("http://127.0.0.1:8000/v1").dialect("qwen3_coder");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! serve::serve(listener, config).await
//! # }
//! ```

mod chat;
mod error;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;

use crate::dialect::family::dialects_for_model;
use crate::protocol::Calls;
use crate::Config;

pub use error::ApiError;

/// The live page, one self-contained file.
const PAGE: &str = include_str!("page.html");

/// The largest request body read (chat histories can be long).
const MAX_BODY: usize = 32 << 20;

/// How many parser configurations (by dialects and tool list) are kept
/// built, so that requests with the same tools share compiled schemas.
const CONFIG_CACHE: usize = 256;

/// What the gateway forwards to and how it reads the answers.
#[derive(Clone)]
pub struct ServeConfig {
    upstream: String,
    key: Option<Key>,
    dialects: Vec<String>,
    model_dialects: bool,
    reasoning_open_by_model: bool,
    calls: Calls,
    base: Config,
}

impl fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeConfig")
            .field("upstream", &self.upstream)
            .field("key", &self.key)
            .field("dialects", &self.dialects)
            .field("model_dialects", &self.model_dialects)
            .field("calls", &self.calls)
            .finish_non_exhaustive()
    }
}

/// The upstream key: sent as a sensitive header value, shown as
/// `[redacted]` by `Debug`.
#[derive(Clone)]
struct Key(HeaderValue);

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl ServeConfig {
    /// A gateway in front of `upstream`, a base URL with `/v1` included,
    /// as an SDK's `base_url` (`http://127.0.0.1:8000/v1`); http or https.
    pub fn new(upstream: impl Into<String>) -> Self {
        ServeConfig {
            upstream: upstream.into(),
            key: None,
            dialects: Vec::new(),
            model_dialects: false,
            reasoning_open_by_model: true,
            calls: Calls::Live,
            base: Config::default(),
        }
    }

    /// The upstream's API key, sent as `Authorization: Bearer KEY` (never
    /// logged). Without one, a client's own `Authorization` header is
    /// passed on.
    pub fn upstream_key(mut self, key: impl Into<String>) -> Self {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", key.into()))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
        value.set_sensitive(true);
        self.key = Some(Key(value));
        self
    }

    /// A dialect every answer is read with (repeatable; several combine):
    /// `actions` or a model dialect. Without any, the request's `model`
    /// chooses by its family.
    pub fn dialect(mut self, name: impl Into<String>) -> Self {
        self.dialects.push(name.into());
        self
    }

    /// Also the dialects of the request's `model` (by its family), beside
    /// those of [`ServeConfig::dialect`] (`--dialect actions
    /// --model-dialects`: fences and call tags, and the model's own
    /// format).
    pub fn model_dialects(mut self, on: bool) -> Self {
        self.model_dialects = on;
        self
    }

    /// Whether the request's `model` says that the answer starts inside
    /// reasoning, for the families whose chat template ends the prompt
    /// inside it ([`reasoning_opens`](crate::dialect::family::reasoning_opens);
    /// default on). A request that turns thinking off
    /// (`chat_template_kwargs` `enable_thinking` / `thinking` false) is read
    /// with it off; `--no-reasoning-open` turns it off for all.
    pub fn reasoning_open_by_model(mut self, on: bool) -> Self {
        self.reasoning_open_by_model = on;
        self
    }

    /// When calls go out (default [`Calls::Live`]: as the model writes
    /// them, each from its first argument fragment).
    pub fn calls(mut self, calls: Calls) -> Self {
        self.calls = calls;
        self
    }

    /// The parser configuration the dialects and tools are added to (tags,
    /// discriminators, limits, dialects a configuration file defined).
    pub fn parser_config(mut self, config: Config) -> Self {
        self.base = config;
        self
    }

    /// The upstream base URL.
    pub fn upstream(&self) -> &str {
        &self.upstream
    }
}

/// Why a gateway cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeError(pub String);

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// What the handlers share.
pub(crate) struct Shared {
    client: reqwest::Client,
    chat_url: reqwest::Url,
    models_url: reqwest::Url,
    key: Option<Key>,
    dialects: Vec<String>,
    model_dialects: bool,
    reasoning_open_by_model: bool,
    calls: Calls,
    base: Config,
    configs: Mutex<HashMap<String, Config>>,
}

impl Shared {
    fn new(config: ServeConfig) -> Result<Self, ServeError> {
        let base = config.upstream.trim_end_matches('/');
        let parse = |path: &str| {
            reqwest::Url::parse(&format!("{base}/{path}"))
                .map_err(|e| ServeError(format!("the upstream URL `{}`: {e}", config.upstream)))
        };
        let chat_url = parse("chat/completions")?;
        let models_url = parse("models")?;
        if !matches!(chat_url.scheme(), "http" | "https") {
            return Err(ServeError(format!(
                "the upstream URL `{}` must be http or https",
                config.upstream
            )));
        }
        for name in &config.dialects {
            config
                .base
                .clone()
                .dialect_named(name)
                .map_err(|e| ServeError(e.to_string()))?;
        }
        let client = reqwest::Client::builder()
            .connect_timeout(std::time::Duration::from_secs(10))
            .tcp_nodelay(true)
            .build()
            .map_err(|e| ServeError(format!("cannot build the HTTP client: {e}")))?;
        Ok(Shared {
            client,
            chat_url,
            models_url,
            key: config.key,
            dialects: config.dialects,
            model_dialects: config.model_dialects,
            reasoning_open_by_model: config.reasoning_open_by_model,
            calls: config.calls,
            base: config.base,
            configs: Mutex::new(HashMap::new()),
        })
    }

    /// The dialects a request for `model` is read with.
    pub(crate) fn dialects_for(&self, model: Option<&str>) -> Vec<String> {
        let mut names = self.dialects.clone();
        if names.is_empty() || self.model_dialects {
            if let Some(found) = model.and_then(|m| dialects_for_model(m).ok()) {
                for d in found {
                    if !names.iter().any(|n| n == d) {
                        names.push(d.to_owned());
                    }
                }
            }
        }
        if names.is_empty() {
            names.push("actions".to_owned());
        }
        names
    }

    /// Whether an answer for `model` starts inside reasoning: as the
    /// model's family has it, unless the request turned thinking off
    /// (`thinking` false) or the gateway does not go by the model.
    pub(crate) fn reasoning_open_for(&self, model: Option<&str>, thinking: Option<bool>) -> bool {
        self.reasoning_open_by_model
            && thinking != Some(false)
            && model.is_some_and(crate::dialect::family::reasoning_opens)
    }

    /// The parser configuration for these dialects and tools (argument
    /// deltas on), and reasoning open or not, built once per distinct
    /// triple and kept.
    pub(crate) fn config_for(
        &self,
        dialects: &[String],
        tools: Option<&(String, Vec<(String, Value)>)>,
        reasoning_open: bool,
    ) -> Result<Config, ApiError> {
        let key = format!(
            "{}\n{reasoning_open}\n{}",
            dialects.join(","),
            tools.map_or("", |(text, _)| text.as_str())
        );
        if let Some(config) = self.configs.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(config);
        }
        let mut config = self.base.clone().argument_deltas(true);
        for name in dialects {
            config = config
                .dialect_named(name)
                .map_err(|e| ApiError::internal(e.to_string()))?;
        }
        if let Some((_, list)) = tools {
            if !list.is_empty() {
                config = config.tools(list.clone());
            }
        }
        if reasoning_open {
            config = config.reasoning_open(true);
        }
        if let Ok(mut cache) = self.configs.lock() {
            if cache.len() >= CONFIG_CACHE {
                cache.clear();
            }
            cache.insert(key, config.clone());
        }
        Ok(config)
    }

    /// The `Authorization` header to send upstream: the key, else the
    /// client's own.
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

/// The gateway's routes: `POST /v1/chat/completions`, `GET /v1/models`
/// (passed on), `GET /` (the live page).
///
/// # Errors
///
/// An upstream URL that is not http or https, or an unknown dialect.
pub fn router(config: ServeConfig) -> Result<Router, ServeError> {
    let shared = Arc::new(Shared::new(config)?);
    Ok(Router::new()
        .route("/", get(page))
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/models", get(chat::models))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared))
}

/// Serves the gateway on `listener` until the process is stopped.
///
/// # Errors
///
/// A configuration [`router`] refuses (as an `InvalidInput` error), or the
/// listener's failure.
pub async fn serve(listener: tokio::net::TcpListener, config: ServeConfig) -> std::io::Result<()> {
    serve_until(listener, config, std::future::pending()).await
}

/// Serves the gateway on `listener` until `shutdown` completes, then waits
/// for the open requests to end.
///
/// # Errors
///
/// As [`serve`].
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    config: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let upstream = config.upstream.clone();
    let app =
        router(config).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.0))?;
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, %upstream, "actionstream gateway listening on http://{addr}");
    }
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        PAGE,
    )
        .into_response()
}

async fn not_found() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "no such route: the gateway answers POST /v1/chat/completions, GET /v1/models and GET /",
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(config: ServeConfig) -> Shared {
        Shared::new(config).unwrap()
    }

    #[test]
    fn dialects_come_from_the_flag_else_the_model_else_actions() {
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1"));
        assert_eq!(
            s.dialects_for(Some("Qwen/Qwen3-Coder-30B-A3B-Instruct")),
            ["qwen3_coder"]
        );
        assert_eq!(s.dialects_for(Some("gpt-4o")), ["actions"]);
        assert_eq!(s.dialects_for(None), ["actions"]);
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1").dialect("hermes"));
        assert_eq!(
            s.dialects_for(Some("deepseek-ai/DeepSeek-V3.1")),
            ["hermes"]
        );
        let s = shared(
            ServeConfig::new("http://127.0.0.1:1/v1")
                .dialect("actions")
                .model_dialects(true),
        );
        assert_eq!(
            s.dialects_for(Some("deepseek-ai/DeepSeek-V3.1")),
            ["actions", "deepseek_v31"]
        );
        assert_eq!(s.dialects_for(Some("gpt-4o")), ["actions"]);
    }

    #[test]
    fn reasoning_opens_by_the_model_unless_turned_off() {
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1"));
        assert!(s.reasoning_open_for(Some("deepseek-ai/DeepSeek-R1"), None));
        assert!(s.reasoning_open_for(Some("deepseek-ai/DeepSeek-R1"), Some(true)));
        assert!(!s.reasoning_open_for(Some("deepseek-ai/DeepSeek-R1"), Some(false)));
        assert!(!s.reasoning_open_for(Some("deepseek-ai/DeepSeek-V3.1"), None));
        assert!(!s.reasoning_open_for(None, None));
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1").reasoning_open_by_model(false));
        assert!(!s.reasoning_open_for(Some("deepseek-ai/DeepSeek-R1"), None));
    }

    #[test]
    fn bad_configurations_are_refused() {
        let err = Shared::new(ServeConfig::new("ftp://x/v1")).err().unwrap();
        assert!(err.0.contains("http or https"), "{err}");
        let err = Shared::new(ServeConfig::new("http://x/v1").dialect("qwen"))
            .err()
            .unwrap();
        assert!(err.0.contains("unknown dialect"), "{err}");
        assert!(Shared::new(ServeConfig::new("not a url")).is_err());
    }

    #[test]
    fn the_key_is_never_shown() {
        let config = ServeConfig::new("http://x/v1").upstream_key("sk-secret-123");
        assert!(!format!("{config:?}").contains("sk-secret-123"));
        let s = shared(config);
        let auth = s.authorization(None).unwrap();
        assert!(auth.is_sensitive());
        assert!(!format!("{auth:?}").contains("sk-secret-123"));
    }

    #[test]
    fn configs_are_built_once_per_dialects_and_tools() {
        let s = shared(ServeConfig::new("http://x/v1"));
        let names = vec!["qwen3_coder".to_owned()];
        let a = s.config_for(&names, None, false).unwrap();
        let b = s.config_for(&names, None, false).unwrap();
        assert!(Arc::ptr_eq(&a.compiled, &b.compiled));
        assert!(a.get_argument_deltas());
    }
}
