//! Parser configuration: which fences and tags hold actions, how actions are
//! named, limits, repairs and validation.

use std::fmt;
use std::sync::Arc;

use crate::validate::Validator;

/// What a parser looks for, built with setters in the style of a builder.
///
/// ```
/// use actionstream::Config;
/// let config = Config::default()
///     .fence_tag("facilitator-action")
///     .xml_tag("invoke")
///     .discriminator("kind")
///     .max_block_bytes(64 * 1024);
/// assert!(config.is_action_fence_tag("Facilitator-Action"));
/// ```
#[derive(Clone)]
pub struct Config {
    pub(crate) action_tags: Vec<String>,
    pub(crate) generic_tags: Vec<String>,
    pub(crate) xml_tags: Vec<String>,
    pub(crate) discriminators: Vec<String>,
    pub(crate) strict: bool,
    pub(crate) max_block_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) action_deltas: bool,
    pub(crate) validator: Option<Arc<dyn Validator>>,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("action_tags", &self.action_tags)
            .field("generic_tags", &self.generic_tags)
            .field("xml_tags", &self.xml_tags)
            .field("discriminators", &self.discriminators)
            .field("strict", &self.strict)
            .field("max_block_bytes", &self.max_block_bytes)
            .field("max_depth", &self.max_depth)
            .field("action_deltas", &self.action_deltas)
            .field("validator", &self.validator.is_some())
            .finish()
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            action_tags: vec!["action".into(), "actions".into(), "tool_call".into()],
            generic_tags: vec!["json".into()],
            xml_tags: vec!["action_call".into(), "tool_call".into()],
            discriminators: vec!["action".into()],
            strict: false,
            max_block_bytes: 1 << 20,
            max_depth: 128,
            action_deltas: false,
            validator: None,
        }
    }
}

impl Config {
    /// Adds an action fence tag: every fenced block whose info string starts
    /// with this word (case-insensitive) is meant as actions.
    pub fn fence_tag(mut self, tag: impl Into<String>) -> Self {
        push_unique(&mut self.action_tags, tag.into().to_ascii_lowercase());
        self
    }

    /// Adds a generic fence tag (default `json`): such a block holds actions
    /// only when its first object has a discriminator key.
    pub fn generic_tag(mut self, tag: impl Into<String>) -> Self {
        push_unique(&mut self.generic_tags, tag.into().to_ascii_lowercase());
        self
    }

    /// Adds a call tag name (case-sensitive), as in `<NAME …>…</NAME>`.
    pub fn xml_tag(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !name.is_empty() {
            push_unique(&mut self.xml_tags, name);
        }
        self
    }

    /// Adds a discriminator key, ranked after the ones already set (default
    /// `action`). The first discriminator an object has names it.
    pub fn discriminator(mut self, key: impl Into<String>) -> Self {
        push_unique(&mut self.discriminators, key.into());
        self
    }

    /// Strict mode: no JSON repairs, and a block missing its closer at the end
    /// of input is invalid.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The block size limit in bytes (default 1 MiB). A larger block ends as
    /// an invalid action holding the bytes read so far; the rest of it up to
    /// its closer is narrative.
    pub fn max_block_bytes(mut self, bytes: usize) -> Self {
        self.max_block_bytes = bytes.max(16);
        self
    }

    /// The JSON nesting limit (default 128); deeper JSON is invalid.
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth.clamp(1, 4096);
        self
    }

    /// Opt-in [`Event::ActionDelta`](crate::Event::ActionDelta) events: the
    /// raw text of each started action's JSON as it arrives, so a UI can show
    /// a tool's input being written. The deltas of one action, concatenated,
    /// are the raw text of its JSON value (of the whole content, for a tag
    /// named by its `name` attribute). Off by default.
    ///
    /// ```
    /// use actionstream::{Config, Event};
    /// let events = actionstream::parse_str_with(
    ///     Config::default().action_deltas(true),
    ///     "```json\n{\"action\": \"a\", \"x\": 1}\n```\n",
    /// );
    /// let body: String = events.iter().filter_map(|e| match e {
    ///     Event::ActionDelta { text, .. } => Some(text.as_str()),
    ///     _ => None,
    /// }).collect();
    /// assert_eq!(body, "{\"action\": \"a\", \"x\": 1}");
    /// ```
    pub fn action_deltas(mut self, on: bool) -> Self {
        self.action_deltas = on;
        self
    }

    /// Checks each action's arguments when its block closes.
    pub fn validator(mut self, validator: impl Validator + 'static) -> Self {
        self.validator = Some(Arc::new(validator));
        self
    }

    /// Like [`Config::validator`], for a validator already shared.
    pub fn shared_validator(mut self, validator: Arc<dyn Validator>) -> Self {
        self.validator = Some(validator);
        self
    }

    /// Whether `tag` (any case) is an action fence tag.
    pub fn is_action_fence_tag(&self, tag: &str) -> bool {
        self.action_tags.iter().any(|t| t.eq_ignore_ascii_case(tag))
    }

    /// Whether `tag` (any case) is a generic fence tag.
    pub fn is_generic_fence_tag(&self, tag: &str) -> bool {
        self.generic_tags
            .iter()
            .any(|t| t.eq_ignore_ascii_case(tag))
    }

    /// The call tag names.
    pub fn xml_tags(&self) -> &[String] {
        &self.xml_tags
    }

    /// The discriminator keys, in rank order.
    pub fn discriminators(&self) -> &[String] {
        &self.discriminators
    }

    /// Whether repairs are off.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The block size limit in bytes.
    pub fn block_limit(&self) -> usize {
        self.max_block_bytes
    }

    /// The JSON nesting limit.
    pub fn depth_limit(&self) -> usize {
        self.max_depth
    }
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}
