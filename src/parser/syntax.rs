//! Syntaxes as values: what an opener found, how its block closes and how
//! its content is read.
//!
//! The narrative machine recognises openers (a fence line, a call tag) and
//! hands the block machinery an [`Opened`]: the block's syntax and tag, its
//! [`Closer`] and its [`Content`] reader. From there on the block code
//! consults these values and never asks which opener made them, so a new
//! syntax is a new `Closer` or `Content` variant (or a new way to build an
//! `Opened`), not a new branch in every step.

use crate::event::Syntax;
use crate::scan::fence::{CloseProbe, Fence};
use crate::scan::json::JsonScanner;
use crate::scan::naming::Naming;

/// How a block closes.
#[derive(Debug, Clone)]
pub(super) enum Closer {
    /// A closing fence line.
    Fence {
        fence: Fence,
        /// Probing the line that starts at `from`.
        probe: Option<(CloseProbe, usize)>,
        at_line_start: bool,
    },
    /// A closing tag `</NAME>`.
    Tag {
        /// Index into the configured tag names (and their closers).
        name: usize,
    },
}

impl Closer {
    pub fn fence(fence: Fence) -> Self {
        Closer::Fence {
            fence,
            probe: None,
            at_line_start: true,
        }
    }

    /// What a closer of this kind is called in messages.
    pub fn what(&self) -> &'static str {
        match self {
            Closer::Fence { .. } => "closing fence",
            Closer::Tag { .. } => "closing tag",
        }
    }

    /// For a fence: the closer probe to resume narrative with, and where its
    /// line starts (`pos` when a line starts there), if the block's text is
    /// narrative from `pos` on.
    pub fn fence_resume(&self, pos: usize) -> Option<(Fence, Option<CloseProbe>, usize)> {
        let Closer::Fence {
            fence,
            probe,
            at_line_start,
        } = self
        else {
            return None;
        };
        let (probe, from) = match probe {
            Some((p, from)) => (Some(p.clone()), *from),
            None if *at_line_start => (Some(CloseProbe::new(*fence)), pos),
            None => (None, pos),
        };
        Some((*fence, probe, from))
    }
}

/// How a block's content is read.
#[derive(Debug, Clone)]
pub(super) enum Content {
    /// JSON (objects, arrays, JSON Lines), scanned as it arrives.
    Json(Box<JsonScanner>),
    /// XML child elements: the block closes at its first closing tag.
    Xml,
}

/// How the content reader of a new block is chosen.
#[derive(Debug, Clone, Copy)]
pub(super) enum Reader {
    Json(Naming),
    Xml,
}

/// What an opener found: everything the block machinery needs to read the
/// block that begins at `from`.
#[derive(Debug)]
pub(super) struct Opened {
    pub syntax: Syntax,
    pub tag: String,
    pub closer: Closer,
    pub reader: Reader,
    /// Offset of the opener's first byte (the block's raw text starts here).
    pub from: usize,
    /// Offset where the content begins.
    pub content_start: usize,
    /// For fences of a generic tag: not an action block until decided.
    pub generic: bool,
    /// A `name` attribute: the block is one action of that name.
    pub name_attr: Option<String>,
    /// The other attributes, kept on the action.
    pub attrs: Vec<(String, String)>,
}
