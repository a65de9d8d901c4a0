//! What the shared lexer refuses.

use std::fmt;

use thiserror::Error;

/// Why a text is not a token or a number word is not a usable integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexErrorKind {
    /// A character no token starts with.
    UnexpectedCharacter,
    /// A number word that is not decimal or `0x` hexadecimal digits (`12abc`, `0x`).
    MalformedInteger,
    /// An integer larger than the largest value the reader accepts.
    IntegerTooLarge {
        /// The largest value accepted.
        max: u64,
    },
}

/// A lexing failure: what, where (1-based character column) and the offending text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct LexError {
    /// 1-based character column where the offending text starts.
    pub column: usize,
    /// The offending text: the character, or the number word as written.
    pub text: String,
    /// What is wrong with it.
    pub kind: LexErrorKind,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (column, text) = (self.column, &self.text);
        match self.kind {
            LexErrorKind::UnexpectedCharacter => {
                write!(f, "column {column}: unexpected character `{text}`")
            }
            LexErrorKind::MalformedInteger => write!(
                f,
                "column {column}: `{text}` is not a decimal or 0x hexadecimal integer"
            ),
            LexErrorKind::IntegerTooLarge { max } => {
                write!(f, "column {column}: integer `{text}` is larger than {max}")
            }
        }
    }
}
