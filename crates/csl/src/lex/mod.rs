//! The CSL lexer: [`lex`] turns a source text into [`Token`]s (a [`Tok`] kind and its byte
//! [`Span`]), built on [`logos`].
//!
//! Besides what the token regexes say, a number must not run into letters or digits that are
//! not its own (`12abc`, `0x`, `0b12`, `1.5f`): that is a [`LexError`] on the whole word, as
//! in Zig, rather than a number followed by an identifier.

mod token;

use logos::Logos;
use thiserror::Error;

use crate::span::Span;
pub use token::Tok;

/// A token: its kind and where its text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    /// The kind.
    pub tok: Tok,
    /// The bytes it covers.
    pub span: Span,
}

/// Why a text does not lex.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LexError {
    /// A character no token starts with (or an unterminated string or character literal).
    #[error("unexpected character `{text}`")]
    UnexpectedCharacter {
        /// The character.
        text: String,
        /// Where it is.
        span: Span,
    },
    /// A string literal without its closing quote on the same line.
    #[error("string literal is not closed on its line")]
    UnterminatedString {
        /// Where the string starts.
        span: Span,
    },
    /// A number glued to letters or digits it cannot contain.
    #[error("`{text}` is not a number: invalid digit or suffix")]
    MalformedNumber {
        /// The whole word.
        text: String,
        /// Where it is.
        span: Span,
    },
}

impl LexError {
    /// Where the problem is.
    pub fn span(&self) -> Span {
        match self {
            LexError::UnexpectedCharacter { span, .. }
            | LexError::UnterminatedString { span }
            | LexError::MalformedNumber { span, .. } => *span,
        }
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Lexes `text` into its tokens, comments included, stopping at the first error.
///
/// ```
/// use npusim_csl::lex::{Tok, lex};
/// let toks: Vec<Tok> = lex("const x: i16 = 0x1F; // c").unwrap().iter().map(|t| t.tok).collect();
/// assert_eq!(toks, [Tok::Const, Tok::Ident, Tok::Colon, Tok::Ident, Tok::Eq, Tok::Int, Tok::Semi, Tok::Comment]);
/// assert!(lex("var a = 12abc;").is_err());
/// ```
pub fn lex(text: &str) -> Result<Vec<Token>, LexError> {
    let mut out = Vec::new();
    let mut lexer = Tok::lexer(text);
    let bytes = text.as_bytes();
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        match result {
            Ok(tok @ (Tok::Int | Tok::Float)) => {
                // The word the number is part of: everything alphanumeric after it, and a
                // fraction glued to an integer's dot is already part of a float token.
                let mut end = range.end;
                while end < bytes.len() && is_word_byte(bytes[end]) {
                    end += 1;
                }
                if end != range.end {
                    return Err(LexError::MalformedNumber {
                        text: text[range.start..end].to_string(),
                        span: Span::new(range.start, end),
                    });
                }
                out.push(Token { tok, span });
            }
            Ok(tok) => out.push(Token { tok, span }),
            Err(()) => {
                let rest = &text[range.start..];
                if rest.starts_with('"') {
                    return Err(LexError::UnterminatedString { span });
                }
                let c = rest.chars().next().unwrap_or(' ');
                return Err(LexError::UnexpectedCharacter {
                    text: c.to_string(),
                    span: Span::new(range.start, range.start + c.len_utf8()),
                });
            }
        }
    }
    Ok(out)
}
