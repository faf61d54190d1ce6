//! The one check of option values, for every face: the command line, the
//! configuration file, the Python package and the JavaScript package all
//! build a [`ParserSettings`] and [`ParserSettings::apply`] it, which calls
//! [`ParserSettings::validate`] first. So each face refuses the same bad
//! values with the same message (the faces' own spellings of an option
//! differ, `--max-block-bytes`, `max_block_bytes`, `maxBlockBytes`; the
//! messages name the setting as the configuration file spells it).
//!
//! The [`Config`](crate::Config) builder itself stays infallible: it clamps
//! what it cannot honour (a block limit under [`MIN_BLOCK_BYTES`], a depth
//! outside [`MIN_DEPTH`]`..=`[`MAX_DEPTH`]); these checks refuse such values
//! where a person typed them, instead of changing them behind their back.

use crate::config::ParserSettings;
use crate::config_error::ConfigError;

/// The smallest block size limit the parser honours, in bytes.
pub const MIN_BLOCK_BYTES: usize = 16;
/// The smallest JSON nesting limit.
pub const MIN_DEPTH: usize = 1;
/// The largest JSON nesting limit.
pub const MAX_DEPTH: usize = 4096;

fn refuse(option: &'static str, message: String) -> ConfigError {
    ConfigError::Value { option, message }
}

/// Why `tag` cannot be an action fence's tag (an info string's first word:
/// no whitespace, no backtick), if it cannot.
fn fence_tag_problem(tag: &str) -> Option<&'static str> {
    if tag.is_empty() {
        Some("is empty")
    } else if tag.chars().any(char::is_whitespace) {
        Some("holds whitespace (a fence's tag is the first word of its info string)")
    } else if tag.contains('`') {
        Some("holds a backtick (a fence's info string cannot)")
    } else {
        None
    }
}

/// Why `name` cannot be a call tag's name (`<NAME …>`), if it cannot.
fn tag_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '/' | '"' | '\'' | '='))
    {
        Some("is not a tag name (no whitespace, `<`, `>`, `/`, quotes or `=`)")
    } else {
        None
    }
}

impl ParserSettings {
    /// Checks every value of this layer; the first bad one is the error,
    /// with a message for people that names the setting, says what it must
    /// be and what came. [`ParserSettings::apply`] calls it first.
    ///
    /// ```
    /// use actionstream::ParserSettings;
    ///
    /// let settings = ParserSettings { max_block_bytes: Some(0), ..Default::default() };
    /// assert_eq!(
    ///     settings.validate().unwrap_err().to_string(),
    ///     "max_block_bytes must be at least 16 bytes, not 0",
    /// );
    /// assert!(ParserSettings { max_block_bytes: Some(4096), ..Default::default() }.validate().is_ok());
    /// ```
    ///
    /// # Errors
    ///
    /// [`ConfigError::Value`] for a value out of range or of the wrong
    /// form (a block limit under [`MIN_BLOCK_BYTES`], a nesting limit
    /// outside [`MIN_DEPTH`]`..=`[`MAX_DEPTH`], an empty or malformed tag
    /// or discriminator); [`ConfigError::Schema`] for a tool whose
    /// parameter schema does not compile (feature `schema`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(n) = self.max_block_bytes {
            if n < MIN_BLOCK_BYTES {
                return Err(refuse(
                    "max_block_bytes",
                    format!("must be at least {MIN_BLOCK_BYTES} bytes, not {n}"),
                ));
            }
        }
        if let Some(n) = self.max_depth {
            if !(MIN_DEPTH..=MAX_DEPTH).contains(&n) {
                return Err(refuse(
                    "max_depth",
                    format!("must be between {MIN_DEPTH} and {MAX_DEPTH}, not {n}"),
                ));
            }
        }
        for (option, list) in [
            ("fence_tags", &self.fence_tags),
            ("generic_tags", &self.generic_tags),
        ] {
            for tag in list {
                if let Some(problem) = fence_tag_problem(tag) {
                    return Err(refuse(option, format!("entry {tag:?} {problem}")));
                }
            }
        }
        for name in &self.xml_tags {
            if let Some(problem) = tag_name_problem(name) {
                return Err(refuse("xml_tags", format!("entry {name:?} {problem}")));
            }
        }
        for key in &self.discriminators {
            if key.is_empty() {
                return Err(refuse("discriminators", "entry \"\" is empty".into()));
            }
        }
        check_tool_schemas(&self.tools)
    }
}

/// Each tool's parameter schema compiles (with the `schema` feature;
/// without it there is nothing to compile).
pub(crate) fn check_tool_schemas(tools: &[(String, serde_json::Value)]) -> Result<(), ConfigError> {
    #[cfg(feature = "schema")]
    for (name, schema) in tools {
        crate::schema::SchemaValidator::new()
            .with(name, schema.clone())
            .map_err(|e| ConfigError::Schema {
                name: e.name,
                message: e.message,
            })?;
    }
    #[cfg(not(feature = "schema"))]
    let _ = tools;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(settings: ParserSettings) -> String {
        settings.validate().unwrap_err().to_string()
    }

    #[test]
    fn limits_out_of_range_are_refused() {
        for n in [0, 1, 15] {
            let s = ParserSettings {
                max_block_bytes: Some(n),
                ..Default::default()
            };
            assert!(message(s).ends_with(&format!("not {n}")));
        }
        let ok = ParserSettings {
            max_block_bytes: Some(16),
            max_depth: Some(4096),
            ..Default::default()
        };
        assert!(ok.validate().is_ok());
        for n in [0, 4097] {
            let s = ParserSettings {
                max_depth: Some(n),
                ..Default::default()
            };
            assert_eq!(
                message(s),
                format!("max_depth must be between 1 and 4096, not {n}")
            );
        }
    }

    #[test]
    fn tags_and_keys_that_can_never_match_are_refused() {
        let s = ParserSettings {
            fence_tags: vec!["plan".into(), "my plan".into()],
            ..Default::default()
        };
        assert!(message(s).starts_with("fence_tags entry \"my plan\" holds whitespace"));
        let s = ParserSettings {
            xml_tags: vec![String::new()],
            ..Default::default()
        };
        assert_eq!(message(s), "xml_tags entry \"\" is empty");
        let s = ParserSettings {
            xml_tags: vec!["<invoke>".into()],
            ..Default::default()
        };
        assert!(message(s).starts_with("xml_tags entry \"<invoke>\" is not a tag name"));
        let s = ParserSettings {
            discriminators: vec![String::new()],
            ..Default::default()
        };
        assert_eq!(message(s), "discriminators entry \"\" is empty");
    }

    #[test]
    fn apply_checks_first() {
        let s = ParserSettings {
            max_block_bytes: Some(0),
            ..Default::default()
        };
        assert!(s.apply(crate::Config::default()).is_err());
    }
}
