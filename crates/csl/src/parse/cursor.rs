//! The parser's cursor over the tokens: looking ahead, expecting, naming what was found,
//! and the nesting limit.

use super::{MAX_NESTING, ParseError};
use crate::lex::{Tok, Token};
use crate::span::Span;

/// A result of the parser.
pub(super) type PResult<T> = Result<T, ParseError>;

/// Parser state: the text, its tokens (comments removed) and the position.
pub(super) struct Parser<'s> {
    pub(super) text: &'s str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Set while parsing a function's return type, where `{` starts the body and not a
    /// typed literal.
    pub(super) no_brace_init: bool,
}

impl<'s> Parser<'s> {
    pub(super) fn new(text: &'s str, tokens: Vec<Token>) -> Parser<'s> {
        Parser {
            text,
            tokens,
            pos: 0,
            depth: 0,
            no_brace_init: false,
        }
    }

    /// The kind of the current token, `None` at the end.
    pub(super) fn peek(&self) -> Option<Tok> {
        self.tokens.get(self.pos).map(|t| t.tok)
    }

    /// The kind of the token `n` after the current one.
    pub(super) fn peek_at(&self, n: usize) -> Option<Tok> {
        self.tokens.get(self.pos + n).map(|t| t.tok)
    }

    /// Whether the current token is `tok`.
    pub(super) fn at(&self, tok: Tok) -> bool {
        self.peek() == Some(tok)
    }

    /// The span of the current token (an empty span at the end of the text at the end).
    pub(super) fn span(&self) -> Span {
        self.tokens
            .get(self.pos)
            .map_or(Span::new(self.text.len(), self.text.len()), |t| t.span)
    }

    /// The span of the previous token.
    pub(super) fn prev_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|p| self.tokens.get(p))
            .map_or(Span::default(), |t| t.span)
    }

    /// The text of the current token.
    pub(super) fn slice(&self) -> &'s str {
        let span = self.span();
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// Moves past the current token and returns its span.
    pub(super) fn bump(&mut self) -> Span {
        let span = self.span();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        span
    }

    /// Moves past the current token if it is `tok`.
    pub(super) fn eat(&mut self, tok: Tok) -> bool {
        if self.at(tok) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// How the current token is named in an error: its text for names and literals.
    pub(super) fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".to_string(),
            Some(Tok::Ident | Tok::Builtin | Tok::Int | Tok::Float | Tok::Str | Tok::Char) => {
                let text = self.slice();
                let short: String = text.chars().take(40).collect();
                if short.len() < text.len() {
                    format!("`{short}...`")
                } else {
                    format!("`{short}`")
                }
            }
            Some(tok) => tok.describe().to_string(),
        }
    }

    /// An error at the current token: "expected WHAT, found ...".
    pub(super) fn expected(&self, what: &str) -> ParseError {
        ParseError::new(
            self.span(),
            format!("expected {what}, found {}", self.found()),
        )
    }

    /// Moves past `tok` or fails with "expected `tok` CONTEXT, found ...".
    pub(super) fn expect(&mut self, tok: Tok, context: &str) -> PResult<Span> {
        if self.at(tok) {
            Ok(self.bump())
        } else if context.is_empty() {
            Err(self.expected(tok.describe()))
        } else {
            Err(self.expected(&format!("{} {context}", tok.describe())))
        }
    }

    /// Moves past an identifier and returns its text and span.
    pub(super) fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        if self.at(Tok::Ident) {
            let name = self.slice().to_string();
            Ok((name, self.bump()))
        } else {
            Err(self.expected(what))
        }
    }

    /// Runs `f` one nesting level deeper, refusing to go past [`MAX_NESTING`].
    pub(super) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(ParseError::new(
                self.span(),
                format!("nesting is deeper than {MAX_NESTING} levels"),
            ));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// Parses `item (',' item)* ','?` up to and including `close`.
    pub(super) fn list<T>(
        &mut self,
        close: Tok,
        context: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(items);
            }
            items.push(item(self)?);
            if !self.eat(Tok::Comma) {
                self.expect(close, context)?;
                return Ok(items);
            }
        }
    }
}
