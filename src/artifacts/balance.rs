//! A delimiter balance check for C-family code that is not fooled by
//! strings and comments.

use std::fmt;

/// How strings are written in the code checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// JavaScript and TypeScript: `'…'` and `"…"` strings, template
    /// literals `` `…${expr}…` `` (nesting), regular expression literals
    /// where an operand is expected.
    #[default]
    JavaScript,
    /// C, C++, Java, C#, Go, Rust, …: `"…"` strings, `'x'` character
    /// literals (a `'` that does not close within one character, such as a
    /// Rust lifetime, is a plain character), `` `…` `` raw strings (Go).
    C,
}

impl Dialect {
    /// The dialect for a code block's language, if it is a C-family one.
    ///
    /// ```
    /// use actionstream::artifacts::Dialect;
    /// assert_eq!(Dialect::for_language("tsx"), Some(Dialect::JavaScript));
    /// assert_eq!(Dialect::for_language("rust"), Some(Dialect::C));
    /// assert_eq!(Dialect::for_language("python"), None);
    /// ```
    pub fn for_language(language: &str) -> Option<Dialect> {
        let l = language.to_ascii_lowercase();
        match l.as_str() {
            "js" | "javascript" | "jsx" | "mjs" | "cjs" | "ts" | "typescript" | "tsx" | "mts"
            | "cts" | "json" | "jsonc" | "json5" => Some(Dialect::JavaScript),
            "c" | "h" | "cpp" | "c++" | "cc" | "cxx" | "hpp" | "java" | "cs" | "csharp" | "c#"
            | "go" | "golang" | "rust" | "rs" | "kotlin" | "kt" | "swift" | "scala" | "dart"
            | "php" | "css" | "scss" | "less" | "zig" | "objc" | "objective-c" => Some(Dialect::C),
            _ => None,
        }
    }
}

/// Where an unterminated construct began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unterminated {
    /// A `'…'` or `"…"` string (they end at the line's end).
    String,
    /// A template literal (or a Go raw string).
    TemplateLiteral,
    /// A `/* … */` comment.
    BlockComment,
}

impl fmt::Display for Unterminated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unterminated::String => "string",
            Unterminated::TemplateLiteral => "template literal",
            Unterminated::BlockComment => "block comment",
        })
    }
}

/// The first delimiter problem found. Lines and columns count from 1,
/// columns in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imbalance {
    /// A closer with nothing open.
    Unexpected {
        /// `)`, `]` or `}`.
        found: char,
        /// Its line.
        line: usize,
        /// Its column.
        column: usize,
    },
    /// A closer that does not match the innermost opener.
    Mismatched {
        /// The closer found.
        found: char,
        /// Its line.
        line: usize,
        /// Its column.
        column: usize,
        /// The innermost open delimiter: `(`, `[`, `{` or `${`.
        open: &'static str,
        /// The opener's line.
        open_line: usize,
        /// The opener's column.
        open_column: usize,
    },
    /// An opener still open at the end (the innermost one).
    Unclosed {
        /// `(`, `[`, `{` or `${`.
        open: &'static str,
        /// Its line.
        line: usize,
        /// Its column.
        column: usize,
    },
    /// A string, template literal or comment still open at the end (or a
    /// string at its line's end).
    Unterminated {
        /// What is open.
        what: Unterminated,
        /// Where it began.
        line: usize,
        /// Its column.
        column: usize,
    },
}

impl fmt::Display for Imbalance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Imbalance::Unexpected { found, line, column } => {
                write!(f, "unexpected '{found}' at line {line}, column {column}: nothing is open")
            }
            Imbalance::Mismatched {
                found,
                line,
                column,
                open,
                open_line,
                open_column,
            } => write!(
                f,
                "'{found}' at line {line}, column {column} does not close '{open}' opened at line {open_line}, column {open_column}"
            ),
            Imbalance::Unclosed { open, line, column } => {
                write!(f, "'{open}' opened at line {line}, column {column} is never closed")
            }
            Imbalance::Unterminated { what, line, column } => {
                write!(f, "unterminated {what} starting at line {line}, column {column}")
            }
        }
    }
}

impl std::error::Error for Imbalance {}

/// Checks that `(`, `[`, `{` (and `${` in template literals) are balanced in
/// JavaScript or TypeScript code, skipping strings, template literals,
/// comments and regular expression literals.
///
/// ```
/// use actionstream::artifacts::{check_balance, Imbalance};
///
/// assert_eq!(check_balance("const s = \"}\"; // }\nfn(`${a + `${b}`}`) /* ) */"), Ok(()));
/// assert_eq!(
///     check_balance("if (a) {\n  f(]\n}"),
///     Err(Imbalance::Mismatched { found: ']', line: 2, column: 5, open: "(", open_line: 2, open_column: 4 }),
/// );
/// ```
pub fn check_balance(code: &str) -> Result<(), Imbalance> {
    check_balance_with(code, Dialect::JavaScript)
}

/// Longest regular expression literal looked for, in characters.
const MAX_REGEX: usize = 256;

#[derive(Debug, Clone, Copy)]
struct Pos {
    line: usize,
    column: usize,
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    Delim {
        ch: char,
        at: Pos,
    },
    /// `${` inside the template literal that began at `template`.
    Expr {
        at: Pos,
        template: Pos,
    },
}

#[derive(Debug, Clone, Copy)]
enum Mode {
    Code,
    LineComment,
    BlockComment(Pos),
    Str(char, Pos),
    Template(Pos),
    Raw(Pos),
}

/// Steps over the character after a backslash, counting a line it ends.
fn skip_escaped(next: Option<char>, line: &mut usize, column: &mut usize, i: &mut usize) {
    if next == Some('\n') {
        *line += 1;
        *column = 0;
    } else {
        *column += 1;
    }
    *i += 1;
}

/// [`check_balance`] for a [`Dialect`].
///
/// ```
/// use actionstream::artifacts::{check_balance_with, Dialect};
///
/// let rust = "fn f<'a>(s: &'a str) -> char { let c = '}'; c }";
/// assert_eq!(check_balance_with(rust, Dialect::C), Ok(()));
/// ```
pub fn check_balance_with(code: &str, dialect: Dialect) -> Result<(), Imbalance> {
    let chars: Vec<char> = code.chars().collect();
    let mut stack: Vec<Frame> = Vec::new();
    let mut mode = Mode::Code;
    let (mut line, mut column) = (1usize, 0usize);
    // The last character of code that is not white space (for regexes).
    let mut prev: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
        let here = Pos { line, column };
        i += 1;
        match mode {
            Mode::LineComment => {
                if c == '\n' {
                    mode = Mode::Code;
                }
            }
            Mode::BlockComment(_) => {
                if c == '*' && next == Some('/') {
                    i += 1;
                    column += 1;
                    mode = Mode::Code;
                }
            }
            Mode::Str(q, at) => match c {
                // An escape, or a line continuation.
                '\\' if next.is_some() => skip_escaped(next, &mut line, &mut column, &mut i),
                '\n' => {
                    return Err(Imbalance::Unterminated {
                        what: Unterminated::String,
                        line: at.line,
                        column: at.column,
                    })
                }
                _ if c == q => mode = Mode::Code,
                _ => {}
            },
            Mode::Raw(_) => {
                if c == '`' {
                    mode = Mode::Code;
                }
            }
            Mode::Template(start) => match c {
                '\\' if next.is_some() => skip_escaped(next, &mut line, &mut column, &mut i),
                '`' => mode = Mode::Code,
                '$' if next == Some('{') => {
                    i += 1;
                    column += 1;
                    stack.push(Frame::Expr {
                        at: here,
                        template: start,
                    });
                    mode = Mode::Code;
                    prev = Some('{');
                }
                _ => {}
            },
            Mode::Code => {
                match c {
                    '/' if next == Some('/') => {
                        mode = Mode::LineComment;
                        continue;
                    }
                    '/' if next == Some('*') => {
                        i += 1;
                        column += 1;
                        mode = Mode::BlockComment(here);
                        continue;
                    }
                    '/' if dialect == Dialect::JavaScript && regex_allowed(prev) => {
                        if let Some(len) = regex_len(&chars[i..]) {
                            i += len;
                            column += len;
                            prev = Some('/');
                            continue;
                        }
                    }
                    '"' => mode = Mode::Str('"', here),
                    '\'' if dialect == Dialect::JavaScript => mode = Mode::Str('\'', here),
                    '\'' => {
                        // A character literal closes within one (escaped)
                        // character; anything else is a lifetime or label.
                        if next == Some('\\') {
                            mode = Mode::Str('\'', here);
                        } else if chars.get(i + 1) == Some(&'\'') && next != Some('\n') {
                            i += 2;
                            column += 2;
                        }
                    }
                    '`' if dialect == Dialect::JavaScript => mode = Mode::Template(here),
                    '`' => mode = Mode::Raw(here),
                    '(' | '[' | '{' => stack.push(Frame::Delim { ch: c, at: here }),
                    ')' | ']' | '}' => match stack.pop() {
                        None => {
                            return Err(Imbalance::Unexpected {
                                found: c,
                                line,
                                column,
                            })
                        }
                        Some(Frame::Delim { ch, at }) if closer(ch) != c => {
                            return Err(Imbalance::Mismatched {
                                found: c,
                                line,
                                column,
                                open: opener_str(ch),
                                open_line: at.line,
                                open_column: at.column,
                            })
                        }
                        Some(Frame::Delim { .. }) => {}
                        Some(Frame::Expr { at, template }) => {
                            if c != '}' {
                                return Err(Imbalance::Mismatched {
                                    found: c,
                                    line,
                                    column,
                                    open: "${",
                                    open_line: at.line,
                                    open_column: at.column,
                                });
                            }
                            mode = Mode::Template(template);
                        }
                    },
                    _ => {}
                }
                if !c.is_whitespace() {
                    prev = Some(c);
                }
            }
        }
    }
    let unterminated = |what, at: Pos| Imbalance::Unterminated {
        what,
        line: at.line,
        column: at.column,
    };
    match mode {
        Mode::Str(_, at) => return Err(unterminated(Unterminated::String, at)),
        Mode::Template(at) | Mode::Raw(at) => {
            return Err(unterminated(Unterminated::TemplateLiteral, at))
        }
        Mode::BlockComment(at) => return Err(unterminated(Unterminated::BlockComment, at)),
        Mode::Code | Mode::LineComment => {}
    }
    match stack.pop() {
        None => Ok(()),
        Some(Frame::Delim { ch, at }) => Err(Imbalance::Unclosed {
            open: opener_str(ch),
            line: at.line,
            column: at.column,
        }),
        Some(Frame::Expr { at, .. }) => Err(Imbalance::Unclosed {
            open: "${",
            line: at.line,
            column: at.column,
        }),
    }
}

fn closer(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

fn opener_str(open: char) -> &'static str {
    match open {
        '(' => "(",
        '[' => "[",
        _ => "{",
    }
}

/// Whether a `/` after `prev` begins a regular expression literal.
fn regex_allowed(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(p) => "(,=:[!&|?{};+-*%<>~^".contains(p),
    }
}

/// The length of a regular expression literal's body and closing `/`
/// (after the opening `/`), if one closes on this line within
/// [`MAX_REGEX`] characters.
fn regex_len(rest: &[char]) -> Option<usize> {
    let mut class = false;
    let mut i = 0;
    while i < rest.len() && i < MAX_REGEX {
        match rest[i] {
            '\n' => return None,
            '\\' => i += 1,
            '[' => class = true,
            ']' => class = false,
            '/' if !class => return (i > 0).then_some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes() {
        assert_eq!(check_balance("const r = /[}]/g; f(r)"), Ok(()));
        assert_eq!(check_balance("x = a / b / (c)"), Ok(()));
    }

    #[test]
    fn unexpected() {
        assert_eq!(
            check_balance("a)\n"),
            Err(Imbalance::Unexpected {
                found: ')',
                line: 1,
                column: 2
            })
        );
    }
}
