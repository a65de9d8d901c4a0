//! One lexed token with its text and position, and the readers of number words.

use std::num::IntErrorKind;

use super::error::{LexError, LexErrorKind};
use super::token::Token;

/// Where a lexeme sits in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset just past the last byte.
    pub end: usize,
    /// 1-based character (not byte) column of the first character.
    pub column: usize,
}

/// A token of a text: its kind, the text it covers and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lexeme<'s> {
    /// The token kind.
    pub token: Token,
    /// The text the token covers.
    pub text: &'s str,
    /// Where that text is.
    pub span: Span,
}

impl<'s> Lexeme<'s> {
    /// The first character of the text, the one a parser names when it refuses the token.
    pub fn first_char(&self) -> char {
        self.text.chars().next().unwrap_or(' ')
    }

    /// An error about this lexeme's text.
    pub fn error(&self, kind: LexErrorKind) -> LexError {
        LexError {
            column: self.span.column,
            text: self.text.to_string(),
            kind,
        }
    }

    /// Reads a number word as an unsigned integer no larger than `max`: decimal, or
    /// hexadecimal after `0x`/`0X`; `_` separates digits anywhere and is ignored.
    ///
    /// ```
    /// use npusim_hw::lex::{LexErrorKind, lex};
    /// let read = |t: &str, max| lex(t).next().unwrap().unwrap().unsigned(max);
    /// assert_eq!(read("1_000", u64::MAX), Ok(1000));
    /// assert_eq!(read("0x1F", u64::MAX), Ok(31));
    /// assert_eq!(read("256", 255).unwrap_err().kind, LexErrorKind::IntegerTooLarge { max: 255 });
    /// assert_eq!(read("12abc", u64::MAX).unwrap_err().kind, LexErrorKind::MalformedInteger);
    /// ```
    pub fn unsigned(&self, max: u64) -> Result<u64, LexError> {
        let digits: String = self.text.chars().filter(|&c| c != '_').collect();
        let (body, radix) = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => (hex, 16),
            None => (digits.as_str(), 10),
        };
        // `from_str_radix` takes a leading sign; a number word never has one, but a `+` here
        // would be read, so only digits go through.
        if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
            return Err(self.error(LexErrorKind::MalformedInteger));
        }
        match u64::from_str_radix(body, radix) {
            Ok(v) if v <= max => Ok(v),
            Ok(_) => Err(self.error(LexErrorKind::IntegerTooLarge { max })),
            Err(e) if *e.kind() == IntErrorKind::PosOverflow => {
                Err(self.error(LexErrorKind::IntegerTooLarge { max }))
            }
            Err(_) => Err(self.error(LexErrorKind::MalformedInteger)),
        }
    }

    /// Splits a number word for a language of plain decimal numbers: its leading digits and
    /// `_` (the number), and the identifier glued to them if any (`8abc` is `8` then `abc`,
    /// `0x10` is `0` then `x10`). Any other lexeme comes back whole.
    ///
    /// ```
    /// use npusim_hw::lex::{Token, lex};
    /// let word = lex("A 8_abc").nth(1).unwrap().unwrap();
    /// let (number, rest) = word.split_decimal();
    /// assert_eq!((number.text, number.span.column), ("8_", 3));
    /// let rest = rest.unwrap();
    /// assert_eq!((rest.token, rest.text, rest.span.column), (Token::Ident, "abc", 5));
    /// ```
    pub fn split_decimal(self) -> (Lexeme<'s>, Option<Lexeme<'s>>) {
        if self.token != Token::Number {
            return (self, None);
        }
        let cut = self
            .text
            .find(|c: char| !(c.is_ascii_digit() || c == '_'))
            .unwrap_or(self.text.len());
        if cut == self.text.len() {
            return (self, None);
        }
        let (digits, rest) = self.text.split_at(cut);
        let number = Lexeme {
            text: digits,
            span: Span {
                end: self.span.start + cut,
                ..self.span
            },
            ..self
        };
        // The digits are ASCII: one column per byte.
        let ident = Lexeme {
            token: Token::Ident,
            text: rest,
            span: Span {
                start: self.span.start + cut,
                end: self.span.end,
                column: self.span.column + cut,
            },
        };
        (number, Some(ident))
    }
}
