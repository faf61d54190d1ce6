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

pub(crate) mod attributes;
mod builtin;
pub(crate) mod compiled;
mod envelope;
pub mod family;
pub(crate) mod gemma;
pub(crate) mod suffix;
pub(crate) mod tags;
pub mod tools;
pub(crate) mod tree;
pub(crate) mod value;

pub use builtin::BUILTIN;
pub(crate) use envelope::bare_header;
pub use envelope::{Content, ContentKind, Envelope};

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
    /// Markers in no event where they stand first in the response, after
    /// white space only (MiniMax M3's stray `</mm:think>` opening a turn
    /// with no reasoning); anywhere else they are text.
    #[serde(default)]
    pub leading: Vec<String>,
    /// The lead of a token suffix that each marker ending in `>` may
    /// carry before its `>`, any suffix accepted (Tencent Hy3 and HY v4
    /// write `<tool_calls:opensource>` for `<tool_calls>`: lead `":"`). A
    /// suffix is up to 64 bytes, none of them white space, `<` or `>`.
    ///
    /// ```
    /// use actionstream::{dialect::Dialect, Config, Event};
    /// let mut d = Dialect::builtin("glm").unwrap();
    /// d.token_suffix = Some(":".into());
    /// let text = "<tool_call:x1>f<arg_key:x1>a</arg_key:x1><arg_value:x1>1</arg_value:x1></tool_call:x1>";
    /// let events = actionstream::parse_str_with(Config::default().dialect(d), text);
    /// assert!(events.iter().any(|e| matches!(e, Event::ActionComplete(a) if a.name == "f")));
    /// ```
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_suffix: Option<String>,
    /// Messages whose headers name a recipient (Meta Muse Glimmer's
    /// `<|start|>assistant to=R<|message|>`); `harmony: true` stands for
    /// [`Envelope::harmony`].
    ///
    /// ```
    /// let d = actionstream::dialect::Dialect::builtin("muse_glimmer").unwrap();
    /// assert_eq!(d.envelope.unwrap().reasoning_recipients, ["self"]);
    /// ```
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Envelope>,
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
    /// Calls written inside are calls, and the reasoning goes on to its
    /// closer after them, as `calls_in_reasoning` makes it for every
    /// enclosure (Apertus writes its tool calls, and their outputs, inside
    /// `<|inner_prefix|>` … `<|inner_suffix|>`).
    ///
    /// ```
    /// let d = actionstream::dialect::Dialect::builtin("apertus").unwrap();
    /// assert!(d.reasoning[0].calls);
    /// ```
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub calls: bool,
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
// A descriptor, made a few times per configuration: the size of its largest
// form does not matter, and boxing it would change the public fields' types.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "snake_case", deny_unknown_fields)]
pub enum Calls {
    /// JSON call objects: one, an array of them, or several joined by
    /// `joiner` (or white space). The first of `name_keys` present names a
    /// call; the first of `argument_keys` holds its arguments; `id_key`, if
    /// set, is kept as its `call_id`.
    Json {
        /// Keys that name a call.
        #[serde(default)]
        name_keys: Vec<String>,
        /// Keys that hold its arguments.
        #[serde(default)]
        argument_keys: Vec<String>,
        /// A key whose value is kept as the call's `call_id`.
        #[serde(default)]
        id_key: Option<String>,
        /// What may stand between two call objects (Llama 3: `;`).
        #[serde(default)]
        joiner: Option<String>,
        /// A call is an object whose one key is its name, the key's value
        /// its arguments (Apertus: `[{"N": {…}}, …]`); `name_keys` and
        /// `argument_keys` are not used.
        #[serde(default)]
        name_is_key: bool,
        /// As one of the dialect's `first` forms: the response may start
        /// with a JSON array of calls too (xLAM), not only with an object,
        /// and so may the text right after the reasoning.
        #[serde(default)]
        array_first: bool,
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
        /// Other spellings of `key`, read as it is (MiniCPM5 writes
        /// `<paramname="` for `<param name="` too).
        ///
        /// ```
        /// use actionstream::dialect::{Calls, Dialect};
        /// let d = Dialect::builtin("minicpm5").unwrap();
        /// let Calls::Params { key_spellings, .. } = &d.sections[0].calls[0] else { panic!() };
        /// assert_eq!(key_spellings, &["<paramname=\""]);
        /// ```
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        key_spellings: Vec<String>,
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
        /// The name (and id) are attributes of the call's tag and the key
        /// (and type) attributes of the parameter's tag (Kimi K3:
        /// `<|open|>call tool="N" index="I"<|sep|>`): the text before
        /// `name_end` and before a `key_end` is read as `name="value"`
        /// pairs, entities unescaped.
        #[serde(default)]
        attributes: Option<Attributes>,
        /// A value written `<![CDATA[…]]>` is its content (MiniCPM5).
        #[serde(default)]
        cdata: bool,
    },
    /// Parameters named by their tags, every tag written after `prefix`
    /// (MiniMax M3): `call` NAME `name_end` then `prefix<K>V prefix</K>`…
    /// `end`. A value holding tags is an object, one whose tags are `item`
    /// tags an array; any other value is raw text, typed by the schema.
    /// The parameters stream as they are written (an object or array
    /// parameter whole when it closes; inside it a key written twice
    /// gathers its values in an array); a parameter written twice is
    /// invalid, its first value having gone out already.
    Tags {
        /// The marker before each call.
        call: String,
        /// The markers that end the name.
        name_end: Vec<String>,
        /// What every tag is written after (`]<]minimax[>[`; may be empty).
        #[serde(default)]
        prefix: String,
        /// The tag name of an array's members.
        #[serde(default = "item")]
        item: String,
        /// The marker that ends a call.
        end: String,
    },
    /// Gemma's call syntax: `call` NAME `{k:V,…}`, keys bare, strings
    /// between `string` markers (`<|"|>`, `<escape>`), numbers, booleans,
    /// `null`, objects and arrays bare. A string whose whole text reads as
    /// JSON is that JSON (as the peers read it).
    Gemma {
        /// The marker before each call (`call:`).
        call: String,
        /// The marker around strings.
        string: String,
    },
    /// The section's content is raw code, up to its closer (or trailer, or
    /// the end of the response): one call `name` whose arguments are
    /// `{key: code}` (Llama 3.1's `code_interpreter`). Chosen by a first
    /// byte no other form takes.
    Code {
        /// The call's name.
        name: String,
        /// The argument that holds the code.
        #[serde(default = "code_key")]
        key: String,
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

fn item() -> String {
    "item".to_owned()
}

fn string_types() -> Vec<String> {
    vec!["string".to_owned()]
}

/// The attributes a tag-attribute form reads (see [`Calls::Params`]).
///
/// ```
/// let a: actionstream::dialect::Attributes =
///     serde_json::from_value(serde_json::json!({"name": "tool", "id": "index", "key": "key", "type": "type"})).unwrap();
/// assert_eq!(a.string_types, ["string"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attributes {
    /// The attribute of the call's tag that names the call (`tool`).
    pub name: String,
    /// The attribute of the call's tag kept as its `call_id` (`index`).
    #[serde(default)]
    pub id: Option<String>,
    /// The attribute of a parameter's tag that names it (`key`).
    pub key: String,
    /// The attribute of a parameter's tag that gives its type (`type`):
    /// a value of one of `string_types` is the text as written, of any
    /// other type JSON (the text as a string where it is not JSON); with
    /// no such attribute, the value is typed by the schema.
    #[serde(default, rename = "type")]
    pub type_attribute: Option<String>,
    /// The types whose values are the text as written.
    #[serde(default = "string_types")]
    pub string_types: Vec<String>,
}

fn code_key() -> String {
    "code".to_owned()
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

    /// The recipient envelope the dialect's messages come in, if any: its
    /// `envelope`, or harmony's where `harmony` is set.
    ///
    /// ```
    /// let d = actionstream::dialect::Dialect::builtin("gpt_oss").unwrap();
    /// assert_eq!(d.recipient_envelope().unwrap().message, "<|message|>");
    /// ```
    pub fn recipient_envelope(&self) -> Option<Envelope> {
        self.envelope
            .clone()
            .or_else(|| self.harmony.then(Envelope::harmony))
    }
}
