//! Parser of CSL tensor access expressions: `|i, j|{5, 5} -> A[2 * i + j]`.
//!
//! Grammar (whitespace anywhere between tokens):
//!
//! ```text
//! access  := '|' ident (',' ident)* '|' '{' expr (',' expr)* '}' '->' ident '[' expr (',' expr)* ']'
//! expr    := term (('+' | '-') term)*
//! term    := unary ('*' unary)*
//! unary   := ('-' | '+') unary | atom
//! atom    := integer | ident | '(' expr ')'
//! ```
//!
//! Integers are decimal or `0x` hexadecimal. Every expression must be affine: a product needs a
//! constant factor. Lengths are constants; index expressions use the induction variables.

use std::fmt;
use std::str::FromStr;

use npusim_hw::lex::{self, Token};

use super::error::AccessError;
use super::expr::{Affine, TensorAccess};
use crate::limits::INDUCTION_VARIABLES;

/// Deepest nesting of parentheses and unary signs an expression may have: the parser
/// recurses once per level, so deeper text is refused with [`AccessError::TooDeep`] instead
/// of exhausting the stack (the same policy and number as the Furiosa mapping parser).
pub const MAX_NESTING: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Int(i64),
    Bar,
    LBrace,
    RBrace,
    Arrow,
    LBracket,
    RBracket,
    Comma,
    Plus,
    Minus,
    Star,
    LParen,
    RParen,
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Int(v) => write!(f, "`{v}`"),
            Tok::Bar => f.write_str("`|`"),
            Tok::LBrace => f.write_str("`{`"),
            Tok::RBrace => f.write_str("`}`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::LBracket => f.write_str("`[`"),
            Tok::RBracket => f.write_str("`]`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Plus => f.write_str("`+`"),
            Tok::Minus => f.write_str("`-`"),
            Tok::Star => f.write_str("`*`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

fn syntax(column: usize, expected: &str, found: impl fmt::Display) -> AccessError {
    AccessError::Syntax {
        column,
        expected: expected.to_string(),
        found: found.to_string(),
    }
}

/// Converts the shared lexer's lexemes into this grammar's tokens with their 1-based columns,
/// refusing the kinds it does not use (`/`, `%`, `#`, ...) where they appear.
fn lex(text: &str) -> Result<Vec<(Tok, usize)>, AccessError> {
    let mut out = Vec::new();
    for lexeme in lex::lex(text) {
        let lexeme = lexeme.map_err(|e| syntax(e.column, "a token", format!("`{}`", e.text)))?;
        let column = lexeme.span.column;
        let tok = match lexeme.token {
            Token::Ident => Tok::Ident(lexeme.text.to_string()),
            Token::Number => {
                let value = lexeme
                    .unsigned(i64::MAX.unsigned_abs())
                    .ok()
                    .and_then(|v| i64::try_from(v).ok());
                let word = || format!("`{}`", lexeme.text.replace('_', ""));
                Tok::Int(value.ok_or_else(|| syntax(column, "an integer", word()))?)
            }
            Token::Bar => Tok::Bar,
            Token::LBrace => Tok::LBrace,
            Token::RBrace => Tok::RBrace,
            Token::LBracket => Tok::LBracket,
            Token::RBracket => Tok::RBracket,
            Token::Comma => Tok::Comma,
            Token::Plus => Tok::Plus,
            Token::Star => Tok::Star,
            Token::LParen => Tok::LParen,
            Token::RParen => Tok::RParen,
            Token::Arrow => Tok::Arrow,
            Token::Minus => Tok::Minus,
            _ => {
                return Err(syntax(
                    column,
                    "a token",
                    format!("`{}`", lexeme.first_char()),
                ));
            }
        };
        out.push((tok, column));
    }
    out.push((Tok::End, lex::end_column(text)));
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    /// Induction variables in scope for index expressions (empty while parsing lengths).
    vars: Vec<String>,
    /// Variables declared, for error messages when lengths mention them.
    declared: Vec<String>,
    /// Parentheses and unary signs open around the current token.
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::End, |t| &t.0)
    }

    fn column(&self) -> usize {
        self.toks.get(self.at).map_or(0, |t| t.1)
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.at < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn expect(&mut self, tok: &Tok) -> Result<(), AccessError> {
        if self.peek() == tok {
            self.bump();
            Ok(())
        } else {
            Err(syntax(self.column(), &tok.to_string(), self.peek()))
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, AccessError> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            other => Err(syntax(self.column(), what, other)),
        }
    }

    /// Runs `inner` one nesting level deeper, refusing more than [`MAX_NESTING`] levels.
    fn nested<T>(
        &mut self,
        column: usize,
        inner: impl FnOnce(&mut Self) -> Result<T, AccessError>,
    ) -> Result<T, AccessError> {
        if self.depth >= MAX_NESTING {
            return Err(AccessError::TooDeep {
                column,
                max: MAX_NESTING,
            });
        }
        self.depth += 1;
        let out = inner(self);
        self.depth -= 1;
        out
    }

    fn expr(&mut self) -> Result<Affine, AccessError> {
        let mut acc = self.term()?;
        loop {
            let column = self.column();
            match self.peek() {
                Tok::Plus => {
                    self.bump();
                    let rhs = self.term()?;
                    acc = acc.add(&rhs).ok_or_else(|| overflow(column))?;
                }
                Tok::Minus => {
                    self.bump();
                    let rhs = self.term()?.neg().ok_or_else(|| overflow(column))?;
                    acc = acc.add(&rhs).ok_or_else(|| overflow(column))?;
                }
                _ => return Ok(acc),
            }
        }
    }

    fn term(&mut self) -> Result<Affine, AccessError> {
        let mut acc = self.unary()?;
        while self.peek() == &Tok::Star {
            let column = self.column();
            self.bump();
            let rhs = self.unary()?;
            acc = match (acc.as_constant(), rhs.as_constant()) {
                (Some(k), _) => rhs.scale(k),
                (None, Some(k)) => acc.scale(k),
                (None, None) => return Err(AccessError::NotAffine { column }),
            }
            .ok_or_else(|| overflow(column))?;
        }
        Ok(acc)
    }

    fn unary(&mut self) -> Result<Affine, AccessError> {
        let column = self.column();
        match self.peek() {
            Tok::Minus => {
                self.bump();
                self.nested(column, Self::unary)?
                    .neg()
                    .ok_or_else(|| overflow(column))
            }
            Tok::Plus => {
                self.bump();
                self.nested(column, Self::unary)
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<Affine, AccessError> {
        let column = self.column();
        match self.bump() {
            Tok::Int(v) => Ok(Affine::constant(self.vars.len(), v)),
            Tok::Ident(name) => match self.vars.iter().position(|v| *v == name) {
                Some(k) => Ok(Affine::variable(self.vars.len(), k)),
                None if self.declared.contains(&name) => {
                    Err(AccessError::VariableInLength { position: 0, name })
                }
                None => Err(AccessError::UnknownIdentifier {
                    name,
                    column,
                    variables: self.declared.clone(),
                }),
            },
            Tok::LParen => self.nested(column, |p| {
                let e = p.expr()?;
                p.expect(&Tok::RParen)?;
                Ok(e)
            }),
            other => Err(syntax(
                column,
                "an integer, an induction variable or `(`",
                other,
            )),
        }
    }

    fn list<T>(
        &mut self,
        close: &Tok,
        mut item: impl FnMut(&mut Self, usize) -> Result<T, AccessError>,
    ) -> Result<Vec<T>, AccessError> {
        let mut out = vec![item(self, 0)?];
        while self.peek() == &Tok::Comma {
            self.bump();
            out.push(item(self, out.len())?);
        }
        self.expect(close)?;
        Ok(out)
    }
}

fn overflow(column: usize) -> AccessError {
    AccessError::Overflow {
        what: format!("the expression at column {column}"),
    }
}

/// Parses a tensor access expression.
pub fn parse(text: &str) -> Result<TensorAccess, AccessError> {
    let mut p = Parser {
        toks: lex(text)?,
        at: 0,
        vars: Vec::new(),
        declared: Vec::new(),
        depth: 0,
    };
    p.expect(&Tok::Bar)?;
    let variables = p.list(&Tok::Bar, |p, _| p.ident("an induction variable"))?;
    for (k, v) in variables.iter().enumerate() {
        if variables[..k].contains(v) {
            return Err(AccessError::DuplicateVariable { name: v.clone() });
        }
    }
    INDUCTION_VARIABLES
        .check(variables.len() as i128)
        .map_err(|e| AccessError::limit("tensor access", e))?;
    p.declared = variables.clone();
    p.expect(&Tok::LBrace)?;
    let lengths = p.list(&Tok::RBrace, |p, position| {
        let e = p.expr().map_err(|e| match e {
            AccessError::VariableInLength { name, .. } => {
                AccessError::VariableInLength { position, name }
            }
            other => other,
        })?;
        e.as_constant()
            .ok_or_else(|| AccessError::VariableInLength {
                position,
                name: String::new(),
            })
    })?;
    if lengths.len() != variables.len() {
        return Err(AccessError::LengthCount {
            variables: variables.len(),
            lengths: lengths.len(),
        });
    }
    p.expect(&Tok::Arrow)?;
    let array = p.ident("an array name")?;
    p.vars = variables.clone();
    p.expect(&Tok::LBracket)?;
    let indices = p.list(&Tok::RBracket, |p, _| p.expr())?;
    if p.peek() != &Tok::End {
        return Err(syntax(p.column(), "end of input", p.peek()));
    }
    Ok(TensorAccess {
        variables,
        lengths,
        array,
        indices,
    })
}

impl FromStr for TensorAccess {
    type Err = AccessError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s)
    }
}
