//! `actionstream parse`: events as JSON lines, flushed as they are known.

use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

use actionstream::chunking::ChunkSizes;
use actionstream::protocol::{Calls, Encoder, Format, Options};
use actionstream::sse::{SseItem, SseParser};
use actionstream::{Config, ConfigFile, Parser, ParserSettings};
use clap::builder::{PossibleValuesParser, TypedValueParser};

use crate::output::{Style, Writer};

/// What the input is.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// The response text itself.
    Text,
    /// A server-sent-event stream (OpenAI chat completions or Anthropic Messages).
    Sse,
}

/// Options shared by `parse` and `run`.
#[derive(clap::Args, Debug, Clone)]
pub struct ParseOptions {
    /// Push the input N bytes at a time (a chunk may end inside a character).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_size: Option<u64>,
    /// Push chunks of pseudo-random sizes 1..=64 drawn from SEED.
    #[arg(long, value_name = "SEED", conflicts_with = "chunk_size")]
    pub random_chunks: Option<u64>,
    /// An extra action fence tag (repeatable).
    #[arg(long = "fence-tag", value_name = "TAG")]
    pub fence_tags: Vec<String>,
    /// An extra call tag name (repeatable).
    #[arg(long = "xml-tag", value_name = "NAME")]
    pub xml_tags: Vec<String>,
    /// An extra discriminator key (repeatable).
    #[arg(long = "discriminator", value_name = "KEY")]
    pub discriminators: Vec<String>,
    /// Validate against the schemas in FILE: a JSON object of action names to JSON Schemas.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// No JSON repairs; a block missing its closer is invalid.
    #[arg(long)]
    pub strict: bool,
    /// The block size limit in bytes (at least 16).
    #[arg(long, value_name = "N")]
    pub max_block_bytes: Option<usize>,
    /// `sse`: the input is a server-sent-event stream.
    #[arg(long, value_enum, default_value = "text")]
    pub input: InputKind,
    /// Also print `action_delta` lines: the raw text of each started
    /// action's JSON as it arrives.
    #[arg(long)]
    pub deltas: bool,
    /// Also print `arguments_delta` lines: each started action's arguments
    /// as compact JSON, piece by piece as the model writes them.
    #[arg(long)]
    pub argument_deltas: bool,
    /// A dialect to read (repeatable; several combine): `actions` (fences
    /// and call tags, the default) or a model's own format (`hermes`,
    /// `qwen3_coder`, `mistral`, `gpt_oss`, …).
    #[arg(long = "dialect", value_name = "NAME")]
    pub dialects: Vec<String>,
    /// Choose the dialects by the model id's family
    /// (`Qwen/Qwen3-Coder-30B-A3B-Instruct` → `qwen3_coder`).
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// The request's tool list (OpenAI or Anthropic style): each tool's
    /// parameter schema types raw values and checks its calls.
    #[arg(long, value_name = "FILE")]
    pub tools: Option<PathBuf>,
    /// The response starts inside reasoning (the template wrote `<think>`).
    /// `--model` says so for the families whose template does.
    #[arg(long)]
    pub reasoning_open: bool,
    /// The response does not start inside reasoning, whatever `--model`'s
    /// family does (a request that turned thinking off).
    #[arg(long, conflicts_with = "reasoning_open")]
    pub no_reasoning_open: bool,
    /// Call markers inside reasoning open calls.
    #[arg(long)]
    pub calls_in_reasoning: bool,
    /// Wait MS milliseconds after each push: replays a recorded response at
    /// a model's pace.
    #[arg(long, value_name = "MS")]
    pub pace_ms: Option<u64>,
}

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// The response (standard input when absent or `-`).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub options: ParseOptions,
    /// A configuration file (tags, discriminators, schemas, limits, handlers).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// For people: narrative as plain text, actions as short coloured lines.
    #[arg(long, conflicts_with = "summary")]
    pub pretty: bool,
    /// Print only one line at the end with the counts.
    #[arg(long)]
    pub summary: bool,
    /// The output: `events` (JSON lines), or a protocol's server-sent
    /// events that its clients read.
    #[arg(long, value_name = "FORMAT", default_value = "events", value_parser = format_parser())]
    pub output: Format,
    /// With a protocol output: `live` sends each call as the model writes
    /// it, from its first argument fragment (a fence's or tag's call when it
    /// completes); `complete` holds each call until it completes, so a
    /// failed call never goes out as a call.
    #[arg(long, value_enum, default_value = "live")]
    pub calls: CallsArg,
    /// With a protocol output: the base of its ids (for reproducible output).
    #[arg(long, value_name = "ID")]
    pub response_id: Option<String>,
    /// With a protocol output: the creation time it reports, in Unix
    /// seconds (for reproducible output).
    #[arg(long, value_name = "SECS")]
    pub created: Option<u64>,
}

/// When calls go out in a protocol output.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallsArg {
    /// As the model writes them.
    Live,
    /// Each whole, when it completes.
    Complete,
}

/// `--output`'s names, as the library spells them.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(Format::ALL.map(Format::as_str))
        .map(|name| name.parse::<Format>().expect("a listed format"))
}

impl ParseOptions {
    /// The flags' layer of parser settings (reads `--schema`).
    fn settings(&self) -> Result<ParserSettings, String> {
        let schemas = match &self.schema {
            Some(path) => ConfigFile::load_schemas(path).map_err(|e| e.to_string())?,
            None => Default::default(),
        };
        Ok(ParserSettings {
            fence_tags: self.fence_tags.clone(),
            xml_tags: self.xml_tags.clone(),
            discriminators: self.discriminators.clone(),
            strict: self.strict.then_some(true),
            max_block_bytes: self.max_block_bytes,
            action_deltas: self.deltas.then_some(true),
            schemas,
            dialects: self.dialects.clone(),
            model: self.model.clone(),
            tools: match &self.tools {
                Some(path) => {
                    actionstream::dialect::tools::load(path).map_err(|e| e.to_string())?
                }
                None => Vec::new(),
            },
            reasoning_open: if self.no_reasoning_open {
                Some(false)
            } else {
                self.reasoning_open.then_some(true)
            },
            calls_in_reasoning: self.calls_in_reasoning.then_some(true),
            ..ParserSettings::default()
        })
    }
}

/// The parser configuration: the defaults, then the file, then the flags.
pub fn build_config(options: &ParseOptions, file: Option<&ConfigFile>) -> Result<Config, String> {
    let layers = file.map(ConfigFile::parser_settings).into_iter();
    layers
        .chain([options.settings()?])
        .try_fold(Config::default(), |config, layer| layer.apply(config))
        .map_err(|e| e.to_string())
}

/// Opens FILE, or standard input for `None` and `-`.
pub fn open_input(file: Option<&Path>) -> Result<Box<dyn Read + Send>, String> {
    match file {
        None => Ok(Box::new(io::stdin())),
        Some(p) if p == Path::new("-") => Ok(Box::new(io::stdin())),
        Some(p) => std::fs::File::open(p)
            .map(|f| Box::new(f) as Box<dyn Read + Send>)
            .map_err(|e| format!("cannot read {}: {e}", p.display())),
    }
}

/// Cuts what is read into the pushes the options ask for, carrying the rest.
pub struct Chunker {
    size: Option<usize>,
    random: Option<ChunkSizes>,
    next: usize,
    carry: Vec<u8>,
}

impl Chunker {
    pub fn new(options: &ParseOptions) -> Self {
        let mut c = Chunker {
            size: options.chunk_size.map(|n| n as usize),
            random: options.random_chunks.map(|seed| ChunkSizes::new(seed, 64)),
            next: 0,
            carry: Vec::new(),
        };
        c.draw();
        c
    }

    fn draw(&mut self) {
        self.next = match (self.random.as_mut().and_then(Iterator::next), self.size) {
            (Some(n), _) => n,
            (None, Some(n)) => n,
            (None, None) => usize::MAX,
        };
    }

    /// Calls `push` with each whole chunk now available: straight from
    /// `data`, but for a chunk begun in an earlier read; keeps the rest.
    pub fn feed<E>(
        &mut self,
        mut data: &[u8],
        mut push: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.next == usize::MAX {
            return push(data);
        }
        if !self.carry.is_empty() {
            // The carry is shorter than the chunk it begins.
            let need = self.next - self.carry.len();
            if data.len() < need {
                self.carry.extend_from_slice(data);
                return Ok(());
            }
            self.carry.extend_from_slice(&data[..need]);
            data = &data[need..];
            push(&self.carry)?;
            self.carry.clear();
            self.draw();
        }
        while data.len() >= self.next {
            let (chunk, rest) = data.split_at(self.next);
            push(chunk)?;
            data = rest;
            self.draw();
        }
        self.carry.extend_from_slice(data);
        Ok(())
    }

    /// Pushes what is left.
    pub fn finish<E>(&mut self, push: impl FnOnce(&[u8]) -> Result<(), E>) -> Result<(), E> {
        if self.carry.is_empty() {
            return Ok(());
        }
        let pushed = push(&self.carry);
        self.carry.clear();
        pushed
    }
}

/// Either parser, behind one push interface. Each keeps a scratch list of
/// its own events, reused from push to push, so a push allocates nothing
/// of its own.
pub enum AnyParser {
    Text(Box<Parser>, Vec<actionstream::Event>),
    Sse(Box<SseParser>, Vec<SseItem>),
}

/// What a push produced, as `run` hands it from its reader thread.
pub enum Item {
    Event(actionstream::Event),
    Error(String),
}

/// Where [`drive`] hands what the parser produces, as it is produced.
pub trait Sink {
    /// One event.
    fn take_event(&mut self, e: actionstream::Event) -> io::Result<()>;
    /// One event lent by the borrowing push path (used when
    /// [`Sink::borrows`]).
    fn take_ref(&mut self, e: actionstream::EventRef<'_>) -> io::Result<()> {
        self.take_event(e.to_event())
    }
    /// Whether the sink takes lent events ([`Sink::take_ref`]): the text
    /// parser then pushes through `Parser::push_bytes_with`, and narrative
    /// reaches the sink with no `String` made for it.
    fn borrows(&self) -> bool {
        false
    }
    /// A stream-level error.
    fn take_error(&mut self, message: String) -> io::Result<()>;
    /// The end of what one read of the input produced (with `--pace-ms`,
    /// one push), and of what the end of the input produced.
    fn end_batch(&mut self) -> io::Result<()>;
}

impl AnyParser {
    pub fn new(kind: InputKind, config: Config) -> Self {
        match kind {
            InputKind::Text => AnyParser::Text(Box::new(Parser::new(config)), Vec::new()),
            InputKind::Sse => AnyParser::Sse(Box::new(SseParser::new(config)), Vec::new()),
        }
    }

    pub fn push(&mut self, bytes: &[u8], sink: &mut impl Sink) -> io::Result<()> {
        match self {
            AnyParser::Text(p, _) if sink.borrows() => {
                let mut result = Ok(());
                p.push_bytes_with(bytes, |e| {
                    if result.is_ok() {
                        result = sink.take_ref(e);
                    }
                });
                result
            }
            AnyParser::Text(p, events) => {
                p.push_bytes(bytes, events);
                hand_events(events, sink)
            }
            AnyParser::Sse(p, items) => {
                p.push(bytes, items);
                hand_sse(items, sink)
            }
        }
    }

    pub fn finish(&mut self, sink: &mut impl Sink) -> io::Result<()> {
        match self {
            AnyParser::Text(p, events) => {
                p.finish(events);
                hand_events(events, sink)?;
                if p.replaced() > 0 {
                    sink.take_error(format!(
                        "the input held {} invalid UTF-8 sequence(s), read as U+FFFD",
                        p.replaced()
                    ))?;
                }
                Ok(())
            }
            AnyParser::Sse(p, items) => {
                p.finish(items);
                hand_sse(items, sink)
            }
        }
    }
}

fn hand_events(events: &mut Vec<actionstream::Event>, sink: &mut impl Sink) -> io::Result<()> {
    events.drain(..).try_for_each(|e| sink.take_event(e))
}

fn hand_sse(items: &mut Vec<SseItem>, sink: &mut impl Sink) -> io::Result<()> {
    items.drain(..).try_for_each(|item| match item {
        SseItem::Event(e) => sink.take_event(e),
        SseItem::Error(m) => sink.take_error(m),
    })
}

/// Reads `input` to its end as it arrives, handing each read to `f`.
///
/// One read at a time into a 64 KiB buffer that is never zeroed: a small
/// file touches one page of it, and a pipe's read returns what has arrived
/// without waiting for the buffer to fill.
pub fn read_each(
    input: &mut dyn Read,
    mut f: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let mut input = io::BufReader::with_capacity(64 * 1024, input);
    loop {
        match input.fill_buf() {
            Ok([]) => return Ok(()),
            Ok(data) => {
                let n = data.len();
                f(data)?;
                input.consume(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read the input: {e}")),
        }
    }
}

/// Reads `input` as it arrives, pushes it in the chunks the options ask
/// for, and hands `sink` what each push produced, ending a batch after each
/// read (with `--pace-ms`, after each push) and at the end.
pub fn drive(
    mut input: Box<dyn Read + Send>,
    options: &ParseOptions,
    mut parser: AnyParser,
    sink: &mut impl Sink,
) -> Result<(), String> {
    let mut chunker = Chunker::new(options);
    read_each(&mut *input, |data| {
        let pushed = match options.pace_ms {
            None => chunker
                .feed(data, |chunk| parser.push(chunk, sink))
                .and_then(|()| sink.end_batch()),
            // One push at a time, each written out before the pause.
            Some(ms) => chunker.feed(data, |chunk| {
                parser.push(chunk, sink)?;
                sink.end_batch()?;
                std::thread::sleep(std::time::Duration::from_millis(ms));
                Ok(())
            }),
        };
        pushed.map_err(write_error)
    })?;
    chunker
        .finish(|chunk| parser.push(chunk, sink))
        .and_then(|()| parser.finish(sink))
        .and_then(|()| sink.end_batch())
        .map_err(write_error)
}

/// `parse` writes what it is handed, a batch in one write.
impl<W: Write> Sink for Writer<W> {
    fn take_event(&mut self, e: actionstream::Event) -> io::Result<()> {
        self.event(&e)
    }

    fn take_ref(&mut self, e: actionstream::EventRef<'_>) -> io::Result<()> {
        self.event_ref(e)
    }

    fn borrows(&self) -> bool {
        Writer::borrows(self)
    }

    fn take_error(&mut self, message: String) -> io::Result<()> {
        self.error(&message)
    }

    fn end_batch(&mut self) -> io::Result<()> {
        self.flush()
    }
}

fn write_error(e: io::Error) -> String {
    format!("cannot write the output: {e}")
}

pub fn main(args: ParseArgs) -> Result<(), String> {
    let file = match &args.config {
        Some(p) => Some(ConfigFile::load(p).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut config = build_config(&args.options, file.as_ref())?;
    if args.options.argument_deltas {
        config = config.argument_deltas(true);
    }
    if args.output != Format::Events {
        if args.pretty || args.summary {
            return Err(format!(
                "--pretty and --summary go with --output events, not {}",
                args.output
            ));
        }
        // Protocols stream a call's arguments as the model writes them.
        config = config.argument_deltas(true);
    }
    let input = open_input(args.file.as_deref())?;
    let style = if args.summary {
        Style::Summary
    } else if args.pretty {
        Style::Pretty
    } else {
        Style::Json
    };
    let mut options = Options::default().calls(match args.calls {
        CallsArg::Live => Calls::Live,
        CallsArg::Complete => Calls::Complete,
    });
    options.id = args.response_id.clone();
    options.created = args.created;
    let encoder = Encoder::new(args.output, options);
    // Standard output writes each line as it ends; the writer's own buffer
    // gathers a batch's lines into one write instead.
    let out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut writer = Writer::with_encoder(out, style, encoder);
    let parser = AnyParser::new(args.options.input, config);
    let result = drive(input, &args.options, parser, &mut writer);
    match result {
        // A closed pipe downstream is not our failure.
        Err(m) if m.contains("Broken pipe") => return Ok(()),
        other => other?,
    }
    writer.finish().map_err(write_error)?;
    let _ = io::stdout().flush();
    Ok(())
}
