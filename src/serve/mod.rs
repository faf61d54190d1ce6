//! An OpenAI-compatible gateway in front of any OpenAI-compatible server
//! (contract, sections 8 and 10; feature `serve`).
//!
//! Three client APIs are answered in front of the same upstream: Chat
//! Completions (`chat.rs`, below), Anthropic Messages (`POST /v1/messages`,
//! `POST /v1/messages/count_tokens`: `messages.rs`) and OpenAI Responses
//! (`POST /v1/responses`, stateless: `responses.rs`). The agent APIs'
//! requests are translated to one Chat Completions request each; the
//! answer goes through the same streaming core (`relay.rs`: one
//! [`SseParser`](crate::sse::SseParser) per choice, one
//! [`Encoder`](crate::protocol::Encoder) of the client's format), streamed
//! as it is read, or folded into the API's one object when the client did
//! not ask to stream (`answer.rs`). Errors take the client API's shape
//! ([`ApiError`] with its [`Api`]). What is translated and how:
//! `docs/agent-apis.md`.
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
//! Around every client API sits one layer (contract, section 11): routes
//! by model ([`RouteSpec`], several upstreams round robin), retries before
//! the upstream's first byte, client keys, the body and stream limits, the
//! upstream idle time, one record per request (its log line and metrics),
//! and the drain of [`serve_until`]. `GET /health`, `GET /ready` and
//! `GET /metrics` sit outside it.
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

mod answer;
mod auth;
mod chat;
mod drain;
mod error;
mod exchange;
mod gate;
mod messages;
mod metrics;
mod relay;
mod responses;
mod routes;
mod upstream;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;

use crate::dialect::family::dialects_for_model;
use crate::protocol::Calls;
use crate::{Config, ConfigFile};

pub use error::{Api, ApiError};
pub use routes::{RouteSpec, ServeFile};

use auth::ClientKeys;
use drain::Drain;
use exchange::Exchange;
use metrics::Metrics;
use routes::Route;

/// The response header that names the dialects the answer was read with.
pub(crate) const DIALECTS_HEADER: &str = "x-actionstream-dialects";

/// The live page, one self-contained file.
const PAGE: &str = include_str!("page.html");

/// How many parser configurations (by dialects and tool list) are kept
/// built, so that requests with the same tools share compiled schemas.
const CONFIG_CACHE: usize = 256;

/// What the gateway forwards to, how it reads the answers, and how it is
/// operated (routes, keys, limits, drain). Every option of `actionstream
/// serve` is set and checked here, for every face.
#[derive(Clone)]
pub struct ServeConfig {
    upstream: Option<String>,
    key: Option<Key>,
    routes: Vec<RouteSpec>,
    client_keys: ClientKeys,
    dialects: Vec<String>,
    model_dialects: bool,
    reasoning_open_by_model: bool,
    calls: Calls,
    base: Config,
    drain: Duration,
    max_body: usize,
    max_streams: usize,
    idle: Duration,
}

impl fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeConfig")
            .field("upstream", &self.upstream)
            .field("key", &self.key)
            .field("routes", &self.routes)
            .field("client_keys", &self.client_keys)
            .field("dialects", &self.dialects)
            .field("model_dialects", &self.model_dialects)
            .field("calls", &self.calls)
            .field("drain", &self.drain)
            .field("max_body", &self.max_body)
            .field("max_streams", &self.max_streams)
            .field("idle", &self.idle)
            .finish_non_exhaustive()
    }
}

/// An upstream key: sent as a sensitive header value, shown as
/// `[redacted]` by `Debug`.
#[derive(Clone)]
pub(crate) struct Key(HeaderValue);

impl Key {
    fn bearer(key: &str) -> Key {
        let mut value = HeaderValue::from_str(&format!("Bearer {key}"))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
        value.set_sensitive(true);
        Key(value)
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Reads an environment variable that must be set.
fn env_var(var: &str, what: &str) -> Result<String, ServeError> {
    std::env::var(var).map_err(|_| ServeError(format!("{what} {var}: the variable is not set")))
}

impl ServeConfig {
    /// A gateway in front of `upstream`, a base URL with `/v1` included,
    /// as an SDK's `base_url` (`http://127.0.0.1:8000/v1`); http or https.
    /// It is one route for every model (with [`ServeConfig::routes`], the
    /// last, catch-all route).
    pub fn new(upstream: impl Into<String>) -> Self {
        ServeConfig {
            upstream: Some(upstream.into()),
            ..ServeConfig::routed()
        }
    }

    /// A gateway with no catch-all upstream: only the routes of
    /// [`ServeConfig::routes`] answer.
    ///
    /// ```
    /// use actionstream::serve::{RouteSpec, ServeConfig};
    /// let route = RouteSpec { model: "qwen*".into(), upstream: vec!["http://127.0.0.1:8000/v1".into()], ..Default::default() };
    /// let config = ServeConfig::routed().routes(vec![route]);
    /// assert!(actionstream::serve::router(config).is_ok());
    /// ```
    pub fn routed() -> Self {
        ServeConfig {
            upstream: None,
            key: None,
            routes: Vec::new(),
            client_keys: ClientKeys::default(),
            dialects: Vec::new(),
            model_dialects: false,
            reasoning_open_by_model: true,
            calls: Calls::Live,
            base: Config::default(),
            drain: Duration::from_secs(30),
            max_body: 32 << 20,
            max_streams: 4096,
            idle: Duration::from_secs(300),
        }
    }

    /// The catch-all upstream's API key, sent as `Authorization: Bearer
    /// KEY` (never logged). Without one, a client's own `Authorization`
    /// header is passed on.
    pub fn upstream_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(Key::bearer(&key.into()));
        self
    }

    /// The routes, tried in order before the catch-all upstream.
    pub fn routes(mut self, routes: Vec<RouteSpec>) -> Self {
        self.routes = routes;
        self
    }

    /// Reads a configuration file: its `routes` and `client_keys_env`
    /// ([`ServeFile`]) and its parser keys ([`ConfigFile`]).
    ///
    /// # Errors
    ///
    /// A file that cannot be read or whose keys are wrong, or a
    /// `client_keys_env` variable that is not set.
    pub fn config_file(mut self, path: &Path) -> Result<Self, ServeError> {
        let file = ServeFile::load(path)?;
        let parser = ConfigFile::load(path).map_err(|e| ServeError(e.to_string()))?;
        self.base = parser
            .apply(self.base)
            .map_err(|e| ServeError(format!("{}: {e}", path.display())))?;
        self.routes = file.routes;
        if let Some(var) = &file.client_keys_env {
            self = self.client_keys_env(var)?;
        }
        Ok(self)
    }

    /// The keys clients must present, from an environment variable (keys
    /// separated by commas).
    ///
    /// # Errors
    ///
    /// The variable is not set, or holds no key.
    pub fn client_keys_env(mut self, var: &str) -> Result<Self, ServeError> {
        let keys = ClientKeys::parse(&env_var(var, "--client-keys-env")?);
        if keys.is_open() {
            return Err(ServeError(format!(
                "--client-keys-env {var}: the variable holds no key"
            )));
        }
        self.client_keys = keys;
        Ok(self)
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

    /// How long open answers may run after SIGTERM or SIGINT (default
    /// 30 s).
    pub fn drain_seconds(mut self, seconds: f64) -> Self {
        self.drain = Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX);
        self
    }

    /// The largest request body taken (default 32 MiB); larger is a 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// The most requests answered at once (default 4096); more is a 503
    /// with `Retry-After`.
    pub fn max_streams(mut self, streams: usize) -> Self {
        self.max_streams = streams;
        self
    }

    /// How long the upstream may be silent, after its first byte, before
    /// the answer ends with an error event (default 300 s).
    pub fn upstream_idle_seconds(mut self, seconds: f64) -> Self {
        self.idle = Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX);
        self
    }

    /// The catch-all upstream base URL, if there is one.
    pub fn upstream(&self) -> Option<&str> {
        self.upstream.as_deref()
    }

    /// The drain time.
    pub fn drain(&self) -> Duration {
        self.drain
    }

    /// Checks every option; [`router`] and [`serve`] refuse a
    /// configuration this refuses.
    ///
    /// # Errors
    ///
    /// What is wrong, naming the option.
    ///
    /// ```
    /// use actionstream::serve::ServeConfig;
    /// assert!(ServeConfig::new("http://127.0.0.1:8000/v1").check().is_ok());
    /// let err = ServeConfig::new("http://127.0.0.1:8000/v1").max_streams(0).check().unwrap_err();
    /// assert!(err.0.contains("--max-streams"));
    /// assert!(ServeConfig::routed().check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), ServeError> {
        Shared::new(self.clone()).map(drop)
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
    routes: Vec<Route>,
    /// `{server}/tokenize` (the catch-all route's base URL without its
    /// `/v1`), for token counts.
    tokenize_url: Option<reqwest::Url>,
    /// Set once the upstream answered that it has no `/tokenize`.
    no_tokenize: AtomicBool,
    dialects: Vec<String>,
    model_dialects: bool,
    reasoning_open_by_model: bool,
    calls: Calls,
    base: Config,
    configs: Mutex<HashMap<String, Config>>,
    pub(crate) keys: ClientKeys,
    pub(crate) metrics: Metrics,
    pub(crate) drain: Drain,
    pub(crate) streams: AtomicUsize,
    pub(crate) max_body: usize,
    pub(crate) max_streams: usize,
    pub(crate) idle: Duration,
    drain_time: Duration,
}

/// What one request is answered with: its route, dialects and parser
/// configuration.
pub(crate) struct Plan<'a> {
    pub(crate) route: &'a Route,
    pub(crate) dialects: Vec<String>,
    pub(crate) config: Config,
}

impl Shared {
    fn new(config: ServeConfig) -> Result<Self, ServeError> {
        if config.max_streams == 0 {
            return Err(ServeError("--max-streams must be at least 1".into()));
        }
        if config.max_body == 0 {
            return Err(ServeError("--max-body-bytes must be at least 1".into()));
        }
        if config.idle.is_zero() || config.idle == Duration::MAX {
            return Err(ServeError(
                "--upstream-idle-seconds must be a positive number of seconds".into(),
            ));
        }
        if config.drain == Duration::MAX {
            return Err(ServeError(
                "--drain-seconds must be a number of seconds, 0 or more".into(),
            ));
        }
        let mut routes = Vec::new();
        for spec in &config.routes {
            let key = match &spec.key_env {
                Some(var) => Some(Key::bearer(&env_var(
                    var,
                    &format!("route `{}`: key_env", spec.model),
                )?)),
                None => None,
            };
            routes.push(Route::build(spec, key)?);
        }
        if let Some(upstream) = &config.upstream {
            let spec = RouteSpec {
                model: "*".into(),
                upstream: vec![upstream.clone()],
                ..RouteSpec::default()
            };
            routes.push(
                Route::build(&spec, config.key.clone())
                    .map_err(|e| ServeError(e.0.replacen("route `*`: ", "", 1)))?,
            );
        }
        if routes.is_empty() {
            return Err(ServeError(
                "no upstream: give --upstream, or --config with `routes`".into(),
            ));
        }
        let names = config
            .dialects
            .iter()
            .chain(config.routes.iter().flat_map(|r| r.dialects.iter()));
        for name in names {
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
            tokenize_url: tokenize_url(&routes),
            no_tokenize: AtomicBool::new(false),
            routes,
            dialects: config.dialects,
            model_dialects: config.model_dialects,
            reasoning_open_by_model: config.reasoning_open_by_model,
            calls: config.calls,
            base: config.base,
            configs: Mutex::new(HashMap::new()),
            keys: config.client_keys,
            metrics: Metrics::new(),
            drain: Drain::new(),
            streams: AtomicUsize::new(0),
            max_body: config.max_body,
            max_streams: config.max_streams,
            idle: config.idle,
            drain_time: config.drain,
        })
    }

    /// The first route that answers `model`.
    ///
    /// # Errors
    ///
    /// A 404 listing the routes' models.
    pub(crate) fn route_for(&self, model: Option<&str>) -> Result<&Route, ApiError> {
        self.routes
            .iter()
            .find(|r| r.matches(model))
            .ok_or_else(|| {
                let models: Vec<&str> = self.routes.iter().map(|r| r.name.as_str()).collect();
                ApiError {
                    param: Some("model".into()),
                    code: Some("model_not_found"),
                    ..ApiError::new(
                        StatusCode::NOT_FOUND,
                        "invalid_request_error",
                        format!(
                            "no route for the model `{}`: the gateway serves {}",
                            model.unwrap_or(""),
                            models.join(", ")
                        ),
                    )
                }
            })
    }

    /// The route, dialects and parser configuration of a request for
    /// `model` with `tools` (else the route's tools), reasoning open as the
    /// model and the request's `thinking` say, noted in its record.
    ///
    /// # Errors
    ///
    /// A 404 when no route answers the model.
    pub(crate) fn plan(
        &self,
        exchange: &Exchange,
        model: Option<&str>,
        tools: Option<&(String, Vec<(String, Value)>)>,
        thinking: Option<bool>,
    ) -> Result<Plan<'_>, ApiError> {
        let route = self.route_for(model)?;
        let dialects = self.dialects_for(route, model);
        exchange.route(&route.name, model, &dialects);
        let open = self.reasoning_open_for(model, thinking);
        let config = self.config_for(&dialects, tools.or(route.tools.as_ref()), open)?;
        Ok(Plan {
            route,
            dialects,
            config,
        })
    }

    /// The route the `GET /v1/models` request goes to: the catch-all,
    /// else the first.
    pub(crate) fn models_route(&self) -> &Route {
        let last = self.routes.len() - 1;
        self.routes
            .iter()
            .find(|r| r.name == "*")
            .unwrap_or(&self.routes[last])
    }

    /// The dialects a request for `model` on `route` is read with: the
    /// route's, else `--dialect` (and the model's with
    /// `--model-dialects`), else the model's family, else `actions`.
    pub(crate) fn dialects_for(&self, route: &Route, model: Option<&str>) -> Vec<String> {
        if !route.dialects.is_empty() {
            return route.dialects.clone();
        }
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

    /// Sends a Chat Completions request body to one of `route`'s upstreams
    /// (`{upstream}/chat/completions`), tried again as [`upstream::send`]
    /// says, with the route's key (else the client's own `Authorization`,
    /// [`client_authorization`]); `stream` picks the `Accept` header.
    ///
    /// # Errors
    ///
    /// A 502 when no try reaches the upstream.
    pub(crate) async fn send(
        &self,
        exchange: &Exchange,
        route: &Route,
        body: impl Into<axum::body::Bytes>,
        stream: bool,
        client: Option<&HeaderValue>,
    ) -> Result<reqwest::Response, ApiError> {
        let body: axum::body::Bytes = body.into();
        let accept = if stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        let auth = route.authorization(client);
        upstream::send(self, route, exchange, |target| {
            let request = self
                .client
                .post(target.chat_url.clone())
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::ACCEPT, accept)
                .body(body.clone());
            match &auth {
                Some(auth) => request.header(header::AUTHORIZATION, auth.clone()),
                None => request,
            }
        })
        .await
    }

    /// The `Authorization` header to send to the catch-all route's
    /// upstream (token counts): its key, else the client's own.
    pub(crate) fn authorization(&self, client: Option<&HeaderValue>) -> Option<HeaderValue> {
        self.models_route().authorization(client)
    }
}

/// `{server}/tokenize` of the route `GET /v1/models` goes to.
fn tokenize_url(routes: &[Route]) -> Option<reqwest::Url> {
    let route = routes
        .iter()
        .find(|r| r.name == "*")
        .or_else(|| routes.last())?;
    let chat = route.targets.first()?.chat_url.as_str();
    let base = chat.strip_suffix("/chat/completions")?;
    let server = base.strip_suffix("/v1").unwrap_or(base);
    reqwest::Url::parse(&format!("{server}/tokenize")).ok()
}

/// The client's credentials as an `Authorization` header: its own
/// `Authorization`, else its `x-api-key` (Anthropic's clients) as
/// `Bearer KEY`.
pub(crate) fn client_authorization(headers: &axum::http::HeaderMap) -> Option<HeaderValue> {
    if let Some(auth) = headers.get(header::AUTHORIZATION) {
        return Some(auth.clone());
    }
    let key = headers.get("x-api-key")?.to_str().ok()?;
    let mut value = HeaderValue::from_str(&format!("Bearer {key}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// The gateway's routes: `POST /v1/chat/completions`, `POST
/// /v1/messages`, `POST /v1/messages/count_tokens`, `POST /v1/responses`,
/// `GET /v1/models` (passed on), behind the one layer of keys, limits,
/// drain, logs and metrics; `GET /health`, `GET /ready`, `GET /metrics` and
/// `GET /` (the live page) outside it.
///
/// # Errors
///
/// What [`ServeConfig::check`] refuses.
pub fn router(config: ServeConfig) -> Result<Router, ServeError> {
    Ok(app(Arc::new(Shared::new(config)?)))
}

fn app(shared: Arc<Shared>) -> Router {
    let api = Router::new()
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/messages", post(messages::messages))
        .route("/v1/messages/count_tokens", post(messages::count_tokens))
        .route("/v1/responses", post(responses::responses))
        .route("/v1/models", get(chat::models))
        .route_layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            gate::gate,
        ))
        // The gate reads the body against --max-body-bytes.
        .layer(DefaultBodyLimit::disable());
    Router::new()
        .route("/", get(page))
        .route("/health", get(gate::health))
        .route("/ready", get(gate::ready))
        .route("/metrics", get(gate::metrics))
        .merge(api)
        .fallback(not_found)
        .with_state(shared)
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

/// Serves the gateway on `listener` until `shutdown` completes, then
/// drains: `/ready` and new requests answer 503 for a moment, the listener
/// closes, open answers run to their end for up to the drain time, and
/// those still open then end with their API's error event.
///
/// # Errors
///
/// As [`serve`].
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    config: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let shared = Arc::new(
        Shared::new(config)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.0))?,
    );
    if shared.keys.is_open() {
        tracing::info!("open: no client keys");
    }
    if let Ok(addr) = listener.local_addr() {
        let routes: Vec<&str> = shared.routes.iter().map(|r| r.name.as_str()).collect();
        tracing::info!(%addr, routes = %routes.join(" "), "actionstream gateway listening on http://{addr}");
    }
    let app = app(shared.clone());
    let draining = shared.clone();
    let closing = async move {
        shutdown.await;
        draining.drain.begin();
        tracing::info!(
            seconds = draining.drain_time.as_secs_f64(),
            "draining: not ready; open answers run to their end"
        );
        tokio::time::sleep(drain::NOTICE.min(draining.drain_time)).await;
    };
    let server = axum::serve(listener, app).with_graceful_shutdown(closing);
    let mut server = std::pin::pin!(std::future::IntoFuture::into_future(server));
    tokio::select! {
        done = &mut server => return done,
        () = shared.drain.begun() => {}
    }
    tokio::select! {
        done = &mut server => return done,
        () = tokio::time::sleep(shared.drain_time) => {}
    }
    shared.drain.cut();
    tracing::info!("drain time over: the open answers end with an error");
    match tokio::time::timeout(drain::LAST_WORDS, &mut server).await {
        Ok(done) => done,
        Err(_) => Ok(()),
    }
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

async fn not_found(uri: axum::http::Uri) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "no such route: the gateway answers POST /v1/chat/completions, POST /v1/messages, \
         POST /v1/messages/count_tokens, POST /v1/responses, GET /v1/models and GET /",
    )
    .api(Api::for_path(uri.path()))
    .into_response()
}

/// Whether a Chat Completions request body turned the model's thinking on
/// or off (`chat_template_kwargs` `enable_thinking` or `thinking`, as vLLM
/// and SGLang read them); `None` when it says nothing.
pub(crate) fn thinking_asked(body: &serde_json::Map<String, Value>) -> Option<bool> {
    body.get("chat_template_kwargs").and_then(|k| {
        ["enable_thinking", "thinking"]
            .iter()
            .find_map(|key| k.get(*key).and_then(Value::as_bool))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(config: ServeConfig) -> Shared {
        Shared::new(config).unwrap()
    }

    impl Shared {
        fn dialects_of(&self, model: Option<&str>) -> Vec<String> {
            self.dialects_for(self.route_for(model).unwrap(), model)
        }
    }

    #[test]
    fn dialects_come_from_the_route_else_the_flag_else_the_model_else_actions() {
        let route = RouteSpec {
            model: "qwen*".into(),
            upstream: vec!["http://127.0.0.1:1/v1".into()],
            dialects: vec!["hermes".into()],
            ..RouteSpec::default()
        };
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1").routes(vec![route]));
        assert_eq!(s.dialects_of(Some("Qwen3-Coder")), ["hermes"]);
        assert_eq!(s.dialects_of(Some("gpt-4o")), ["actions"]);
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1"));
        assert_eq!(
            s.dialects_of(Some("Qwen/Qwen3-Coder-30B-A3B-Instruct")),
            ["qwen3_coder"]
        );
        assert_eq!(s.dialects_of(Some("gpt-4o")), ["actions"]);
        assert_eq!(s.dialects_of(None), ["actions"]);
        let s = shared(ServeConfig::new("http://127.0.0.1:1/v1").dialect("hermes"));
        assert_eq!(s.dialects_of(Some("deepseek-ai/DeepSeek-V3.1")), ["hermes"]);
        let s = shared(
            ServeConfig::new("http://127.0.0.1:1/v1")
                .dialect("actions")
                .model_dialects(true),
        );
        assert_eq!(
            s.dialects_of(Some("deepseek-ai/DeepSeek-V3.1")),
            ["actions", "deepseek_v31"]
        );
        assert_eq!(s.dialects_of(Some("gpt-4o")), ["actions"]);
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
        let err = Shared::new(ServeConfig::routed()).err().unwrap();
        assert!(err.0.contains("no upstream"), "{err}");
        let route = RouteSpec {
            model: "m".into(),
            upstream: vec!["http://x/v1".into()],
            key_env: Some("ACTIONSTREAM_TEST_UNSET_VARIABLE".into()),
            ..RouteSpec::default()
        };
        let err = Shared::new(ServeConfig::routed().routes(vec![route]))
            .err()
            .unwrap();
        assert!(
            err.0.contains("route `m`: key_env") && err.0.contains("not set"),
            "{err}"
        );
        for (config, option) in [
            (
                ServeConfig::new("http://x/v1").max_body_bytes(0),
                "--max-body-bytes",
            ),
            (
                ServeConfig::new("http://x/v1").upstream_idle_seconds(0.0),
                "--upstream-idle-seconds",
            ),
            (
                ServeConfig::new("http://x/v1").drain_seconds(-1.0),
                "--drain-seconds",
            ),
        ] {
            let err = config.check().unwrap_err();
            assert!(err.0.contains(option), "{err}");
        }
    }

    #[test]
    fn the_key_is_never_shown() {
        let config = ServeConfig::new("http://x/v1").upstream_key("sk-secret-123");
        assert!(!format!("{config:?}").contains("sk-secret-123"));
        let s = shared(config);
        let auth = s.routes[0].authorization(None).unwrap();
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
