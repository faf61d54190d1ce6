//! What the reader says when it refuses input: where it is, what it
//! expected, what came.

use super::*;

impl PyCalls {
    /// Where the reader is, for messages: `in argument `a` of call `f``.
    pub(super) fn place(&self) -> String {
        format!(
            "in argument `{}` of call `{}`",
            short(&self.arg),
            short(&self.name)
        )
    }

    /// What the reader expects next, for messages.
    pub(super) fn expected(&self) -> String {
        let closer = match self.stack.last() {
            Some(Frame::List(_)) => "`]`",
            Some(Frame::Tuple { .. }) => "`)`",
            Some(Frame::Dict { .. }) => "`}`",
            None => "`)`",
        };
        match self.st {
            St::Begin => match self.mode {
                PyMode::List => "`[` to open a list of calls".into(),
                PyMode::Call => "a call (`name(…)`)".into(),
            },
            St::Items => "a call (`name(…)`) or `]` in the list of calls".into(),
            St::Name | St::NameEnd => format!("`(` after call name `{}`", short(&self.name)),
            St::ListAfter => format!("`,` or `]` after call `{}`", short(&self.name)),
            St::ArgStart => format!(
                "an argument (`name=value`) or `)` in call `{}`",
                short(&self.name)
            ),
            St::ArgName | St::ArgEq => format!(
                "`=` after argument name `{}` in call `{}`",
                short(&self.arg),
                short(&self.name)
            ),
            St::ArgAfter => format!(
                "`,` or `)` after argument `{}` in call `{}`",
                short(&self.arg),
                short(&self.name)
            ),
            St::Value { close } if self.stack.is_empty() || !close => {
                format!("a value {}", self.place())
            }
            St::Value { .. } => format!("a value or {closer} {}", self.place()),
            St::Key { close } => format!(
                "a string key{} in a dict {}",
                if close { " or `}`" } else { "" },
                self.place()
            ),
            St::Colon => format!("`:` after a dict key {}", self.place()),
            St::Quote { q, n: 1, .. }
            | St::Str {
                q, triple: false, ..
            } => {
                format!(
                    "the closing `{}` of a string {}",
                    char::from(q),
                    self.place()
                )
            }
            St::Str {
                q, triple: true, ..
            } => {
                let q = char::from(q);
                format!("the closing `{q}{q}{q}` of a string {}", self.place())
            }
            // A value that may be whole: what must follow it.
            St::Word | St::BareName | St::Num | St::Quote { .. } | St::StrEnd | St::After => {
                if self.stack.is_empty() {
                    format!(
                        "`,` or `)` after argument `{}` in call `{}`",
                        short(&self.arg),
                        short(&self.name)
                    )
                } else {
                    format!("`,` or {closer} {}", self.place())
                }
            }
            St::Done | St::Failed => "nothing more".into(),
        }
    }

    /// `expected …, found …` (`feed` names what was found).
    pub(super) fn unexpected(&self) -> String {
        format!("expected {}, found {FOUND}", self.expected())
    }

    pub(super) fn nested_call(&self) -> String {
        format!(
            "a call `{}(…)` {} is not read: calls inside arguments are refused (write the value as a literal)",
            short(&self.word),
            self.place()
        )
    }

    pub(super) fn bare_name(&self) -> String {
        format!(
            "a name `{}` {} where a value was expected: a Python literal (a string, a number, `True`, `False`, `None`, a list, a tuple or a dict)",
            short(&self.word),
            self.place()
        )
    }
}
