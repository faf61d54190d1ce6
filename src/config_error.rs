//! Why a configuration could not be used: one error for files, flags and
//! the settings they make.

use std::path::PathBuf;

/// Why a configuration file could not be used.
///
/// ```
/// let err = actionstream::ConfigFile::load("/nonexistent/agent.json".as_ref()).unwrap_err();
/// assert!(err.to_string().starts_with("cannot read /nonexistent/agent.json"));
/// ```
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
    /// The schema file is not a JSON object of schemas.
    #[error("{path} is not a valid schema file: {source}")]
    SchemaFile {
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
    /// An unknown dialect, or a model id of no known family.
    #[error("{message}")]
    Dialect {
        /// What is wrong, and what there is.
        message: String,
    },
    /// An option's value is out of range or of the wrong form (see
    /// [`ParserSettings::validate`](crate::ParserSettings::validate)).
    #[error("{option} {message}")]
    Value {
        /// The setting, as the configuration file spells it
        /// (`max_block_bytes`).
        option: &'static str,
        /// What it must be, and what came.
        message: String,
    },
    /// The tool list file (`--tools`) is not a tool list.
    #[error("{path} is not a valid tool list: {message}")]
    Tools {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}
