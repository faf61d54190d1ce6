//! The machine's types: its states, the block being read and the
//! speculation it may carry. Behaviour lives beside, one concern a file
//! (`machine.rs`, `block.rs`, `speculate.rs`, `ending.rs`), and each of those
//! files uses these types, never another's.

use std::sync::Arc;

use super::emit::Emit;
use super::few::Few;
use super::syntax::{Closer, Content, Opened};
use crate::config::Config;
use crate::event::{Event, Syntax};
use crate::scan::fence::{CloseProbe, Fence, OpenProbe};
use crate::scan::json::JsonScanner;
use crate::scan::line::LineContext;
use crate::scan::tag::TagProbe;

/// Settings shared by a parser and its shadows.
#[derive(Debug)]
pub(super) struct Shared {
    pub cfg: Config,
    /// `</NAME>` for each tag name.
    pub closers: Vec<String>,
    /// Bytes that begin a tag name.
    pub tag_first: [u64; 4],
}

impl Shared {
    pub fn new(config: Config) -> Self {
        Shared {
            closers: config
                .xml_tags
                .iter()
                .map(|n| ["</", n, ">"].concat())
                .collect(),
            tag_first: {
                let mut t = [0u64; 4];
                for n in &config.xml_tags {
                    if let Some(&b) = n.as_bytes().first() {
                        t[usize::from(b >> 6)] |= 1 << (b & 63);
                    }
                }
                t
            },
            cfg: config,
        }
    }
}

/// Where the machine is. See the diagram in the [module docs](super).
#[derive(Debug, Clone)]
pub(super) enum State {
    /// Narrative, mid-line.
    Text,
    /// Narrative at a line start (`from`), probing for a fence opener.
    LineStart { probe: OpenProbe, from: usize },
    /// A `<` at `from` that may open a call tag.
    TagOpen { probe: Box<TagProbe>, from: usize },
    /// Inside a fenced block that is narrative; `probe` runs from `from` at
    /// a line start.
    Fenced {
        fence: Fence,
        probe: Option<CloseProbe>,
        from: usize,
    },
    /// The rest of an oversize tag block up to its closer: narrative.
    SkipTag { name: usize },
    /// A block being read.
    Block(Box<Block>),
    /// The block is out of the state while a step reads it; a step that
    /// ends the block sets the next state, else the block goes back.
    Detached,
}

/// What a step asks of the loop that runs the machine.
pub(super) enum Flow {
    /// Carry on in the (possibly new) state.
    Go,
    /// Nothing more can be decided without more text.
    Wait,
    /// The machine was replaced by its shadow, which has run already.
    Replaced,
}

/// One parsing machine: the main one, or a shadow.
#[derive(Debug, Clone)]
pub(super) struct Machine {
    pub shared: Arc<Shared>,
    pub buf: String,
    /// Offset of `buf[0]`.
    pub base: usize,
    /// Offset of the first byte not yet given out (narrative or block raw).
    pub start: usize,
    /// Offset of the next byte to scan.
    pub pos: usize,
    pub state: State,
    pub line: LineContext,
    /// The shadow reading past a block's first closer, if any.
    pub spec: Speculation,
    /// The scanner of the last block, kept for the next one.
    pub spare: Option<Box<JsonScanner>>,
    /// The probe of the last `<`, kept for the next one.
    pub spare_tag: Option<Box<TagProbe>>,
    /// A cache of one test, for the hot push (`take_prose`). Worked out
    /// again (`note_prose`) at the end of every machine entry that may
    /// change what it caches, and kept by the hot push itself.
    pub prose: Prose,
}

/// Whether the machine is in prose with nothing held: `start` at the end
/// (the buffer empty), no backtick run that may go on, no shadow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Prose {
    /// Not so: a push takes the general path.
    No,
    /// In [`State::Text`]: a push with no special byte is all narrative.
    MidLine,
    /// In [`State::LineStart`] with nothing of the line stepped: so is a
    /// push that begins as a plain line.
    LineStart,
}

/// A block being read.
#[derive(Debug, Clone)]
pub(super) struct Block {
    pub syntax: Syntax,
    pub tag: String,
    pub closer: Closer,
    pub content: Content,
    /// Offset where the content begins (after the opener).
    pub content_start: usize,
    /// For fences of a generic tag: whether it is an action block yet.
    pub generic: Option<bool>,
    pub name_attr: Option<String>,
    pub attrs: Vec<(String, String)>,
    /// Ids of started slots, by slot index.
    pub ids: Few<Option<u64>>,
    /// Id of a tag named by its `name` attribute.
    pub attr_id: Option<u64>,
    /// For action deltas: the slot being delivered and the offset (in the
    /// scanned content) delivered up to.
    pub delta: Option<(usize, usize)>,
    /// Set once the block passed a closer with its JSON open.
    pub first: Option<FirstCloser>,
}

impl Block {
    pub fn new(o: Opened, content: Content, attr_id: Option<u64>) -> Self {
        Block {
            syntax: o.syntax,
            tag: o.tag,
            closer: o.closer,
            content,
            content_start: o.content_start,
            generic: o.generic.then_some(false),
            name_attr: o.name_attr,
            attrs: o.attrs,
            ids: Few::new(),
            attr_id,
            delta: None,
            first: None,
        }
    }

    /// A generic block not (yet) known to hold actions.
    pub fn undecided(&self) -> bool {
        self.generic == Some(false)
    }
}

/// How deep shadows nest (see the module docs).
pub(super) const MAX_SPECULATION: usize = 4;

/// A machine's speculation: its shadow, if any, and its own place in a
/// chain of shadows. Kept small (most machines never have a shadow): what
/// a shadow needs lives in its box.
#[derive(Debug, Clone)]
pub(super) struct Speculation {
    /// How deep this machine is in the chain of shadows.
    pub depth: usize,
    pub shadow: Option<Box<Shadow>>,
}

/// A shadow machine and what its parent keeps of it.
#[derive(Debug, Clone)]
pub(super) struct Shadow {
    pub machine: Machine,
    /// Offset up to which the shadow has been fed.
    pub fed: usize,
    /// The shadow's events, kept until it takes over.
    pub pending: Vec<Event>,
}

impl Speculation {
    pub fn new(depth: usize) -> Self {
        Speculation {
            depth,
            shadow: None,
        }
    }

    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The shadow, if one is reading.
    pub fn shadow(&self) -> Option<&Machine> {
        self.shadow.as_deref().map(|s| &s.machine)
    }

    /// The block ended for good at a later closer: the shadow is dropped.
    pub fn drop_shadow(&mut self) {
        self.shadow = None;
    }
}

/// What the block was at its first closer, in case it must end there.
#[derive(Debug, Clone)]
pub(super) struct FirstCloser {
    pub end: usize,
    /// Each slot's id (if started) and name (if read whole) at that point.
    pub slots: Vec<(Option<u64>, Option<String>)>,
    /// Events withheld while the block's fate is open.
    pub held: Vec<Event>,
}

/// Where a block's events go: withheld while its fate is open, else out.
pub(super) fn held<'b>(first: &'b mut Option<FirstCloser>, emit: &'b mut Emit<'_>) -> Emit<'b> {
    match first {
        Some(first) => emit.to(&mut first.held),
        None => emit.reborrow(),
    }
}

impl Machine {
    /// Whether a block is being read.
    pub fn in_block(&self) -> bool {
        matches!(self.state, State::Block(_))
    }

    pub fn new(shared: Arc<Shared>, base: usize, depth: usize) -> Self {
        Machine {
            shared,
            buf: String::new(),
            base,
            start: base,
            pos: base,
            state: State::LineStart {
                probe: OpenProbe::new(3),
                from: base,
            },
            line: LineContext::default(),
            spec: Speculation::new(depth),
            spare: None,
            spare_tag: None,
            prose: Prose::No,
        }
    }
}
