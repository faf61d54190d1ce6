//! Markdown sections: ATX headings outside code blocks and the text under
//! each, up to the next heading of any level.

use std::ops::Deref;

/// One section: an ATX heading (`#` to `######` after up to 3 spaces, then a
/// space, a tab or the line's end) and the text under it up to the next
/// heading of any level, or the end of the response.
///
/// ```
/// let sections = actionstream::artifacts::sections("# Plan\nStep one.\n\n## Notes ##\nKeep it small.\n");
/// assert_eq!(sections[0].level, 1);
/// assert_eq!(sections[0].heading, "Plan");
/// assert_eq!(sections[0].content, "Step one.");
/// assert_eq!(sections[1].heading, "Notes");
/// assert_eq!((sections[1].line, sections[1].end_line), (4, 5));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// 1 for `#`, up to 6 for `######`.
    pub level: u8,
    /// The heading text, trimmed, its closing `#`s stripped.
    pub heading: String,
    /// The text under the heading, up to the next heading: leading blank
    /// lines and trailing white space removed. It holds code blocks and
    /// action blocks as written.
    pub content: String,
    /// The heading's line (from 1).
    pub line: usize,
    /// The last line of the section (the heading's line when it is empty).
    pub end_line: usize,
}

/// The sections of a response, in order.
///
/// ```
/// let sections = actionstream::artifacts::sections("## Implementation Notes\nUse a map.\n");
/// let notes = sections.find("implementation notes").map(|s| s.content.as_str());
/// assert_eq!(notes, Some("Use a map."));
/// assert_eq!(sections.find("Suggested order"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sections {
    list: Vec<Section>,
}

impl Sections {
    /// Wraps a list of sections.
    ///
    /// ```
    /// let s = actionstream::artifacts::Sections::new(Vec::new());
    /// assert!(s.is_empty());
    /// ```
    pub fn new(list: Vec<Section>) -> Self {
        Sections { list }
    }

    /// The first section whose heading equals `heading`, ignoring case and
    /// surrounding white space (a trailing `:` and `**` emphasis around
    /// the heading are ignored too).
    ///
    /// ```
    /// let s = actionstream::artifacts::sections("# **Explanation:**\nBecause.\n");
    /// assert_eq!(s.find("explanation").map(|s| s.line), Some(1));
    /// ```
    pub fn find(&self, heading: &str) -> Option<&Section> {
        let key = heading_key(heading);
        self.list.iter().find(|s| heading_key(&s.heading) == key)
    }

    /// The sections as a vector.
    ///
    /// ```
    /// let v = actionstream::artifacts::sections("# A\n# B\n").into_vec();
    /// assert_eq!(v.len(), 2);
    /// ```
    pub fn into_vec(self) -> Vec<Section> {
        self.list
    }
}

impl Deref for Sections {
    type Target = [Section];

    fn deref(&self) -> &[Section] {
        &self.list
    }
}

/// A heading as compared: trimmed, emphasis and a trailing `:` removed,
/// lowercase.
pub(crate) fn heading_key(heading: &str) -> String {
    let mut s = heading.trim();
    loop {
        let before = s;
        for w in ["**", "__", "*", "_", "`"] {
            if let Some(inner) = s.strip_prefix(w).and_then(|t| t.strip_suffix(w)) {
                s = inner.trim();
            }
        }
        s = s.trim_end_matches(':').trim();
        if s == before {
            break;
        }
    }
    s.to_lowercase()
}

/// Reads an ATX heading line (without its line ending): level and text.
pub(crate) fn parse_atx(line: &str) -> Option<(u8, String)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    let text = rest.trim_start_matches('#');
    let level = rest.len() - text.len();
    if !(1..=6).contains(&level) || !(text.is_empty() || text.starts_with([' ', '\t'])) {
        return None;
    }
    let mut text = text.trim_matches([' ', '\t']);
    let bare = text.trim_end_matches('#');
    if bare.len() < text.len() && (bare.is_empty() || bare.ends_with([' ', '\t'])) {
        text = bare.trim_end_matches([' ', '\t']);
    }
    Some((level as u8, text.to_owned()))
}

/// Reads a bold label line (`**Notes:**`, `**Explanation**:`, `__Notes__`)
/// that stands alone on its line, as LLMs write instead of a heading.
pub(crate) fn parse_label(line: &str) -> Option<String> {
    let s = line.trim();
    let s = s.strip_suffix(':').unwrap_or(s);
    let inner = ["**", "__"]
        .iter()
        .find_map(|w| s.strip_prefix(w).and_then(|t| t.strip_suffix(w)))?;
    let inner = inner.trim().trim_end_matches(':').trim();
    (!inner.is_empty() && !inner.contains(['*', '_'])).then(|| inner.to_owned())
}

/// Collects sections while a response streams.
#[derive(Debug, Clone, Default)]
pub(crate) struct SectionBook {
    pub on: bool,
    pub done: Vec<Section>,
    open: Option<OpenSection>,
}

#[derive(Debug, Clone)]
struct OpenSection {
    level: u8,
    heading: String,
    line: usize,
    content: String,
    /// Length of `content` where the current line starts.
    line_start: usize,
}

impl SectionBook {
    /// Appends response text to the open section.
    pub fn append(&mut self, text: &str) {
        if let Some(s) = &mut self.open {
            s.content.push_str(text);
        }
    }

    /// A new line starts (after the text appended so far).
    pub fn line_started(&mut self) {
        if let Some(s) = &mut self.open {
            s.line_start = s.content.len();
        }
    }

    /// The current line, at `line`, is a heading: the open section ends
    /// before it (its part of the line, appended already, is dropped).
    pub fn heading(&mut self, level: u8, heading: &str, line: usize) {
        if !self.on {
            return;
        }
        if let Some(mut s) = self.open.take() {
            s.content.truncate(s.line_start);
            self.close(s, line.saturating_sub(1));
        }
        self.open = Some(OpenSection {
            level,
            heading: heading.to_owned(),
            line,
            content: String::new(),
            line_start: 0,
        });
    }

    /// The response ended on `last_line`.
    pub fn finish(&mut self, last_line: usize) {
        if let Some(s) = self.open.take() {
            self.close(s, last_line);
        }
    }

    fn close(&mut self, s: OpenSection, end_line: usize) {
        self.done.push(Section {
            level: s.level,
            heading: s.heading,
            content: trim_blank_lines(&s.content).to_owned(),
            line: s.line,
            end_line: end_line.max(s.line),
        });
    }
}

/// Drops leading blank lines and trailing white space.
fn trim_blank_lines(s: &str) -> &str {
    let s = s.trim_end();
    let first = s.len() - s.trim_start().len();
    let from = s[..first].rfind('\n').map_or(0, |i| i + 1);
    &s[from..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atx() {
        assert_eq!(parse_atx("# A"), Some((1, "A".into())));
        assert_eq!(parse_atx("   ### B ###"), Some((3, "B".into())));
        assert_eq!(parse_atx("## C#"), Some((2, "C#".into())));
        assert_eq!(parse_atx("#"), Some((1, String::new())));
        assert_eq!(parse_atx("####### x"), None);
        assert_eq!(parse_atx("#x"), None);
        assert_eq!(parse_atx("    # x"), None);
    }

    #[test]
    fn labels() {
        assert_eq!(
            parse_label("**Implementation notes:**"),
            Some("Implementation notes".into())
        );
        assert_eq!(parse_label("**Notes**:"), Some("Notes".into()));
        assert_eq!(parse_label("**a** and **b**"), None);
        assert_eq!(heading_key(" **Notes:** "), "notes");
    }

    #[test]
    fn trims() {
        assert_eq!(trim_blank_lines("\n  \n  x\ny \n\n"), "  x\ny");
    }
}
