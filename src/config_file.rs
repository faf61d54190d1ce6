//! The configuration file (`--config FILE`): tags, discriminators, schemas,
//! limits, strict mode and handlers, in JSON.
//!
//! It reads the seeds' `agent.json` `actions` section as it is (`enabled`,
//! `types`, `outputFormat` as an extra fence tag, `handlers`) beside our own
//! keys:
//!
//! ```json
//! {
//!   "actions": {
//!     "enabled": true,
//!     "types": ["decision", "note"],
//!     "required": {"decision": ["content"]},
//!     "outputFormat": "facilitator-action",
//!     "handlers": {"decision": "builtin:log"}
//!   },
//!   "fence_tags": ["plan"],
//!   "generic_tags": ["json"],
//!   "xml_tags": ["invoke"],
//!   "discriminators": ["kind"],
//!   "schemas": {"search": {"type": "object", "required": ["query"]}},
//!   "strict": false,
//!   "max_block_bytes": 1048576,
//!   "max_depth": 128,
//!   "handlers": {"search": "builtin:jsonl"},
//!   "file_root": "out",
//!   "jsonl_path": "actions.jsonl",
//!   "exec": {"deploy": {"program": "./deploy.sh", "args": ["--dry"]}}
//! }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::config::Config;
use crate::validate::TypeList;

/// The seeds' `actions` section.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ActionsSection {
    /// Whether actions are read at all (default true).
    pub enabled: Option<bool>,
    /// Allowed action types; other names are invalid.
    pub types: Vec<String>,
    /// Required fields per type.
    pub required: BTreeMap<String, Vec<String>>,
    /// An extra action fence tag.
    pub output_format: Option<String>,
    /// Handler specs by action name (`builtin:log`, …).
    pub handlers: BTreeMap<String, String>,
}

/// A program the `exec` handler may run; the model never chooses it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ExecSpec {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Seconds before it is stopped.
    pub timeout_secs: Option<u64>,
}

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ConfigFile {
    /// The seeds' section.
    pub actions: ActionsSection,
    /// Extra action fence tags.
    pub fence_tags: Vec<String>,
    /// Extra generic fence tags.
    pub generic_tags: Vec<String>,
    /// Extra call tag names.
    pub xml_tags: Vec<String>,
    /// Extra discriminator keys.
    pub discriminators: Vec<String>,
    /// JSON Schemas by action name.
    pub schemas: BTreeMap<String, Value>,
    /// No JSON repairs.
    pub strict: Option<bool>,
    /// The block size limit.
    pub max_block_bytes: Option<usize>,
    /// The nesting limit.
    pub max_depth: Option<usize>,
    /// Handler specs by action name (merged over `actions.handlers`).
    pub handlers: BTreeMap<String, String>,
    /// Root directory of the `file` handler.
    pub file_root: Option<PathBuf>,
    /// Audit file of the `jsonl` handler.
    pub jsonl_path: Option<PathBuf>,
    /// Programs of the `exec` handler, by action name.
    pub exec: BTreeMap<String, ExecSpec>,
    /// Handlers that run at once at most (default 4).
    pub max_concurrent: Option<usize>,
    /// Seconds a handler may take (default 30).
    pub handler_timeout_secs: Option<u64>,
    /// Actions queued for approval instead of run.
    pub require_approval: Vec<String>,
}

/// Why a configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a configuration.
    #[error("{path} is not a valid configuration: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// A schema does not compile.
    #[error("schema for '{name}' is invalid: {message}")]
    Schema {
        /// The action.
        name: String,
        /// Why.
        message: String,
    },
}

impl ConfigFile {
    /// Reads a configuration file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        })
    }

    /// Reads a schema file: a JSON object mapping action names to schemas.
    pub fn load_schemas(path: &Path) -> Result<BTreeMap<String, Value>, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source,
        })
    }

    /// Handler specs by action name: `handlers` over `actions.handlers`.
    pub fn handler_specs(&self) -> BTreeMap<String, String> {
        let mut all = self.actions.handlers.clone();
        all.extend(self.handlers.clone());
        all
    }

    /// Applies the file to `config`: tags, discriminators, limits, strict
    /// mode, and a validator from `schemas` or `actions.types`.
    ///
    /// ```
    /// let file: actionstream::ConfigFile = serde_json::from_str(
    ///     r#"{"actions": {"types": ["note"], "outputFormat": "facilitator-action"}}"#,
    /// ).unwrap();
    /// let config = file.apply(actionstream::Config::default()).unwrap();
    /// assert!(config.is_action_fence_tag("facilitator-action"));
    /// ```
    pub fn apply(&self, mut config: Config) -> Result<Config, ConfigError> {
        for t in self.fence_tags.iter().chain(&self.actions.output_format) {
            config = config.fence_tag(t.clone());
        }
        for t in &self.generic_tags {
            config = config.generic_tag(t.clone());
        }
        for t in &self.xml_tags {
            config = config.xml_tag(t.clone());
        }
        for d in &self.discriminators {
            config = config.discriminator(d.clone());
        }
        if let Some(s) = self.strict {
            config = config.strict(s);
        }
        if let Some(n) = self.max_block_bytes {
            config = config.max_block_bytes(n);
        }
        if let Some(n) = self.max_depth {
            config = config.max_depth(n);
        }
        if !self.schemas.is_empty() {
            config = self.apply_schemas(config)?;
        } else if !self.actions.types.is_empty() {
            let mut list = TypeList::new();
            for t in &self.actions.types {
                let required = self.actions.required.get(t).cloned().unwrap_or_default();
                list = list.allow(t.clone(), required);
            }
            config = config.validator(list);
        }
        Ok(config)
    }

    #[cfg(feature = "schema")]
    fn apply_schemas(&self, config: Config) -> Result<Config, ConfigError> {
        let v = crate::schema::SchemaValidator::from_map(&self.schemas)
            .map_err(|(name, message)| ConfigError::Schema { name, message })?;
        Ok(config.validator(v))
    }

    #[cfg(not(feature = "schema"))]
    fn apply_schemas(&self, _config: Config) -> Result<Config, ConfigError> {
        Err(ConfigError::Schema {
            name: self.schemas.keys().next().cloned().unwrap_or_default(),
            message: "this build has no `schema` feature".into(),
        })
    }
}
