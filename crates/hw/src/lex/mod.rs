//! The token layer the npusim descriptor languages share (the Cerebras tensor access
//! expression, the Furiosa m-notation, and next the CSL front end), built on [`logos`].
//!
//! [`lex`] turns a text into [`Lexeme`]s: a [`Token`] kind, the text it covers and its
//! [`Span`] (byte offsets and the 1-based character column the parsers report). The token set
//! is the union of what the languages use; each parser converts the lexemes it accepts into its
//! own tokens and refuses the others in the same left-to-right pass, so the first problem in
//! the text is the one reported. A character no token starts with is a [`LexError`] naming
//! its column and the character.
//!
//! Numbers are lexed as words (a digit, then letters, digits and `_`), so `0x1F` and `12abc`
//! are each one lexeme; [`Lexeme::unsigned`] reads one as decimal or `0x` hexadecimal with
//! overflow detection, and [`Lexeme::split_decimal`] gives a language of plain decimals its
//! digits and the identifier glued to them (`8abc` is `8` then `abc`).
//!
//! ```
//! use npusim_hw::lex::{Token, lex};
//! let kinds: Vec<Token> = lex("|i|{0x10} -> A[i]").map(|l| l.unwrap().token).collect();
//! assert_eq!(kinds[..4], [Token::Bar, Token::Ident, Token::Bar, Token::LBrace]);
//! let e = lex("A $ B").find_map(Result::err).unwrap();
//! assert_eq!((e.column, e.text.as_str()), (3, "$"));
//! ```
//!
//! # Growing the token set (the CSL front end)
//!
//! A new kind is one more [`Token`] variant: `@builtin` names, string literals and floats are
//! regexes that start with a character no current token starts with (`@`, `"`) or that extend
//! a number word (`1.5e3`, longest match keeps `1` a [`Token::Number`]), so the texts the
//! existing languages accept lex as before, and their parsers already refuse kinds they do not
//! know. Keywords stay [`Token::Ident`]s classified by the parser (a `#[token("fn")]` variant
//! would take the word away from the other languages' identifiers); comments become a variant
//! the CSL parser skips, not a lexer-wide skip, for the same reason.

mod error;
mod lexeme;
mod lexer;
mod token;

pub use error::{LexError, LexErrorKind};
pub use lexeme::{Lexeme, Span};
pub use lexer::{Lexer, end_column, lex};
pub use token::Token;
