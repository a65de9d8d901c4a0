//! The lexing loop: [`logos`] tokens with character columns, stopping at the first error.

use logos::Logos;

use super::error::{LexError, LexErrorKind};
use super::lexeme::{Lexeme, Span};
use super::token::Token;

/// The lexemes of a text, in order; yields one [`LexError`] at the first character no token
/// starts with, then ends.
pub struct Lexer<'s> {
    inner: logos::Lexer<'s, Token>,
    text: &'s str,
    /// Byte offset whose character column is `column`.
    offset: usize,
    /// 1-based character column of the byte at `offset`.
    column: usize,
    failed: bool,
}

/// Lexes `text` (see the [module documentation](super)).
pub fn lex(text: &str) -> Lexer<'_> {
    Lexer {
        inner: Token::lexer(text),
        text,
        offset: 0,
        column: 1,
        failed: false,
    }
}

/// The column just past the last character of `text`, where parsers report "end of input".
pub fn end_column(text: &str) -> usize {
    text.chars().count() + 1
}

impl<'s> Lexer<'s> {
    /// The 1-based character column of byte offset `at` (never before the previous one asked).
    fn column_of(&mut self, at: usize) -> usize {
        let skipped = self
            .text
            .get(self.offset..at)
            .map_or(0, |s| s.chars().count());
        self.column += skipped;
        self.offset = at;
        self.column
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Result<Lexeme<'s>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let token = self.inner.next()?;
        let range = self.inner.span();
        let column = self.column_of(range.start);
        match token {
            Ok(token) => Some(Ok(Lexeme {
                token,
                text: self.inner.slice(),
                span: Span {
                    start: range.start,
                    end: range.end,
                    column,
                },
            })),
            Err(()) => {
                self.failed = true;
                let text = self.text.get(range.start..).and_then(|s| s.chars().next());
                Some(Err(LexError {
                    column,
                    text: text.map(String::from).unwrap_or_default(),
                    kind: LexErrorKind::UnexpectedCharacter,
                }))
            }
        }
    }
}
