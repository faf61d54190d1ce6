//! `actionstream serve`: the OpenAI-compatible gateway (a shell over
//! `actionstream::serve`).

use actionstream::protocol::Calls;
use actionstream::serve::ServeConfig;

use crate::parse::CallsArg;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The upstream's base URL, `/v1` included, as an SDK's `base_url`
    /// (`http://127.0.0.1:8000/v1`); http or https.
    #[arg(long, value_name = "URL")]
    pub upstream: String,
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
}

pub fn main(args: ServeArgs) -> Result<(), String> {
    init_logging();
    let mut config = ServeConfig::new(args.upstream.clone())
        .model_dialects(args.model_dialects)
        .reasoning_open_by_model(!args.no_reasoning_open)
        .calls(match args.calls {
            CallsArg::Live => Calls::Live,
            CallsArg::Complete => Calls::Complete,
        });
    if let Some(var) = &args.upstream_key_env {
        let key = std::env::var(var)
            .map_err(|_| format!("--upstream-key-env {var}: the variable is not set"))?;
        config = config.upstream_key(key);
    }
    for d in &args.dialects {
        config = config.dialect(d.clone());
    }
    // Refuse a bad URL or dialect before listening.
    actionstream::serve::router(config.clone())
        .map(drop)
        .map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("interrupted: finishing the open requests");
        };
        actionstream::serve::serve_until(listener, config, shutdown)
            .await
            .map_err(|e| e.to_string())
    })
}

/// Log lines on standard error: `RUST_LOG` (targets and levels, as
/// `warn,actionstream=debug`), by default `actionstream` at info and the
/// rest at warn.
fn init_logging() {
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|s| s.parse::<tracing_subscriber::filter::Targets>().ok())
        .unwrap_or_else(|| {
            tracing_subscriber::filter::Targets::new()
                .with_default(tracing::Level::WARN)
                .with_target("actionstream", tracing::Level::INFO)
        });
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(filter)
        .try_init();
}
