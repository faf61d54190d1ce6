//! File paths: the comment line that names a code block's file, and the
//! checks a path passes before anything is written under it.

use std::fmt;

/// Longest path accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest path component accepted, in bytes.
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Labels that may stand before the path: `// File: src/a.ts`.
const LABELS: [&str; 5] = ["file:", "filename:", "file name:", "path:", "filepath:"];

/// Extensions a `# path` line must end with in a Markdown block, where
/// `# Title` is a heading.
const DOC_EXTENSIONS: [&str; 7] = ["md", "mdx", "markdown", "txt", "rst", "adoc", "org"];

/// Reads the file path named by a code block's first content line, if it
/// names one.
///
/// Accepted forms (the path is one token, without white space):
/// `// path`, `# path`, `-- path`, `/* path */`, `<!-- path -->`, each also
/// with a label (`// File: path`, `# Path: path`). Without a label the token
/// must look like a file: it has a `/` (or `\`), or its last component has
/// an extension (`main.rs`, `.env`). In a Markdown block (`language` is
/// `markdown`, `md` or `mdx`), a `# token` line without a slash is a path
/// only with a document extension (`# README.md`), since `# Node.js` there
/// is a heading. URLs are not paths.
///
/// The path is returned as written; check it with [`normalize_path`].
///
/// ```
/// use actionstream::artifacts::path_in_line;
///
/// assert_eq!(path_in_line("// src/utils/helper.ts", "typescript"), Some("src/utils/helper.ts"));
/// assert_eq!(path_in_line("// File: Makefile", "make"), Some("Makefile"));
/// assert_eq!(path_in_line("<!-- docs/intro.md -->", "html"), Some("docs/intro.md"));
/// assert_eq!(path_in_line("# main.py", "python"), Some("main.py"));
/// assert_eq!(path_in_line("# Title", "markdown"), None);
/// assert_eq!(path_in_line("// add two numbers", "ts"), None);
/// ```
pub fn path_in_line<'a>(line: &'a str, language: &str) -> Option<&'a str> {
    let line = line.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\r');
    let (body, hash) = if let Some(rest) = line.strip_prefix("<!--") {
        (rest.strip_suffix("-->")?, false)
    } else if let Some(rest) = line.strip_prefix("/*") {
        (rest.strip_suffix("*/")?, false)
    } else if let Some(rest) = line.strip_prefix("//") {
        (spaced(rest)?, false)
    } else if let Some(rest) = line.strip_prefix("--") {
        (spaced(rest)?, false)
    } else if let Some(rest) = line.strip_prefix('#') {
        (spaced(rest)?, true)
    } else {
        return None;
    };
    let body = body.trim_matches(|c: char| c == ' ' || c == '\t');
    let (labelled, token) = match strip_label(body) {
        Some(rest) => (true, rest.trim_start_matches([' ', '\t'])),
        None => (false, body),
    };
    let token = unquote(token);
    if token.is_empty() || token.contains(char::is_whitespace) || is_url(token) {
        return None;
    }
    if token.ends_with(['.', ',', ':', ';', '!', '?']) || !token.contains(char::is_alphanumeric) {
        return None;
    }
    if labelled {
        return Some(token);
    }
    let slash = token.contains(['/', '\\']);
    let ext = extension(token);
    let markdown = matches!(language, "markdown" | "md" | "mdx");
    let ok = if hash && markdown && !slash {
        ext.is_some_and(|e| DOC_EXTENSIONS.iter().any(|d| e.eq_ignore_ascii_case(d)))
    } else {
        slash || ext.is_some()
    };
    ok.then_some(token)
}

/// The rest after a comment marker, which must be followed by white space.
fn spaced(rest: &str) -> Option<&str> {
    rest.starts_with([' ', '\t']).then_some(rest)
}

fn strip_label(body: &str) -> Option<&str> {
    LABELS.iter().find_map(|label| {
        let head = body.get(..label.len())?;
        head.eq_ignore_ascii_case(label)
            .then(|| &body[label.len()..])
    })
}

/// Drops one pair of surrounding backticks or quotes.
fn unquote(token: &str) -> &str {
    for q in ['`', '"', '\''] {
        if let Some(inner) = token.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return inner;
        }
    }
    token
}

fn is_url(token: &str) -> bool {
    token.contains("://") || token.starts_with("www.") || token.starts_with("mailto:")
}

/// The extension of the token's last component: 1 to 16 characters of
/// letters, digits, `_`, `+` or `-`, with at least one letter.
fn extension(token: &str) -> Option<&str> {
    let last = token.rsplit(['/', '\\']).next().unwrap_or(token);
    let dot = last.rfind('.')?;
    let ext = &last[dot + 1..];
    let ok = (1..=16).contains(&ext.len())
        && ext
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    ok.then_some(ext)
}

/// Why a path is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The path is empty (or only `.` and `/`).
    Empty,
    /// The path holds a control character (NUL, a line ending, …).
    ControlCharacter,
    /// The path starts with `/` or `\` (absolute, or a `\\server` share).
    Absolute,
    /// The path starts with a drive (`C:`), or holds a `:` elsewhere.
    Drive,
    /// The path has a `..` component.
    Parent,
    /// The path ends with a separator: it names a directory.
    Directory,
    /// The path, or one of its components, is too long.
    TooLong,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathError::Empty => "the path is empty",
            PathError::ControlCharacter => "the path holds a control character",
            PathError::Absolute => "the path is absolute; only relative paths are written",
            PathError::Drive => "the path names a drive or holds a ':'",
            PathError::Parent => "the path has a '..' component",
            PathError::Directory => "the path ends with a separator: it names a directory",
            PathError::TooLong => "the path is too long",
        })
    }
}

impl std::error::Error for PathError {}

/// Checks a path and returns it normalised: `\` read as `/`, `./` and
/// empty components dropped (`a//b` is `a/b`).
///
/// Refused: empty paths, control characters, absolute paths (`/x`, `\x`,
/// `\\server\x`), drives and other colons (`C:\x`, `C:/x`, `a:b`), `..`
/// components, a trailing separator, over-long paths.
///
/// ```
/// use actionstream::artifacts::{normalize_path, PathError};
///
/// assert_eq!(normalize_path("./src//lib.rs"), Ok("src/lib.rs".to_string()));
/// assert_eq!(normalize_path("src\\main.rs"), Ok("src/main.rs".to_string()));
/// assert_eq!(normalize_path("../x"), Err(PathError::Parent));
/// assert_eq!(normalize_path("/etc/passwd"), Err(PathError::Absolute));
/// assert_eq!(normalize_path("C:\\x"), Err(PathError::Drive));
/// ```
pub fn normalize_path(path: &str) -> Result<String, PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    if path.chars().any(char::is_control) {
        return Err(PathError::ControlCharacter);
    }
    if path.starts_with(['/', '\\']) {
        return Err(PathError::Absolute);
    }
    if path.contains(':') {
        return Err(PathError::Drive);
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong);
    }
    let unified = path.replace('\\', "/");
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathError::Parent),
            p if p.len() > MAX_COMPONENT_BYTES => return Err(PathError::TooLong),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(PathError::Empty);
    }
    if unified.ends_with('/') {
        return Err(PathError::Directory);
    }
    Ok(parts.join("/"))
}
