//! Artifacts: the files a response's code blocks name, grouped by path.

use std::collections::HashMap;
use std::fmt;

use super::code_block::CodeBlock;
use super::path::{normalize_path, PathError};
use super::sections::heading_key;

/// Headings whose code blocks are explanation, not files (compared without
/// case).
pub const DEFAULT_EXCLUDED_SECTIONS: [&str; 3] = ["Implementation notes", "Explanation", "Notes"];

/// How blocks become artifacts.
///
/// ```
/// use actionstream::artifacts::{ArtifactOptions, Artifacts};
///
/// let options = ArtifactOptions::default().exclude_section("Examples");
/// assert_eq!(options.excluded_sections.len(), 4);
/// let _ = Artifacts::with_options(options);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactOptions {
    /// Blocks under these headings (or bold labels) are left out; compared
    /// without case, emphasis and a trailing `:`.
    pub excluded_sections: Vec<String>,
    /// Take unclosed blocks as they are, instead of refusing their file.
    pub include_unclosed: bool,
}

impl Default for ArtifactOptions {
    fn default() -> Self {
        ArtifactOptions {
            excluded_sections: DEFAULT_EXCLUDED_SECTIONS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            include_unclosed: false,
        }
    }
}

impl ArtifactOptions {
    /// Adds a heading to leave out.
    ///
    /// ```
    /// let o = actionstream::artifacts::ArtifactOptions::default().exclude_section("Usage");
    /// assert!(o.excluded_sections.iter().any(|s| s == "Usage"));
    /// ```
    pub fn exclude_section(mut self, heading: impl Into<String>) -> Self {
        self.excluded_sections.push(heading.into());
        self
    }
}

/// A file to write: the blocks that name one path, joined.
///
/// ```
/// let a = actionstream::artifacts::artifacts("```rs\n// ./src//lib.rs\npub fn f() {}\n```\n");
/// let a = a[0].as_ref().unwrap();
/// assert_eq!((a.path.as_str(), a.language.as_str(), a.blocks), ("src/lib.rs", "rs", 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// The normalised relative path (see [`normalize_path`]).
    pub path: String,
    /// The language of its first block.
    pub language: String,
    /// The blocks' contents joined by a blank line, ending with a line ending
    /// (empty if all blocks are empty).
    pub content: String,
    /// How many blocks it was made of.
    pub blocks: usize,
    /// The opening line of its first block.
    pub line: usize,
}

/// A file that is not written, and why.
///
/// ```
/// use actionstream::artifacts::{ArtifactError, PathError};
/// let a = actionstream::artifacts::artifacts("```sh\n# ../../etc/profile.sh\nrm -rf /\n```\n");
/// let refused = a[0].as_ref().unwrap_err();
/// assert_eq!(refused.path, "../../etc/profile.sh");
/// assert_eq!(refused.error, ArtifactError::Path(PathError::Parent));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The path as written (normalised when the path itself is fine).
    pub path: String,
    /// Why it is refused.
    pub error: ArtifactError,
    /// The opening line of the block that was refused.
    pub line: usize,
}

/// Why an artifact is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactError {
    /// The path is not one we write to.
    Path(PathError),
    /// A block for this path has no closing fence: the response was likely
    /// cut off, and a partial file is not written.
    Unclosed {
        /// The block's opening line.
        line: usize,
    },
}

impl fmt::Display for ArtifactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArtifactError::Path(e) => e.fmt(f),
            ArtifactError::Unclosed { line } => write!(
                f,
                "the code block at line {line} is not closed (the response may be cut off)"
            ),
        }
    }
}

impl std::error::Error for ArtifactError {}

/// Groups code blocks into artifacts as they come.
///
/// ```
/// use actionstream::artifacts::{code_blocks, Artifacts};
///
/// let mut artifacts = Artifacts::new();
/// for block in code_blocks("```py\n# a.py\nx = 1\n```\n```py\n# b.py\ny = 2\n```\n") {
///     artifacts.add(&block);
/// }
/// let paths: Vec<_> = artifacts.finish().into_iter().map(|a| a.unwrap().path).collect();
/// assert_eq!(paths, ["a.py", "b.py"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Artifacts {
    options: ArtifactOptions,
    excluded: Vec<String>,
    entries: Vec<Result<Artifact, Refused>>,
    /// Normalised path (or `\0` + refused path as written) → entry.
    index: HashMap<String, usize>,
}

impl Artifacts {
    /// Grouping with the default options.
    ///
    /// ```
    /// assert!(actionstream::artifacts::Artifacts::new().finish().is_empty());
    /// ```
    pub fn new() -> Self {
        Artifacts::with_options(ArtifactOptions::default())
    }

    /// Grouping with `options`.
    ///
    /// ```
    /// use actionstream::artifacts::{ArtifactOptions, Artifacts};
    /// let _ = Artifacts::with_options(ArtifactOptions { include_unclosed: true, ..Default::default() });
    /// ```
    pub fn with_options(options: ArtifactOptions) -> Self {
        let excluded = options
            .excluded_sections
            .iter()
            .map(|h| heading_key(h))
            .collect();
        Artifacts {
            options,
            excluded,
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// Whether `block` stands under an excluded heading or label.
    ///
    /// ```
    /// let blocks = actionstream::artifacts::code_blocks("# Explanation\n```ts\n// a.ts\n```\n");
    /// assert!(actionstream::artifacts::Artifacts::new().is_excluded(&blocks[0]));
    /// ```
    pub fn is_excluded(&self, block: &CodeBlock) -> bool {
        block
            .headings
            .iter()
            .chain(block.label.iter())
            .any(|h| self.excluded.contains(&heading_key(h)))
    }

    /// Takes one block: a block without a path, or an excluded one, is
    /// passed over.
    ///
    /// ```
    /// let mut a = actionstream::artifacts::Artifacts::new();
    /// for b in actionstream::artifacts::code_blocks("```\nno path\n```\n") {
    ///     a.add(&b);
    /// }
    /// assert!(a.finish().is_empty());
    /// ```
    pub fn add(&mut self, block: &CodeBlock) {
        let Some(written) = &block.path else { return };
        if self.is_excluded(block) {
            return;
        }
        let path = match normalize_path(written) {
            Ok(p) => p,
            Err(e) => {
                let key = format!("\0{written}");
                if !self.index.contains_key(&key) {
                    self.index.insert(key, self.entries.len());
                    self.entries.push(Err(Refused {
                        path: written.clone(),
                        error: ArtifactError::Path(e),
                        line: block.start_line,
                    }));
                }
                return;
            }
        };
        let unclosed = !block.closed && !self.options.include_unclosed;
        let refusal = || Refused {
            path: path.clone(),
            error: ArtifactError::Unclosed {
                line: block.start_line,
            },
            line: block.start_line,
        };
        match self.index.get(&path) {
            Some(&i) => {
                let entry = &mut self.entries[i];
                if unclosed {
                    if entry.is_ok() {
                        *entry = Err(refusal());
                    }
                } else if let Ok(a) = entry {
                    a.content.push_str("\n\n");
                    a.content.push_str(&block.content);
                    a.blocks += 1;
                }
            }
            None => {
                self.index.insert(path.clone(), self.entries.len());
                self.entries.push(if unclosed {
                    Err(refusal())
                } else {
                    Ok(Artifact {
                        path: path.clone(),
                        language: block.language.clone(),
                        content: block.content.clone(),
                        blocks: 1,
                        line: block.start_line,
                    })
                });
            }
        }
    }

    /// The artifacts and refusals, in order of first appearance.
    ///
    /// ```
    /// let a = actionstream::artifacts::Artifacts::new();
    /// assert_eq!(a.finish(), Vec::new());
    /// ```
    pub fn finish(self) -> Vec<Result<Artifact, Refused>> {
        let mut entries = self.entries;
        for a in entries.iter_mut().flatten() {
            if !a.content.is_empty() && !a.content.ends_with('\n') {
                a.content.push('\n');
            }
        }
        entries
    }
}
