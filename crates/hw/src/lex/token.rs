//! The token kinds of the shared lexer.

use logos::Logos;

/// A token kind: the union of what the descriptor languages use. Whitespace (Unicode
/// `White_Space`, as [`char::is_whitespace`]) separates tokens and is skipped.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"\s+")]
pub enum Token {
    /// An ASCII identifier: a letter or `_`, then letters, digits and `_`.
    #[regex("[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// A number word: a digit, then letters, digits and `_` (`42`, `1_000`, `0x1F`, `12abc`);
    /// see [`Lexeme::unsigned`](super::Lexeme::unsigned).
    #[regex("[0-9][A-Za-z0-9_]*")]
    Number,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `,`
    #[token(",")]
    Comma,
    /// `:`
    #[token(":")]
    Colon,
    /// `|`
    #[token("|")]
    Bar,
    /// `->`
    #[token("->")]
    Arrow,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `#`
    #[token("#")]
    Hash,
    /// `=`
    #[token("=")]
    Eq,
    /// `!`
    #[token("!")]
    Bang,
}
