//! The built-in handlers `log`, `jsonl` and `exec` (`file` has a file of its
//! own).

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use super::handler::{Handler, HandlerResult};
use crate::event::Action;
use crate::wire::action_json;

/// `builtin:log`: logs the action with [`tracing::info!`] and returns
/// `{"logged": true}`, as the seeds' `LogActionHandler` does.
///
/// ```
/// use actionstream::dispatch::{Dispatcher, DispatchOptions, LogHandler};
/// let d = Dispatcher::new(DispatchOptions::default()).handler("note", LogHandler);
/// # let _ = d;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LogHandler;

impl Handler for LogHandler {
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        Box::pin(async move {
            tracing::info!(
                id = action.id.0,
                action = %action.name,
                arguments = %action.arguments,
                "action"
            );
            Ok(json!({"logged": true}))
        })
    }
}

/// `builtin:jsonl`: appends each action as one JSON line to an audit file
/// (created when missing): [`action_json`](crate::wire::action_json) plus `"time_ms"`, the
/// milliseconds since the Unix epoch. Lines are written whole, one at a
/// time, so concurrent actions never interleave. Output: `{"appended":
/// true}`.
///
/// ```
/// use actionstream::dispatch::JsonlHandler;
/// let h = JsonlHandler::new(std::env::temp_dir().join("audit.jsonl"));
/// # let _ = h;
/// ```
#[derive(Debug, Clone)]
pub struct JsonlHandler {
    path: Arc<PathBuf>,
    lock: Arc<Mutex<()>>,
}

impl JsonlHandler {
    /// A handler that appends to `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        JsonlHandler {
            path: Arc::new(path.into()),
            lock: Arc::new(Mutex::new(())),
        }
    }

    fn append(&self, action: &Action) -> HandlerResult {
        let mut line = action_json(action);
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        line["time_ms"] = json!(ms);
        let mut text = line.to_string();
        text.push('\n');
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let shown = self.path.display();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&*self.path)
            .map_err(|e| format!("cannot open {shown}: {e}"))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| format!("cannot write {shown}: {e}"))?;
        Ok(json!({"appended": true}))
    }
}

impl Handler for JsonlHandler {
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        let this = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || this.append(&action))
                .await
                .map_err(|e| format!("the audit write did not finish: {e}"))?
        })
    }
}

/// `builtin:exec`: runs a program fixed by the configuration (the model
/// never chooses the program or its arguments) with the action as JSON
/// ([`action_json`](crate::wire::action_json)) on its standard input, and returns its standard output:
/// parsed as JSON when it is JSON, else as a string (trailing line ending
/// removed). A non-zero exit is an error carrying the start of standard
/// error. Past its timeout (default 30 s) the program is killed.
///
/// ```
/// use actionstream::dispatch::ExecHandler;
/// let h = ExecHandler::new("/bin/cat", Vec::<String>::new())
///     .timeout(std::time::Duration::from_secs(5));
/// # let _ = h;
/// ```
#[derive(Debug, Clone)]
pub struct ExecHandler {
    program: PathBuf,
    args: Vec<String>,
    timeout: Duration,
}

impl ExecHandler {
    /// A handler that runs `program` with `args`.
    pub fn new<I, S>(program: impl Into<PathBuf>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ExecHandler {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            timeout: super::DEFAULT_TIMEOUT,
        }
    }

    /// Sets the time after which the program is killed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The time after which the program is killed.
    pub fn time_limit(&self) -> Duration {
        self.timeout
    }

    async fn run(self, action: Action) -> HandlerResult {
        let shown = self.program.display().to_string();
        let mut input = action_json(&action).to_string();
        input.push('\n');
        let mut child = tokio::process::Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Also when this future is dropped (the dispatcher's timeout).
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run {shown}: {e}"))?;
        let stdin = child.stdin.take();
        let feed = async move {
            if let Some(mut stdin) = stdin {
                // A program that does not read its input is not an error.
                let _ = stdin.write_all(input.as_bytes()).await;
                let _ = stdin.shutdown().await;
            }
        };
        let both = async { tokio::join!(feed, child.wait_with_output()).1 };
        let out = match tokio::time::timeout(self.timeout, both).await {
            Ok(r) => r.map_err(|e| format!("{shown} failed: {e}"))?,
            // Dropping the child kills it (`kill_on_drop`).
            Err(_) => {
                return Err(format!(
                    "{shown} timed out after {} s and was killed",
                    self.timeout.as_secs_f64()
                ))
            }
        };
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stderr: String = stderr.trim().chars().take(2000).collect();
            return Err(format!("{shown} exited with {}: {stderr}", out.status));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        Ok(serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.to_string())))
    }
}

impl Handler for ExecHandler {
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        Box::pin(self.clone().run(action))
    }
}
