//! Markdown fence lines, recognised one byte at a time.
//!
//! CommonMark's rules for fenced code blocks, as small state machines that
//! are stepped byte by byte from the start of a line, so that a line cut
//! across pushes is never looked at twice:
//!
//! - an **opening** fence: up to 3 spaces of indentation (more inside a list
//!   item), a run of 3 or more backticks or tildes, then an info string whose
//!   first word is the tag; a backtick fence's info string holds no backtick;
//! - a **closing** fence: indentation up to 3 spaces (or the opener's own),
//!   the opener's character at least as many times as in the opener, then
//!   only spaces or tabs up to the line ending or the end of input.
//!
//! Lines are ended by `\n`; a `\r` before it counts as trailing white space.

/// What a probe says after a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Could still be a fence line: give me the next byte.
    More,
    /// Not a fence line; the byte just given was not consumed.
    No,
    /// A complete fence line; the byte just given (the `\n`) was consumed.
    Yes,
}

/// Longest word kept from an info string.
const MAX_TAG: usize = 64;

/// A fence that opened a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence {
    /// `` ` `` or `~`.
    pub ch: u8,
    /// Length of the opening run.
    pub len: usize,
    /// Columns of indentation of the opening line.
    pub indent: usize,
}

impl Fence {
    /// The most indentation (in columns, so at most as many bytes) a
    /// closer of this fence may have: a line whose first this many bytes
    /// and the next hold no fence character closes nothing.
    pub fn closer_indent(&self) -> usize {
        self.indent.max(3)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpenPhase {
    Indent,
    Run,
    /// Before the info string's first word.
    InfoLead,
    /// In the first word.
    Word,
    /// After the first word.
    Rest,
    /// After a list marker's digits: expecting `.` or `)`.
    ListDigits,
    /// After a list marker: expecting the space that makes it one.
    ListSpace,
}

/// Recognises an opening fence line, and notes list-item markers on the way.
#[derive(Debug, Clone)]
pub(crate) struct OpenProbe {
    max_indent: usize,
    phase: OpenPhase,
    /// Columns of indentation read.
    pub indent: usize,
    /// Bytes of indentation read.
    pub indent_bytes: usize,
    ch: u8,
    run: usize,
    digits: usize,
    marker: usize,
    /// The info string's first word, lowercased (only if it fits).
    pub tag: String,
    long_tag: bool,
    /// Set when the line starts a list item: its content indentation.
    pub list_item: Option<usize>,
}

impl OpenProbe {
    /// A probe for a line whose fence may be indented up to `max_indent`.
    pub fn new(max_indent: usize) -> Self {
        OpenProbe {
            max_indent,
            phase: OpenPhase::Indent,
            indent: 0,
            indent_bytes: 0,
            ch: 0,
            run: 0,
            digits: 0,
            marker: 0,
            tag: String::new(),
            long_tag: false,
            list_item: None,
        }
    }

    /// The fence, once the probe said [`Probe::Yes`].
    pub fn fence(&self) -> Fence {
        Fence {
            ch: self.ch,
            len: self.run,
            indent: self.indent,
        }
    }

    /// The tag, or `None` when the first word was too long to be one.
    pub fn tag(&self) -> Option<&str> {
        (!self.long_tag).then_some(self.tag.as_str())
    }

    /// Takes the tag out (empty when the first word was too long to be
    /// one): the probe is done.
    pub fn take_tag(&mut self) -> String {
        if self.long_tag {
            String::new()
        } else {
            std::mem::take(&mut self.tag)
        }
    }

    /// Whether the line read so far would be a fence line if the input ended.
    pub fn complete_at_eof(&self) -> bool {
        match self.phase {
            OpenPhase::Run => self.run >= 3,
            OpenPhase::InfoLead | OpenPhase::Word | OpenPhase::Rest => true,
            _ => false,
        }
    }

    /// Steps one byte.
    pub fn step(&mut self, b: u8) -> Probe {
        match self.phase {
            OpenPhase::Indent => match b {
                // Deeper than a fence may stand: the line is text, and its
                // indentation is not held back any longer.
                b' ' | b'\t' => {
                    let cols = if b == b' ' { 1 } else { 4 - self.indent % 4 };
                    if self.indent + cols > self.max_indent {
                        return Probe::No;
                    }
                    self.indent_by(cols)
                }
                b'`' | b'~' if self.indent <= self.max_indent => {
                    self.ch = b;
                    self.run = 1;
                    self.phase = OpenPhase::Run;
                    Probe::More
                }
                b'-' | b'*' | b'+' => {
                    self.marker = 1;
                    self.phase = OpenPhase::ListSpace;
                    Probe::More
                }
                b'0'..=b'9' => {
                    self.digits = 1;
                    self.phase = OpenPhase::ListDigits;
                    Probe::More
                }
                _ => Probe::No,
            },
            OpenPhase::Run if b == self.ch => {
                self.run += 1;
                Probe::More
            }
            OpenPhase::Run if self.run < 3 => Probe::No,
            OpenPhase::Run | OpenPhase::InfoLead | OpenPhase::Word | OpenPhase::Rest => {
                self.info(b)
            }
            OpenPhase::ListDigits => match b {
                b'0'..=b'9' if self.digits < 9 => {
                    self.digits += 1;
                    Probe::More
                }
                b'.' | b')' => {
                    self.marker = self.digits + 1;
                    self.phase = OpenPhase::ListSpace;
                    Probe::More
                }
                _ => Probe::No,
            },
            OpenPhase::ListSpace => {
                if b == b' ' || b == b'\t' {
                    // A list item; its content starts after one to four spaces,
                    // which we take to be the usual one.
                    self.list_item = Some(self.indent + self.marker + 1);
                }
                Probe::No
            }
        }
    }

    fn indent_by(&mut self, cols: usize) -> Probe {
        self.indent += cols;
        self.indent_bytes += 1;
        Probe::More
    }

    fn info(&mut self, b: u8) -> Probe {
        if b == b'\n' {
            return Probe::Yes;
        }
        if b == b'`' && self.ch == b'`' {
            return Probe::No;
        }
        let space = matches!(b, b' ' | b'\t' | b'\r');
        self.phase = match (self.phase, space) {
            (OpenPhase::Run | OpenPhase::InfoLead, true) => OpenPhase::InfoLead,
            (OpenPhase::Run | OpenPhase::InfoLead | OpenPhase::Word, false) => {
                if self.tag.len() < MAX_TAG {
                    self.tag.push(b.to_ascii_lowercase() as char);
                } else {
                    self.long_tag = true;
                }
                OpenPhase::Word
            }
            _ => OpenPhase::Rest,
        };
        Probe::More
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClosePhase {
    Indent,
    Run,
    Trail,
}

/// Recognises the closing fence line of `fence`.
#[derive(Debug, Clone)]
pub(crate) struct CloseProbe {
    fence: Fence,
    phase: ClosePhase,
    indent: usize,
    run: usize,
}

impl CloseProbe {
    /// A probe for a closer of `fence`.
    pub fn new(fence: Fence) -> Self {
        CloseProbe {
            fence,
            phase: ClosePhase::Indent,
            indent: 0,
            run: 0,
        }
    }

    /// Whether the line read so far closes the fence if the input ends here.
    pub fn complete_at_eof(&self) -> bool {
        match self.phase {
            ClosePhase::Run => self.run >= self.fence.len,
            ClosePhase::Trail => true,
            ClosePhase::Indent => false,
        }
    }

    /// Steps along `bytes` until a verdict. Returns it and where it came:
    /// at the byte that said no, just past the byte that said yes, or at
    /// the end of `bytes` (more is needed). The one loop for every reader
    /// of a closing line (a block's, a narrative fence's, the block lane).
    #[inline]
    pub fn run(&mut self, bytes: &[u8]) -> (Probe, usize) {
        for (i, &b) in bytes.iter().enumerate() {
            match self.step(b) {
                Probe::More => {}
                Probe::No => return (Probe::No, i),
                Probe::Yes => return (Probe::Yes, i + 1),
            }
        }
        (Probe::More, bytes.len())
    }

    /// Steps one byte.
    pub fn step(&mut self, b: u8) -> Probe {
        let max_indent = self.fence.closer_indent();
        match self.phase {
            ClosePhase::Indent => match b {
                b' ' | b'\t' => {
                    self.indent += if b == b' ' { 1 } else { 4 - self.indent % 4 };
                    if self.indent > max_indent {
                        Probe::No
                    } else {
                        Probe::More
                    }
                }
                _ if b == self.fence.ch => {
                    self.run = 1;
                    self.phase = ClosePhase::Run;
                    Probe::More
                }
                _ => Probe::No,
            },
            ClosePhase::Run if b == self.fence.ch => {
                self.run += 1;
                Probe::More
            }
            ClosePhase::Run | ClosePhase::Trail => {
                if self.phase == ClosePhase::Run && self.run < self.fence.len {
                    return Probe::No;
                }
                match b {
                    b'\n' => Probe::Yes,
                    b' ' | b'\t' | b'\r' => {
                        self.phase = ClosePhase::Trail;
                        Probe::More
                    }
                    _ => Probe::No,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(line: &str, max_indent: usize) -> Option<(Fence, String)> {
        let mut p = OpenProbe::new(max_indent);
        for &b in line.as_bytes() {
            match p.step(b) {
                Probe::More => {}
                Probe::No => return None,
                Probe::Yes => return Some((p.fence(), p.tag().unwrap_or("").to_owned())),
            }
        }
        p.complete_at_eof()
            .then(|| (p.fence(), p.tag().unwrap_or("").to_owned()))
    }

    fn closes(fence: Fence, line: &str) -> bool {
        let mut p = CloseProbe::new(fence);
        for &b in line.as_bytes() {
            match p.step(b) {
                Probe::More => {}
                Probe::No => return false,
                Probe::Yes => return true,
            }
        }
        p.complete_at_eof()
    }

    #[test]
    fn openers() {
        assert_eq!(open("```json\n", 3).map(|x| x.1), Some("json".into()));
        assert_eq!(
            open("   ~~~~ JSON extra `x`\n", 3).map(|x| x.1),
            Some("json".into())
        );
        assert_eq!(open("```\n", 3).map(|x| x.1), Some(String::new()));
        assert_eq!(open("```", 3).map(|x| x.1), Some(String::new()));
        assert!(open("    ```json\n", 3).is_none());
        assert!(open("    ```json\n", 5).is_some());
        assert!(open("``json\n", 3).is_none());
        assert!(open("```js`on\n", 3).is_none());
        assert_eq!(open("`````python\n", 3).map(|x| x.0.len), Some(5));
    }

    #[test]
    fn list_items() {
        let mut p = OpenProbe::new(3);
        for &b in b"10. " {
            if p.step(b) != Probe::More {
                break;
            }
        }
        assert_eq!(p.list_item, Some(4));
    }

    #[test]
    fn closers() {
        let f = Fence {
            ch: b'`',
            len: 3,
            indent: 0,
        };
        assert!(closes(f, "```\n"));
        assert!(closes(f, "   ````  \r\n"));
        assert!(closes(f, "```"));
        assert!(!closes(f, "``\n"));
        assert!(!closes(f, "```json\n"));
        assert!(!closes(f, "    ```\n"));
        assert!(!closes(f, "~~~\n"));
        let f4 = Fence {
            ch: b'~',
            len: 4,
            indent: 5,
        };
        assert!(closes(f4, "     ~~~~\n"));
        assert!(!closes(f4, "~~~\n"));
    }
}
