//! A recipient envelope: messages whose header names a recipient before
//! the content (OpenAI's harmony `to=functions.f`, Meta Muse Glimmer's
//! `<|start|>assistant to=R<|message|>`), described as data (contract,
//! sections 7 and 7b).
//!
//! The header, up to its `message` marker, says what the content is: by its
//! channel or recipient reasoning or narrative, else a call to the
//! recipient. A call's content is its JSON arguments, raw code (`code`
//! recipients), or a call section of its own (`body`, Muse's ATEM).

use serde::{Deserialize, Serialize};

use super::Section;

/// Messages with headers that name a recipient (a dialect's `envelope`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// Markers that begin a header (harmony: `<|start|>`, `<|channel|>`).
    pub header: Vec<String>,
    /// Markers that may stand inside a header and are dropped with it
    /// (harmony: `<|channel|>`, `<|constrain|>`).
    #[serde(default)]
    pub inner: Vec<String>,
    /// The marker that ends a header; the content follows (`<|message|>`).
    #[serde(default)]
    pub message: String,
    /// Markers that end a header and say themselves what its content is
    /// (Inkling: `<|content_text|>` narrative, `<|content_thinking|>`
    /// reasoning, `<|content_invoke_tool_json|>` a call); they may also
    /// stand with no header before them.
    #[serde(default)]
    pub contents: Vec<Content>,
    /// Markers that end a message (harmony: `<|call|>`, `<|end|>`,
    /// `<|return|>`; Muse: `<|eom|>`, `<|eot|>`). The first ends a call
    /// whose content is its arguments.
    pub end: Vec<String>,
    /// Channels (the word after `<|channel|>`) whose messages are
    /// reasoning (harmony: `analysis`).
    #[serde(default)]
    pub reasoning_channels: Vec<String>,
    /// Recipients whose messages are reasoning (Muse: `self`).
    #[serde(default)]
    pub reasoning_recipients: Vec<String>,
    /// Recipients whose messages are narrative (Muse: `user`).
    #[serde(default)]
    pub narrative_recipients: Vec<String>,
    /// A prefix dropped from a recipient to name its call (`functions.`).
    #[serde(default)]
    pub name_prefix: Option<String>,
    /// Recipients whose message is raw code: the call's arguments are
    /// `{"code": …}` (harmony's built-in `python`).
    #[serde(default)]
    pub code: Vec<String>,
    /// A call message's content is this section (Muse's
    /// `<atem:function_calls>`…), its calls named as it writes them; absent,
    /// the content is the JSON arguments of a call named by the recipient.
    #[serde(default)]
    pub body: Option<Section>,
    /// A header is its recipient, written bare (Functionary's `>>>all`,
    /// `>>>get_weather`), where it has no `to=`.
    #[serde(default)]
    pub word_is_recipient: bool,
    /// The first header may come with no opener (the prompt wrote it):
    /// a word (`to=self`, `get_weather`), white space, then `message` or
    /// a content marker.
    #[serde(default)]
    pub bare_first: bool,
}

/// A marker that ends a header and says what the content is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// The marker.
    pub marker: String,
    /// What the content after it is.
    pub kind: ContentKind,
}

/// What a message's content is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentKind {
    /// Narrative.
    Narrative,
    /// Reasoning.
    Reasoning,
    /// A call: the envelope's `body` section (or JSON arguments of a call
    /// named by the header).
    Call,
}

impl Envelope {
    /// OpenAI's harmony format (gpt-oss), which a dialect's `harmony: true`
    /// stands for.
    ///
    /// ```
    /// let h = actionstream::dialect::Envelope::harmony();
    /// assert_eq!(h.message, "<|message|>");
    /// assert!(h.code.contains(&"python".to_owned()));
    /// ```
    pub fn harmony() -> Envelope {
        let s = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        Envelope {
            header: s(&["<|start|>", "<|channel|>"]),
            inner: s(&["<|channel|>", "<|constrain|>"]),
            message: "<|message|>".to_owned(),
            contents: Vec::new(),
            word_is_recipient: false,
            end: s(&["<|call|>", "<|end|>", "<|return|>"]),
            reasoning_channels: s(&["analysis"]),
            reasoning_recipients: Vec::new(),
            narrative_recipients: Vec::new(),
            name_prefix: Some("functions.".to_owned()),
            code: s(&["python"]),
            body: None,
            bare_first: false,
        }
    }

    /// Markers that cut a header short: it is dropped and the marker read
    /// anew (the header openers that cannot stand inside a header, and the
    /// message ends).
    ///
    /// ```
    /// let h = actionstream::dialect::Envelope::harmony();
    /// assert!(h.stops().contains(&"<|start|>".to_owned()));
    /// assert!(!h.stops().contains(&"<|channel|>".to_owned()));
    /// ```
    pub fn stops(&self) -> Vec<String> {
        self.header
            .iter()
            .filter(|m| !self.inner.contains(m))
            .chain(self.end.iter())
            .cloned()
            .collect()
    }

    /// Markers that stand outside blocks and are in no event when met in
    /// narrative: the message ends, the `message` marker (unless it is
    /// white space, as Functionary's line ending), the content markers,
    /// the inner header markers that open no header.
    ///
    /// ```
    /// let h = actionstream::dialect::Envelope::harmony();
    /// assert!(h.dropped().contains(&"<|constrain|>".to_owned()));
    /// ```
    pub fn dropped(&self) -> Vec<String> {
        self.end
            .iter()
            .chain(std::iter::once(&self.message).filter(|m| !m.trim().is_empty()))
            .chain(self.contents.iter().map(|c| &c.marker))
            .chain(self.inner.iter().filter(|m| !self.header.contains(m)))
            .filter(|m| !m.is_empty())
            .cloned()
            .collect()
    }

    /// The markers that end a header: `message` and the content markers.
    ///
    /// ```
    /// let h = actionstream::dialect::Envelope::harmony();
    /// assert_eq!(h.header_ends(), ["<|message|>"]);
    /// ```
    pub fn header_ends(&self) -> Vec<String> {
        std::iter::once(&self.message)
            .chain(self.contents.iter().map(|c| &c.marker))
            .filter(|m| !m.is_empty())
            .cloned()
            .collect()
    }

    /// How long the header at the start of `rest` is, where `rest` begins
    /// with one of its openers: through `message`, or up to a stop marker
    /// that cuts it short, where one ends within `limit` bytes; else up to
    /// the limit (or the end of `rest`). For checks of invariant 2.
    #[doc(hidden)]
    pub fn header_len(&self, rest: &str, limit: usize) -> usize {
        let lim = crate::utf8::floor_boundary(rest, limit);
        let opener = self
            .header
            .iter()
            .filter(|m| rest.starts_with(m.as_str()))
            .map(String::len)
            .max()
            .unwrap_or(0);
        let stops = self.stops();
        let ends = self.header_ends();
        let first = ends
            .iter()
            .map(|m| (m, true))
            .chain(stops.iter().map(|m| (m, false)))
            .filter_map(|(m, message)| {
                rest[opener..]
                    .find(m.as_str())
                    .map(|k| (opener + k, m.len(), message))
            })
            .filter(|(k, len, _)| k + len <= lim)
            .min_by_key(|(k, ..)| *k);
        match first {
            Some((k, len, true)) => k + len,
            Some((k, _, false)) => k,
            None if rest.len() > lim => lim,
            None => rest.len(),
        }
    }
}

/// The longest recipient a header with no opener may name.
pub(crate) const BARE_RECIPIENT_MAX: usize = 128;

/// Reads a header with no opener at the start of `rest`: a word (no
/// white space, no `<`), white space, then one of `ends`. `Some(Ok((word,
/// len, end)))` when it is one (`end` the index in `ends`), `Some(Err(()))`
/// when it cannot be, `None` while more text may decide.
pub(crate) fn bare_header(
    rest: &str,
    ends: &[String],
) -> Option<Result<(String, usize, usize), ()>> {
    let word = rest
        .bytes()
        .take_while(|b| !b.is_ascii_whitespace() && *b != b'<')
        .count();
    if word > BARE_RECIPIENT_MAX {
        return Some(Err(()));
    }
    if word == rest.len() {
        return None;
    }
    let tail = &rest[word..];
    if word > 0 {
        // An end right after the word (Functionary's line ending).
        if let Some(i) = ends.iter().position(|m| tail.starts_with(m.as_str())) {
            return Some(Ok((rest[..word].to_owned(), word + ends[i].len(), i)));
        }
        if ends
            .iter()
            .any(|m| m.len() > tail.len() && m.starts_with(tail))
        {
            return None;
        }
    }
    let ws = tail.bytes().take_while(u8::is_ascii_whitespace).count();
    if ws > BARE_RECIPIENT_MAX {
        return Some(Err(()));
    }
    let tail = &tail[ws..];
    if word == 0 && ws > 0 {
        return Some(Err(()));
    }
    if let Some(i) = ends.iter().position(|m| tail.starts_with(m.as_str())) {
        let len = word + ws + ends[i].len();
        return Some(Ok((rest[..word].to_owned(), len, i)));
    }
    if ends.iter().any(|m| m.starts_with(tail)) {
        None
    } else {
        Some(Err(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_header_is_read_or_refused_by_its_bytes() {
        let m = ["<|message|>".to_owned(), "<|content_text|>".to_owned()];
        assert_eq!(
            bare_header("to=self<|message|>hi", &m),
            Some(Ok(("to=self".to_owned(), 18, 0)))
        );
        assert_eq!(
            bare_header("to=self <|message|>", &m).unwrap().unwrap().1,
            19
        );
        assert_eq!(
            bare_header("f<|content_text|>", &m).unwrap().unwrap(),
            ("f".to_owned(), 17, 1)
        );
        for undecided in ["", "t", "to=", "to=sel", "to=self<|mes", "to=self  "] {
            assert_eq!(bare_header(undecided, &m), None, "{undecided:?}");
        }
        for refused in ["to=x is the syntax.", "to= is", "to=a<b is false", "top 1"] {
            assert_eq!(bare_header(refused, &m), Some(Err(())), "{refused:?}");
        }
    }

    #[test]
    fn harmony_headers_end_at_message_or_a_stop() {
        let h = Envelope::harmony();
        let text = "<|start|>assistant<|channel|>analysis<|message|>x";
        assert_eq!(h.header_len(text, 1000), text.len() - 1);
        assert_eq!(h.header_len("<|start|>assistant<|start|>", 1000), 18);
    }
}
