//! The Markdown line context: what the lines read so far say about the
//! next one (the list item it may sit in, inline code left open on it).
//!
//! The parser and the artifacts tracker both read Markdown line by line and
//! must agree on which lines can open a fence: this is the one place that
//! rule lives.

use super::fence::OpenProbe;

/// Markdown state carried from line to line and along one line.
///
/// ```text
/// new line ──► fence_probe() ──► OpenProbe steps the line start
///                                   │ not a fence
///                                   ▼
///                           not_a_fence(probe, blank)   (list item in / out)
/// along the line: backtick(run) … end_run()             (inline code open?)
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LineContext {
    /// Length of the backtick run being counted (it may continue).
    pub run: usize,
    /// Length of the inline-code run left open on this line.
    code: Option<usize>,
    /// Content indentation of the list item we are in.
    list: Option<usize>,
}

impl LineContext {
    /// The backtick run being counted has ended: it opens or closes inline
    /// code (a run closes only the run of its own length).
    #[inline]
    pub fn end_run(&mut self) {
        if self.run > 0 {
            self.code = match self.code {
                None => Some(self.run),
                Some(open) if open == self.run => None,
                other => other,
            };
            self.run = 0;
        }
    }

    /// A backtick run begins at `bytes[at]`: counts it and, if `bytes` go
    /// on after it, ends it ([`LineContext::end_run`]); a run that reaches
    /// the end of `bytes` may go on in the next push, and stays counted.
    /// Returns the offset just past the run. The one rule for a backtick
    /// mid-line, for the narrative scan and the inline-code push.
    #[inline]
    pub fn backtick_run(&mut self, bytes: &[u8], at: usize) -> usize {
        let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
        self.run = run;
        let end = at + run;
        if end < bytes.len() {
            self.end_run();
        }
        end
    }

    /// Whether inline code is open on this line (a tag opener is then text).
    #[inline]
    pub fn in_code(&self) -> bool {
        self.code.is_some()
    }

    /// A new line begins: inline code does not go on across lines.
    #[inline]
    pub fn new_line(&mut self) {
        self.run = 0;
        self.code = None;
    }

    /// A line that starts with a byte that opens neither a fence nor a list
    /// item: it ends any list item.
    #[inline]
    pub fn plain_line(&mut self) {
        self.list = None;
    }

    /// How far a fence opener may be indented on the next line.
    #[inline]
    pub fn max_fence_indent(&self) -> usize {
        self.list.map_or(3, |w| w + 3)
    }

    /// A probe for a fence opener at the start of the next line.
    #[inline]
    pub fn fence_probe(&self) -> OpenProbe {
        OpenProbe::new(self.max_fence_indent())
    }

    /// The line the probe stepped is not a fence opener: a list item
    /// marker on it opens a list item; a line indented less than the item's
    /// content ends the item, unless it is blank.
    #[inline]
    pub fn not_a_fence(&mut self, probe: &OpenProbe, at_newline: bool) {
        let blank = at_newline && probe.tag.is_empty();
        if let Some(w) = probe.list_item {
            self.list = Some(w);
        } else if !blank {
            self.leave_item_below(probe.indent);
        }
    }

    /// The line the probe stepped opens a fence: indented less than the
    /// list item's content, the fence stands outside the item, which ends
    /// (CommonMark: a fence is no lazy continuation line).
    #[inline]
    pub fn fence_line(&mut self, probe: &OpenProbe) {
        self.leave_item_below(probe.indent);
    }

    /// A line that is not blank, indented `indent`: below the list item's
    /// content it ends the item. The one rule for both kinds of line.
    #[inline]
    fn leave_item_below(&mut self, indent: usize) {
        if self.list.is_some_and(|w| indent < w) {
            self.list = None;
        }
    }

    /// [`LineContext::not_a_fence`] for a line whose bytes from its start
    /// are `line`, the probe having said no at `line[at]`. Returns where
    /// the line's text resumes: after its indentation, in which nothing is
    /// special.
    #[inline]
    pub fn not_a_fence_at(&mut self, probe: &OpenProbe, line: &[u8], at: usize) -> usize {
        self.not_a_fence(probe, line.get(at) == Some(&b'\n'));
        probe.indent_bytes
    }

    /// The list context alone, for a machine that starts mid-text (a
    /// shadow starts after a block's closer, in the same list item).
    #[inline]
    pub fn list_only(&self) -> LineContext {
        LineContext {
            list: self.list,
            ..LineContext::default()
        }
    }
}

/// What a line's first byte says of it without a fence probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opening {
    /// Plain text: no fence, no list item ([`LineContext::plain_line`]).
    Plain,
    /// A blank line: no fence, and the list context stays as it is (what
    /// [`LineContext::not_a_fence`] does with a blank line).
    Blank,
    /// Nothing of the line yet: undecided.
    Unread,
    /// Only the fence probe can tell.
    Probe,
}

/// What the line whose first byte is `first` (none yet: `None`) opens, as
/// far as that byte decides it. The one rule for a line start read with
/// no probe.
#[inline(always)]
pub(crate) fn opening(first: Option<u8>) -> Opening {
    match first {
        Some(c) if plain_line_start(c) => Opening::Plain,
        Some(b'\n') => Opening::Blank,
        None => Opening::Unread,
        Some(_) => Opening::Probe,
    }
}

/// Whether a line starting with `c` is plain text: no fence, no list item.
#[inline]
pub(crate) fn plain_line_start(c: u8) -> bool {
    c.is_ascii_alphabetic()
        || c >= 0x80
        || matches!(
            c,
            b'.' | b','
                | b'!'
                | b'?'
                | b'"'
                | b'\''
                | b'('
                | b')'
                | b'['
                | b']'
                | b'#'
                | b'|'
                | b'_'
                | b'='
                | b':'
                | b';'
                | b'/'
                | b'&'
                | b'>'
                | b'@'
                | b'$'
                | b'%'
                | b'^'
                | b'{'
                | b'}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::fence::Probe;

    fn probe_line(ctx: &LineContext, line: &str) -> OpenProbe {
        let mut p = ctx.fence_probe();
        for &b in line.as_bytes() {
            if p.step(b) != Probe::More {
                break;
            }
        }
        p
    }

    #[test]
    fn a_list_item_deepens_the_fence_indent_until_a_line_leaves_it() {
        let mut ctx = LineContext::default();
        assert_eq!(ctx.max_fence_indent(), 3);
        let p = probe_line(&ctx, "- item\n");
        ctx.not_a_fence(&p, false);
        assert_eq!(ctx.max_fence_indent(), 5);
        // A blank line keeps the item; an unindented line ends it.
        let p = probe_line(&ctx, "\n");
        ctx.not_a_fence(&p, true);
        assert_eq!(ctx.max_fence_indent(), 5);
        let p = probe_line(&ctx, "x\n");
        ctx.not_a_fence(&p, false);
        assert_eq!(ctx.max_fence_indent(), 3);
    }

    #[test]
    fn inline_code_closes_only_on_a_run_of_its_own_length() {
        let mut ctx = LineContext {
            run: 2,
            ..LineContext::default()
        };
        ctx.end_run();
        assert!(ctx.in_code());
        ctx.run = 1;
        ctx.end_run();
        assert!(ctx.in_code());
        ctx.run = 2;
        ctx.end_run();
        assert!(!ctx.in_code());
        ctx.run = 1;
        ctx.end_run();
        ctx.new_line();
        assert!(!ctx.in_code());
    }
}
