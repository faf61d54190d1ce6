//! Dispatch settings: the handlers by action name and what the built-ins
//! need ([`DispatchConfig`]), read from a configuration file and built into
//! a [`Dispatcher`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::builtin::{ExecHandler, JsonlHandler, LogHandler};
use super::file::FileHandler;
use super::handler::Handler;
use super::policy::ApprovalPolicy;
use super::{DispatchOptions, Dispatcher};
use crate::config_file::ConfigFile;

/// A program the `exec` handler may run; the model never chooses it.
///
/// ```
/// let e: actionstream::dispatch::ExecSpec =
///     serde_json::from_str(r#"{"program": "./deploy.sh", "args": ["--dry"]}"#).unwrap();
/// assert_eq!(e.args, ["--dry"]);
/// ```
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
pub struct ExecSpec {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Seconds before it is stopped.
    pub timeout_secs: Option<u64>,
}

/// Everything a [`Dispatcher`] is built from: handler specs by action name,
/// what the built-ins need, and how handlers run. Start from the default,
/// fold a configuration file in ([`ConfigFile::dispatch_config`]), then
/// change [`DispatchConfig::options`] as flags ask.
#[derive(Debug, Clone, Default)]
pub struct DispatchConfig {
    /// Handler specs by action name (`builtin:log`, `builtin:file`,
    /// `builtin:jsonl`, `builtin:exec`).
    pub handlers: BTreeMap<String, String>,
    /// Root directory of the `file` handler.
    pub file_root: Option<PathBuf>,
    /// Audit file of the `jsonl` handler.
    pub jsonl_path: Option<PathBuf>,
    /// Programs of the `exec` handler, by action name.
    pub exec: BTreeMap<String, ExecSpec>,
    /// Timeout of `exec` programs that set none of their own (the file's
    /// `handler_timeout_secs`; later changes to `options.timeout` leave it).
    pub exec_timeout: Option<Duration>,
    /// How handlers run.
    pub options: DispatchOptions,
}

impl ConfigFile {
    /// The file's dispatch settings folded over `config`: its `handlers`
    /// map over `actions.handlers`, plus `builtin:log` for every name in
    /// `actions.types` without a handler (as the seeds' executor does; none
    /// of the `actions` section when it is disabled); `file_root`,
    /// `jsonl_path`, `exec`; and the options `max_concurrent`,
    /// `handler_timeout_secs`, `require_approval`, `in_order`, `dry_run`.
    pub fn dispatch_config(&self, mut config: DispatchConfig) -> DispatchConfig {
        let specs = self.handler_specs();
        let types: &[String] = if self.actions_enabled() {
            &self.actions.types
        } else {
            &[]
        };
        for t in types {
            if !specs.contains_key(t) {
                config.handlers.insert(t.clone(), "builtin:log".into());
            }
        }
        config.handlers.extend(specs);
        if self.file_root.is_some() {
            config.file_root.clone_from(&self.file_root);
        }
        if self.jsonl_path.is_some() {
            config.jsonl_path.clone_from(&self.jsonl_path);
        }
        config.exec.extend(self.exec.clone());
        let o = &mut config.options;
        if let Some(n) = self.max_concurrent {
            o.max_concurrent = n.max(1);
        }
        if let Some(s) = self.handler_timeout_secs {
            o.timeout = Duration::from_secs(s);
            config.exec_timeout = Some(o.timeout);
        }
        o.approval = ApprovalPolicy::names(self.require_approval.iter().cloned());
        o.in_order = self.in_order.unwrap_or(false);
        o.dry_run = self.dry_run.unwrap_or(false);
        config
    }
}

/// Why a configuration's handlers cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DispatchConfigError {
    /// `builtin:NAME` with a NAME that is not built in.
    #[error(
        "action '{action}': unknown handler 'builtin:{name}' (built in: log, file, jsonl, exec)"
    )]
    UnknownBuiltin {
        /// The action name.
        action: String,
        /// The unknown builtin name.
        name: String,
    },
    /// A spec that is not `builtin:…` (such as the seeds' script paths).
    #[error("action '{action}': unsupported handler '{spec}' (use builtin:log, builtin:file, builtin:jsonl or builtin:exec)")]
    Unsupported {
        /// The action name.
        action: String,
        /// The spec.
        spec: String,
    },
    /// A builtin needs a setting the file does not give.
    #[error("action '{action}': builtin:{builtin} needs `{setting}` in the configuration")]
    Missing {
        /// The action name.
        action: String,
        /// The builtin.
        builtin: &'static str,
        /// The setting it needs.
        setting: String,
    },
}

impl Dispatcher {
    /// Builds the handlers of `config`, each `"action": "builtin:NAME"`,
    /// with its options.
    ///
    /// Relative `file_root`, `jsonl_path` and `exec` programs (those with a
    /// `/`) are resolved against `base`, the directory of the configuration
    /// file; a bare program name is looked up in `PATH`. An `exec` entry's
    /// `timeout_secs` is both the program's and the handler's timeout.
    ///
    /// ```
    /// use actionstream::dispatch::{Dispatcher, DispatchConfig, DispatchConfigError};
    ///
    /// let file: actionstream::ConfigFile = serde_json::from_str(
    ///     r#"{"actions": {"types": ["note"], "handlers": {"decision": "builtin:log"}}}"#,
    /// ).unwrap();
    /// let config = file.dispatch_config(DispatchConfig::default());
    /// let d = Dispatcher::from_config(&config, std::path::Path::new(".")).unwrap();
    /// assert_eq!(d.names(), ["decision", "note"]);
    ///
    /// let bad: actionstream::ConfigFile =
    ///     serde_json::from_str(r#"{"handlers": {"x": "builtin:github-issue"}}"#).unwrap();
    /// assert!(matches!(
    ///     Dispatcher::from_config(&bad.dispatch_config(DispatchConfig::default()), std::path::Path::new(".")),
    ///     Err(DispatchConfigError::UnknownBuiltin { .. })
    /// ));
    /// ```
    pub fn from_config(
        config: &DispatchConfig,
        base: &Path,
    ) -> Result<Dispatcher, DispatchConfigError> {
        let mut d = Dispatcher::new(config.options.clone());
        for (action, spec) in &config.handlers {
            let Some(name) = spec.strip_prefix("builtin:") else {
                return Err(DispatchConfigError::Unsupported {
                    action: action.clone(),
                    spec: spec.clone(),
                });
            };
            let missing = |builtin: &'static str, setting: &str| DispatchConfigError::Missing {
                action: action.clone(),
                builtin,
                setting: setting.to_string(),
            };
            let (handler, timeout): (Arc<dyn Handler>, Option<Duration>) = match name {
                "log" => (Arc::new(LogHandler), None),
                "file" => {
                    let root = config
                        .file_root
                        .as_ref()
                        .ok_or_else(|| missing("file", "file_root"))?;
                    (Arc::new(FileHandler::new(resolve(base, root))), None)
                }
                "jsonl" => {
                    let path = config
                        .jsonl_path
                        .as_ref()
                        .ok_or_else(|| missing("jsonl", "jsonl_path"))?;
                    (Arc::new(JsonlHandler::new(resolve(base, path))), None)
                }
                "exec" => {
                    let spec = config
                        .exec
                        .get(action)
                        .ok_or_else(|| missing("exec", &format!("exec.{action}")))?;
                    if spec.program.as_os_str().is_empty() {
                        return Err(missing("exec", &format!("exec.{action}.program")));
                    }
                    let program = if spec.program.components().count() > 1 {
                        resolve(base, &spec.program)
                    } else {
                        spec.program.clone()
                    };
                    let mut h = ExecHandler::new(program, spec.args.iter().cloned());
                    let timeout = spec.timeout_secs.map(Duration::from_secs);
                    if let Some(t) = timeout.or(config.exec_timeout) {
                        h = h.timeout(t);
                    }
                    (Arc::new(h), timeout)
                }
                other => {
                    return Err(DispatchConfigError::UnknownBuiltin {
                        action: action.clone(),
                        name: other.to_string(),
                    })
                }
            };
            d = d.register(action.clone(), handler, timeout, spec.clone());
        }
        Ok(d)
    }
}

fn resolve(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}
