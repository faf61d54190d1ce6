//! Protocols out: the parser's [`Event`]s written as the streams that
//! existing clients read.
//!
//! An [`Encoder`] turns events into server-sent-event frames of one
//! [`Format`]: OpenAI Chat Completions chunks, OpenAI Responses events,
//! Anthropic Messages events, the AI SDK's UI message stream, AG-UI events,
//! or this crate's own JSON lines ([`Format::Events`]). Narrative becomes
//! text deltas, [`Event::Reasoning`] reasoning deltas, and each action a tool
//! call: its start, with its first argument fragment, its arguments as
//! fragments ([`Event::ArgumentsDelta`], or the whole compact arguments at
//! once when the parser sent none), its end when it completes.
//!
//! A call goes out with its first argument fragment, never on its name
//! alone (an `openai-chat` or `anthropic` client cannot be told that a call
//! it holds has failed, and an agent would run it with empty arguments):
//! - a dialect's call ([`Syntax::Dialect`], and a provider's native call),
//!   whose arguments stream as the model writes them, goes out with its
//!   first non-empty [`Event::ArgumentsDelta`];
//! - a fence's or tag's call ([`Syntax::Fence`], [`Syntax::Tag`]), whose
//!   arguments come whole when its block completes, goes out only at
//!   [`Event::ActionComplete`];
//! - a call whose arguments never streamed goes out at its completion.
//!
//! So a malformed fenced or tagged call, or a dialect's call that fails
//! before its arguments begin, is never a tool call in any format.
//!
//! What every format guarantees:
//! - a call's argument fragments are append-only and concatenate to a JSON
//!   text of its final arguments;
//! - an action that ends invalid before its call went out is not a call:
//!   its block's raw text goes out as text (once per block), and in
//!   [`Format::AiSdk`] also as a `tool-input-error` where its name is known;
//! - a call that went out and then ends invalid fails in the protocol's own
//!   way where it has one (`tool-input-error` in the AI SDK stream, item
//!   status `incomplete` in the Responses API); elsewhere its fragments stop
//!   where they were;
//! - the finish reason says tool calls only if some call completed;
//! - with [`Calls::Complete`] each call is held until it completes, so a
//!   client never sees one that fails.
//!
//! ```
//! use actionstream::protocol::{Encoder, Format, Options};
//!
//! let events = actionstream::parse_str(
//!     "Looking.\n<tool_call>{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}</tool_call>",
//! );
//! let options = Options::default().id("demo").created(1_700_000_000);
//! let mut encoder = Encoder::new(Format::OpenAiChat, options);
//! let mut out = String::new();
//! for event in &events {
//!     encoder.event(event, &mut out);
//! }
//! encoder.finish(&mut out);
//! assert!(out.contains(r#""delta":{"content":"Looking.\n"}"#));
//! assert!(out.contains(r#""function":{"name":"search","arguments":""}"#));
//! assert!(out.contains(r#""function":{"arguments":"{\"q\":\"rust\"}"}"#));
//! assert!(out.contains(r#""finish_reason":"tool_calls""#));
//! assert!(out.ends_with("data: [DONE]\n\n"));
//! ```

mod ag_ui;
mod ai_sdk;
mod anthropic;
mod events;
mod openai_chat;
mod openai_responses;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::event::{ActionId, Event, Span, Syntax};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// This crate's JSON lines ([`crate::wire`]), one object per line.
    Events,
    /// OpenAI Chat Completions chunks (`chat.completion.chunk`), then
    /// `data: [DONE]`.
    OpenAiChat,
    /// OpenAI Responses API events (`response.created` …
    /// `response.completed`), each with its `sequence_number`.
    OpenAiResponses,
    /// Anthropic Messages events (`message_start` … `message_stop`), with
    /// `event:` lines.
    Anthropic,
    /// The AI SDK's UI message stream, v1 (`start` … `finish`), then
    /// `data: [DONE]`.
    AiSdk,
    /// AG-UI events (`RUN_STARTED` … `RUN_FINISHED`).
    AgUi,
}

impl Format {
    /// Every format, in the order the command line lists them.
    pub const ALL: [Format; 6] = [
        Format::Events,
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::AiSdk,
        Format::AgUi,
    ];

    /// The format's name on the command line (`events`, `openai-chat`,
    /// `openai-responses`, `anthropic`, `ai-sdk`, `ag-ui`).
    ///
    /// ```
    /// use actionstream::protocol::Format;
    /// assert_eq!(Format::AiSdk.as_str(), "ai-sdk");
    /// assert_eq!("ai-sdk".parse::<Format>(), Ok(Format::AiSdk));
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Events => "events",
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
            Format::AgUi => "ag-ui",
        }
    }

    /// The HTTP response headers a server sends with this format, besides
    /// the status: the content type (`text/event-stream`, or
    /// `application/x-ndjson` for [`Format::Events`]) and, for the AI SDK's
    /// stream, `x-vercel-ai-ui-message-stream: v1`, which its clients check.
    ///
    /// ```
    /// use actionstream::protocol::Format;
    /// assert!(Format::AiSdk
    ///     .headers()
    ///     .contains(&("x-vercel-ai-ui-message-stream", "v1")));
    /// ```
    pub fn headers(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Format::Events => &[("content-type", "application/x-ndjson")],
            Format::AiSdk => &[
                ("content-type", "text/event-stream"),
                ("cache-control", "no-cache"),
                ("x-vercel-ai-ui-message-stream", "v1"),
                ("x-accel-buffering", "no"),
            ],
            _ => &[
                ("content-type", "text/event-stream"),
                ("cache-control", "no-cache"),
            ],
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no [`Format`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        write!(
            f,
            "unknown output format '{}': expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// When a call goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Calls {
    /// As the model writes it: the start with the first argument fragment
    /// (a dialect's call as its arguments begin, a fence's or tag's call
    /// when its block completes), the arguments as they come, the end when
    /// it completes (or fails).
    #[default]
    Live,
    /// Whole, when it completes: a call that ends invalid never goes out as
    /// a call (its raw text goes out as text), for clients that must never
    /// see a failed one.
    Complete,
}

/// What an [`Encoder`] writes besides the events: the model name, the ids
/// and the creation time.
///
/// ```
/// use actionstream::protocol::{Calls, Options};
/// let options = Options::default().model("qwen3").calls(Calls::Complete).id("t1").created(0);
/// assert_eq!(options.model, "qwen3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// The model name the stream reports (default `actionstream`).
    pub model: String,
    /// When calls go out.
    pub calls: Calls,
    /// The base every id of the stream is made from (`chatcmpl-<id>`,
    /// `call_<id>_<n>`, …); `None`: drawn from the clock and a counter, so
    /// each encoder's ids differ.
    pub id: Option<String>,
    /// The creation time in Unix seconds; `None`: now.
    pub created: Option<u64>,
    /// Tools whose calls are freeform (the Responses API's `custom` tools):
    /// the call's arguments are `{"input": TEXT}` and
    /// [`Format::OpenAiResponses`] writes it as a `custom_tool_call` item
    /// whose `input` is TEXT.
    pub custom_tools: Vec<String>,
    /// Tools offered inside a namespace (the Responses API's `namespace`
    /// tools), as (tool name, namespace): [`Format::OpenAiResponses`]
    /// writes a call to one with that `namespace`.
    pub namespaced_tools: Vec<(String, String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            model: "actionstream".to_owned(),
            calls: Calls::Live,
            id: None,
            created: None,
            custom_tools: Vec::new(),
            namespaced_tools: Vec::new(),
        }
    }
}

impl Options {
    /// The model name the stream reports.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// When calls go out.
    pub fn calls(mut self, calls: Calls) -> Self {
        self.calls = calls;
        self
    }

    /// The base of every id (for reproducible output).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The creation time in Unix seconds (for reproducible output).
    pub fn created(mut self, created: u64) -> Self {
        self.created = Some(created);
        self
    }

    /// A freeform tool ([`Options::custom_tools`]).
    ///
    /// ```
    /// use actionstream::protocol::Options;
    /// let options = Options::default().custom_tool("apply_patch");
    /// assert_eq!(options.custom_tools, ["apply_patch"]);
    /// ```
    pub fn custom_tool(mut self, name: impl Into<String>) -> Self {
        self.custom_tools.push(name.into());
        self
    }

    /// A tool offered inside `namespace` ([`Options::namespaced_tools`]).
    ///
    /// ```
    /// use actionstream::protocol::Options;
    /// let options = Options::default().namespaced_tool("run", "web_run");
    /// assert_eq!(options.namespaced_tools[0].1, "web_run");
    /// ```
    pub fn namespaced_tool(
        mut self,
        name: impl Into<String>,
        namespace: impl Into<String>,
    ) -> Self {
        self.namespaced_tools.push((name.into(), namespace.into()));
        self
    }
}

/// The token counts of an answer, as the model's server reported them
/// (the parser sees text, not tokens), for the formats that carry them
/// ([`Format::Anthropic`], [`Format::OpenAiResponses`]).
///
/// ```
/// use actionstream::protocol::{Encoder, Format, Options, Usage};
///
/// let mut encoder = Encoder::new(Format::Anthropic, Options::default());
/// let mut out = String::new();
/// encoder.usage(Usage { input_tokens: 12, output_tokens: 3 });
/// encoder.finish(&mut out);
/// assert!(out.contains(r#""usage":{"input_tokens":12,"output_tokens":3}"#));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Tokens of the prompt.
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
}

impl Usage {
    /// The counts of an OpenAI-style `usage` object (`prompt_tokens` /
    /// `completion_tokens`, or `input_tokens` / `output_tokens`); `None`
    /// when it has neither.
    ///
    /// ```
    /// use actionstream::protocol::Usage;
    /// let usage = serde_json::json!({"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9});
    /// assert_eq!(Usage::from_openai(&usage), Some(Usage { input_tokens: 7, output_tokens: 2 }));
    /// ```
    pub fn from_openai(usage: &Value) -> Option<Usage> {
        let get = |a: &str, b: &str| {
            usage
                .get(a)
                .or_else(|| usage.get(b))
                .and_then(Value::as_u64)
        };
        let input = get("prompt_tokens", "input_tokens");
        let output = get("completion_tokens", "output_tokens");
        if input.is_none() && output.is_none() {
            return None;
        }
        Some(Usage {
            input_tokens: input.unwrap_or(0),
            output_tokens: output.unwrap_or(0),
        })
    }
}

/// The stream's identity, shared by the formats.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    pub id: String,
    pub model: String,
    pub created: u64,
}

impl Meta {
    fn new(options: &Options) -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::time::{SystemTime, UNIX_EPOCH};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let id = options.id.clone().unwrap_or_else(|| {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let seed = (now.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32);
            format!(
                "{:016x}{:08x}",
                mix(seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                mix(n) as u32
            )
        });
        Meta {
            id,
            model: options.model.clone(),
            created: options.created.unwrap_or(now.as_secs()),
        }
    }
}

/// splitmix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Appends one SSE frame, `data: <json>` and a blank line.
pub(crate) fn data<T: serde::Serialize + ?Sized>(out: &mut String, v: &T) {
    out.push_str("data: ");
    // `serde_json::to_string` writes bytes straight; `Value`'s `Display`
    // goes through a formatter a token at a time, several times slower.
    // Writing these cannot fail (no map has keys that are not strings).
    out.push_str(&serde_json::to_string(v).unwrap_or_default());
    out.push_str("\n\n");
}

/// Appends one SSE frame with an event name, `event: <name>` then
/// `data: <json>` and a blank line.
pub(crate) fn named<T: serde::Serialize + ?Sized>(out: &mut String, name: &str, v: &T) {
    out.push_str("event: ");
    out.push_str(name);
    out.push('\n');
    data(out, v);
}

/// A call that went out: its number in the stream (from 0, in the order
/// calls go out; ids are made from it) and its name.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub n: usize,
    pub name: String,
}

/// Why the stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Some call completed.
    ToolCalls,
    /// No call completed.
    End,
}

/// One protocol's writer. The [`Encoder`] decides what goes out and when
/// (calls held or live, invalid actions as text, fragments completed); a
/// sink only writes it in its protocol's shape, in the order it is told.
pub(crate) trait Sink {
    /// The stream's opening frames.
    fn begin(&mut self, out: &mut String);
    /// Narrative text (never empty).
    fn text(&mut self, text: &str, out: &mut String);
    /// Reasoning text (never empty).
    fn reasoning(&mut self, text: &str, out: &mut String);
    /// A call's start.
    fn call_start(&mut self, call: &Call, out: &mut String);
    /// The next fragment of a started call's arguments (never empty).
    fn call_args(&mut self, call: &Call, fragment: &str, out: &mut String);
    /// A call's arguments are complete and valid.
    fn call_done(&mut self, call: &Call, arguments: &Value, out: &mut String);
    /// A started call ended invalid: `errors` joined for people, `raw` its
    /// block's text.
    fn call_failed(&mut self, call: &Call, errors: &str, raw: &str, out: &mut String);
    /// An action that ended invalid before its call went out, whose name is
    /// known (after its raw text went out as text). Most protocols have
    /// nothing more to say.
    fn invalid_named(&mut self, _call: &Call, _errors: &str, _raw: &str, _out: &mut String) {}
    /// A stream-level error.
    fn error(&mut self, message: &str, out: &mut String);
    /// The stream's closing frames.
    fn finish(&mut self, stop: Stop, out: &mut String);
    /// Whether only one call may be open at a time, with nothing else
    /// between its start and its end (Anthropic's content blocks).
    fn sequential(&self) -> bool {
        false
    }
    /// The answer's token counts, told before [`Sink::finish`]; formats
    /// without usage ignore them.
    fn usage(&mut self, _usage: Usage) {}
    /// The answer stopped at its token limit, told before [`Sink::finish`];
    /// formats without such a stop ignore it.
    fn truncated(&mut self) {}
}

/// Writes events in one [`Format`].
///
/// Feed it every event of one response in order with [`Encoder::event`],
/// stream-level errors with [`Encoder::error`], and call
/// [`Encoder::finish`] once at the end. Each call appends complete frames
/// to `out` (nothing when there is nothing to say yet), so `out` can be
/// written to the client after every call. The stream's opening frames come
/// with the first call, or earlier with [`Encoder::start`].
pub struct Encoder {
    format: Format,
    inner: Inner,
}

enum Inner {
    Events,
    Protocol(Box<Driver>),
}

impl fmt::Debug for Encoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoder")
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl Encoder {
    /// An encoder of `format`.
    pub fn new(format: Format, options: Options) -> Self {
        let meta = Meta::new(&options);
        let sink: Box<dyn Sink + Send> = match format {
            Format::Events => {
                return Encoder {
                    format,
                    inner: Inner::Events,
                }
            }
            Format::OpenAiChat => Box::new(openai_chat::Chat::new(meta)),
            Format::OpenAiResponses => Box::new(openai_responses::Responses::new(meta, &options)),
            Format::Anthropic => Box::new(anthropic::Anthropic::new(meta)),
            Format::AiSdk => Box::new(ai_sdk::AiSdk::new(meta)),
            Format::AgUi => Box::new(ag_ui::AgUi::new(meta)),
        };
        Encoder {
            format,
            inner: Inner::Protocol(Box::new(Driver::new(sink, options.calls))),
        }
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes the stream's opening frames now, if they have not gone out
    /// (a server can answer before the first event).
    pub fn start(&mut self, out: &mut String) {
        if let Inner::Protocol(d) = &mut self.inner {
            d.begin(out);
        }
    }

    /// Writes what `event` means in this format.
    pub fn event(&mut self, event: &Event, out: &mut String) {
        match &mut self.inner {
            Inner::Events => events::event(event, out),
            Inner::Protocol(d) => d.event(event, out),
        }
    }

    /// Writes a stream-level error (malformed input, a provider's error):
    /// at once where the protocol's error does not end the stream for its
    /// clients (a Responses `error` event; the response then ends
    /// `response.failed`), else at the end, after everything else and in
    /// place of the normal end where the protocol has one (a Chat
    /// Completions error payload, an Anthropic `error` event, the AI SDK's
    /// `error` chunk, AG-UI `RUN_ERROR`): their clients stop reading there.
    pub fn error(&mut self, message: &str, out: &mut String) {
        match &mut self.inner {
            Inner::Events => events::error(message, out),
            Inner::Protocol(d) => {
                d.begin(out);
                if !d.finished {
                    d.sink.error(message, out);
                }
            }
        }
    }

    /// The answer's token counts (from the model's server), written with
    /// the stream's end where the format carries them. Call it before
    /// [`Encoder::finish`].
    pub fn usage(&mut self, usage: Usage) {
        if let Inner::Protocol(d) = &mut self.inner {
            d.sink.usage(usage);
        }
    }

    /// The answer stopped at its token limit (a Chat Completions
    /// `finish_reason` of `length`): an Anthropic stream then ends with
    /// `stop_reason` `max_tokens` (unless a call completed), a Responses
    /// stream with `response.incomplete`. Call it before
    /// [`Encoder::finish`].
    ///
    /// ```
    /// use actionstream::protocol::{Encoder, Format, Options};
    /// let mut encoder = Encoder::new(Format::OpenAiResponses, Options::default());
    /// let mut out = String::new();
    /// encoder.truncated();
    /// encoder.finish(&mut out);
    /// assert!(out.contains("event: response.incomplete"));
    /// ```
    pub fn truncated(&mut self) {
        if let Inner::Protocol(d) = &mut self.inner {
            d.sink.truncated();
        }
    }

    /// Ends the stream: calls still open fail, then the protocol's closing
    /// frames. Later calls write nothing.
    pub fn finish(&mut self, out: &mut String) {
        if let Inner::Protocol(d) = &mut self.inner {
            d.finish(out);
        }
    }

    /// The place (from 0, in the order calls went out) of the call that
    /// action `id` went out as: its `tool_calls` index in
    /// [`Format::OpenAiChat`]. `None` while it has not gone out (an event
    /// held behind an open Anthropic block has not been written yet), for
    /// an action that never did (one that ended invalid first), and in
    /// [`Format::Events`].
    ///
    /// ```
    /// use actionstream::protocol::{Encoder, Format, Options};
    /// use actionstream::{ActionId, Config, Parser};
    ///
    /// let config = Config::default().dialect_named("hermes")?.argument_deltas(true);
    /// let mut parser = Parser::new(config);
    /// let mut encoder = Encoder::new(Format::OpenAiChat, Options::default());
    /// let (mut events, mut out) = (Vec::new(), String::new());
    /// parser.push(r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#, &mut events);
    /// parser.finish(&mut events);
    /// for event in &events {
    ///     encoder.event(event, &mut out);
    /// }
    /// assert_eq!(encoder.call_index(ActionId(0)), Some(0));
    /// assert_eq!(encoder.call_index(ActionId(1)), None);
    /// # Ok::<(), actionstream::ConfigError>(())
    /// ```
    pub fn call_index(&self, id: ActionId) -> Option<usize> {
        match &self.inner {
            Inner::Events => None,
            Inner::Protocol(d) => d.indexes.get(&id.0).copied(),
        }
    }
}

/// What the encoder knows of one action.
#[derive(Debug, Default)]
struct ActionState {
    /// The name its start carried.
    name: Option<String>,
    /// Whether its arguments stream as the model writes them (a dialect's
    /// or a native call), so that its call goes out with their first
    /// fragment; else it goes out when it completes.
    streams: bool,
    /// Its call, once that went out.
    call: Option<Call>,
    /// Whether a fragment of its arguments went out.
    sent_any: bool,
    /// The fragments that went out, joined (checked at completion in this
    /// crate's tests).
    #[cfg(any(test, feature = "testkit"))]
    sent: String,
}

/// The protocol-independent part: which calls go out when, invalid actions
/// as text, fragments completed, and for sequential protocols the queue of
/// what must wait for the open call to end.
struct Driver {
    sink: Box<dyn Sink + Send>,
    calls: Calls,
    sequential: bool,
    actions: HashMap<u64, ActionState>,
    /// Calls that went out, and named actions reported invalid, in order
    /// (ids are made from it).
    next_call: usize,
    /// The place of each action's call among the calls that went out.
    indexes: HashMap<u64, usize>,
    /// The live call whose content block is open (sequential protocols).
    open: Option<u64>,
    /// Events waiting for the open call to end (sequential protocols).
    queue: VecDeque<Event>,
    /// The span of the last block whose raw text went out as text.
    last_raw: Option<Span>,
    completed: bool,
    started: bool,
    finished: bool,
}

impl Driver {
    fn new(sink: Box<dyn Sink + Send>, calls: Calls) -> Self {
        Driver {
            sequential: sink.sequential(),
            sink,
            calls,
            actions: HashMap::new(),
            next_call: 0,
            indexes: HashMap::new(),
            open: None,
            queue: VecDeque::new(),
            last_raw: None,
            completed: false,
            started: false,
            finished: false,
        }
    }

    fn begin(&mut self, out: &mut String) {
        if !self.started {
            self.started = true;
            self.sink.begin(out);
        }
    }

    fn event(&mut self, event: &Event, out: &mut String) {
        self.begin(out);
        if self.finished {
            return;
        }
        if let Some(open) = self.open {
            if event.id().map(|id| id.0) != Some(open) {
                self.queue.push_back(event.clone());
                return;
            }
        }
        self.handle(event, out);
        self.drain(out);
    }

    /// Handles queued events that may go now: with no call open, the first
    /// one; with a call open, the first one of that call.
    fn drain(&mut self, out: &mut String) {
        loop {
            let at = match self.open {
                None if self.queue.is_empty() => return,
                None => 0,
                Some(open) => match self
                    .queue
                    .iter()
                    .position(|e| e.id().map(|id| id.0) == Some(open))
                {
                    Some(at) => at,
                    None => return,
                },
            };
            if let Some(event) = self.queue.remove(at) {
                self.handle(&event, out);
            }
        }
    }

    /// Sends action `id`'s call start.
    fn go_out(&mut self, id: u64, name: String, out: &mut String) -> Call {
        let call = Call {
            n: self.next_call,
            name,
        };
        self.next_call += 1;
        self.indexes.insert(id, self.indexes.len());
        self.sink.call_start(&call, out);
        call
    }

    fn handle(&mut self, event: &Event, out: &mut String) {
        match event {
            Event::Narrative(text) if !text.is_empty() => self.sink.text(text, out),
            Event::Reasoning(text) if !text.is_empty() => self.sink.reasoning(text, out),
            Event::ActionStarted {
                id, name, syntax, ..
            } => {
                // Never out on its name alone: see the module's docs.
                let state = ActionState {
                    name: name.clone(),
                    streams: matches!(syntax, Syntax::Dialect | Syntax::Native),
                    ..ActionState::default()
                };
                self.actions.insert(id.0, state);
            }
            Event::ArgumentsDelta { id, json } if !json.is_empty() => {
                let first = match self.actions.get(&id.0) {
                    Some(ActionState {
                        name: Some(name),
                        call: None,
                        streams: true,
                        ..
                    }) if self.calls == Calls::Live => Some(name.clone()),
                    _ => None,
                };
                if let Some(name) = first {
                    let call = self.go_out(id.0, name, out);
                    if let Some(state) = self.actions.get_mut(&id.0) {
                        state.call = Some(call);
                    }
                    if self.sequential {
                        self.open = Some(id.0);
                    }
                }
                // Fragments of a call not out (held, a fence's or a tag's,
                // or with no name yet) are dropped: its whole arguments go
                // out when it completes.
                if let Some(state) = self.actions.get_mut(&id.0) {
                    if let Some(call) = &state.call {
                        self.sink.call_args(call, json, out);
                        state.sent_any = true;
                        #[cfg(any(test, feature = "testkit"))]
                        state.sent.push_str(json);
                    }
                }
            }
            Event::ActionComplete(a) => {
                let state = self.actions.remove(&a.id.0).unwrap_or_default();
                let (call, sent_any) = match state.call {
                    Some(call) => (call, state.sent_any),
                    None => (self.go_out(a.id.0, a.name.clone(), out), false),
                };
                if !sent_any {
                    let whole = serde_json::to_string(&a.arguments).unwrap_or_default();
                    self.sink.call_args(&call, &whole, out);
                } else {
                    #[cfg(any(test, feature = "testkit"))]
                    {
                        let joined: Result<Value, _> = serde_json::from_str(&state.sent);
                        assert_eq!(
                            joined.ok().as_ref(),
                            Some(&a.arguments),
                            "the argument fragments of action {} do not join to its arguments: {}",
                            a.id,
                            state.sent
                        );
                    }
                }
                self.sink.call_done(&call, &a.arguments, out);
                self.completed = true;
                if self.open == Some(a.id.0) {
                    self.open = None;
                }
            }
            Event::ActionInvalid(a) => {
                let state = self.actions.remove(&a.id.0).unwrap_or_default();
                let errors = a
                    .errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ");
                match state.call {
                    Some(call) => {
                        self.sink.call_failed(&call, &errors, &a.raw, out);
                        if self.open == Some(a.id.0) {
                            self.open = None;
                        }
                    }
                    None => {
                        let repeated = a.span.is_some() && a.span == self.last_raw;
                        if !repeated && !a.raw.is_empty() {
                            self.sink.text(&a.raw, out);
                        }
                        self.last_raw = a.span;
                        if let Some(name) = a.name.clone().or(state.name) {
                            let call = Call {
                                n: self.next_call,
                                name,
                            };
                            self.next_call += 1;
                            self.sink.invalid_named(&call, &errors, &a.raw, out);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut String) {
        self.begin(out);
        if self.finished {
            return;
        }
        // Calls still open when the events stop (a caller that stops
        // early): they fail, then what waited for them goes out.
        loop {
            if let Some(open) = self.open.take() {
                self.fail_unended(open, out);
            }
            self.drain(out);
            if self.open.is_none() && self.queue.is_empty() {
                break;
            }
        }
        let mut unended: Vec<u64> = self
            .actions
            .iter()
            .filter(|(_, s)| s.call.is_some())
            .map(|(id, _)| *id)
            .collect();
        unended.sort_unstable();
        for id in unended {
            self.fail_unended(id, out);
        }
        let stop = if self.completed {
            Stop::ToolCalls
        } else {
            Stop::End
        };
        self.sink.finish(stop, out);
        self.finished = true;
    }

    fn fail_unended(&mut self, id: u64, out: &mut String) {
        if let Some(ActionState {
            call: Some(call), ..
        }) = self.actions.remove(&id)
        {
            self.sink
                .call_failed(&call, "the stream ended before the call did", "", out);
        }
    }
}

#[cfg(test)]
mod tests;
