//! The streaming code-block tracker.
//!
//! [`CodeBlocks`] reads the response as the parser hands it out: narrative
//! text, and the raw text of action blocks. It keeps the state of the line
//! it is in between pushes and steps each byte once, with the same fence
//! probes the parser uses, so it sees exactly the fenced blocks the parser
//! left as narrative. Action blocks are counted (lines, offsets) but never
//! reported: their text is not Markdown.

use memchr::memchr;

use crate::event::{Event, Span, Syntax};
use crate::scan::fence::{CloseProbe, Fence, OpenProbe, Probe};
use crate::scan::line::LineContext;
use crate::scan::tag::MAX_OPENER;

use super::path::path_in_line;
use super::sections::{parse_atx, parse_label, Section, SectionBook};

/// Longest line read as a heading or a bold label, in bytes.
const MAX_HEADING_LINE: usize = 4096;

/// A fenced code block that is not an action block.
///
/// ```
/// let blocks = actionstream::artifacts::code_blocks(
///     "Here:\n\n```typescript\n// src/utils/helper.ts\nexport const x = 1;\n```\n",
/// );
/// let b = &blocks[0];
/// assert_eq!(b.language, "typescript");
/// assert_eq!(b.path.as_deref(), Some("src/utils/helper.ts"));
/// assert_eq!(b.content, "export const x = 1;");
/// assert_eq!((b.start_line, b.content_line, b.end_line), (3, 5, 6));
/// assert!(b.closed);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// The first word of the info string, lowercase; empty when there is none.
    pub language: String,
    /// The file path named by the first content line, as written (check it
    /// with [`normalize_path`](super::normalize_path)).
    pub path: Option<String>,
    /// The lines between the fences, without the path line, without the
    /// last line ending; up to the opener's indentation is removed from
    /// each line, as CommonMark does.
    pub content: String,
    /// The opening fence's line (lines count from 1).
    pub start_line: usize,
    /// The line of [`content`](Self::content)'s first line.
    pub content_line: usize,
    /// The closing fence's line, or the block's last line if it is not closed.
    pub end_line: usize,
    /// Byte offsets in the response: from the opening line's start through
    /// the closing line's ending.
    pub span: Span,
    /// Whether a closing fence ended the block. An unclosed block runs to
    /// the end of the response, as CommonMark has it.
    pub closed: bool,
    /// The headings the block stands under, outermost first (a heading
    /// ends the sections of its level and deeper).
    pub headings: Vec<String>,
    /// The bold label line (`**Notes:**`) in force: the last one since
    /// the last heading.
    pub label: Option<String>,
}

#[derive(Debug, Clone)]
struct OpenBlock {
    fence: Fence,
    language: String,
    start_line: usize,
    start: usize,
    content: String,
    /// Probing the current line for the closer.
    probe: Option<CloseProbe>,
    /// Columns of indentation still to remove on this line.
    strip: usize,
    /// Still in the line's leading spaces.
    in_indent: bool,
    /// Length of `content` where the current line starts.
    line_start: usize,
    first_line_done: bool,
    path: Option<String>,
    content_line: usize,
    headings: Vec<String>,
    label: Option<String>,
}

#[derive(Debug, Clone)]
enum Mode {
    /// Markdown outside any block; `probe` runs while the line may still
    /// open a fence (`stepped` bytes so far).
    Outside {
        probe: Option<OpenProbe>,
        stepped: usize,
    },
    /// A code block we report.
    Block(Box<OpenBlock>),
    /// The rest of an action fence block that the parser cut at its size
    /// limit: narrative up to its closer, but not a code block.
    OpaqueFence {
        fence: Fence,
        probe: Option<CloseProbe>,
    },
    /// The rest of an action tag block cut at the size limit, up to `closer`.
    OpaqueTag { closer: Box<[u8]>, matched: usize },
}

/// The streaming code-block tracker.
///
/// Feed it the parser's events with [`push_event`](Self::push_event) (or
/// plain Markdown with [`push`](Self::push)) in chunks of any size; it
/// emits each [`CodeBlock`] when its closing fence line has arrived, and at
/// [`finish`](Self::finish) an unclosed one. It never looks at a byte twice.
///
/// ```
/// use actionstream::artifacts::CodeBlocks;
/// use actionstream::Parser;
///
/// let response = "Run:\n```json\n{\"action\": \"ls\"}\n```\n```sh\n# run.sh\nls -la\n```\n";
/// let mut parser = Parser::default();
/// let mut tracker = CodeBlocks::new();
/// let (mut events, mut blocks) = (Vec::new(), Vec::new());
/// for chunk in response.as_bytes().chunks(5) {
///     parser.push_bytes(chunk, &mut events);
///     for e in events.drain(..) {
///         tracker.push_event(&e, &mut blocks);
///     }
/// }
/// parser.finish(&mut events);
/// for e in events.drain(..) {
///     tracker.push_event(&e, &mut blocks);
/// }
/// tracker.finish(&mut blocks);
///
/// // The action block is not a code block, but its lines count.
/// assert_eq!(blocks.len(), 1);
/// assert_eq!(blocks[0].path.as_deref(), Some("run.sh"));
/// assert_eq!((blocks[0].start_line, blocks[0].end_line), (5, 8));
/// ```
#[derive(Debug, Clone)]
pub struct CodeBlocks {
    /// Bytes taken so far.
    offset: usize,
    /// The current line, from 1.
    line: usize,
    /// Offset of the current line's start.
    line_start: usize,
    /// The Markdown line context (list items), as the parser keeps it.
    context: LineContext,
    mode: Mode,
    /// The current line outside blocks, while it may be a heading or label.
    line_buf: Vec<u8>,
    /// Whether the current line may still be a heading or a label.
    line_plain: bool,
    outline: Vec<(u8, String)>,
    label: Option<String>,
    book: SectionBook,
    finished: bool,
}

impl Default for CodeBlocks {
    fn default() -> Self {
        CodeBlocks::new()
    }
}

impl CodeBlocks {
    /// A tracker for one response.
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new();
    /// let mut out = Vec::new();
    /// t.push("```\nx\n", &mut out);
    /// t.push("```\n", &mut out);
    /// assert_eq!(out[0].content, "x");
    /// ```
    pub fn new() -> Self {
        CodeBlocks {
            offset: 0,
            line: 1,
            line_start: 0,
            context: LineContext::default(),
            mode: Mode::Outside {
                probe: Some(OpenProbe::new(3)),
                stepped: 0,
            },
            line_buf: Vec::new(),
            line_plain: true,
            outline: Vec::new(),
            label: None,
            book: SectionBook::default(),
            finished: false,
        }
    }

    /// Also collects the [`Section`]s (off by default: they hold all text
    /// after the first heading).
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new().with_sections(true);
    /// let mut out = Vec::new();
    /// t.push("# Notes\nsome\n", &mut out);
    /// t.finish(&mut out);
    /// assert_eq!(t.sections()[0].content, "some");
    /// ```
    pub fn with_sections(mut self, on: bool) -> Self {
        self.book.on = on;
        self
    }

    /// The sections ended so far (all of them after [`finish`](Self::finish)).
    ///
    /// ```
    /// let t = actionstream::artifacts::CodeBlocks::new();
    /// assert!(t.sections().is_empty());
    /// ```
    pub fn sections(&self) -> &[Section] {
        &self.book.done
    }

    /// Takes the sections ended so far.
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new().with_sections(true);
    /// let mut out = Vec::new();
    /// t.push("# A\n", &mut out);
    /// t.finish(&mut out);
    /// assert_eq!(t.take_sections().len(), 1);
    /// assert!(t.sections().is_empty());
    /// ```
    pub fn take_sections(&mut self) -> Vec<Section> {
        std::mem::take(&mut self.book.done)
    }

    /// Bytes of response text taken so far.
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new();
    /// t.push("héllo\n", &mut Vec::new());
    /// assert_eq!((t.offset(), t.line()), (7, 2));
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The line the next byte is on (from 1).
    ///
    /// ```
    /// assert_eq!(actionstream::artifacts::CodeBlocks::new().line(), 1);
    /// ```
    pub fn line(&self) -> usize {
        self.line
    }

    /// Takes one parser event: narrative is read as Markdown; the raw text
    /// of an action block is counted once per distinct span (its actions
    /// share it) and not read as Markdown; other events are ignored.
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new();
    /// let mut out = Vec::new();
    /// for e in actionstream::parse_str("<action_call name=\"a\">{}</action_call>\n```\nx\n```\n") {
    ///     t.push_event(&e, &mut out);
    /// }
    /// t.finish(&mut out);
    /// assert_eq!(out[0].start_line, 2);
    /// ```
    pub fn push_event(&mut self, event: &Event, out: &mut Vec<CodeBlock>) {
        let (raw, span, syntax, tag) = match event {
            Event::Narrative(text) => return self.push(text, out),
            Event::ActionComplete(a) => (&a.raw, a.span, a.syntax, &a.tag),
            Event::ActionInvalid(a) => (&a.raw, a.span, a.syntax, &a.tag),
            Event::ActionStarted { .. }
            | Event::ActionDelta { .. }
            | Event::ArgumentsDelta { .. }
            | Event::Reasoning(_) => return,
        };
        let Some(span) = span else { return };
        if span.start < self.offset {
            // Another action of a block already taken.
            return;
        }
        self.push_raw(raw, syntax, tag, out);
    }

    /// Takes the raw text of an action block of `syntax` (for tags, `tag`
    /// is the tag name): its lines count, it is not read as Markdown.
    /// [`push_event`](Self::push_event) calls this once per block.
    ///
    /// ```
    /// use actionstream::Syntax;
    /// let mut t = actionstream::artifacts::CodeBlocks::new();
    /// let mut out = Vec::new();
    /// t.push_raw("```action\n{\"action\": \"x\"}\n```\n", Syntax::Fence, "action", &mut out);
    /// t.push("```py\n# a.py\n```\n", &mut out);
    /// t.finish(&mut out);
    /// assert_eq!((out.len(), out[0].start_line), (1, 4));
    /// ```
    pub fn push_raw(&mut self, raw: &str, syntax: Syntax, tag: &str, out: &mut Vec<CodeBlock>) {
        if raw.is_empty() || syntax == Syntax::Native {
            return;
        }
        if !matches!(self.mode, Mode::Outside { .. }) {
            // The parser saw an opener where we see a code block's content
            // (it cannot, but if it did): the text is that content.
            return self.push(raw, out);
        }
        match syntax {
            Syntax::Fence => self.raw_fence(raw),
            _ => self.raw_tag(raw, tag),
        }
    }

    /// Takes the next piece of narrative (or plain Markdown) text; each
    /// code block whose closing line it completes is appended to `out`.
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new();
    /// let mut out = Vec::new();
    /// for piece in ["``", "`rust\n// src/ma", "in.rs\nfn main() {}\n``", "`\n"] {
    ///     t.push(piece, &mut out);
    /// }
    /// assert_eq!(out[0].path.as_deref(), Some("src/main.rs"));
    /// ```
    pub fn push(&mut self, text: &str, out: &mut Vec<CodeBlock>) {
        let bytes = text.as_bytes();
        let base = self.offset;
        let mut seg = 0;
        let mut i = 0;
        while i < bytes.len() {
            let mode = std::mem::replace(
                &mut self.mode,
                Mode::Outside {
                    probe: None,
                    stepped: 0,
                },
            );
            self.mode = match mode {
                Mode::Outside {
                    probe: Some(mut p),
                    mut stepped,
                } => {
                    let b = bytes[i];
                    let verdict = if stepped > MAX_OPENER {
                        Probe::No
                    } else {
                        p.step(b)
                    };
                    match verdict {
                        Probe::More => {
                            stepped += 1;
                            self.line_bytes(&bytes[i..=i]);
                            i += 1;
                            Mode::Outside {
                                probe: Some(p),
                                stepped,
                            }
                        }
                        Probe::Yes => {
                            self.context.fence_line(&p);
                            let block = self.open_block(&p);
                            self.end_line(text, &mut seg, base, i, false);
                            i += 1;
                            Mode::Block(block)
                        }
                        Probe::No => {
                            self.context.not_a_fence(&p, b == b'\n');
                            Mode::Outside {
                                probe: None,
                                stepped: 0,
                            }
                        }
                    }
                }
                Mode::Outside { probe: None, .. } => match memchr(b'\n', &bytes[i..]) {
                    Some(n) => {
                        self.line_bytes(&bytes[i..i + n]);
                        let line = std::mem::take(&mut self.line_buf);
                        let heading = self.read_line(&line);
                        self.line_buf = line;
                        self.end_line(text, &mut seg, base, i + n, heading);
                        i += n + 1;
                        self.fresh_line()
                    }
                    None => {
                        self.line_bytes(&bytes[i..]);
                        i = bytes.len();
                        Mode::Outside {
                            probe: None,
                            stepped: 0,
                        }
                    }
                },
                Mode::Block(mut block) => {
                    if let Some(p) = &mut block.probe {
                        let b = bytes[i];
                        match p.step(b) {
                            Probe::More => {
                                if block.in_indent && b == b' ' && block.strip > 0 {
                                    block.strip -= 1;
                                } else {
                                    block.in_indent = false;
                                    block.content.push(char::from(b));
                                }
                                i += 1;
                                Mode::Block(block)
                            }
                            Probe::Yes => {
                                block.content.truncate(block.line_start);
                                out.push(self.close_block(*block, base + i + 1, true));
                                self.end_line(text, &mut seg, base, i, false);
                                i += 1;
                                self.fresh_line()
                            }
                            Probe::No => {
                                block.probe = None;
                                Mode::Block(block)
                            }
                        }
                    } else {
                        if block.in_indent {
                            // Leading spaces the probe gave up on.
                            let n = bytes[i..]
                                .iter()
                                .take(block.strip)
                                .take_while(|&&b| b == b' ')
                                .count();
                            i += n;
                            block.in_indent = false;
                        }
                        match memchr(b'\n', &bytes[i..]) {
                            Some(n) => {
                                block.content.push_str(&text[i..=i + n]);
                                if !block.first_line_done {
                                    first_line(&mut block, self.line);
                                }
                                self.end_line(text, &mut seg, base, i + n, false);
                                i += n + 1;
                                block.probe = Some(CloseProbe::new(block.fence));
                                block.strip = block.fence.indent;
                                block.in_indent = true;
                                block.line_start = block.content.len();
                                Mode::Block(block)
                            }
                            None => {
                                block.content.push_str(&text[i..]);
                                i = bytes.len();
                                Mode::Block(block)
                            }
                        }
                    }
                }
                Mode::OpaqueFence {
                    fence,
                    probe: Some(mut p),
                } => match p.step(bytes[i]) {
                    Probe::More => {
                        i += 1;
                        Mode::OpaqueFence {
                            fence,
                            probe: Some(p),
                        }
                    }
                    Probe::Yes => {
                        self.end_line(text, &mut seg, base, i, false);
                        i += 1;
                        self.fresh_line()
                    }
                    Probe::No => Mode::OpaqueFence { fence, probe: None },
                },
                Mode::OpaqueFence { fence, probe: None } => match memchr(b'\n', &bytes[i..]) {
                    Some(n) => {
                        self.end_line(text, &mut seg, base, i + n, false);
                        i += n + 1;
                        Mode::OpaqueFence {
                            fence,
                            probe: Some(CloseProbe::new(fence)),
                        }
                    }
                    None => {
                        i = bytes.len();
                        Mode::OpaqueFence { fence, probe: None }
                    }
                },
                Mode::OpaqueTag {
                    closer,
                    mut matched,
                } => {
                    let b = bytes[i];
                    matched = step_closer(&closer, matched, b);
                    if b == b'\n' {
                        self.end_line(text, &mut seg, base, i, false);
                    }
                    self.line_plain = false;
                    i += 1;
                    if matched == closer.len() {
                        Mode::Outside {
                            probe: None,
                            stepped: 0,
                        }
                    } else {
                        Mode::OpaqueTag { closer, matched }
                    }
                }
            };
        }
        self.book.append(&text[seg..]);
        self.offset = base + bytes.len();
    }

    /// Ends the response: an unclosed code block is emitted (with
    /// `closed: false`), a fence line without its line ending counts as
    /// one, the last line may be a heading.
    ///
    /// ```
    /// let mut t = actionstream::artifacts::CodeBlocks::new();
    /// let mut out = Vec::new();
    /// t.push("```md\n# README.md\ncut off", &mut out);
    /// t.finish(&mut out);
    /// assert_eq!((out[0].closed, out[0].content.as_str()), (false, "cut off"));
    /// ```
    pub fn finish(&mut self, out: &mut Vec<CodeBlock>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let end = self.offset;
        let at_line_start = end == self.line_start;
        let last_line = if at_line_start && self.line > 1 {
            self.line - 1
        } else {
            self.line
        };
        let mode = std::mem::replace(
            &mut self.mode,
            Mode::Outside {
                probe: None,
                stepped: 0,
            },
        );
        match mode {
            Mode::Outside {
                probe: Some(p),
                stepped,
            } if stepped > 0 && stepped <= MAX_OPENER && p.complete_at_eof() => {
                let block = self.open_block(&p);
                out.push(self.close_block(*block, end, false));
            }
            Mode::Outside { .. } => {
                if !at_line_start {
                    let line = std::mem::take(&mut self.line_buf);
                    self.read_line(&line);
                }
            }
            Mode::Block(mut block) => {
                let closes = block.probe.as_ref().is_some_and(|p| p.complete_at_eof());
                if closes {
                    block.content.truncate(block.line_start);
                } else if !block.first_line_done {
                    first_line(&mut block, self.line);
                }
                out.push(self.close_block(*block, end, closes));
            }
            Mode::OpaqueFence { .. } | Mode::OpaqueTag { .. } => {}
        }
        self.book.finish(last_line);
    }

    // -- lines ----------------------------------------------------------------

    /// Keeps bytes of the current outside line while it may be a heading.
    fn line_bytes(&mut self, bytes: &[u8]) {
        if !self.line_plain {
            return;
        }
        if self.line_buf.len() + bytes.len() > MAX_HEADING_LINE {
            self.line_plain = false;
            self.line_buf.clear();
        } else {
            self.line_buf.extend_from_slice(bytes);
        }
    }

    /// Reads a finished outside line: a heading or a bold label. Returns
    /// whether it was a heading.
    fn read_line(&mut self, line: &[u8]) -> bool {
        if !self.line_plain {
            return false;
        }
        let Ok(line) = std::str::from_utf8(line) else {
            return false;
        };
        if let Some((level, text)) = parse_atx(line) {
            while self.outline.last().is_some_and(|(l, _)| *l >= level) {
                self.outline.pop();
            }
            self.book.heading(level, &text, self.line);
            self.outline.push((level, text));
            self.label = None;
            return true;
        }
        if let Some(label) = parse_label(line) {
            self.label = Some(label);
        }
        false
    }

    /// The line ending at `nl` (an index into `text`) is done.
    fn end_line(&mut self, text: &str, seg: &mut usize, base: usize, nl: usize, heading: bool) {
        if heading {
            // The heading line opens the new section: it is no content.
            *seg = nl + 1;
        } else {
            self.book.append(&text[*seg..=nl]);
            *seg = nl + 1;
        }
        self.book.line_started();
        self.line += 1;
        self.line_start = base + nl + 1;
        self.line_buf.clear();
        self.line_plain = true;
    }

    fn fresh_line(&self) -> Mode {
        Mode::Outside {
            probe: Some(self.context.fence_probe()),
            stepped: 0,
        }
    }

    // -- blocks ---------------------------------------------------------------

    fn open_block(&self, p: &OpenProbe) -> Box<OpenBlock> {
        let fence = p.fence();
        Box::new(OpenBlock {
            fence,
            language: p.tag().unwrap_or("").to_owned(),
            start_line: self.line,
            start: self.line_start,
            content: String::new(),
            probe: Some(CloseProbe::new(fence)),
            strip: fence.indent,
            in_indent: true,
            line_start: 0,
            first_line_done: false,
            path: None,
            content_line: self.line + 1,
            headings: self.outline.iter().map(|(_, h)| h.clone()).collect(),
            label: self.label.clone(),
        })
    }

    fn close_block(&self, mut b: OpenBlock, end: usize, closed: bool) -> CodeBlock {
        if b.content.ends_with('\n') {
            b.content.pop();
            if b.content.ends_with('\r') {
                b.content.pop();
            }
        }
        // The input may have ended right after a line ending.
        let end_line = if end == self.line_start && self.line > b.start_line {
            self.line - 1
        } else {
            self.line
        };
        CodeBlock {
            language: b.language,
            path: b.path,
            content: b.content,
            start_line: b.start_line,
            content_line: b.content_line,
            end_line: end_line.max(b.start_line),
            span: Span {
                start: b.start,
                end,
            },
            closed,
            headings: b.headings,
            label: b.label,
        }
    }

    // -- action blocks -----------------------------------------------------------

    /// An action fence block's raw text, at a line start.
    fn raw_fence(&mut self, raw: &str) {
        let bytes = raw.as_bytes();
        let mut first_nl = None;
        let mut fence = None;
        if let Mode::Outside {
            probe: Some(p),
            stepped: 0,
        } = &self.mode
        {
            let mut p = p.clone();
            for (i, &b) in bytes.iter().enumerate() {
                match p.step(b) {
                    Probe::More => {}
                    Probe::No => break,
                    Probe::Yes => {
                        self.context.fence_line(&p);
                        fence = Some(p.fence());
                        first_nl = Some(i);
                        break;
                    }
                }
            }
        }
        let (Some(fence), Some(first_nl)) = (fence, first_nl) else {
            // Not an opener as we see it (or one cut by the end of input):
            // count it only.
            return self.raw_opaque(raw);
        };
        let base = self.offset;
        self.book.append(raw);
        self.count_lines(bytes, base);
        self.offset = base + bytes.len();
        // Probe the lines after the opener: does the last one close it?
        let mut probe = Some(CloseProbe::new(fence));
        let mut closed = false;
        let mut i = first_nl + 1;
        while i < bytes.len() {
            if let Some(p) = &mut probe {
                let (verdict, k) = p.run(&bytes[i..]);
                i += k;
                match verdict {
                    Probe::More => {}
                    Probe::No => probe = None,
                    Probe::Yes => {
                        closed = i == bytes.len();
                        probe = Some(CloseProbe::new(fence));
                    }
                }
            } else {
                match memchr(b'\n', &bytes[i..]) {
                    Some(n) => {
                        i += n + 1;
                        probe = Some(CloseProbe::new(fence));
                    }
                    None => i = bytes.len(),
                }
            }
        }
        let at_line_start = raw.ends_with('\n');
        if !at_line_start {
            closed = probe.as_ref().is_some_and(|p| p.complete_at_eof());
        }
        self.line_plain = at_line_start;
        self.mode = match (closed, at_line_start) {
            (true, true) => self.fresh_line(),
            (true, false) => Mode::Outside {
                probe: None,
                stepped: 0,
            },
            // Cut at the size limit: the rest up to its closer is narrative.
            (false, _) => Mode::OpaqueFence { fence, probe },
        };
    }

    /// An action tag block's raw text, inside an outside line.
    fn raw_tag(&mut self, raw: &str, tag: &str) {
        if let Mode::Outside {
            probe: Some(p),
            stepped,
        } = &self.mode
        {
            // The parser's line probe stopped at the `<`.
            let mut p = p.clone();
            let verdict = if *stepped > MAX_OPENER {
                Probe::No
            } else {
                p.step(b'<')
            };
            if verdict == Probe::No {
                self.context.not_a_fence(&p, false);
            }
        }
        let bytes = raw.as_bytes();
        let multiline = memchr(b'\n', bytes).is_some();
        if multiline {
            // The line the tag opened on ends inside it.
            let line = std::mem::take(&mut self.line_buf);
            self.read_line(&line);
        }
        let base = self.offset;
        self.book.append(raw);
        self.count_lines(bytes, base);
        self.offset = base + bytes.len();
        if multiline {
            self.line_buf.clear();
            self.line_plain = false;
        }
        let closer = format!("</{tag}>");
        self.mode = if raw.ends_with(&closer) {
            Mode::Outside {
                probe: None,
                stepped: 0,
            }
        } else {
            // Cut at the size limit: the rest up to its closer is narrative.
            self.line_plain = false;
            Mode::OpaqueTag {
                closer: closer.into_bytes().into_boxed_slice(),
                matched: 0,
            }
        };
    }

    /// Counts `raw` (lines, offset, section text) without reading it.
    fn raw_opaque(&mut self, raw: &str) {
        let base = self.offset;
        self.book.append(raw);
        let bytes = raw.as_bytes();
        self.count_lines(bytes, base);
        self.offset = base + bytes.len();
        self.line_buf.clear();
        self.line_plain = raw.ends_with('\n');
        self.mode = if self.line_plain {
            self.fresh_line()
        } else {
            Mode::Outside {
                probe: None,
                stepped: 0,
            }
        };
    }

    /// Counts the line endings of `bytes`, which start at offset `base`.
    fn count_lines(&mut self, bytes: &[u8], base: usize) {
        for i in memchr::memchr_iter(b'\n', bytes) {
            self.line += 1;
            self.line_start = base + i + 1;
            self.book.line_started();
        }
    }
}

/// The first content line of `block` is done: it may name the file.
fn first_line(block: &mut OpenBlock, line: usize) {
    block.first_line_done = true;
    let text = block.content.strip_suffix('\n').unwrap_or(&block.content);
    if let Some(path) = path_in_line(text, &block.language) {
        block.path = Some(path.to_owned());
        block.content.clear();
        block.content_line = line + 1;
    }
}

/// Steps a matcher for `closer` (which holds `<` only at its start).
fn step_closer(closer: &[u8], matched: usize, b: u8) -> usize {
    if closer.get(matched) == Some(&b) {
        matched + 1
    } else if b == b'<' {
        1
    } else {
        0
    }
}
