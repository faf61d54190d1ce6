//! Parser configuration: which fences and tags hold actions, how actions are
//! named, limits, repairs and validation.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::config_error::ConfigError;
use crate::validate::{TypeList, Validator};

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
    /// Shared (not copied) by each parser made with this configuration and
    /// each of their JSON scanners.
    pub(crate) discriminators: Arc<[String]>,
    pub(crate) strict: bool,
    pub(crate) max_block_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) action_deltas: bool,
    pub(crate) argument_deltas: bool,
    pub(crate) dialects: Vec<Arc<crate::dialect::Dialect>>,
    pub(crate) actions: Option<bool>,
    pub(crate) reasoning_open: bool,
    pub(crate) calls_in_reasoning: bool,
    /// Dialects defined by a configuration file, chosen by name.
    pub(crate) defined: Vec<crate::dialect::Dialect>,
    /// The dialects compiled for reading, built by the first parser that
    /// needs them and shared by every parser made from this configuration
    /// (a setter that changes what they depend on starts a new cache).
    pub(crate) compiled: Arc<std::sync::OnceLock<Arc<crate::dialect::compiled::Compiled>>>,
    pub(crate) validator: Option<Arc<dyn Validator>>,
    /// The parameters schema of each tool given with [`Config::tools`], by
    /// name, for typing raw-text values.
    pub(crate) tool_schemas: crate::dialect::tools::ToolSchemas,
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
            .field("argument_deltas", &self.argument_deltas)
            .field(
                "dialects",
                &self.dialects.iter().map(|d| &d.name).collect::<Vec<_>>(),
            )
            .field("actions", &self.uses_actions())
            .field("reasoning_open", &self.reasoning_open)
            .field("calls_in_reasoning", &self.calls_in_reasoning)
            .field("validator", &self.validator.is_some())
            .field("tools", &self.tool_schemas.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            action_tags: vec!["action".into(), "actions".into(), "tool_call".into()],
            generic_tags: vec!["json".into()],
            xml_tags: vec!["action_call".into(), "tool_call".into()],
            discriminators: Arc::from(["action".to_owned()]),
            strict: false,
            max_block_bytes: 1 << 20,
            max_depth: 128,
            action_deltas: false,
            argument_deltas: false,
            dialects: Vec::new(),
            actions: None,
            reasoning_open: false,
            calls_in_reasoning: false,
            defined: Vec::new(),
            compiled: Arc::default(),
            validator: None,
            tool_schemas: Default::default(),
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
        let mut list = self.discriminators.to_vec();
        push_unique(&mut list, key.into());
        self.discriminators = list.into();
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
    ///
    /// Values under [`MIN_BLOCK_BYTES`](crate::MIN_BLOCK_BYTES) are
    /// raised to it ([`ParserSettings`] refuses them instead).
    pub fn max_block_bytes(mut self, bytes: usize) -> Self {
        self.max_block_bytes = bytes.max(crate::MIN_BLOCK_BYTES);
        self
    }

    /// The JSON nesting limit (default 128); deeper JSON is invalid.
    ///
    /// Values outside [`MIN_DEPTH`](crate::MIN_DEPTH)`..=`
    /// [`MAX_DEPTH`](crate::MAX_DEPTH) are clamped to it
    /// ([`ParserSettings`] refuses them instead).
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth.clamp(crate::MIN_DEPTH, crate::MAX_DEPTH);
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

    /// Opt-in [`Event::ArgumentsDelta`](crate::Event::ArgumentsDelta) events:
    /// each started action's arguments as compact JSON, piece by piece as
    /// the model writes them, for protocols that stream tool-call arguments.
    /// Off by default.
    ///
    /// ```
    /// let config = actionstream::Config::default().argument_deltas(true);
    /// assert!(config.get_argument_deltas());
    /// ```
    pub fn argument_deltas(mut self, on: bool) -> Self {
        self.argument_deltas = on;
        self
    }

    /// Whether [`Config::argument_deltas`] is on.
    pub fn get_argument_deltas(&self) -> bool {
        self.argument_deltas
    }

    /// Adds a model dialect (contract, section 7). A model dialect replaces
    /// the default syntaxes (fences and call tags) unless
    /// [`Config::actions`] turns them back on; several dialects combine.
    ///
    /// ```
    /// use actionstream::{dialect::Dialect, Config};
    /// let config = Config::default().dialect(Dialect::builtin("hermes").unwrap());
    /// assert!(!config.uses_actions());
    /// assert_eq!(config.dialect_names(), ["hermes"]);
    /// ```
    pub fn dialect(mut self, dialect: crate::dialect::Dialect) -> Self {
        if !self.dialects.iter().any(|d| d.name == dialect.name) {
            self.dialects.push(Arc::new(dialect));
            self.compiled = Arc::default();
        }
        self
    }

    /// Chooses a dialect by name: `actions` (fences and call tags), a
    /// built-in, or one a configuration file defined.
    ///
    /// # Errors
    ///
    /// An unknown name, with the names there are.
    ///
    /// ```
    /// let config = actionstream::Config::default().dialect_named("mistral").unwrap();
    /// assert_eq!(config.dialect_names(), ["mistral"]);
    /// let err = actionstream::Config::default().dialect_named("qwen").unwrap_err();
    /// assert!(err.to_string().contains("qwen3_coder"));
    /// ```
    pub fn dialect_named(self, name: &str) -> Result<Self, ConfigError> {
        if name == "actions" {
            return Ok(self.actions(true));
        }
        if let Some(d) = self.defined.iter().find(|d| d.name == name).cloned() {
            return Ok(self.dialect(d));
        }
        match crate::dialect::Dialect::builtin(name) {
            Some(d) => Ok(self.dialect(d)),
            None => {
                let mut known: Vec<&str> = vec!["actions"];
                known.extend(crate::dialect::BUILTIN);
                known.extend(self.defined.iter().map(|d| d.name.as_str()));
                Err(ConfigError::Dialect {
                    message: format!(
                        "unknown dialect `{name}`; the dialects are {}",
                        known.join(", ")
                    ),
                })
            }
        }
    }

    /// Whether the default syntaxes (the dialect `actions`: fences and call
    /// tags) are read beside the model dialects. Without this setting they
    /// are read only when no model dialect is chosen.
    ///
    /// ```
    /// use actionstream::{dialect::Dialect, Config};
    /// let config = Config::default().dialect(Dialect::builtin("hermes").unwrap()).actions(true);
    /// assert!(config.uses_actions());
    /// ```
    pub fn actions(mut self, on: bool) -> Self {
        self.actions = Some(on);
        self
    }

    /// Whether fences and call tags are read (see [`Config::actions`]).
    pub fn uses_actions(&self) -> bool {
        self.actions.unwrap_or(self.dialects.is_empty())
    }

    /// The names of the model dialects chosen, in order.
    pub fn dialect_names(&self) -> Vec<&str> {
        self.dialects.iter().map(|d| d.name.as_str()).collect()
    }

    /// The response starts inside reasoning (a template that writes the
    /// opening `<think>` into the prompt): all text up to the first closing
    /// reasoning marker is reasoning.
    ///
    /// ```
    /// use actionstream::{dialect::Dialect, Config, Event};
    /// let config = Config::default()
    ///     .dialect(Dialect::builtin("hermes").unwrap())
    ///     .reasoning_open(true);
    /// let events = actionstream::parse_str_with(config, "hmm</think>Hello");
    /// assert_eq!(events, [Event::Reasoning("hmm".into()), Event::Narrative("Hello".into())]);
    /// ```
    pub fn reasoning_open(mut self, on: bool) -> Self {
        self.reasoning_open = on;
        self
    }

    /// Call markers inside reasoning open calls (by default they are
    /// reasoning text).
    ///
    /// ```
    /// let config = actionstream::Config::default().calls_in_reasoning(true);
    /// assert!(config.get_calls_in_reasoning());
    /// ```
    pub fn calls_in_reasoning(mut self, on: bool) -> Self {
        self.calls_in_reasoning = on;
        self.compiled = Arc::default();
        self
    }

    /// Whether [`Config::calls_in_reasoning`] is on.
    pub fn get_calls_in_reasoning(&self) -> bool {
        self.calls_in_reasoning
    }

    /// The markers the chosen dialects drop outside blocks: reasoning
    /// markers, ignored markers, harmony's. For checks of invariant 2.
    #[doc(hidden)]
    pub fn outer_markers(&self) -> Vec<String> {
        let mut out = Vec::new();
        for d in &self.dialects {
            for e in &d.reasoning {
                out.push(e.open.clone());
                out.push(e.close.clone());
            }
            out.extend(d.ignore.iter().cloned());
            if let Some(env) = d.recipient_envelope() {
                out.extend(env.dropped());
            }
        }
        out
    }

    /// Whether [`Config::reasoning_open`] is on.
    pub fn get_reasoning_open(&self) -> bool {
        self.reasoning_open
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

    /// Whether repairs are off: what [`Config::strict`] set. (A getter
    /// cannot share the builder method's name; as with
    /// `std::process::Command::get_current_dir`, it takes a `get_` prefix.)
    pub fn get_strict(&self) -> bool {
        self.strict
    }

    /// The tool list of the request (`--tools`; read one with
    /// [`dialect::tools::tool_schemas`](crate::dialect::tools::tool_schemas)
    /// or [`dialect::tools::load`](crate::dialect::tools::load)): each
    /// tool's parameters schema is its name's schema, as with `--schema`.
    ///
    /// The schemas type the raw-text parameter values of the dialects that
    /// write them (`qwen3_coder`, `glm`, …), and validate each call when its
    /// block closes: against the schema with the `schema` feature, for the
    /// name and the `required` parameters without it. Names that are not
    /// tools go to the validator set before (by [`Config::validator`], a
    /// configuration file or `--schema`), or are unknown when there is
    /// none; a validator set after replaces this validation (the schemas
    /// still type values). Tools given again add to these, a name again
    /// replacing its schema. A tool whose schema does not compile makes
    /// each of its calls invalid with the compiler's message
    /// ([`dialect::tools::load`](crate::dialect::tools::load) refuses such
    /// a file at once).
    ///
    /// ```
    /// use actionstream::{Config, Event};
    /// use serde_json::json;
    ///
    /// let tools = vec![(
    ///     "search".to_string(),
    ///     json!({"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}}),
    /// )];
    /// let config = Config::default().tools(tools);
    /// let events = actionstream::parse_str_with(
    ///     config,
    ///     r#"<tool_call>{"name": "search", "arguments": {"q": "rust"}}</tool_call>"#,
    /// );
    /// assert!(matches!(&events[1], Event::ActionInvalid(a)
    ///     if a.errors[0].to_string() == "at query: required field missing"));
    /// ```
    pub fn tools(mut self, tools: Vec<(String, Value)>) -> Self {
        let validator = crate::dialect::tools::ToolsValidator::new(&tools, self.validator.take());
        self.validator = Some(Arc::new(validator));
        let schemas = Arc::make_mut(&mut self.tool_schemas);
        schemas.extend(tools);
        self
    }

    /// The parameters schema of tool `name`, where [`Config::tools`] gave
    /// one.
    #[allow(dead_code)] // for the dialect engine
    pub(crate) fn tool_schema(&self, name: &str) -> Option<&Value> {
        self.tool_schemas.get(name)
    }

    /// The schema that types the raw-text values of a call of `name`: its
    /// tool's, else the validator's (`--schema`, a configuration file).
    #[allow(dead_code)] // for the dialect engine
    pub(crate) fn call_schema(&self, name: &str) -> Option<std::borrow::Cow<'_, Value>> {
        match self.tool_schema(name) {
            Some(s) => Some(std::borrow::Cow::Borrowed(s)),
            None => self
                .validator
                .as_ref()
                .and_then(|v| v.schema(name))
                .map(std::borrow::Cow::Owned),
        }
    }
}

/// One layer of parser settings: the configuration file's, or the command
/// line's. Layers are applied in turn over [`Config::default`] (defaults,
/// then the file, then the flags): lists add to what is there, the others
/// replace it when given, and a layer with `schemas` or `types` replaces the
/// validator.
///
/// ```
/// use actionstream::{Config, ParserSettings};
///
/// let file = ParserSettings { fence_tags: vec!["plan".into()], strict: Some(true), ..Default::default() };
/// let flags = ParserSettings { strict: Some(false), ..Default::default() };
/// let config = [file, flags].iter().try_fold(Config::default(), |c, layer| layer.apply(c)).unwrap();
/// assert!(config.is_action_fence_tag("plan") && !config.get_strict());
/// ```
#[derive(Clone, Default)]
pub struct ParserSettings {
    /// Extra action fence tags.
    pub fence_tags: Vec<String>,
    /// Extra generic fence tags.
    pub generic_tags: Vec<String>,
    /// Extra call tag names.
    pub xml_tags: Vec<String>,
    /// Extra discriminator keys.
    pub discriminators: Vec<String>,
    /// Strict mode.
    pub strict: Option<bool>,
    /// The block size limit.
    pub max_block_bytes: Option<usize>,
    /// The nesting limit.
    pub max_depth: Option<usize>,
    /// [`Event::ActionDelta`](crate::Event::ActionDelta) events.
    pub action_deltas: Option<bool>,
    /// JSON Schemas by action name (in order), or one union schema split by
    /// the discriminators (feature `schema`).
    pub schemas: Map<String, Value>,
    /// Allowed action types with their required fields: names with no
    /// schema are checked against it.
    pub types: Option<TypeList>,
    /// Dialects chosen by name (`actions`, a built-in, or one defined in
    /// `define_dialects` here or in an earlier layer).
    pub dialects: Vec<String>,
    /// A model id whose family chooses the dialects.
    pub model: Option<String>,
    /// Dialects defined, with the same fields as the built-ins.
    pub define_dialects: Vec<crate::dialect::Dialect>,
    /// The request's tools: each one's parameter schema types and checks
    /// its calls.
    pub tools: Vec<(String, Value)>,
    /// The response starts inside reasoning. When unset, `model` decides:
    /// on for the families whose chat template ends the prompt inside
    /// reasoning ([`reasoning_opens`](crate::dialect::family::reasoning_opens)).
    pub reasoning_open: Option<bool>,
    /// Call markers inside reasoning open calls.
    pub calls_in_reasoning: Option<bool>,
}

impl ParserSettings {
    /// Applies this layer to `config`, after checking its values
    /// ([`ParserSettings::validate`]).
    ///
    /// # Errors
    ///
    /// A value out of range or of the wrong form; a schema that does not
    /// compile, or `schemas` given in a build without the `schema` feature.
    pub fn apply(&self, mut config: Config) -> Result<Config, ConfigError> {
        self.validate()?;
        for t in &self.fence_tags {
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
        if let Some(on) = self.action_deltas {
            config = config.action_deltas(on);
        }
        if !self.schemas.is_empty() {
            config = self.apply_schemas(config)?;
        } else if let Some(list) = &self.types {
            config = config.validator(list.clone());
        }
        for d in &self.define_dialects {
            config.defined.retain(|k| k.name != d.name);
            config.defined.push(d.clone());
        }
        let mut names: Vec<String> = self.dialects.clone();
        if let Some(model) = &self.model {
            let found = crate::dialect::family::dialects_for_model(model)
                .map_err(|message| ConfigError::Dialect { message })?;
            names.extend(found.iter().map(|d| (*d).to_owned()));
        }
        for name in names {
            config = config.dialect_named(&name)?;
        }
        if !self.tools.is_empty() {
            config = config.tools(self.tools.clone());
        }
        // Said outright, else as the model's family has it.
        let by_model = self
            .model
            .as_deref()
            .filter(|m| crate::dialect::family::reasoning_opens(m))
            .map(|_| true);
        if let Some(on) = self.reasoning_open.or(by_model) {
            config = config.reasoning_open(on);
        }
        if let Some(on) = self.calls_in_reasoning {
            config = config.calls_in_reasoning(on);
        }
        Ok(config)
    }

    /// Whether `schemas` is one union schema rather than a map of names.
    #[cfg(feature = "schema")]
    fn schemas_are_union(&self) -> bool {
        ["oneOf", "anyOf"]
            .iter()
            .any(|k| self.schemas.get(*k).is_some_and(Value::is_array))
    }

    #[cfg(feature = "schema")]
    fn apply_schemas(&self, config: Config) -> Result<Config, ConfigError> {
        use crate::schema::SchemaValidator;
        let to_config = |e: crate::schema::SchemaError| ConfigError::Schema {
            name: e.name,
            message: e.message,
        };
        let v = if self.schemas_are_union() {
            let union = Value::Object(self.schemas.clone());
            let keys = config.discriminators().iter().map(String::as_str);
            let mut result = SchemaValidator::from_union(&union, "action");
            for d in keys.chain(["type"]) {
                if result.is_ok() {
                    break;
                }
                result = SchemaValidator::from_union(&union, d);
            }
            result.map_err(to_config)?
        } else {
            SchemaValidator::from_map(&self.schemas).map_err(to_config)?
        };
        Ok(match self.types.clone() {
            Some(types) => config.validator(SchemasAndTypes { schemas: v, types }),
            None => config.validator(v),
        })
    }

    #[cfg(not(feature = "schema"))]
    fn apply_schemas(&self, _config: Config) -> Result<Config, ConfigError> {
        Err(ConfigError::Schema {
            name: self.schemas.keys().next().cloned().unwrap_or_default(),
            message: "this build has no `schema` feature".into(),
        })
    }
}

/// Schemas where a name has one, else the types list with its required
/// fields (the seeds' optional per-type schemas beside `types`).
#[cfg(feature = "schema")]
struct SchemasAndTypes {
    schemas: crate::schema::SchemaValidator,
    types: TypeList,
}

#[cfg(feature = "schema")]
impl Validator for SchemasAndTypes {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<crate::ActionError> {
        if self.schemas.schema(name).is_some() {
            self.schemas.validate(name, arguments)
        } else if self.types.known().iter().any(|t| t == name) {
            self.types.validate(name, arguments)
        } else {
            vec![crate::validate::unknown_action(name, &self.known())]
        }
    }

    fn known(&self) -> Vec<String> {
        let mut all = self.schemas.known();
        for t in self.types.known() {
            if !all.contains(&t) {
                all.push(t);
            }
        }
        all
    }

    fn schema(&self, name: &str) -> Option<Value> {
        self.schemas
            .schema(name)
            .cloned()
            .or_else(|| self.types.schema(name))
    }
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}
