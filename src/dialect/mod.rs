//! Model dialects: the tool-call formats open models write with their own
//! markers, described as data (contract, section 7).
//!
//! A [`Dialect`] says which markers open and close reasoning, which open a
//! call section and how the calls inside are written ([`Calls`]), and which
//! markers outside blocks are in no event. The seventeen built-ins are in
//! [`Dialect::builtin`]; a configuration file may define more with the same
//! fields (`[[dialect]]` tables). One engine in the parser reads them all.
//!
//! ```
//! use actionstream::{dialect::Dialect, Config, Event};
//!
//! let config = Config::default().dialect(Dialect::builtin("qwen3_coder").unwrap());
//! let text = "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
//! let events = actionstream::parse_str_with(config, text);
//! let call = events.iter().find_map(|e| match e {
//!     Event::ActionComplete(a) => Some(a),
//!     _ => None,
//! }).unwrap();
//! assert_eq!(call.name, "get_weather");
//! assert_eq!(call.arguments["city"], "Paris");
//! assert_eq!(actionstream::narrative(&events), "Let me check.\n");
//! ```

use serde::{Deserialize, Serialize};

mod builtin;
pub(crate) mod compiled;
pub mod family;
pub mod tools;
pub(crate) mod value;

pub use builtin::BUILTIN;

/// One model's output format: its reasoning, its call sections, its other
/// markers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dialect {
    /// The dialect's name (`--dialect NAME`; the `tag` of its actions).
    pub name: String,
    /// Reasoning enclosures, `open` … `close`.
    #[serde(default)]
    pub reasoning: Vec<Enclosure>,
    /// Markers that may stand outside blocks and belong to no event
    /// (`<|START_RESPONSE|>`, `<|eot_id|>`, …).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// The call sections.
    #[serde(default)]
    pub sections: Vec<Section>,
    /// Calls written as the first thing in the response, with no marker
    /// before them (Llama 3's JSON, `pythonic`'s list).
    #[serde(default)]
    pub first: Vec<Calls>,
    /// The response is in OpenAI's harmony format (gpt-oss): messages with
    /// channels; see the contract.
    #[serde(default)]
    pub harmony: bool,
    /// A call section's opener met inside this dialect's reasoning ends the
    /// reasoning there, as its closer would, and the call is read; a
    /// reasoning closer after the call, with only white space between, is
    /// a marker (Qwen3.5 and Kimi K2 open a call without closing their
    /// reasoning). Off: the opener is reasoning text, unless
    /// `calls_in_reasoning`.
    #[serde(default)]
    pub calls_end_reasoning: bool,
}

/// Text between two markers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enclosure {
    /// The opening marker.
    pub open: String,
    /// The closing marker.
    pub close: String,
}

/// A call section: an opening marker, the calls, and a closing marker if
/// the format has one. Without one, the section ends where its calls' value
/// ends (and takes a following `trailer` marker, if one comes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// The marker that opens the section.
    pub open: String,
    /// The marker that closes it, if any.
    #[serde(default)]
    pub close: Option<String>,
    /// How the calls inside are written. Where there are several, the first
    /// byte of the content (after white space) chooses: `{` or `[` a JSON
    /// form or a Python list, the first byte of a call marker its form, any
    /// other byte a form whose call marker is empty.
    pub calls: Vec<Calls>,
    /// Markers that may follow a section without a closer and belong to it
    /// (Llama 3's `<|eom_id|>`).
    #[serde(default)]
    pub trailer: Vec<String>,
}

/// How the calls in a section are written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "snake_case", deny_unknown_fields)]
pub enum Calls {
    /// JSON call objects: one, an array of them, or several joined by
    /// `joiner` (or white space). The first of `name_keys` present names a
    /// call; the first of `argument_keys` holds its arguments; `id_key`, if
    /// set, is kept as its `call_id`.
    Json {
        /// Keys that name a call.
        name_keys: Vec<String>,
        /// Keys that hold its arguments.
        argument_keys: Vec<String>,
        /// A key whose value is kept as the call's `call_id`.
        #[serde(default)]
        id_key: Option<String>,
        /// What may stand between two call objects (Llama 3: `;`).
        #[serde(default)]
        joiner: Option<String>,
    },
    /// A name, then the arguments as one JSON object:
    /// `call` NAME \[`id` ID\] `args` {…} \[`args_end`\] \[`end`\].
    Named {
        /// The marker before each call (empty: the section's opener is the
        /// call's).
        #[serde(default)]
        call: String,
        /// A marker the name text may start with, dropped
        /// (DeepSeek V3: `function<｜tool▁sep｜>`).
        #[serde(default)]
        name_prefix: Option<String>,
        /// A marker between the name and a call id (Mistral: `[CALL_ID]`).
        #[serde(default)]
        id: Option<String>,
        /// The marker between the name (or id) and the arguments. When
        /// `args_optional`, a `{` may follow the name directly.
        args: String,
        /// Whether the `args` marker may be left out.
        #[serde(default)]
        args_optional: bool,
        /// A marker after the arguments, before `end` (DeepSeek V3's
        /// closing fence).
        #[serde(default)]
        args_end: Option<String>,
        /// The marker that ends a call, if any.
        #[serde(default)]
        end: Option<String>,
        /// The name is written `functions.NAME:INDEX` (Kimi K2): the name
        /// is NAME and the whole is kept as the `call_id`.
        #[serde(default)]
        indexed_name: bool,
    },
    /// Parameters as raw text:
    /// `call` NAME `name_end` (`key` K `key_end` \[`value`\] V `value_end`)… `end`.
    Params {
        /// The marker before each call (empty: the name follows the section
        /// opener).
        #[serde(default)]
        call: String,
        /// Markers that end the name (empty: it ends at the first `key`, or
        /// at the call's or section's end).
        #[serde(default)]
        name_end: Vec<String>,
        /// The marker before a parameter's key.
        key: String,
        /// The markers that may end a key, each with what it says about
        /// the value.
        key_end: Vec<KeyEnd>,
        /// A marker before the value, after the key (GLM: `<arg_value>`).
        #[serde(default)]
        value: Option<String>,
        /// Markers around a value's type, between the key and `value`
        /// (K2 Horizon: `<ifm|arg_type>`…`</ifm|arg_type>`, optional per
        /// parameter): `string` reads the value as written; `integer`,
        /// `number`, `boolean`, `object`, `array` and `null` as JSON; any
        /// other type as the key's end marker says. Read only where `value`
        /// is set.
        #[serde(default)]
        value_type: Option<Enclosure>,
        /// The marker after the value.
        value_end: String,
        /// The marker that ends a call (none: the section's end does).
        #[serde(default)]
        end: Option<String>,
        /// Drop one line ending right after the value begins and one right
        /// before it ends (Qwen3-Coder's template writes them).
        #[serde(default)]
        trim_line_endings: bool,
    },
    /// Python calls: a list `[f(a=1), g()]`, or (with `list` false) calls
    /// one after another, one per line.
    Python {
        /// Whether the calls are written as a list.
        #[serde(default = "yes")]
        list: bool,
    },
}

fn yes() -> bool {
    true
}

/// A marker that ends a parameter's key, and how its value is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyEnd {
    /// The marker.
    pub marker: String,
    /// How the value after it is read.
    #[serde(default)]
    pub value: ValueKind,
}

/// How a raw-text parameter value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// Typed by the tool's schema (contract, section 7).
    #[default]
    Typed,
    /// The string as written, never converted (DSML `string="true"`).
    String,
    /// JSON (DSML `string="false"`).
    Json,
}

impl Dialect {
    /// The built-in dialect of this name.
    ///
    /// ```
    /// let d = actionstream::dialect::Dialect::builtin("kimi_k2").unwrap();
    /// assert_eq!(d.sections[0].open, "<|tool_calls_section_begin|>");
    /// assert!(actionstream::dialect::Dialect::builtin("nope").is_none());
    /// ```
    pub fn builtin(name: &str) -> Option<Dialect> {
        builtin::builtin(name)
    }
}
