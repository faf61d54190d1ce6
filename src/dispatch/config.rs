//! Building a [`Dispatcher`] from a configuration file's `handlers` map.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::builtin::{ExecHandler, JsonlHandler, LogHandler};
use super::file::FileHandler;
use super::handler::Handler;
use super::policy::ApprovalPolicy;
use super::{DispatchOptions, Dispatcher};
use crate::config_file::ConfigFile;

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
    /// Builds the handlers of a configuration file: its `handlers` map over
    /// `actions.handlers`, each `"action": "builtin:NAME"`, plus
    /// `builtin:log` for every name in `actions.types` without a handler (as
    /// the seeds' executor does); and the options `max_concurrent`,
    /// `handler_timeout_secs`, `require_approval`, `in_order`, `dry_run`.
    ///
    /// Relative `file_root`, `jsonl_path` and `exec` programs (those with a
    /// `/`) are resolved against `base`, the directory of the configuration
    /// file; a bare program name is looked up in `PATH`. An `exec` entry's
    /// `timeout_secs` is both the program's and the handler's timeout.
    ///
    /// ```
    /// use actionstream::dispatch::{Dispatcher, DispatchConfigError};
    ///
    /// let file: actionstream::ConfigFile = serde_json::from_str(
    ///     r#"{"actions": {"types": ["note"], "handlers": {"decision": "builtin:log"}}}"#,
    /// ).unwrap();
    /// let d = Dispatcher::from_config(&file, std::path::Path::new(".")).unwrap();
    /// assert_eq!(d.names(), ["decision", "note"]);
    ///
    /// let bad: actionstream::ConfigFile =
    ///     serde_json::from_str(r#"{"handlers": {"x": "builtin:github-issue"}}"#).unwrap();
    /// assert!(matches!(
    ///     Dispatcher::from_config(&bad, std::path::Path::new(".")),
    ///     Err(DispatchConfigError::UnknownBuiltin { .. })
    /// ));
    /// ```
    pub fn from_config(file: &ConfigFile, base: &Path) -> Result<Dispatcher, DispatchConfigError> {
        let mut options = DispatchOptions::default();
        if let Some(n) = file.max_concurrent {
            options.max_concurrent = n.max(1);
        }
        if let Some(s) = file.handler_timeout_secs {
            options.timeout = Duration::from_secs(s);
        }
        options.approval = ApprovalPolicy::names(file.require_approval.iter().cloned());
        options.in_order = file.in_order.unwrap_or(false);
        options.dry_run = file.dry_run.unwrap_or(false);
        let mut d = Dispatcher::new(options);
        let specs = file.handler_specs();
        for (action, spec) in &specs {
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
                    let root = file
                        .file_root
                        .as_ref()
                        .ok_or_else(|| missing("file", "file_root"))?;
                    (Arc::new(FileHandler::new(resolve(base, root))), None)
                }
                "jsonl" => {
                    let path = file
                        .jsonl_path
                        .as_ref()
                        .ok_or_else(|| missing("jsonl", "jsonl_path"))?;
                    (Arc::new(JsonlHandler::new(resolve(base, path))), None)
                }
                "exec" => {
                    let spec = file
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
                    if let Some(t) = timeout.or(file.handler_timeout_secs.map(Duration::from_secs))
                    {
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
        // As `handler_specs` does: a disabled `actions` section adds nothing.
        let types: &[String] = if file.actions.enabled.unwrap_or(true) {
            &file.actions.types
        } else {
            &[]
        };
        for t in types {
            if !specs.contains_key(t) {
                d = d.register(t.clone(), Arc::new(LogHandler), None, "builtin:log".into());
            }
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
