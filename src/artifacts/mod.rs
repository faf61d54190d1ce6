//! Code blocks, file artifacts and sections of a response, read while it
//! streams.
//!
//! The parser hands every fenced block that is not an action block out as
//! narrative, byte for byte. [`CodeBlocks`] reads that narrative (and counts
//! the raw text of action blocks, so lines stay right) and reports each
//! fenced block: its language, the file its first line names
//! (`// src/a.ts`, `# main.py`, `<!-- docs/x.md -->`, `-- q.sql`), its
//! content and lines. It only annotates: the narrative is untouched.
//!
//! [`Artifacts`] groups the blocks that name a file by path, in order of
//! first appearance, leaves out blocks under headings such as "Notes",
//! and checks each path ([`normalize_path`]); [`OutDir`] writes them without
//! ever leaving its directory. [`sections`] lists the Markdown sections and
//! [`check_balance`] checks the delimiters of C-family code.
//!
//! Choices where Markdown and LLM output leave room:
//! - Fences follow CommonMark, with the parser's own probes: a ```` ```ts ````
//!   inside a ```` ````markdown ```` block is its content, not a block.
//! - An unclosed block runs to the end of the response (CommonMark) and is
//!   reported with `closed: false`; as an artifact it is refused (the
//!   response was likely cut off) unless [`ArtifactOptions::include_unclosed`].
//! - A block is left out of the artifacts when any heading it stands under
//!   (its heading and their parents) or the bold label line in force
//!   (`**Implementation notes:**` alone on a line, until the next heading or
//!   label) is one of the excluded headings.
//! - An artifact's content is its blocks' contents joined by a blank line,
//!   ending with a line ending, as a text file does.
//!
//! ```
//! let response = "## Files\n\n```ts\n// src/a.ts\nexport const a = 1;\n```\n\n\
//!                 ## Notes\n\n```ts\n// src/example.ts\nconst demo = a;\n```\n";
//! let artifacts = actionstream::artifacts::artifacts(response);
//! assert_eq!(artifacts.len(), 1);
//! let a = artifacts[0].as_ref().unwrap();
//! assert_eq!((a.path.as_str(), a.content.as_str()), ("src/a.ts", "export const a = 1;\n"));
//! ```

mod artifact;
mod balance;
mod code_block;
mod path;
mod sections;
mod write;

pub use artifact::{
    Artifact, ArtifactError, ArtifactOptions, Artifacts, Refused, DEFAULT_EXCLUDED_SECTIONS,
};
pub use balance::{check_balance, check_balance_with, Dialect, Imbalance, Unterminated};
pub use code_block::{CodeBlock, CodeBlocks};
pub use path::{normalize_path, path_in_line, PathError, MAX_COMPONENT_BYTES, MAX_PATH_BYTES};
pub use sections::{Section, Sections};
pub use write::{OutDir, WriteError};

use crate::{Config, Parser};

/// The code blocks of a whole response, parsed with the default
/// configuration (action blocks are not code blocks).
///
/// ```
/// let blocks = actionstream::artifacts::code_blocks("```typescript\nconst x = 1;\n```\n");
/// assert_eq!(blocks[0].path, None);
/// assert_eq!(blocks[0].content, "const x = 1;");
/// ```
pub fn code_blocks(text: &str) -> Vec<CodeBlock> {
    code_blocks_with(&Config::default(), text)
}

/// [`code_blocks`] with a parser configuration.
///
/// ```
/// let config = actionstream::Config::default().fence_tag("run");
/// let blocks = actionstream::artifacts::code_blocks_with(&config, "```run\n{\"action\": \"x\"}\n```\n");
/// assert!(blocks.is_empty());
/// ```
pub fn code_blocks_with(config: &Config, text: &str) -> Vec<CodeBlock> {
    scan(config, text, false).0
}

/// The artifacts of a whole response (default parser configuration and
/// [`ArtifactOptions`]), in order of first appearance.
///
/// ```
/// let r = "```ts\n// src/t.ts\nit('one');\n```\n\n```ts\n// src/t.ts\nit('two');\n```\n";
/// let a = actionstream::artifacts::artifacts(r);
/// assert_eq!(a[0].as_ref().unwrap().content, "it('one');\n\nit('two');\n");
/// ```
pub fn artifacts(text: &str) -> Vec<Result<Artifact, Refused>> {
    let mut artifacts = Artifacts::new();
    for block in &code_blocks(text) {
        artifacts.add(block);
    }
    artifacts.finish()
}

/// The Markdown sections of a whole response (headings inside code blocks
/// are not headings).
///
/// ```
/// let s = actionstream::artifacts::sections("# Plan\n```py\n# not a heading\n```\n");
/// assert_eq!(s.len(), 1);
/// assert_eq!(s[0].content, "```py\n# not a heading\n```");
/// ```
pub fn sections(text: &str) -> Sections {
    Sections::new(scan(&Config::default(), text, true).1)
}

fn scan(config: &Config, text: &str, with_sections: bool) -> (Vec<CodeBlock>, Vec<Section>) {
    let mut parser = Parser::new(config.clone());
    let mut tracker = CodeBlocks::new().with_sections(with_sections);
    let mut events = Vec::new();
    let mut blocks = Vec::new();
    parser.push(text, &mut events);
    parser.finish(&mut events);
    for e in &events {
        tracker.push_event(e, &mut blocks);
    }
    tracker.finish(&mut blocks);
    (blocks, tracker.take_sections())
}
