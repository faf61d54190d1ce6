//! `actionstream serve`: the OpenAI-compatible gateway (a shell over
//! `actionstream::serve`).

use actionstream::protocol::Calls;
use actionstream::serve::ServeConfig;

use std::path::PathBuf;

use crate::parse::CallsArg;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The upstream's base URL, `/v1` included, as an SDK's `base_url`
    /// (`http://127.0.0.1:8000/v1`); http or https. With `--config`, the
    /// last, catch-all route.
    #[arg(long, value_name = "URL", required_unless_present = "config")]
    pub upstream: Option<String>,
    /// A JSON configuration file: `routes`, `client_keys_env`, and the
    /// parser's keys (tags, schemas, dialects it defines).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The address to listen on (port 0: any free port; the log says which).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// The environment variable that holds the upstream's API key, sent as
    /// `Authorization: Bearer` and never logged. Without it, a client's own
    /// `Authorization` header is passed on.
    #[arg(long, value_name = "VAR")]
    pub upstream_key_env: Option<String>,
    /// A dialect to read every answer with (repeatable; several combine):
    /// `actions` or a model's own format. Without it, the request's `model`
    /// chooses by its family, else `actions`.
    #[arg(long = "dialect", value_name = "NAME")]
    pub dialects: Vec<String>,
    /// Also the dialects of the request's `model`, beside those of
    /// `--dialect`.
    #[arg(long)]
    pub model_dialects: bool,
    /// Never read an answer as starting inside reasoning (by default the
    /// request's `model` says so for the families whose template ends the
    /// prompt inside it, as DeepSeek-R1's does).
    #[arg(long)]
    pub no_reasoning_open: bool,
    /// `live` sends each call as the model writes it, from its first
    /// argument fragment; `complete` holds each call until it completes.
    #[arg(long, value_enum, default_value = "live")]
    pub calls: CallsArg,
    /// The environment variable holding the client keys (comma-separated):
    /// a request without one is a 401. Without it the gateway is open.
    #[arg(long, value_name = "VAR")]
    pub client_keys_env: Option<String>,
    /// Seconds open answers may run after SIGTERM or SIGINT [default: 30].
    #[arg(long, value_name = "SECONDS")]
    pub drain_seconds: Option<f64>,
    /// The largest request body taken, in bytes [default: 33554432].
    #[arg(long, value_name = "BYTES")]
    pub max_body_bytes: Option<usize>,
    /// The most requests answered at once [default: 4096].
    #[arg(long, value_name = "N")]
    pub max_streams: Option<usize>,
    /// Seconds the upstream may be silent after its first byte
    /// [default: 300].
    #[arg(long, value_name = "SECONDS")]
    pub upstream_idle_seconds: Option<f64>,
    /// The log lines' format.
    #[arg(long, value_enum, default_value = "text")]
    pub log_format: LogFormat,
}

/// The log lines' format.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// `key=value` text.
    Text,
    /// One JSON object a line.
    Json,
}

/// The library's configuration from the options (every check is the
/// library's, in `ServeConfig::check`).
fn config(args: &ServeArgs) -> Result<ServeConfig, String> {
    let mut config = match &args.upstream {
        Some(url) => ServeConfig::new(url.clone()),
        None => ServeConfig::routed(),
    }
    .model_dialects(args.model_dialects)
    .reasoning_open_by_model(!args.no_reasoning_open)
    .calls(match args.calls {
        CallsArg::Live => Calls::Live,
        CallsArg::Complete => Calls::Complete,
    });
    if let Some(path) = &args.config {
        config = config.config_file(path).map_err(|e| e.to_string())?;
    }
    if let Some(var) = &args.upstream_key_env {
        let key = std::env::var(var)
            .map_err(|_| format!("--upstream-key-env {var}: the variable is not set"))?;
        config = config.upstream_key(key);
    }
    if let Some(var) = &args.client_keys_env {
        config = config.client_keys_env(var).map_err(|e| e.to_string())?;
    }
    for d in &args.dialects {
        config = config.dialect(d.clone());
    }
    if let Some(s) = args.drain_seconds {
        config = config.drain_seconds(s);
    }
    if let Some(n) = args.max_body_bytes {
        config = config.max_body_bytes(n);
    }
    if let Some(n) = args.max_streams {
        config = config.max_streams(n);
    }
    if let Some(s) = args.upstream_idle_seconds {
        config = config.upstream_idle_seconds(s);
    }
    config.check().map_err(|e| e.to_string())?;
    Ok(config)
}

pub fn main(args: ServeArgs) -> Result<(), String> {
    init_logging(args.log_format);
    let config = config(&args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let shutdown = stop_signal().map_err(|e| format!("cannot watch for signals: {e}"))?;
        actionstream::serve::serve_until(listener, config, shutdown)
            .await
            .map_err(|e| e.to_string())
    })
}

/// Completes at SIGTERM or SIGINT (Ctrl-C).
#[cfg(unix)]
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        tracing::info!(signal = name, "stopping");
    })
}

/// Completes at Ctrl-C.
#[cfg(not(unix))]
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!(signal = "ctrl-c", "stopping");
    })
}

/// Log lines on standard error: `RUST_LOG` (targets and levels, as
/// `warn,actionstream=debug`), by default `actionstream` at info and the
/// rest at warn.
fn init_logging(format: LogFormat) {
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|s| s.parse::<tracing_subscriber::filter::Targets>().ok())
        .unwrap_or_else(|| {
            tracing_subscriber::filter::Targets::new()
                .with_default(tracing::Level::WARN)
                .with_target("actionstream", tracing::Level::INFO)
        });
    let text = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let _ = match format {
        LogFormat::Text => tracing_subscriber::registry()
            .with(text.with_filter(filter))
            .try_init(),
        LogFormat::Json => tracing_subscriber::registry()
            .with(text.json().flatten_event(true).with_filter(filter))
            .try_init(),
    };
}
