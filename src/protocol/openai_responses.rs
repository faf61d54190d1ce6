//! [`Format::OpenAiResponses`](super::Format::OpenAiResponses): OpenAI
//! Responses API streaming events.
//!
//! `response.created` and `response.in_progress` open the stream (the
//! response object with `status: in_progress` and no output). Text is a
//! `message` output item: `response.output_item.added`,
//! `response.content_part.added` (an empty `output_text` part), then
//! `response.output_text.delta` events, closed by `.output_text.done`,
//! `.content_part.done` and `.output_item.done`. Reasoning is a `reasoning`
//! item the same way, with a `reasoning_text` part and
//! `response.reasoning_text.delta` events. A call is a `function_call` item:
//! added with empty `arguments`, then `response.function_call_arguments.delta`
//! fragments, `.function_call_arguments.done` and `.output_item.done`
//! (`status: completed`); a call that ends invalid is done with
//! `status: incomplete` and the arguments sent so far. Text after a call is a
//! new message item, so the items keep the order of the response. The last
//! event is `response.completed` with the whole response, every output item
//! in it; after a stream-level error (an `error` event, sent at once) it is
//! `response.failed` with the first error's message, and after an answer
//! [truncated](super::Encoder::truncated) at its token limit
//! `response.incomplete` (`incomplete_details.reason: max_output_tokens`).
//! The response's `usage` is null unless the model's server told it
//! ([`super::Encoder::usage`]). Every event carries its `sequence_number`,
//! from 0.
//!
//! A call to a freeform tool ([`super::Options::custom_tools`]) is a
//! `custom_tool_call` item whose `input` is the call's `input` argument: it
//! goes out whole when the call completes (`response.output_item.added`,
//! `response.custom_tool_call_input.delta` and `.done`,
//! `response.output_item.done`), since its text is only known once the
//! JSON string holding it ends. A call to a tool offered inside a namespace
//! ([`super::Options::namespaced_tools`]) carries that `namespace`.

use std::collections::HashMap;

use serde::Serialize;

use super::{named, Call, Meta, Options, Sink, Stop, Usage};

// Every event is written from the typed records below, which borrow what
// they carry: a response's text goes out four times (delta, done, part,
// item) and its arguments three, and building a `serde_json::Value` map for
// each event (keys hashed, strings copied, then dropped) cost several times
// the parse.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Message,
    Reasoning,
}

/// An open message or reasoning item.
struct Open {
    kind: Kind,
    index: usize,
    id: String,
    text: String,
}

/// A function call item that went out.
struct FnCall {
    index: usize,
    id: String,
    call_id: String,
    arguments: String,
}

/// A content part: `output_text` in a message, `reasoning_text` in a
/// reasoning item.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    OutputText {
        text: &'a str,
        annotations: [(); 0],
        logprobs: [(); 0],
    },
    ReasoningText {
        text: &'a str,
    },
}

impl<'a> Part<'a> {
    fn new(kind: Kind, text: &'a str) -> Self {
        match kind {
            Kind::Message => Part::OutputText {
                text,
                annotations: [],
                logprobs: [],
            },
            Kind::Reasoning => Part::ReasoningText { text },
        }
    }
}

/// An output item, as it goes out and as the last event lists it (its
/// `type` second, after its `id`).
#[derive(Serialize)]
#[serde(untagged)]
enum Item<'a> {
    Message {
        id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        status: &'a str,
        role: &'static str,
        content: Vec<Part<'a>>,
    },
    Reasoning {
        id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        status: &'a str,
        summary: [(); 0],
        content: Vec<Part<'a>>,
    },
    FunctionCall {
        id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        status: &'a str,
        arguments: &'a str,
        call_id: &'a str,
        name: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        namespace: Option<&'a str>,
    },
    CustomToolCall {
        id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        status: &'a str,
        call_id: &'a str,
        name: &'a str,
        input: &'a str,
    },
}

/// A finished output item, kept for the last event.
enum Done {
    Text {
        kind: Kind,
        id: String,
        text: String,
    },
    Call {
        f: FnCall,
        name: String,
        namespace: Option<String>,
        status: &'static str,
    },
    Custom {
        f: FnCall,
        name: String,
        input: String,
    },
}

impl Done {
    fn item(&self) -> Item<'_> {
        match self {
            Done::Text { kind, id, text } => {
                text_item(*kind, id, "completed", vec![Part::new(*kind, text)])
            }
            Done::Call {
                f,
                name,
                namespace,
                status,
            } => fn_item(f, name, namespace.as_deref(), status),
            Done::Custom { f, name, input } => custom_item(f, name, input, "completed"),
        }
    }
}

fn custom_item<'a>(f: &'a FnCall, name: &'a str, input: &'a str, status: &'a str) -> Item<'a> {
    Item::CustomToolCall {
        id: &f.id,
        kind: "custom_tool_call",
        status,
        call_id: &f.call_id,
        name,
        input,
    }
}

fn text_item<'a>(kind: Kind, id: &'a str, status: &'a str, content: Vec<Part<'a>>) -> Item<'a> {
    match kind {
        Kind::Message => Item::Message {
            id,
            kind: "message",
            status,
            role: "assistant",
            content,
        },
        Kind::Reasoning => Item::Reasoning {
            id,
            kind: "reasoning",
            status,
            summary: [],
            content,
        },
    }
}

fn fn_item<'a>(
    f: &'a FnCall,
    name: &'a str,
    namespace: Option<&'a str>,
    status: &'a str,
) -> Item<'a> {
    Item::FunctionCall {
        id: &f.id,
        kind: "function_call",
        status,
        arguments: &f.arguments,
        call_id: &f.call_id,
        name,
        namespace,
    }
}

/// The fields of one event after its `type` and `sequence_number`.
#[derive(Serialize)]
#[serde(untagged)]
enum Fields<'a> {
    Response {
        response: Response<'a>,
    },
    Item {
        output_index: usize,
        item: Item<'a>,
    },
    Part {
        item_id: &'a str,
        output_index: usize,
        content_index: u32,
        part: Part<'a>,
    },
    TextDelta {
        item_id: &'a str,
        output_index: usize,
        content_index: u32,
        delta: &'a str,
        logprobs: [(); 0],
    },
    ReasoningDelta {
        item_id: &'a str,
        output_index: usize,
        content_index: u32,
        delta: &'a str,
    },
    TextDone {
        item_id: &'a str,
        output_index: usize,
        content_index: u32,
        text: &'a str,
        logprobs: [(); 0],
    },
    ReasoningDone {
        item_id: &'a str,
        output_index: usize,
        content_index: u32,
        text: &'a str,
    },
    ArgumentsDelta {
        item_id: &'a str,
        output_index: usize,
        delta: &'a str,
    },
    ArgumentsDone {
        item_id: &'a str,
        output_index: usize,
        arguments: &'a str,
    },
    InputDone {
        item_id: &'a str,
        output_index: usize,
        input: &'a str,
    },
    Error {
        code: (),
        message: &'a str,
        param: (),
    },
}

/// One event: `type`, `sequence_number`, then its fields.
#[derive(Serialize)]
struct Frame<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    sequence_number: u64,
    #[serde(flatten)]
    fields: Fields<'a>,
}

/// The error of a failed response.
#[derive(Serialize)]
struct Failure<'a> {
    code: &'static str,
    message: &'a str,
}

/// The response object.
#[derive(Serialize)]
struct Response<'a> {
    id: String,
    object: &'static str,
    created_at: u64,
    status: &'a str,
    background: bool,
    error: Option<Failure<'a>>,
    incomplete_details: Option<Incomplete>,
    instructions: (),
    max_output_tokens: (),
    model: &'a str,
    output: Vec<Item<'a>>,
    parallel_tool_calls: bool,
    previous_response_id: (),
    reasoning: (),
    temperature: (),
    text: TextFormat,
    tool_choice: &'static str,
    tools: [(); 0],
    top_p: (),
    truncation: &'static str,
    usage: Option<UsageOut>,
    metadata: Metadata,
}

/// Why a response is incomplete.
#[derive(Serialize)]
struct Incomplete {
    reason: &'static str,
}

/// The response's `usage`.
#[derive(Serialize)]
struct UsageOut {
    input_tokens: u64,
    input_tokens_details: Cached,
    output_tokens: u64,
    output_tokens_details: ReasoningTokens,
    total_tokens: u64,
}

#[derive(Serialize)]
struct Cached {
    cached_tokens: u64,
}

#[derive(Serialize)]
struct ReasoningTokens {
    reasoning_tokens: u64,
}

/// `{"format": {"type": "text"}}`.
#[derive(Serialize)]
struct TextFormat {
    format: FormatType,
}

#[derive(Serialize)]
struct FormatType {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `{}`.
#[derive(Serialize)]
struct Metadata {}

pub(crate) struct Responses {
    meta: Meta,
    sequence: u64,
    /// Output items by output index; `None` until done.
    items: Vec<Option<Done>>,
    open: Option<Open>,
    calls: HashMap<usize, FnCall>,
    error: Option<String>,
    custom_tools: Vec<String>,
    namespaced_tools: Vec<(String, String)>,
    usage: Option<Usage>,
    truncated: bool,
}

/// Writes one event (a free function, so that the fields may borrow the
/// encoder's state while the sequence number moves on).
fn emit(sequence: &mut u64, kind: &str, fields: Fields<'_>, out: &mut String) {
    let frame = Frame {
        kind,
        sequence_number: *sequence,
        fields,
    };
    *sequence += 1;
    named(out, kind, &frame);
}

impl Responses {
    pub(crate) fn new(meta: Meta, options: &Options) -> Self {
        Responses {
            meta,
            sequence: 0,
            items: Vec::new(),
            open: None,
            calls: HashMap::new(),
            error: None,
            custom_tools: options.custom_tools.clone(),
            namespaced_tools: options.namespaced_tools.clone(),
            usage: None,
            truncated: false,
        }
    }

    fn is_custom(&self, name: &str) -> bool {
        self.custom_tools.iter().any(|n| n == name)
    }

    fn namespace_of(&self, name: &str) -> Option<String> {
        self.namespaced_tools
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ns)| ns.clone())
    }

    /// Writes the response object event `kind` with `status`; once done
    /// (any status but `in_progress`) it lists the output items.
    fn response(&mut self, kind: &str, status: &str, out: &mut String) {
        let output: Vec<Item<'_>> = if status == "in_progress" {
            Vec::new()
        } else {
            self.items.iter().flatten().map(Done::item).collect()
        };
        let error = match (&self.error, status) {
            (Some(message), "failed") => Some(Failure {
                code: "server_error",
                message,
            }),
            _ => None,
        };
        let response = Response {
            id: format!("resp_{}", self.meta.id),
            object: "response",
            created_at: self.meta.created,
            status,
            background: false,
            error,
            incomplete_details: (status == "incomplete").then_some(Incomplete {
                reason: "max_output_tokens",
            }),
            instructions: (),
            max_output_tokens: (),
            model: &self.meta.model,
            output,
            parallel_tool_calls: true,
            previous_response_id: (),
            reasoning: (),
            temperature: (),
            text: TextFormat {
                format: FormatType { kind: "text" },
            },
            tool_choice: "auto",
            tools: [],
            top_p: (),
            truncation: "disabled",
            usage: self
                .usage
                .filter(|_| status != "in_progress")
                .map(|u| UsageOut {
                    input_tokens: u.input_tokens,
                    input_tokens_details: Cached { cached_tokens: 0 },
                    output_tokens: u.output_tokens,
                    output_tokens_details: ReasoningTokens {
                        reasoning_tokens: 0,
                    },
                    total_tokens: u.input_tokens + u.output_tokens,
                }),
            metadata: Metadata {},
        };
        emit(&mut self.sequence, kind, Fields::Response { response }, out);
    }

    fn new_item(&mut self) -> usize {
        self.items.push(None);
        self.items.len() - 1
    }

    /// Text of `kind`: into the open item of that kind, or a new one.
    fn write(&mut self, kind: Kind, text: &str, out: &mut String) {
        if self.open.as_ref().is_some_and(|o| o.kind != kind) {
            self.close(out);
        }
        if self.open.is_none() {
            let index = self.new_item();
            let prefix = match kind {
                Kind::Message => "msg",
                Kind::Reasoning => "rs",
            };
            let id = format!("{prefix}_{}_{index}", self.meta.id);
            let seq = &mut self.sequence;
            let item = text_item(kind, &id, "in_progress", Vec::new());
            emit(
                seq,
                "response.output_item.added",
                Fields::Item {
                    output_index: index,
                    item,
                },
                out,
            );
            emit(
                seq,
                "response.content_part.added",
                Fields::Part {
                    item_id: &id,
                    output_index: index,
                    content_index: 0,
                    part: Part::new(kind, ""),
                },
                out,
            );
            self.open = Some(Open {
                kind,
                index,
                id,
                text: String::new(),
            });
        }
        let Some(open) = self.open.as_mut() else {
            return;
        };
        open.text.push_str(text);
        let (item_id, output_index) = (open.id.as_str(), open.index);
        let (kind, fields) = match kind {
            Kind::Message => (
                "response.output_text.delta",
                Fields::TextDelta {
                    item_id,
                    output_index,
                    content_index: 0,
                    delta: text,
                    logprobs: [],
                },
            ),
            Kind::Reasoning => (
                "response.reasoning_text.delta",
                Fields::ReasoningDelta {
                    item_id,
                    output_index,
                    content_index: 0,
                    delta: text,
                },
            ),
        };
        emit(&mut self.sequence, kind, fields, out);
    }

    /// Closes the open message or reasoning item.
    fn close(&mut self, out: &mut String) {
        let Some(open) = self.open.take() else {
            return;
        };
        let seq = &mut self.sequence;
        let (item_id, output_index, text) = (open.id.as_str(), open.index, open.text.as_str());
        let (kind, fields) = match open.kind {
            Kind::Message => (
                "response.output_text.done",
                Fields::TextDone {
                    item_id,
                    output_index,
                    content_index: 0,
                    text,
                    logprobs: [],
                },
            ),
            Kind::Reasoning => (
                "response.reasoning_text.done",
                Fields::ReasoningDone {
                    item_id,
                    output_index,
                    content_index: 0,
                    text,
                },
            ),
        };
        emit(seq, kind, fields, out);
        emit(
            seq,
            "response.content_part.done",
            Fields::Part {
                item_id,
                output_index,
                content_index: 0,
                part: Part::new(open.kind, text),
            },
            out,
        );
        let item = text_item(
            open.kind,
            item_id,
            "completed",
            vec![Part::new(open.kind, text)],
        );
        emit(
            seq,
            "response.output_item.done",
            Fields::Item { output_index, item },
            out,
        );
        self.items[output_index] = Some(Done::Text {
            kind: open.kind,
            id: open.id,
            text: open.text,
        });
    }

    /// Ends a call's item with `status`.
    fn end_call(&mut self, call: &Call, status: &'static str, out: &mut String) {
        let Some(f) = self.calls.remove(&call.n) else {
            return;
        };
        let namespace = self.namespace_of(&call.name);
        let seq = &mut self.sequence;
        if status == "completed" {
            emit(
                seq,
                "response.function_call_arguments.done",
                Fields::ArgumentsDone {
                    item_id: &f.id,
                    output_index: f.index,
                    arguments: &f.arguments,
                },
                out,
            );
        }
        emit(
            seq,
            "response.output_item.done",
            Fields::Item {
                output_index: f.index,
                item: fn_item(&f, &call.name, namespace.as_deref(), status),
            },
            out,
        );
        let index = f.index;
        self.items[index] = Some(Done::Call {
            f,
            name: call.name.clone(),
            namespace,
            status,
        });
    }

    /// Writes a completed freeform call whole, as a `custom_tool_call`.
    fn custom_call(&mut self, call: &Call, arguments: &serde_json::Value, out: &mut String) {
        self.close(out);
        let input = match arguments.get("input") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let index = self.new_item();
        let f = FnCall {
            index,
            id: format!("ctc_{}_{index}", self.meta.id),
            call_id: format!("call_{}_{}", self.meta.id, call.n),
            arguments: String::new(),
        };
        let seq = &mut self.sequence;
        emit(
            seq,
            "response.output_item.added",
            Fields::Item {
                output_index: index,
                item: custom_item(&f, &call.name, "", "in_progress"),
            },
            out,
        );
        if !input.is_empty() {
            emit(
                seq,
                "response.custom_tool_call_input.delta",
                Fields::ArgumentsDelta {
                    item_id: &f.id,
                    output_index: index,
                    delta: &input,
                },
                out,
            );
        }
        emit(
            seq,
            "response.custom_tool_call_input.done",
            Fields::InputDone {
                item_id: &f.id,
                output_index: index,
                input: &input,
            },
            out,
        );
        emit(
            seq,
            "response.output_item.done",
            Fields::Item {
                output_index: index,
                item: custom_item(&f, &call.name, &input, "completed"),
            },
            out,
        );
        self.items[index] = Some(Done::Custom {
            f,
            name: call.name.clone(),
            input,
        });
    }
}

impl Sink for Responses {
    fn begin(&mut self, out: &mut String) {
        self.response("response.created", "in_progress", out);
        self.response("response.in_progress", "in_progress", out);
    }

    fn text(&mut self, text: &str, out: &mut String) {
        self.write(Kind::Message, text, out);
    }

    fn reasoning(&mut self, text: &str, out: &mut String) {
        self.write(Kind::Reasoning, text, out);
    }

    fn call_start(&mut self, call: &Call, out: &mut String) {
        if self.is_custom(&call.name) {
            // Written whole when it completes.
            return;
        }
        self.close(out);
        let index = self.new_item();
        let f = FnCall {
            index,
            id: format!("fc_{}_{index}", self.meta.id),
            call_id: format!("call_{}_{}", self.meta.id, call.n),
            arguments: String::new(),
        };
        let namespace = self.namespace_of(&call.name);
        emit(
            &mut self.sequence,
            "response.output_item.added",
            Fields::Item {
                output_index: index,
                item: fn_item(&f, &call.name, namespace.as_deref(), "in_progress"),
            },
            out,
        );
        self.calls.insert(call.n, f);
    }

    fn call_args(&mut self, call: &Call, fragment: &str, out: &mut String) {
        let Some(f) = self.calls.get_mut(&call.n) else {
            return;
        };
        f.arguments.push_str(fragment);
        emit(
            &mut self.sequence,
            "response.function_call_arguments.delta",
            Fields::ArgumentsDelta {
                item_id: &f.id,
                output_index: f.index,
                delta: fragment,
            },
            out,
        );
    }

    fn call_done(&mut self, call: &Call, arguments: &serde_json::Value, out: &mut String) {
        if self.is_custom(&call.name) {
            self.custom_call(call, arguments, out);
        } else {
            self.end_call(call, "completed", out);
        }
    }

    fn call_failed(&mut self, call: &Call, _errors: &str, _raw: &str, out: &mut String) {
        self.end_call(call, "incomplete", out);
    }

    fn error(&mut self, message: &str, out: &mut String) {
        emit(
            &mut self.sequence,
            "error",
            Fields::Error {
                code: (),
                message,
                param: (),
            },
            out,
        );
        if self.error.is_none() {
            self.error = Some(message.to_owned());
        }
    }

    fn finish(&mut self, _stop: Stop, out: &mut String) {
        self.close(out);
        let (kind, status) = match self.error {
            Some(_) => ("response.failed", "failed"),
            None if self.truncated => ("response.incomplete", "incomplete"),
            None => ("response.completed", "completed"),
        };
        self.response(kind, status, out);
    }

    fn usage(&mut self, usage: Usage) {
        self.usage = Some(usage);
    }

    fn truncated(&mut self) {
        self.truncated = true;
    }
}
