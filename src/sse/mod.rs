//! Server-sent-event input: the streaming responses of an OpenAI-compatible
//! chat-completions endpoint, the OpenAI Responses API, the Anthropic
//! Messages API or Gemini's `streamGenerateContent?alt=sse`.
//!
//! [`SseParser`] is pushed the raw bytes of the event stream in chunks of any
//! size. It decodes the events ([`frame`]), tells the provider apart from the
//! first data payload, and then:
//!
//! - pushes the text deltas (OpenAI `choices[0].delta.content`, Responses
//!   `response.output_text.delta`, Anthropic `text_delta`, Gemini `text`
//!   parts) into an inner [`Parser`], so the actions written in the text are
//!   found as usual, their spans counting in the text deltas joined;
//! - reports the reasoning a provider sends apart from the text
//!   (`delta.reasoning_content` / `delta.reasoning`, Anthropic `thinking`
//!   blocks, Responses reasoning deltas, Gemini `"thought": true` parts) as
//!   [`Event::Reasoning`];
//! - turns the provider's native tool calls (OpenAI `delta.tool_calls`,
//!   Responses `function_call` items, Anthropic `tool_use` blocks, Gemini
//!   `functionCall` parts) into [`Syntax::Native`](crate::Syntax) actions
//!   whose raw text is their arguments text and whose span is `None`; the
//!   provider's call id, where it sends one, is the action's `call_id`
//!   attribute;
//! - reports stream-level problems (malformed SSE or JSON, a provider's error
//!   event, a stream that ends before the provider said it was done) as
//!   [`SseItem::Error`], never by panicking.
//!
//! The items do not depend on how the bytes were cut into chunks: events are
//! acted on whole, once decoded.
//!
//! ```
//! use actionstream::sse::{SseItem, SseParser};
//! use actionstream::{Config, Event};
//!
//! let stream = concat!(
//!     "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi.\"}}]}\n\n",
//!     "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[",
//!     "{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\"{\\\"q\\\":\\\"rust\\\"}\"}}",
//!     "]}}]}\n\n",
//!     "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
//!     "data: [DONE]\n\n",
//! );
//! let mut parser = SseParser::new(Config::default());
//! let mut items = Vec::new();
//! for chunk in stream.as_bytes().chunks(10) {
//!     parser.push(chunk, &mut items);
//! }
//! parser.finish(&mut items);
//!
//! assert!(matches!(&items[0], SseItem::Event(Event::Narrative(t)) if t == "Hi."));
//! let SseItem::Event(Event::ActionComplete(call)) = &items[2] else { panic!() };
//! assert_eq!((call.name.as_str(), call.tag.as_str()), ("search", "openai"));
//! assert_eq!(call.arguments["q"], "rust");
//! assert_eq!(items.len(), 3);
//! ```

pub mod frame;

mod anthropic;
mod gemini;
mod openai;
mod responses;

use serde_json::Value;

use crate::event::{push_merged, EventSlot};
use crate::{Config, Event, NativeId, Parser};

use self::frame::{Frame, FrameDecoder, FrameItem};

/// One output of the SSE parser.
#[derive(Debug, Clone, PartialEq)]
pub enum SseItem {
    /// A parser event: narrative and actions from the text, or native
    /// tool calls.
    Event(Event),
    /// A stream-level problem: malformed SSE or JSON, a provider's error
    /// event, a stream cut off before its end.
    Error(String),
}

impl EventSlot for SseItem {
    fn wrap(event: Event) -> Self {
        SseItem::Event(event)
    }

    fn event_mut(&mut self) -> Option<&mut Event> {
        match self {
            SseItem::Event(e) => Some(e),
            SseItem::Error(_) => None,
        }
    }
}

/// Which provider the stream comes from.
#[derive(Debug)]
enum Provider {
    /// Not told yet (no data payload read).
    Unknown,
    OpenAi(openai::OpenAi),
    Responses(responses::Responses),
    Anthropic(anthropic::Anthropic),
    Gemini(gemini::Gemini),
}

/// Parses the SSE stream of one LLM response (OpenAI-compatible chat
/// completions, OpenAI Responses, Anthropic Messages or Gemini, told apart
/// automatically).
///
/// ```
/// use actionstream::sse::{SseItem, SseParser};
/// use actionstream::{Config, Event};
///
/// let stream = "event: message_start\n\
///     data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n\
///     event: content_block_start\n\
///     data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
///     event: content_block_delta\n\
///     data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n\
///     event: content_block_stop\n\
///     data: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
///     event: message_stop\n\
///     data: {\"type\":\"message_stop\"}\n\n";
/// let mut parser = SseParser::new(Config::default());
/// let mut items = Vec::new();
/// parser.push(stream.as_bytes(), &mut items);
/// parser.finish(&mut items);
/// assert_eq!(items, [SseItem::Event(Event::Narrative("Hello".into()))]);
/// ```
#[derive(Debug)]
pub struct SseParser {
    frames: FrameDecoder,
    parser: Parser,
    provider: Provider,
    frame_items: Vec<FrameItem>,
    events: Vec<Event>,
    /// A data payload was read.
    saw_data: bool,
    /// The provider reported an error (the stream may stop without its end).
    provider_error: bool,
    /// `[DONE]` came before the provider was known.
    done_early: bool,
    /// The choice of a chat-completions stream that is read.
    choice: u64,
}

impl SseParser {
    /// A parser for one stream; `config` is that of the inner text [`Parser`]
    /// (and of the validation of native tool calls).
    pub fn new(config: Config) -> Self {
        SseParser::with_parser(Parser::new(config))
    }

    /// A parser for one stream whose text is read by `parser`: give it a
    /// [`Parser::sibling`] of one template and many streams share that
    /// template's configuration instead of each building its own.
    ///
    /// ```
    /// use actionstream::sse::{SseItem, SseParser};
    /// use actionstream::{Config, Event, Parser};
    ///
    /// let template = Parser::new(Config::default());
    /// let stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
    /// for _ in 0..2 {
    ///     let mut parser = SseParser::with_parser(template.sibling());
    ///     let mut items = Vec::new();
    ///     parser.push(stream.as_bytes(), &mut items);
    ///     parser.finish(&mut items);
    ///     assert_eq!(items, [SseItem::Event(Event::Narrative("Hi".into()))]);
    /// }
    /// ```
    pub fn with_parser(parser: Parser) -> Self {
        SseParser {
            frames: FrameDecoder::new(),
            parser,
            provider: Provider::Unknown,
            frame_items: Vec::new(),
            events: Vec::new(),
            saw_data: false,
            provider_error: false,
            done_early: false,
            choice: 0,
        }
    }

    /// A parser for one choice of an OpenAI-compatible chat-completions
    /// stream (a request with `n` > 1 gets `n` choices, told apart by
    /// `choices[].index`): it reads the choice whose index is `index` and
    /// leaves the others, as [`SseParser::new`] (choice 0) does. Streams of
    /// the other providers are read as usual.
    ///
    /// ```
    /// use actionstream::sse::{SseItem, SseParser};
    /// use actionstream::{Config, Event};
    ///
    /// let stream = concat!(
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"A\"}},{\"index\":1,\"delta\":{\"content\":\"B\"}}]}\n\n",
    ///     "data: {\"choices\":[{\"index\":1,\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":{\"total_tokens\":3}}\n\n",
    /// );
    /// let mut parser = SseParser::for_choice(Config::default(), 1);
    /// let mut items = Vec::new();
    /// parser.push(stream.as_bytes(), &mut items);
    /// assert_eq!(parser.finish_reason(), Some("length"));
    /// assert_eq!(parser.usage().unwrap()["total_tokens"], 3);
    /// parser.finish(&mut items);
    /// assert_eq!(items, [SseItem::Event(Event::Narrative("B".into()))]);
    /// ```
    pub fn for_choice(config: Config, index: u64) -> Self {
        SseParser {
            choice: index,
            ..SseParser::new(config)
        }
    }

    /// The `finish_reason` of the choice read, once a chat-completions
    /// stream gave one (`stop`, `length`, `tool_calls`, …). Read it before
    /// [`SseParser::finish`], which makes the parser ready for a new stream.
    pub fn finish_reason(&self) -> Option<&str> {
        match &self.provider {
            Provider::OpenAi(p) => p.finish_reason.as_deref(),
            _ => None,
        }
    }

    /// The last `usage` object a chat-completions stream sent (servers send
    /// one when asked with `stream_options.include_usage`). Read it before
    /// [`SseParser::finish`].
    pub fn usage(&self) -> Option<&Value> {
        match &self.provider {
            Provider::OpenAi(p) => p.usage.as_ref(),
            _ => None,
        }
    }

    /// Pushes the next bytes of the stream (a chunk may end anywhere); the
    /// items they make certain are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<SseItem>) {
        let mut items = std::mem::take(&mut self.frame_items);
        self.frames.push(bytes, &mut items);
        self.handle(&mut items, out);
        self.frame_items = items;
    }

    /// Ends the stream: a last event without its blank line is read, the
    /// text is finished, tool calls still open end (invalid if their
    /// arguments are cut off), and a stream that stopped before the
    /// provider's end marker is reported. The parser is then ready for a new
    /// stream (ids count from 0 again).
    pub fn finish(&mut self, out: &mut Vec<SseItem>) {
        let mut items = std::mem::take(&mut self.frame_items);
        self.frames.finish(&mut items);
        self.handle(&mut items, out);
        self.frame_items = items;

        let mut ctx = Ctx {
            parser: &mut self.parser,
            events: &mut self.events,
            out,
        };
        let complete = match &mut self.provider {
            Provider::Unknown => {
                ctx.finish_text();
                if !self.saw_data && !self.done_early {
                    ctx.error(
                        "the input held no server-sent-event data (is it an SSE stream?)".into(),
                    );
                }
                true
            }
            Provider::OpenAi(p) => p.finish(&mut ctx),
            Provider::Responses(p) => p.finish(&mut ctx),
            Provider::Anthropic(p) => p.finish(&mut ctx),
            Provider::Gemini(p) => p.finish(&mut ctx),
        };
        if !complete && !self.provider_error {
            let what = match self.provider {
                Provider::Anthropic(_) => "message_stop",
                Provider::Responses(_) => "response.completed",
                Provider::Gemini(_) => "a finishReason",
                _ => "a finish_reason or [DONE]",
            };
            ctx.error(format!(
                "the stream ended before {what}: the response is cut off"
            ));
        }
        // Ready for another stream, from scratch (the configuration still
        // shared, if it was).
        *self = SseParser {
            choice: self.choice,
            ..SseParser::with_parser(self.parser.sibling())
        };
    }

    fn handle(&mut self, items: &mut Vec<FrameItem>, out: &mut Vec<SseItem>) {
        for item in items.drain(..) {
            match item {
                FrameItem::Error(message) => out.push(SseItem::Error(message)),
                FrameItem::Frame(frame) => self.frame(&frame, out),
            }
        }
    }

    fn frame(&mut self, frame: &Frame, out: &mut Vec<SseItem>) {
        let data = frame.data.trim();
        if data.is_empty() {
            return;
        }
        let mut ctx = Ctx {
            parser: &mut self.parser,
            events: &mut self.events,
            out,
        };
        if data == "[DONE]" {
            match &mut self.provider {
                Provider::OpenAi(p) => p.done(&mut ctx),
                // Not these providers' end marker: nothing to act on.
                Provider::Responses(_) | Provider::Anthropic(_) | Provider::Gemini(_) => {}
                Provider::Unknown => self.done_early = true,
            }
            return;
        }
        let value: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => {
                ctx.error(format!(
                    "malformed JSON in a server-sent event{}: {e} (data: {})",
                    event_name(frame),
                    snippet(data)
                ));
                return;
            }
        };
        self.saw_data = true;
        if !value.is_object() {
            ctx.error(format!(
                "a server-sent event{} holds JSON that is not an object: {}",
                event_name(frame),
                snippet(data)
            ));
            return;
        }
        if let Provider::Unknown = self.provider {
            match detect(&frame.event, &value) {
                Some(Provider::OpenAi(mut p)) => {
                    p.choice = self.choice;
                    self.provider = Provider::OpenAi(p);
                }
                Some(p) => self.provider = p,
                None => {
                    match error_message(&value, "provider") {
                        Some(message) => {
                            self.provider_error = true;
                            ctx.error(message);
                        }
                        None => ctx.error(format!(
                            "unrecognised server-sent event{}: not an OpenAI chat-completion \
                             chunk, an OpenAI Responses event, an Anthropic Messages event \
                             nor a Gemini response (data: {})",
                            event_name(frame),
                            snippet(data)
                        )),
                    }
                    return;
                }
            }
        }
        let errored = match &mut self.provider {
            Provider::OpenAi(p) => p.chunk(&value, &mut ctx),
            Provider::Responses(p) => p.event(&value, &mut ctx),
            Provider::Anthropic(p) => p.event(&value, &mut ctx),
            Provider::Gemini(p) => p.chunk(&value, &mut ctx),
            Provider::Unknown => false,
        };
        self.provider_error |= errored;
    }
}

/// Tells the provider from the first data payload (and its event type).
fn detect(event: &str, value: &Value) -> Option<Provider> {
    let ty = value.get("type").and_then(Value::as_str).unwrap_or("");
    let anthropic =
        |t: &str| t.starts_with("message_") || t.starts_with("content_block_") || t == "ping";
    if anthropic(ty) || (ty.is_empty() && anthropic(event)) {
        return Some(Provider::Anthropic(anthropic::Anthropic::default()));
    }
    if ty.starts_with("response.") || (ty.is_empty() && event.starts_with("response.")) {
        return Some(Provider::Responses(responses::Responses::default()));
    }
    let object = value.get("object").and_then(Value::as_str).unwrap_or("");
    if value.get("choices").is_some() || object.starts_with("chat.completion") {
        return Some(Provider::OpenAi(openai::OpenAi::default()));
    }
    let has = |key: &str| value.get(key).is_some_and(|v| !v.is_null());
    if value.get("candidates").is_some_and(Value::is_array)
        || has("usageMetadata")
        || has("modelVersion")
        || has("promptFeedback")
    {
        return Some(Provider::Gemini(gemini::Gemini::default()));
    }
    None
}

/// The message of an error payload (`{"error": …}`, or Anthropic's
/// `{"type": "error", "error": {…}}`), if `value` is one.
fn error_message(value: &Value, provider: &str) -> Option<String> {
    let error = value.get("error").filter(|e| !e.is_null())?;
    let (kind, message) = match error {
        Value::String(s) => (None, s.clone()),
        Value::Object(o) => {
            let kind = o
                .get("type")
                .and_then(Value::as_str)
                .or_else(|| o.get("code").and_then(Value::as_str))
                .or_else(|| o.get("status").and_then(Value::as_str))
                .map(str::to_owned);
            let message = match o.get("message") {
                Some(Value::String(s)) => s.clone(),
                _ => error.to_string(),
            };
            (kind, message)
        }
        other => (None, other.to_string()),
    };
    Some(match kind {
        Some(kind) => format!("{provider} error ({kind}): {message}"),
        None => format!("{provider} error: {message}"),
    })
}

fn event_name(frame: &Frame) -> String {
    if frame.event.is_empty() {
        String::new()
    } else {
        format!(" '{}'", snippet(&frame.event))
    }
}

/// The first characters of `text`, for messages.
fn snippet(text: &str) -> String {
    const MAX: usize = 120;
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(MAX).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// What the provider decoders act on: the inner parser and the output.
struct Ctx<'a> {
    parser: &'a mut Parser,
    events: &'a mut Vec<Event>,
    out: &'a mut Vec<SseItem>,
}

impl Ctx<'_> {
    /// The largest arguments text a native call may hold.
    fn max_arguments(&self) -> usize {
        self.parser.config().max_block_bytes
    }

    /// A text delta.
    fn text(&mut self, text: &str) {
        self.parser.push(text, self.events);
        self.flush();
    }

    /// A reasoning delta: reported as it comes, apart from the text.
    fn reasoning(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(SseItem::Event(Event::Reasoning(prev))) = self.out.last_mut() {
            prev.push_str(text);
        } else {
            self.out
                .push(SseItem::Event(Event::Reasoning(text.to_owned())));
        }
    }

    /// The text is over: everything the parser holds is decided.
    fn finish_text(&mut self) {
        self.parser.finish(self.events);
        self.flush();
    }

    /// A native call whose name is known.
    fn start(&mut self, name: &str, tag: &str) -> NativeId {
        let id = self.parser.native_started(name, tag, self.events);
        self.flush();
        id
    }

    /// A native call is over; `call_id` is the provider's id of the call,
    /// kept as the action's `call_id` attribute.
    fn end(&mut self, id: NativeId, name: &str, tag: &str, arguments: &str, call_id: Option<&str>) {
        self.parser
            .native_finished(id, name, tag, arguments, self.events);
        if let Some(call_id) = call_id.filter(|c| !c.is_empty()) {
            for event in self.events.iter_mut() {
                if let Event::ActionComplete(a) = event {
                    a.attributes
                        .push(("call_id".to_owned(), call_id.to_owned()));
                }
            }
        }
        self.flush();
    }

    fn error(&mut self, message: String) {
        self.out.push(SseItem::Error(message));
    }

    /// Moves the parser's events out, merging adjacent narrative (and
    /// adjacent reasoning).
    fn flush(&mut self) {
        for event in self.events.drain(..) {
            push_merged(self.out, event);
        }
    }
}

/// Arguments text of a native call, held up to the block size limit.
#[derive(Debug, Default)]
struct Arguments {
    text: String,
    /// Bytes dropped past the limit.
    dropped: usize,
}

impl Arguments {
    fn push(&mut self, fragment: &str, max: usize) {
        if self.dropped > 0 || self.text.len() + fragment.len() > max {
            self.dropped += fragment.len();
        } else {
            self.text.push_str(fragment);
        }
    }

    /// Ends the call. A call whose arguments outgrew the limit is reported
    /// and ends with the text held, which is cut off and so invalid (unless
    /// its JSON closed within the limit and only the bytes after it were
    /// dropped).
    fn end(self, ctx: &mut Ctx<'_>, id: NativeId, name: &str, tag: &str, call_id: Option<&str>) {
        if self.dropped > 0 {
            ctx.error(format!(
                "the arguments of tool call '{name}' are larger than the block limit of {} \
                 bytes; {} bytes were dropped",
                ctx.max_arguments(),
                self.dropped
            ));
        }
        ctx.end(id, name, tag, &self.text, call_id);
    }
}
