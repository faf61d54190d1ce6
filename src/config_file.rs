//! The configuration file (`--config FILE`): tags, discriminators, schemas,
//! limits, strict mode and handlers, in JSON.
//!
//! It reads the seeds' `agent.json` `actions` section as it is (`enabled`,
//! `types`, `outputFormat` as an extra fence tag, `handlers`) beside our own
//! keys (`required` per type inside `actions` is ours too):
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
//!   "dialects": ["actions", "my_model"],
//!   "define_dialects": [{"name": "my_model", "reasoning": [{"open": "<reflect>", "close": "</reflect>"}],
//!     "sections": [{"open": "<call>", "close": "</call>", "calls": [{"format": "json",
//!       "name_keys": ["name"], "argument_keys": ["arguments"]}]}]}],
//!   "reasoning_open": false,
//!   "handlers": {"search": "builtin:jsonl"},
//!   "file_root": "out",
//!   "jsonl_path": "actions.jsonl",
//!   "exec": {"deploy": {"program": "./deploy.sh", "args": ["--dry"]}}
//! }
//! ```
//!
//! Validation comes from `schemas` when it is given (a map of action names to
//! JSON Schemas, or one discriminated-union schema with a top-level `oneOf` /
//! `anyOf`, split by the configured discriminators) and from `actions.types`
//! with `actions.required`: a name with a schema is checked against it, a
//! name listed only in `types` for its required fields, any other name is
//! unknown.
//!
//! `"enabled": false` switches the `actions` section off: its `types`,
//! `required`, `outputFormat` and `handlers` are ignored and nothing is
//! validated (top-level `schemas` included). Parsing goes on with the other
//! keys: blocks of the default and configured syntaxes are still taken out of
//! the narrative and reported, as actions that nothing checks; a block fenced
//! with the `outputFormat` tag is then an ordinary fence, i.e. narrative.

use std::collections::BTreeMap;
use std::path::Path;
#[cfg(feature = "dispatch")]
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::config::{Config, ParserSettings};
pub use crate::config_error::ConfigError;
use crate::validate::TypeList;

/// The seeds' `actions` section (see the [module docs](self)).
///
/// ```
/// let s: actionstream::ActionsSection = serde_json::from_str(
///     r#"{"enabled": true, "types": ["decision"], "outputFormat": "facilitator-action",
///         "handlers": {"decision": "builtin:log"}, "required": {"decision": ["content"]}}"#,
/// ).unwrap();
/// assert_eq!(s.output_format.as_deref(), Some("facilitator-action"));
/// assert_eq!(s.required["decision"], ["content"]);
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ActionsSection {
    /// Whether the section (and validation) is on (default true); see the
    /// module docs for what `false` means.
    pub enabled: Option<bool>,
    /// Allowed action types; other names are invalid.
    pub types: Vec<String>,
    /// Required fields per type (ours, not the seeds').
    pub required: BTreeMap<String, Vec<String>>,
    /// An extra action fence tag.
    pub output_format: Option<String>,
    /// Handler specs by action name (`builtin:log`, …).
    pub handlers: BTreeMap<String, String>,
}

/// The whole file (see the [module docs](self)).
///
/// ```
/// let file: actionstream::ConfigFile =
///     serde_json::from_str(r#"{"fence_tags": ["plan"], "strict": true}"#).unwrap();
/// let config = file.apply(actionstream::Config::default()).unwrap();
/// assert!(config.get_strict() && config.is_action_fence_tag("plan"));
/// ```
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
    /// JSON Schemas by action name (in file order), or one union schema.
    pub schemas: Map<String, Value>,
    /// No JSON repairs.
    pub strict: Option<bool>,
    /// The block size limit.
    pub max_block_bytes: Option<usize>,
    /// The nesting limit.
    pub max_depth: Option<usize>,
    /// Dialects chosen by name (`actions`, a built-in, or one defined in
    /// `define_dialects`).
    pub dialects: Vec<String>,
    /// A model id whose family chooses the dialects.
    pub model: Option<String>,
    /// More dialects, with the same fields as the built-ins.
    pub define_dialects: Vec<crate::dialect::Dialect>,
    /// The response starts inside reasoning.
    pub reasoning_open: Option<bool>,
    /// Call markers inside reasoning open calls.
    pub calls_in_reasoning: Option<bool>,
    /// Handler specs by action name (merged over `actions.handlers`).
    #[cfg(feature = "dispatch")]
    pub handlers: BTreeMap<String, String>,
    /// Root directory of the `file` handler.
    #[cfg(feature = "dispatch")]
    pub file_root: Option<PathBuf>,
    /// Audit file of the `jsonl` handler.
    #[cfg(feature = "dispatch")]
    pub jsonl_path: Option<PathBuf>,
    /// Programs of the `exec` handler, by action name.
    #[cfg(feature = "dispatch")]
    pub exec: BTreeMap<String, crate::dispatch::ExecSpec>,
    /// Handlers that run at once at most (default 4).
    #[cfg(feature = "dispatch")]
    pub max_concurrent: Option<usize>,
    /// Seconds a handler may take (default 30).
    #[cfg(feature = "dispatch")]
    pub handler_timeout_secs: Option<u64>,
    /// Actions queued for approval instead of run.
    #[cfg(feature = "dispatch")]
    pub require_approval: Vec<String>,
    /// Run handlers one at a time, in action order.
    #[cfg(feature = "dispatch")]
    pub in_order: Option<bool>,
    /// Run no handler; results say it was a dry run.
    #[cfg(feature = "dispatch")]
    pub dry_run: Option<bool>,
}

impl ConfigFile {
    /// Reads a configuration file.
    ///
    /// ```
    /// let path = std::env::temp_dir().join("actionstream-doc-load.json");
    /// std::fs::write(&path, r#"{"actions": {"types": ["note"]}}"#).unwrap();
    /// let file = actionstream::ConfigFile::load(&path).unwrap();
    /// assert_eq!(file.actions.types, ["note"]);
    /// ```
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

    /// Reads a schema file: a JSON object mapping action names to schemas
    /// (or one discriminated-union schema), in file order.
    ///
    /// ```
    /// let path = std::env::temp_dir().join("actionstream-doc-schemas.json");
    /// std::fs::write(&path, r#"{"b": {"type": "object"}, "a": {"type": "object"}}"#).unwrap();
    /// let map = actionstream::ConfigFile::load_schemas(&path).unwrap();
    /// assert_eq!(map.keys().collect::<Vec<_>>(), ["b", "a"]);
    /// ```
    pub fn load_schemas(path: &Path) -> Result<Map<String, Value>, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ConfigError::SchemaFile {
            path: path.to_owned(),
            source,
        })
    }

    /// Whether the `actions` section is on (`enabled` absent or true).
    ///
    /// ```
    /// let file: actionstream::ConfigFile =
    ///     serde_json::from_str(r#"{"actions": {"enabled": false}}"#).unwrap();
    /// assert!(!file.actions_enabled());
    /// ```
    pub fn actions_enabled(&self) -> bool {
        self.actions.enabled.unwrap_or(true)
    }

    /// Handler specs by action name: `handlers` over `actions.handlers`
    /// (the latter only while the section is enabled).
    ///
    /// ```
    /// let file: actionstream::ConfigFile = serde_json::from_str(
    ///     r#"{"actions": {"handlers": {"note": "builtin:log"}}, "handlers": {"x": "builtin:jsonl"}}"#,
    /// ).unwrap();
    /// assert_eq!(file.handler_specs().len(), 2);
    /// ```
    #[cfg(feature = "dispatch")]
    pub fn handler_specs(&self) -> BTreeMap<String, String> {
        let mut all = if self.actions_enabled() {
            self.actions.handlers.clone()
        } else {
            BTreeMap::new()
        };
        all.extend(self.handlers.clone());
        all
    }

    /// The file's parser settings: tags (with `actions.outputFormat`),
    /// discriminators, limits, strict mode, and `schemas` and
    /// `actions.types` for validation (none of the `actions` section when it
    /// is disabled).
    pub fn parser_settings(&self) -> ParserSettings {
        let enabled = self.actions_enabled();
        let output_format = self.actions.output_format.iter().filter(|_| enabled);
        let types = (enabled && !self.actions.types.is_empty()).then(|| {
            let mut list = TypeList::new();
            for t in &self.actions.types {
                let required = self.actions.required.get(t).cloned().unwrap_or_default();
                list = list.allow(t.clone(), required);
            }
            list
        });
        ParserSettings {
            fence_tags: self
                .fence_tags
                .iter()
                .chain(output_format)
                .cloned()
                .collect(),
            generic_tags: self.generic_tags.clone(),
            xml_tags: self.xml_tags.clone(),
            discriminators: self.discriminators.clone(),
            strict: self.strict,
            max_block_bytes: self.max_block_bytes,
            max_depth: self.max_depth,
            action_deltas: None,
            schemas: if enabled {
                self.schemas.clone()
            } else {
                Map::new()
            },
            types,
            dialects: self.dialects.clone(),
            model: self.model.clone(),
            define_dialects: self.define_dialects.clone(),
            tools: Vec::new(),
            reasoning_open: self.reasoning_open,
            calls_in_reasoning: self.calls_in_reasoning,
        }
    }

    /// Applies the file's [parser settings](ConfigFile::parser_settings) to
    /// `config`.
    ///
    /// ```
    /// let file: actionstream::ConfigFile = serde_json::from_str(
    ///     r#"{"actions": {"types": ["note"], "outputFormat": "facilitator-action"}}"#,
    /// ).unwrap();
    /// let config = file.apply(actionstream::Config::default()).unwrap();
    /// assert!(config.is_action_fence_tag("facilitator-action"));
    /// ```
    pub fn apply(&self, config: Config) -> Result<Config, ConfigError> {
        self.parser_settings().apply(config)
    }
}
